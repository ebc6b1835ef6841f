#!/usr/bin/env python3
"""Integration tests of animidxd, the watcher daemon.

usage: test_daemon.py ANIMIDX ANIMIDXD AMXGEN

Starts the daemon on temporary roots, databases and sockets, changes the trees the ways editors,
mod installers and file managers do, waits with `animidx sync` after each step and checks the
index through the CLI (TAP on stdout). Every daemon is stopped with SIGTERM and must exit 0 with
its loop empty (under ASan also without leaks). Nothing outside the temporary directory is
written.
"""
import json
import os
import shutil
import signal
import socket
import sqlite3
import subprocess
import sys
import tempfile
import threading
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "e2e"))
from tap import (Tap, Cli, case, canon, diff_rows, short, command, environment,  # noqa: E402
                 run as tap_run, WINDOWS)

if len(sys.argv) < 4:
    sys.stderr.write("usage: test_daemon.py ANIMIDX ANIMIDXD AMXGEN\n")
    sys.exit(2)

ANIMIDX = os.path.abspath(sys.argv[1])
ANIMIDXD = os.path.abspath(sys.argv[2])
AMXGEN = os.path.abspath(sys.argv[3])
# Under /tmp, not $TMPDIR: a Unix socket path may hold at most 107 bytes.
TMP = tempfile.mkdtemp(prefix="amxd-", dir="/tmp")
tap = Tap()
ax = Cli(ANIMIDX, TMP)
ax.env["XDG_RUNTIME_DIR"] = os.path.join(TMP, "run")
gen = Cli(AMXGEN, TMP)
SLOW = 3  # timeouts are scaled for sanitizer builds
DAEMONS = []  # every daemon started, killed at the end if a test left it running
CLEAN_EXIT = "stopped: every handle closed, the loop is empty"
# Windows has no SIGTERM: the daemon stops on Ctrl-C, which wine makes of SIGINT
STOP = signal.SIGINT if WINDOWS else signal.SIGTERM
# A renamed file keeps its row (id and findings) on both systems: inotify pairs a rename's two
# names by its cookie; on Windows, uv_fs_event reports a name gone directly followed by a name
# there, and the daemon takes the two for a rename when the new name's size and mtime are the
# indexed ones of the old (a deletion followed by a new file looks the same, and is not one)

WALKER = ["Root", "Body", "Head", "Gun"]


def has_cli_commands():
    """True when animidx lists status/pause/resume/sync/watch (cli/main.c's command table)."""
    return all(ax.run(c, "--help").returncode == 0 for c in ("status", "sync", "pause", "resume",
                                                            "watch"))


HAVE_CLI = has_cli_commands()


# ---------------------------------------------------------------- helpers

def must(p, what, rc=0):
    """Checks the exit status (rc None: any)."""
    if rc is not None and p.returncode != rc:
        raise AssertionError("%s: exit %d (want %d)\nstderr: %s\nstdout: %s" % (
            what, p.returncode, rc, p.stderr.strip()[:2000], p.stdout.strip()[:1000]))
    return p


def amxgen(*args):
    must(gen.run(*args), "amxgen " + " ".join(map(str, args)))


def model(path, bones, **kw):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    extra = []
    for k, v in kw.items():
        extra += ["--" + k, v]
    amxgen("model", path, "--bones", ",".join(bones), *extra)


def clip(path, bones, indices=None, frames=30, fps=30):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    args = ["clip", path, "--bones", ",".join(bones), "--frames", frames, "--fps", fps]
    if indices is not None:
        args += ["--indices", ",".join(map(str, indices))]
    amxgen(*args)


def clip_bytes(bones, frames=30, indices=None):
    """The bytes of a clip (written by amxgen to a scratch file)."""
    p = os.path.join(TMP, "scratch.ala")
    clip(p, bones, indices=indices, frames=frames)
    with open(p, "rb") as f:
        return f.read()


def write(path, data):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "wb") as f:
        f.write(data)


def wait_for(cond, timeout, step=0.05):
    end = time.time() + timeout
    while True:
        v = cond()
        if v or time.time() > end:
            return v
        time.sleep(step)


class Daemon:
    """One animidxd on its own root(s), database, socket, config and log."""

    def __init__(self, name, roots, db=None, **daemon_keys):
        self.dir = os.path.join(TMP, name)
        os.makedirs(self.dir, exist_ok=True)
        self.roots = roots
        self.db = db or os.path.join(self.dir, "index.db")
        # Windows: a named pipe (the endpoint of animidxd there), one per test run and daemon
        self.sock = ("//./pipe/amxd-%d-%s" % (os.getpid(), name) if WINDOWS
                     else os.path.join(self.dir, "d.sock"))
        self.log_path = daemon_keys.get("log", os.path.join(self.dir, "daemon.log"))
        self.cfg = os.path.join(self.dir, "animidx.ini")
        self.keys = {"socket": self.sock, "settle_ms": 50, "log_level": "debug",
                     "log": self.log_path, "reconcile_interval_s": 3600}
        self.keys.update(daemon_keys)
        self.write_config()
        self.proc = None
        self.log_offset = 0

    def write_config(self, **changes):
        self.keys.update(changes)
        lines = ["[index]", "database = " + self.db, "[scan]", "roots = " + ", ".join(self.roots),
                 "[daemon]"]
        lines += ["%s = %s" % (k, v) for k, v in self.keys.items()]
        with open(self.cfg, "w") as f:
            f.write("\n".join(lines) + "\n")

    def start(self, *args, exe=None, wait=True):
        self.log_offset = os.path.getsize(self.log_path) if os.path.exists(self.log_path) else 0
        cmd = exe or [ANIMIDXD, "--config", self.cfg, "--foreground"]
        self.stderr = open(os.path.join(self.dir, "stderr.txt"), "ab")
        # Windows: a console of its own (a process group here), so that Ctrl-C reaches every
        # process of it, as a console's does ('animidx watch' and the daemon it runs)
        self.proc = subprocess.Popen(command(cmd[0], cmd[1:] + list(args)), env=environment(ax.env),
                                     cwd=self.dir, stdout=self.stderr, stderr=self.stderr,
                                     start_new_session=WINDOWS)
        if self not in DAEMONS:
            DAEMONS.append(self)
        if wait:
            ok = wait_for(lambda: not self.alive() or self.try_request("status"), 60 * SLOW)
            if not ok or not self.alive():
                raise AssertionError("animidxd did not start (exit status %s):\n%s" % (
                    self.proc.poll(), self.log()[-3000:]))
        return self

    def pid(self):
        """The daemon's process id as it gives it (Windows: its own; wine's Unix one differs)."""
        return int(self.status().get("pid", 0)) if WINDOWS else self.proc.pid

    def alive(self):
        return self.proc is not None and self.proc.poll() is None

    def try_request(self, cmd):
        try:
            return self.request(cmd, timeout=5)
        except OSError:
            return None

    def request(self, cmd, timeout=120 * SLOW):
        """One request over the socket, the protocol spoken directly (Windows: through the CLI,
        which prints the reply with --json; Python here cannot open wine's named pipe)."""
        if WINDOWS:
            try:
                p = ax.run(cmd, "--json", "--config", self.cfg, timeout=timeout)
            except subprocess.TimeoutExpired as e:
                raise OSError("animidx %s: no reply in %d s" % (cmd, timeout)) from e
            if not p.stdout.strip():
                raise OSError("animidx %s: exit %d: %s" % (cmd, p.returncode, p.stderr.strip()))
            return json.loads(p.stdout)
        s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        s.settimeout(timeout)
        try:
            s.connect(self.sock)
            s.sendall((json.dumps({"cmd": cmd}) + "\n").encode())
            buf = b""
            while not buf.endswith(b"\n"):
                chunk = s.recv(65536)
                if not chunk:
                    break
                buf += chunk
        finally:
            s.close()
        return json.loads(buf.decode())

    def cli(self, *args, rc=0, timeout=180 * SLOW):
        return must(ax.run(*args, "--config", self.cfg, timeout=timeout),
                    "animidx " + " ".join(map(str, args)), rc)

    def sync(self):
        """Waits until every change made so far is indexed (animidx sync)."""
        if HAVE_CLI:
            self.cli("sync", "--quiet")
        else:
            r = self.request("sync")
            if not r.get("ok"):
                raise AssertionError("sync: %s" % r)

    def status(self):
        if HAVE_CLI:
            return json.loads(self.cli("status", "--json").stdout)
        return self.request("status")

    def query(self, *args, rc=0):
        p = self.cli(*args, "--json", rc=rc)
        return json.loads(p.stdout) if p.stdout.strip() else None

    def stop(self, sig=STOP, timeout=120):
        """Stops the daemon; returns its exit status."""
        if not self.proc:
            return None
        if self.proc.poll() is not None:
            pass  # it has exited ('animidx stop'): its status is collected
        elif WINDOWS:
            os.killpg(self.proc.pid, sig)
        else:
            self.proc.send_signal(sig)
        try:
            rc = self.proc.wait(timeout * SLOW)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            rc = self.proc.wait()
            raise AssertionError("animidxd did not stop within %d s after signal %d:\n%s" % (
                timeout * SLOW, sig, self.log()[-3000:]))
        finally:
            self.stderr.close()
        self.proc = None
        return rc

    def log(self):
        try:
            with open(self.log_path, errors="replace") as f:
                f.seek(self.log_offset)
                text = f.read()
        except OSError:
            text = ""
        try:
            with open(os.path.join(self.dir, "stderr.txt"), errors="replace") as f:
                err = f.read()
        except OSError:
            err = ""
        return text + ("\n[stderr]\n" + err if err.strip() else "")

    def check_clean_stop(self, c, sig=STOP):
        rc = self.stop(sig)
        c.eq(rc, 0, "exit status after %s" % signal.Signals(sig).name)
        log = self.log()
        c.that(CLEAN_EXIT in log, "the log lacks %r:\n%s" % (CLEAN_EXIT, log[-2000:]))
        for bad in ("AddressSanitizer", "LeakSanitizer", "runtime error:"):
            c.that(bad not in log, "sanitizer report in the log:\n" + log[-4000:])
        if not WINDOWS:  # a named pipe goes with its last handle
            c.that(not os.path.exists(self.sock), "the socket file is left behind")


def paths_in(db, prefix=""):
    """Indexed paths (files and archive members) straight from the database."""
    con = sqlite3.connect(db)
    try:
        return sorted(r[0] for r in con.execute(
            "SELECT path FROM files WHERE path = ?1 OR substr(path, 1, length(?1) + 1) = ?1 || '/' "
            "OR ?1 = ''", (prefix,)))
    finally:
        con.close()


def db_rows(db):
    """What a fresh scan must agree with: files, clips and findings, with paths for ids."""
    con = sqlite3.connect(db)
    try:
        out = {}
        out["files"] = sorted(con.execute(
            "SELECT r.path, f.path, f.size, f.mtime_ns, f.hash, f.format, f.status, "
            "coalesce(p.path, '') FROM files f JOIN roots r ON r.id = f.root_id "
            "LEFT JOIN files p ON p.id = f.parent_id"))
        out["clips"] = sorted(con.execute(
            "SELECT f.path, c.name, coalesce(c.skeleton_name, ''), c.bones_missing, "
            "coalesce(c.frames, -1), c.track_count, c.linked FROM clips c "
            "JOIN files f ON f.id = c.file_id"))
        out["skeletons"] = sorted(con.execute(
            "SELECT f.path, s.name, s.bone_count FROM skeletons s JOIN files f ON f.id = s.file_id"))
        out["findings"] = sorted(con.execute(
            "SELECT f.path, i.code, i.severity, i.message, coalesce(i.context, '') "
            "FROM findings i JOIN files f ON f.id = i.file_id"))
        out["refs"] = sorted(con.execute(
            "SELECT f.path, r.kind, r.tag, r.name, coalesce(r.resolution, ''), coalesce(t.path, ''), "
            "r.linked FROM refs r JOIN files f ON f.id = r.file_id "
            "LEFT JOIN files t ON t.id = r.target_id"))
        out["duplicate_paths"] = con.execute(
            "SELECT count(*) FROM (SELECT root_id, path FROM files GROUP BY 1, 2 "
            "HAVING count(*) > 1)").fetchone()[0]
        out["fk_violations"] = len(con.execute("PRAGMA foreign_key_check").fetchall())
        return out
    finally:
        con.close()


def compare_with_fresh_scan(c, d, tag, *scan_args):
    """The daemon's index equals a fresh `animidx scan` of the same roots (scan_args: the
    options the daemon was given, e.g. --follow-links)."""
    fresh = os.path.join(TMP, "fresh-%s.db" % tag)
    for suffix in ("", "-wal", "-shm"):
        if os.path.exists(fresh + suffix):
            os.remove(fresh + suffix)
    for r in d.roots:
        must(ax.run("scan", r, "--db", fresh, "--json", "--quiet", *scan_args), "fresh scan")
    a, b = db_rows(d.db), db_rows(fresh)
    c.eq(a["duplicate_paths"], 0, "%s: duplicate paths in the daemon's index" % tag)
    c.eq(a["fk_violations"], 0, "%s: foreign key violations" % tag)
    for k in ("files", "skeletons", "clips", "findings", "refs"):
        if a[k] != b[k]:
            sa, sb = set(a[k]), set(b[k])
            c.that(False, "%s: %s differ from a fresh scan (%d vs %d rows)\n  only in the daemon's: "
                          "%s\n  only in the fresh scan's: %s" % (
                              tag, k, len(a[k]), len(b[k]), short(sorted(sa - sb)[:8]),
                              short(sorted(sb - sa)[:8])))
    # and the CLI says the same
    ia = canon(json.loads(must(ax.run("issues", "--db", d.db, "--json"), "issues").stdout))
    ib = canon(json.loads(must(ax.run("issues", "--db", fresh, "--json"), "issues").stdout))
    if ia != ib:
        c.that(False, "%s: 'animidx issues' differs from a fresh scan:\n%s" % (tag, diff_rows(ia, ib)))


def show(d, path, rc=0):
    rows = d.query("show", path, rc=rc)
    return rows or []


def clip_row(d, skel, path):
    rows = [r for r in d.query("clips", "--skeleton", skel) if r["path"] == path]
    return rows[0] if len(rows) == 1 else None


# ---------------------------------------------------------------- the main daemon

ROOT = os.path.join(TMP, "tree")
UNITS = "Data/Art/Units"
MAIN = None


def test_start():
    global MAIN
    with case(tap, "start: the initial scan indexes the tree, status says watching") as c:
        amxgen("demo", ROOT)
        model(os.path.join(ROOT, UNITS, "UV_WALKER.ALO"), WALKER)
        MAIN = Daemon("main", [ROOT]).start()
        MAIN.sync()
        st = MAIN.status()
        c.eq(st.get("ok"), True, "status ok")
        c.eq(st.get("state"), "watching", "state")
        c.eq(st.get("roots"), [os.path.realpath(ROOT)], "roots")
        c.eq(st.get("overflows"), 0, "overflows")
        c.eq(st.get("queue"), 0, "queue depth after sync")
        if WINDOWS:  # uv_fs_event: one recursive watch per root
            c.eq(st.get("watches"), 1, "watches")
        else:
            c.that(st.get("watches", 0) >= 5, "watches: %s" % st.get("watches"))
        c.eq(st.get("settle_ms"), 50, "settle_ms")
        c.that(st.get("files", 0) > 0, "files: %s" % st.get("files"))
        compare_with_fresh_scan(c, MAIN, "start")
        if HAVE_CLI:
            text = MAIN.cli("status").stdout
            for part in ("watching", "index:", "queue:", "overflows:", "last error:  none"):
                c.that(part in text, "status text lacks %r:\n%s" % (part, text))


def test_cli_commands_registered():
    with case(tap, "animidx has the daemon commands (status, pause, resume, sync, watch)") as c:
        if not HAVE_CLI:
            c.skip("cli/main.c does not list them yet; the tests talk to the socket directly")


def test_create_modify():
    d = MAIN
    u = os.path.join(ROOT, UNITS)
    with case(tap, "create: a new clip is indexed and bound after sync") as c:
        clip(os.path.join(u, "UV_WALKER_WALK_00.ALA"), WALKER, frames=24)
        d.sync()
        r = clip_row(d, "UV_WALKER", UNITS + "/UV_WALKER_WALK_00.ALA")
        c.that(r is not None, "clip not in the index")
        if r:
            c.eq((r["frames"], r["bound"], r["bones_missing"]), (24, True, 0), "frames/bound/missing")
    with case(tap, "modify in place: new content and findings after sync") as c:
        clip(os.path.join(u, "UV_WALKER_WALK_00.ALA"), ["Root", "Gun", "Tail"], indices=[0, 1, 2],
             frames=12)
        d.sync()
        r = clip_row(d, "UV_WALKER", UNITS + "/UV_WALKER_WALK_00.ALA")
        c.eq(r and (r["frames"], r["bones_missing"]), (12, 2), "frames/bones_missing")
        codes = sorted(i["code"] for i in d.query("issues") if i["path"] == UNITS + "/UV_WALKER_WALK_00.ALA")
        c.eq(codes, ["BONE_INDEX_MISMATCH", "BONE_NOT_IN_SKELETON"], "findings")
    with case(tap, "editor-style save: write a temporary file, rename it over the original") as c:
        data = clip_bytes(WALKER, frames=40)
        tmp = os.path.join(u, ".UV_WALKER_WALK_00.ALA.swp")
        with open(tmp, "wb") as f:
            f.write(data)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, os.path.join(u, "UV_WALKER_WALK_00.ALA"))
        d.sync()
        r = clip_row(d, "UV_WALKER", UNITS + "/UV_WALKER_WALK_00.ALA")
        c.eq(r and (r["frames"], r["bones_missing"]), (40, 0), "frames/bones_missing after the save")
        c.eq([i for i in d.query("issues") if i["path"].startswith(UNITS + "/UV_WALKER_WALK")], [],
             "findings after the fix")
        c.eq(paths_in(d.db, UNITS + "/.UV_WALKER_WALK_00.ALA.swp"), [], "the temporary file")
    with case(tap, "a file written in several slow parts is indexed complete") as c:
        data = clip_bytes(WALKER, frames=50)
        path = os.path.join(u, "UV_WALKER_ATTACK_00.ALA")
        with open(path, "wb") as f:
            for k in range(4):  # pauses longer than the settle period, file open throughout
                f.write(data[k * len(data) // 4:(k + 1) * len(data) // 4])
                f.flush()
                time.sleep(0.15)
            time.sleep(0.3)
            # still open: not indexed as a truncated file meanwhile
            part = show(d, UNITS + "/UV_WALKER_ATTACK_00.ALA", rc=None)
        d.sync()
        c.that(not part or part[0]["status"] == "ok",
               "decoded while still open for writing: %s" % short(part))
        r = clip_row(d, "UV_WALKER", UNITS + "/UV_WALKER_ATTACK_00.ALA")
        c.eq(r and (r["frames"], r["bones_missing"]), (50, 0), "frames/bones_missing")
        c.eq([i["code"] for i in d.query("issues") if i["path"] == UNITS + "/UV_WALKER_ATTACK_00.ALA"],
             [], "findings")


def row_id(db, path):
    """The files row id of a path (None when not indexed), read straight from the index."""
    import sqlite3
    con = sqlite3.connect("file:%s?mode=ro" % db, uri=True)
    try:
        r = con.execute("SELECT id FROM files WHERE path = ?", (path,)).fetchone()
        return r[0] if r else None
    finally:
        con.close()


def indexed_later(d, where):
    """Indexes a file after the one a rename check moves and returns its path (the caller
    removes it): SQLite gives a new row the largest id + 1, so the newest file deleted and
    indexed again under a new name would get its old id back, and the check could not fail."""
    path = os.path.join(ROOT, where, "ROW_ID_GUARD_00.ALA")
    clip(path, ["Root"], frames=2)
    d.sync()
    return path


def test_rename_move_delete():
    d = MAIN
    u = os.path.join(ROOT, UNITS)
    old = UNITS + "/UV_WALKER_WALK_00.ALA"
    with case(tap, "rename: the row moves to the new path with its findings") as c:
        clip(os.path.join(u, "UV_WALKER_WALK_00.ALA"), ["Root", "Tail"], indices=[0, 1], frames=16)
        d.sync()
        before = [i["code"] for i in d.query("issues") if i["path"] == old]
        before_id = row_id(d.db, old)
        guard = indexed_later(d, "Data/Art/Guard")
        os.rename(os.path.join(u, "UV_WALKER_WALK_00.ALA"), os.path.join(u, "UV_WALKER_DIE_00.ALA"))
        d.sync()
        os.remove(guard)
        c.that(before_id is not None and row_id(d.db, UNITS + "/UV_WALKER_DIE_00.ALA") == before_id,
               "the row keeps its id (%s)" % before_id)
        c.eq(paths_in(d.db, old), [], "old path")
        c.eq(paths_in(d.db, UNITS + "/UV_WALKER_DIE_00.ALA"), [UNITS + "/UV_WALKER_DIE_00.ALA"],
             "new path")
        after = [i["code"] for i in d.query("issues") if i["path"] == UNITS + "/UV_WALKER_DIE_00.ALA"]
        c.eq(after, before, "findings follow the file")
        c.eq(before, ["BONE_NOT_IN_SKELETON"], "findings before")
    with case(tap, "move across directories") as c:
        other = os.path.join(ROOT, "Data/Art/Other")
        os.makedirs(other)
        d.sync()
        moved_id = row_id(d.db, UNITS + "/UV_WALKER_DIE_00.ALA")
        guard = indexed_later(d, "Data/Art/Guard")
        shutil.move(os.path.join(u, "UV_WALKER_DIE_00.ALA"), os.path.join(other, "UV_WALKER_DIE_00.ALA"))
        d.sync()
        os.remove(guard)
        c.that(moved_id is not None and row_id(d.db, "Data/Art/Other/UV_WALKER_DIE_00.ALA") == moved_id,
               "the row keeps its id across directories (%s)" % moved_id)
        c.eq(paths_in(d.db, UNITS + "/UV_WALKER_DIE_00.ALA"), [], "old path")
        # away from its model's directory the engine does not load it: unbound, no bone check
        r = clip_row(d, "UV_WALKER", "Data/Art/Other/UV_WALKER_DIE_00.ALA")
        c.eq(r and (r["frames"], r["bound"], r["bones_missing"]), (16, False, 0), "the moved clip")
    with case(tap, "'#' in names: mv Z.ALA A.ALA keeps A.ALA#b_IDLE_00.ALA; and the other order") as c:
        # issue 16 item 5: the rename's subtree matched "A.ALA#..." as members of A.ALA
        hd = os.path.join(ROOT, "Data/Art/Hash")
        rel = "Data/Art/Hash/"
        for name in ("A.ALA#b_IDLE_00.ALA", "Z.ALA", "Y.ALA"):
            clip(os.path.join(hd, name), ["Root", "Tail"], indices=[0, 1], frames=12)
        d.sync()
        hash_id, z_id, y_id = (row_id(d.db, rel + n) for n in ("A.ALA#b_IDLE_00.ALA", "Z.ALA", "Y.ALA"))
        c.that(hash_id and z_id and y_id, "indexed: %s" % paths_in(d.db, "Data/Art/Hash"))
        os.rename(os.path.join(hd, "Z.ALA"), os.path.join(hd, "A.ALA"))
        d.sync()
        c.eq(paths_in(d.db, "Data/Art/Hash"), [rel + "A.ALA", rel + "A.ALA#b_IDLE_00.ALA", rel + "Y.ALA"],
             "after mv Z.ALA A.ALA")
        c.eq((row_id(d.db, rel + "A.ALA"), row_id(d.db, rel + "A.ALA#b_IDLE_00.ALA")), (z_id, hash_id),
             "Z's row moved; the '#' file's row untouched")
        os.rename(os.path.join(hd, "Y.ALA"), os.path.join(hd, "A.ALA#b_IDLE_00.ALA"))
        d.sync()
        c.eq(paths_in(d.db, "Data/Art/Hash"), [rel + "A.ALA", rel + "A.ALA#b_IDLE_00.ALA"],
             "after mv Y.ALA A.ALA#b_IDLE_00.ALA")
        c.eq((row_id(d.db, rel + "A.ALA"), row_id(d.db, rel + "A.ALA#b_IDLE_00.ALA")), (z_id, y_id),
             "A.ALA untouched; Y's row replaced the '#' file's")
        os.rename(os.path.join(hd, "A.ALA"), os.path.join(hd, "Q.ALA"))
        d.sync()
        c.eq(paths_in(d.db, "Data/Art/Hash"), [rel + "A.ALA#b_IDLE_00.ALA", rel + "Q.ALA"],
             "after mv A.ALA Q.ALA: the '#' file stays")
        compare_with_fresh_scan(c, d, "'#' renames")
        shutil.rmtree(hd)
        d.sync()
    with case(tap, "a deletion directly followed by a new file is not a rename: a new row, the "
                   "new file's content and findings") as c:
        # On Windows the two events are those of a rename (a name gone, then a name there); the
        # new file has the old one's size, not its mtime: not the same file, its row not moved
        gone, fresh = UNITS + "/UV_WALKER_IDLE_00.ALA", UNITS + "/UV_WALKER_MOVE_00.ALA"
        clip(os.path.join(ROOT, gone), ["Root", "Tail"], indices=[0, 1], frames=12)
        d.sync()  # indexed before the next file (one batch may index them in either order)
        # a row made after it: the deleted row's id is not the highest (SQLite hands that out
        # again, rename or not)
        clip(os.path.join(u, "UV_WALKER_TURNL_00.ALA"), WALKER, frames=5)
        d.sync()
        gone_id, later_id = row_id(d.db, gone), row_id(d.db, UNITS + "/UV_WALKER_TURNL_00.ALA")
        c.that(gone_id and later_id and gone_id < later_id, "ids %s, %s" % (gone_id, later_id))
        c.eq([i["code"] for i in d.query("issues") if i["path"] == gone], ["BONE_NOT_IN_SKELETON"],
             "findings of the deleted file")
        renamed = d.status().get("renamed")
        data = clip_bytes(["Root", "Body"], frames=12, indices=[0, 1])
        c.eq(len(data), os.path.getsize(os.path.join(ROOT, gone)), "the new file's size is the old one's")
        os.remove(os.path.join(ROOT, gone))
        write(os.path.join(ROOT, fresh), data)
        d.sync()
        c.eq(paths_in(d.db, gone), [], "the deleted file")
        fresh_id = row_id(d.db, fresh)
        c.that(fresh_id is not None and fresh_id != gone_id,
               "the new file has a row of its own (%s; the deleted file's was %s)" % (fresh_id, gone_id))
        c.eq(d.status().get("renamed"), renamed, "rows moved by renames (status)")
        r = clip_row(d, "UV_WALKER", fresh)
        c.eq(r and (r["frames"], r["bound"], r["bones_missing"]), (12, True, 0), "the new clip")
        c.eq([i["code"] for i in d.query("issues") if i["path"] in (gone, fresh)], [],
             "findings: none of the deleted file's")
        os.remove(os.path.join(ROOT, fresh))
        os.remove(os.path.join(u, "UV_WALKER_TURNL_00.ALA"))
        d.sync()
    with case(tap, "delete a file") as c:
        os.remove(os.path.join(ROOT, "Data/Art/Other/UV_WALKER_DIE_00.ALA"))
        d.sync()
        c.eq(paths_in(d.db, "Data/Art/Other"), [], "rows under Data/Art/Other")
        c.that(clip_row(d, "UV_WALKER", "Data/Art/Other/UV_WALKER_DIE_00.ALA") is None, "clip row")
    with case(tap, "delete a whole directory tree") as c:
        c.that(len(paths_in(d.db, "Data/Art/Models")) > 5, "rows before")
        shutil.rmtree(os.path.join(ROOT, "Data/Art/Models"))
        d.sync()
        c.eq(paths_in(d.db, "Data/Art/Models"), [], "rows under the deleted directory")
        c.that(paths_in(d.db, UNITS), "rows elsewhere are kept")
        compare_with_fresh_scan(c, d, "delete")


def test_deep_trees():
    d = MAIN
    with case(tap, "deep new directory tree, files written right after each mkdir") as c:
        data = clip_bytes(WALKER, frames=8)
        base = os.path.join(ROOT, "Deep")
        want = []
        p = base
        for level in range(8):
            p = os.path.join(p, "L%d" % level)
            os.makedirs(p)
            for k in range(3):
                write(os.path.join(p, "UV_WALKER_D%d_%02d.ALA" % (level, k)), data)
                want.append(os.path.relpath(os.path.join(p, "UV_WALKER_D%d_%02d.ALA" % (level, k)), ROOT))
        d.sync()
        c.eq(paths_in(d.db, "Deep"), sorted(want), "files of the new tree")
        # the new directories are watched: a file added at the bottom later is seen
        write(os.path.join(p, "UV_WALKER_CELEBRATE_00.ALA"), data)
        d.sync()
        late = os.path.relpath(os.path.join(p, "UV_WALKER_CELEBRATE_00.ALA"), ROOT)
        c.eq(paths_in(d.db, late), [late], "a file added later at the bottom")
    with case(tap, "mkdir -p of a whole tree at once (os.makedirs), then files") as c:
        leaf = os.path.join(ROOT, "Wide", "a", "b", "c", "d", "e")
        os.makedirs(leaf)
        write(os.path.join(leaf, "UV_WALKER_HEAL_00.ALA"), clip_bytes(WALKER, frames=9))
        d.sync()
        c.eq(paths_in(d.db, "Wide"), ["Wide/a/b/c/d/e/UV_WALKER_HEAL_00.ALA"], "files")
    with case(tap, "a directory renamed inside the tree keeps its watches and its rows") as c:
        ids = {p[len("Deep"):]: row_id(d.db, p) for p in paths_in(d.db, "Deep")}
        os.rename(os.path.join(ROOT, "Deep"), os.path.join(ROOT, "Data", "Deeper"))
        d.sync()
        c.eq(paths_in(d.db, "Deep"), [], "rows at the old path")
        moved = paths_in(d.db, "Data/Deeper")
        c.eq(len(moved), 8 * 3 + 1, "rows at the new path")
        c.eq({p[len("Data/Deeper"):]: row_id(d.db, p) for p in moved}, ids, "the rows keep their ids")
        bottom = os.path.join(ROOT, "Data", "Deeper", *["L%d" % i for i in range(8)])
        write(os.path.join(bottom, "UV_WALKER_TALK_00.ALA"), clip_bytes(WALKER, frames=7))
        d.sync()
        rel = os.path.relpath(os.path.join(bottom, "UV_WALKER_TALK_00.ALA"), ROOT)
        c.eq(paths_in(d.db, rel), [rel], "a file written in the moved tree")
    with case(tap, "a directory moved out of the tree and back in") as c:
        outside = os.path.join(TMP, "outside")
        shutil.move(os.path.join(ROOT, "Wide"), outside)
        d.sync()
        c.eq(paths_in(d.db, "Wide"), [], "rows after the move out")
        write(os.path.join(outside, "a", "UV_WALKER_JUMP_00.ALA"), clip_bytes(WALKER, frames=5))
        d.sync()
        c.eq([p for p in paths_in(d.db) if "UV_WALKER_JUMP_00" in p], [],
             "a file written outside the roots is not indexed")
        shutil.move(outside, os.path.join(ROOT, "Back"))
        d.sync()
        c.eq(paths_in(d.db, "Back"), ["Back/a/UV_WALKER_JUMP_00.ALA", "Back/a/b/c/d/e/UV_WALKER_HEAL_00.ALA"],
             "rows after the move back in")
        write(os.path.join(ROOT, "Back", "a", "b", "UV_WALKER_LAND_00.ALA"), clip_bytes(WALKER, frames=6))
        d.sync()
        c.eq(paths_in(d.db, "Back/a/b/UV_WALKER_LAND_00.ALA"), ["Back/a/b/UV_WALKER_LAND_00.ALA"],
             "the moved-in tree is watched")
        compare_with_fresh_scan(c, d, "trees")


def test_pause_resume():
    d = MAIN
    with case(tap, "pause: changes wait; sync refuses; resume indexes them") as c:
        if HAVE_CLI:
            p = d.cli("pause")
            c.that("paused" in p.stdout, "pause output: %r" % p.stdout)
        else:
            c.eq(d.request("pause").get("state"), "paused", "pause reply")
        path = os.path.join(ROOT, UNITS, "UV_WALKER_HOLD_00.ALA")
        clip(path, WALKER, frames=33)
        time.sleep(0.5)
        c.eq(paths_in(d.db, UNITS + "/UV_WALKER_HOLD_00.ALA"), [], "indexed while paused")
        st = d.status()
        c.eq(st.get("state"), "paused", "state")
        c.that(st.get("queue", 0) >= 1, "queue while paused: %s" % st.get("queue"))
        if HAVE_CLI:
            p = ax.run("sync", "--config", d.cfg)
            c.eq(p.returncode, 3, "sync exit status while paused")
            c.that("resume" in p.stderr, "sync's message: %r" % p.stderr)
            d.cli("resume")
        else:
            c.eq(d.request("sync").get("ok"), False, "sync while paused")
            d.request("resume")
        d.sync()
        r = clip_row(d, "UV_WALKER", UNITS + "/UV_WALKER_HOLD_00.ALA")
        c.eq(r and r["frames"], 33, "indexed after resume")
        c.eq(d.status().get("state"), "watching", "state after resume")


def test_burst():
    d = MAIN
    with case(tap, "burst of 3000 files (a flat directory and a directory with subdirectories) "
                   "ends equal to a fresh scan") as c:
        data = clip_bytes(WALKER, frames=10)
        flat = os.path.join(ROOT, "Burst", "Flat")
        mixed = os.path.join(ROOT, "Burst", "Mixed")
        os.makedirs(flat)
        os.makedirs(os.path.join(mixed, "Sub"))
        write(os.path.join(mixed, "Sub", "UV_WALKER_S0.ALA"), data)
        d.sync()
        t0 = time.time()
        for i in range(2700):
            write(os.path.join(flat, "UV_WALKER_B%05d.ALA" % i), data)
        for i in range(300):
            write(os.path.join(mixed, "UV_WALKER_M%05d.ALA" % i), data)
        t1 = time.time()
        d.sync()
        c.note("3000 files written in %.2f s, synced %.2f s later" % (t1 - t0, time.time() - t1))
        c.eq(len(paths_in(d.db, "Burst")), 3001, "rows under Burst")
        # and a burst of changes and deletes
        for i in range(0, 2700, 3):
            os.remove(os.path.join(flat, "UV_WALKER_B%05d.ALA" % i))
        for i in range(1, 300, 2):
            write(os.path.join(mixed, "UV_WALKER_M%05d.ALA" % i), clip_bytes(WALKER, frames=11)
                  if i == 1 else data + b"\0")
        # the changed directory's subdirectory changes too: its own scan, not the burst's
        os.remove(os.path.join(mixed, "Sub", "UV_WALKER_S0.ALA"))
        write(os.path.join(mixed, "Sub", "UV_WALKER_S1.ALA"), data)
        d.sync()
        c.eq(len(paths_in(d.db, "Burst")), 3001 - 900, "rows after the deletes")
        c.eq(sorted(p for p in paths_in(d.db, "Burst") if "/Sub/" in p),
             ["Burst/Mixed/Sub/UV_WALKER_S1.ALA"], "the subdirectory's rows")
        compare_with_fresh_scan(c, d, "burst")


def queued_events_limit():
    try:
        with open("/proc/sys/fs/inotify/max_queued_events") as f:
            return int(f.read())
    except (OSError, ValueError):
        return None


def test_overflow():
    d = MAIN
    with case(tap, "watch overflow (the daemon stopped while files change): counted, "
                   "rescanned, equal to a fresh scan") as c:
        # Linux: inotify's queue holds fs.inotify.max_queued_events; every new file queues
        # IN_CREATE, IN_MODIFY and IN_CLOSE_WRITE. Windows: ReadDirectoryChangesW's buffer
        # overflows by a size no setting tells (wine may deliver every change instead): 5,000
        # files, and the overflow is counted if it came
        limit = None if WINDOWS else queued_events_limit()
        n = 5000 if WINDOWS else min((limit or 16384) // 3 + 1000, 40000)
        data = clip_bytes(WALKER, frames=12)
        for k in range(20):  # watched before the daemon stops: their events queue up
            os.makedirs(os.path.join(ROOT, "Over", "D%02d" % k))
        d.sync()
        before = d.status().get("overflows", 0)
        forced = limit is not None and 3 * n > limit
        d.proc.send_signal(signal.SIGSTOP)
        try:
            for i in range(n):
                write(os.path.join(ROOT, "Over", "D%02d" % (i % 20), "UV_WALKER_O%05d.ALA" % i), data)
            shutil.rmtree(os.path.join(ROOT, "Burst", "Mixed"))
        finally:
            d.proc.send_signal(signal.SIGCONT)
        d.sync()
        st = d.status()
        if forced:
            c.eq(st.get("overflows", 0) - before, 1, "overflows counted")
            c.that("overflowed" in d.log(), "no overflow line in the log")
        elif WINDOWS:
            c.note("%d files changed while the daemon was stopped: %d overflows" % (
                n, st.get("overflows", 0) - before))
            if st.get("overflows", 0) > before:
                c.that("without their names" in d.log(), "no overflow line in the log")
        else:
            c.note("fs.inotify.max_queued_events = %s: %d files cannot overflow it" % (limit, n))
        c.eq(len(paths_in(d.db, "Over")), n, "rows under Over")
        c.eq(paths_in(d.db, "Burst/Mixed"), [], "rows of the deleted directory")
        compare_with_fresh_scan(c, d, "overflow")
        # the watches are back: a change after the overflow is seen
        write(os.path.join(ROOT, "Over", "D03", "New", "UV_WALKER_AFTER.ALA"), data)
        d.sync()
        c.eq(paths_in(d.db, "Over/D03/New"), ["Over/D03/New/UV_WALKER_AFTER.ALA"], "after the overflow")


def test_second_instance():
    with case(tap, "a second daemon on the same index refuses to start") as c:
        other = MAIN.sock + "-other" if WINDOWS else os.path.join(MAIN.dir, "other.sock")
        p = tap_run(ANIMIDXD, ["--config", MAIN.cfg, "--foreground", "--socket", other], env=ax.env,
                    stdout=subprocess.PIPE, stderr=subprocess.PIPE, universal_newlines=True,
                    timeout=60 * SLOW)
        c.eq(p.returncode, 3, "exit status")
        msg = p.stderr + open(MAIN.log_path, errors="replace").read()[-3000:]
        c.that("already running" in msg and str(MAIN.pid()) in msg,
               "message names the running daemon: %r" % p.stderr)
    with case(tap, "a second daemon on the same socket refuses to start") as c:
        other = Daemon("other", [ROOT], socket=MAIN.sock)
        p = tap_run(ANIMIDXD, ["--config", other.cfg, "--foreground"], env=ax.env,
                    stdout=subprocess.PIPE, stderr=subprocess.PIPE, universal_newlines=True,
                    timeout=60 * SLOW)
        c.eq(p.returncode, 3, "exit status")
        c.that("already listening" in p.stderr + other.log(), "message: %r" % other.log()[-1000:])
        c.that(MAIN.try_request("status"), "the first daemon still answers")


def test_reload():
    d = MAIN
    with case(tap, "SIGHUP reloads the config; a broken config is refused and the old one kept") as c:
        if c.posix_only("SIGHUP has no Windows counterpart"):
            return
        d.write_config(settle_ms=80)
        d.proc.send_signal(signal.SIGHUP)
        ok = wait_for(lambda: d.status().get("settle_ms") == 80, 20 * SLOW, 0.1)
        c.that(ok, "settle_ms after SIGHUP: %s" % d.status().get("settle_ms"))
        c.that("configuration reloaded" in d.log(), "no reload line in the log")
        with open(d.cfg, "a") as f:
            f.write("bogus_key = 1\n")
        d.proc.send_signal(signal.SIGHUP)
        # (the CLI refuses the broken file too: ask over the socket)
        ok = wait_for(lambda: "bogus_key" in (d.request("status").get("last_error") or ""),
                      20 * SLOW, 0.1)
        c.that(ok, "last_error after a bad reload: %r" % d.request("status").get("last_error"))
        c.eq(d.request("status").get("settle_ms"), 80, "settle_ms kept")
        d.write_config(settle_ms=50)
        d.proc.send_signal(signal.SIGHUP)
        c.that(wait_for(lambda: d.status().get("settle_ms") == 50, 20 * SLOW, 0.1), "settle back")
        clip(os.path.join(ROOT, UNITS, "UV_WALKER_OPEN_00.ALA"), WALKER, frames=21)
        d.sync()
        r = clip_row(d, "UV_WALKER", UNITS + "/UV_WALKER_OPEN_00.ALA")
        c.eq(r and r["frames"], 21, "indexing goes on after the reloads")
    with case(tap, "SIGHUP with another root: it is scanned and watched") as c:
        root2 = os.path.join(TMP, "tree6")
        model(os.path.join(root2, "Models", "UM_SECOND.ALO"), ["Root", "Arm"])
        d.roots.append(root2)
        d.write_config()
        d.proc.send_signal(signal.SIGHUP)
        ok = wait_for(lambda: len(d.status().get("roots", [])) == 2, 20 * SLOW, 0.1)
        c.that(ok, "roots after SIGHUP: %s" % d.status().get("roots"))
        d.sync()
        sk = {r["skeleton"]: r for r in d.query("skeletons")}
        c.eq(sk.get("UM_SECOND", {}).get("root"), os.path.realpath(root2), "the new root's model")
        clip(os.path.join(root2, "Models", "UM_SECOND_IDLE_00.ALA"), ["Root", "Arm"], frames=13)
        d.sync()
        r = clip_row(d, "UM_SECOND", "Models/UM_SECOND_IDLE_00.ALA")
        c.eq(r and (r["frames"], r["bound"]), (13, True), "a clip saved in the new root")
        compare_with_fresh_scan(c, d, "two-roots")


def test_stop_main():
    with case(tap, "SIGTERM: clean exit, every handle closed, socket removed") as c:
        MAIN.check_clean_stop(c)


def test_stop_command():
    with case(tap, "animidx stop: the daemon stops cleanly and stop returns once it has exited; "
                   "a second stop finds none (exit 3)") as c:
        root = os.path.join(TMP, "tree-stop")
        amxgen("demo", root)
        d = Daemon("stop", [root]).start()
        d.sync()
        pid = d.pid()
        p = d.cli("stop")
        c.eq(p.stdout.strip(), "animidxd (pid %d) stopped" % pid, "stop's line")
        # the lock is released after the index is closed, the last step before exit
        c.that(wait_for(lambda: d.proc.poll() is not None, 5), "animidxd still runs after stop")
        rc = d.stop()  # collects the exit status (no signal: it has exited)
        c.eq(rc, 0, "exit status after 'animidx stop'")
        log = d.log()
        c.that("'animidx stop': stopping" in log and CLEAN_EXIT in log,
               "the log says why and that it closed everything:\n" + log[-2000:])
        if not WINDOWS:  # a named pipe goes with its last handle
            c.that(not os.path.exists(d.sock), "the socket file is left behind")
        again = d.cli("stop", rc=3)
        # Windows names the pipe as the system writes it (\\.\pipe\...)
        shown = d.sock.replace("/", "\\") if WINDOWS else d.sock
        c.that("no animidxd is running on " + shown in again.stderr, again.stderr)
        # --json: the daemon's reply, printed once it has stopped; the index can be opened again
        d.start()
        d.sync()
        pid = d.pid()
        reply = json.loads(d.cli("stop", "--json").stdout)
        c.eq((reply.get("ok"), reply.get("cmd"), reply.get("pid"), reply.get("database")),
             (True, "stop", pid, d.db), "the JSON reply")
        c.that(wait_for(lambda: d.proc.poll() is not None, 5), "animidxd still runs after stop")
        c.eq(d.stop(), 0, "exit status after 'animidx stop --json'")


def test_sigterm_during_burst():
    with case(tap, "SIGTERM during a burst: clean exit; a restart converges with no duplicate "
                   "or lost rows") as c:
        root = os.path.join(TMP, "tree2")
        amxgen("demo", root)
        d = Daemon("burst", [root]).start()
        d.sync()
        data = clip_bytes(WALKER, frames=14)
        mixed = os.path.join(root, "Many")
        os.makedirs(os.path.join(mixed, "Sub"))
        d.sync()
        stop = threading.Event()

        def writer():
            for i in range(4000):
                if stop.is_set():
                    break
                write(os.path.join(mixed, "UV_WALKER_S%05d.ALA" % i), data)

        t = threading.Thread(target=writer)
        t.start()
        time.sleep(0.4)
        wait_for(lambda: d.try_request("status") and d.try_request("status").get("in_flight", 0) > 0,
                 10 * SLOW, 0.02)
        d.check_clean_stop(c)
        stop.set()
        t.join()
        n = len(paths_in(d.db, "Many"))
        c.note("%d of the burst's files were indexed when SIGTERM came" % n)
        d.start()
        d.sync()
        compare_with_fresh_scan(c, d, "restart")
        d.check_clean_stop(c, signal.SIGINT)


def test_watch_limit():
    with case(tap, "watch limit: reported with the fix; unwatched directories are polled and "
                   "synced") as c:
        if c.posix_only("inotify watches one directory each; uv_fs_event watches a root "
                        "recursively with one handle, so max_watches has nothing to limit"):
            return
        root = os.path.join(TMP, "tree3")
        data = clip_bytes(WALKER, frames=10)
        # the engine loads a model's clips from the model's directory: one model per directory
        for k in range(10):
            model(os.path.join(root, "D%d" % k, "UV_WALKER.ALO"), WALKER)
            write(os.path.join(root, "D%d" % k, "UV_WALKER_IDLE_%02d.ALA" % k), data)
        d = Daemon("limit", [root], max_watches=4, poll_interval_s=1).start()
        d.sync()
        st = d.status()
        c.eq(st.get("watches"), 4, "watches")
        c.eq(st.get("watch_limit_reached"), True, "watch_limit_reached")
        c.eq(st.get("unwatched_dirs"), 7, "unwatched_dirs")
        c.that("watch limit" in (st.get("last_error") or ""), "last_error: %r" % st.get("last_error"))
        c.that("max_watches" in d.log(), "the log tells how to raise the limit")
        c.eq(len(paths_in(d.db)), 20, "indexed at start")
        for k in range(10):
            write(os.path.join(root, "D%d" % k, "UV_WALKER_IDLE_%02d.ALA" % k),
                  clip_bytes(WALKER, frames=20 + k))
        d.sync()
        frames = {r["path"]: r["frames"] for r in d.query("clips", "--skeleton", "UV_WALKER")}
        c.eq(frames, {"D%d/UV_WALKER_IDLE_%02d.ALA" % (k, k): 20 + k for k in range(10)},
             "every directory's change after sync")
        for k in range(10):
            write(os.path.join(root, "D%d" % k, "UV_WALKER_IDLE_%02d.ALA" % k),
                  clip_bytes(WALKER, frames=40 + k))

        def all_seen():
            rows = d.query("clips", "--skeleton", "UV_WALKER")
            return sorted(r["frames"] for r in rows) == [40 + k for k in range(10)]
        c.that(wait_for(all_seen, 15 * SLOW, 0.2), "changes seen by the periodic rescan without a sync")
        d.check_clean_stop(c)


def test_index_inside_root():
    with case(tap, "the index and the log inside a watched tree: not indexed, no endless rescans") as c:
        root = os.path.join(TMP, "tree5")
        model(os.path.join(root, "UV_WALKER.ALO"), WALKER)
        d = Daemon("inside", [root], db=os.path.join(root, "index.db"),
                   log=os.path.join(root, "logs", "daemon.log")).start()
        d.sync()
        clip(os.path.join(root, "UV_WALKER_IDLE_00.ALA"), WALKER, frames=9)
        d.sync()
        c.eq(paths_in(d.db), ["UV_WALKER.ALO", "UV_WALKER_IDLE_00.ALA"], "indexed paths")
        batches = d.status().get("batches")
        time.sleep(1.0)
        st = d.status()
        c.eq(st.get("batches"), batches, "scans while nothing changes (the index's own writes)")
        c.eq(st.get("queue"), 0, "queue")
        d.check_clean_stop(c)


def test_watch_command():
    with case(tap, "animidx watch DIR --db FILE runs the daemon in the foreground") as c:
        if not HAVE_CLI:
            c.skip("cli/main.c does not list 'watch' yet")
            return
        root = os.path.join(TMP, "tree4")
        model(os.path.join(root, "UV_WALKER.ALO"), WALKER)
        d = Daemon("watch", ["/nonexistent"])  # the roots come from the command line
        d.start("watch", root, "--db", d.db, "--config", d.cfg, exe=[ANIMIDX])
        st = d.status()
        c.eq(st.get("roots"), [os.path.realpath(root)], "roots")
        c.eq(st.get("database"), d.db, "database")
        clip(os.path.join(root, "UV_WALKER_IDLE_00.ALA"), WALKER, frames=18)
        d.sync()
        r = clip_row(d, "UV_WALKER", "UV_WALKER_IDLE_00.ALA")
        c.eq(r and (r["frames"], r["bound"]), (18, True), "clip")
        d.check_clean_stop(c)
    with case(tap, "animidx watch DIR --base GAME: the mod's clips bind to the game's models, and "
                   "the daemon's index equals a fresh scan with --base") as c:
        if not HAVE_CLI:
            c.skip("cli/main.c does not list 'watch' yet")
            return
        game, mod = os.path.join(TMP, "game6"), os.path.join(TMP, "mod6")
        model(os.path.join(game, "UV_WALKER.ALO"), WALKER)
        os.makedirs(mod, exist_ok=True)
        d = Daemon("watch-base", ["/nonexistent"])
        d.start("watch", mod, "--base", game, "--db", d.db, "--config", d.cfg, exe=[ANIMIDX])
        clip(os.path.join(mod, "UV_WALKER_IDLE_00.ALA"), WALKER, frames=12)
        d.sync()
        r = clip_row(d, "UV_WALKER", "UV_WALKER_IDLE_00.ALA")
        c.eq(r and (r["frames"], r["bound"], r["skeleton_root"]), (12, True, os.path.realpath(game)),
             "the mod's clip, bound in the base layer")
        fresh = os.path.join(d.dir, "fresh.db")
        p = ax.run("scan", mod, "--base", game, "--db", fresh, "--quiet")
        c.eq(p.returncode, 0, "fresh scan")
        want = ax.json("clips", "--skeleton", "UV_WALKER", "--db", fresh, "--json")
        c.eq(d.query("clips", "--skeleton", "UV_WALKER"), want, "clips equal a fresh scan's")
        d.check_clean_stop(c)
    with case(tap, "status without a daemon: exit 3 with a hint") as c:
        if not HAVE_CLI:
            c.skip("cli/main.c does not list 'status' yet")
            return
        p = ax.run("status", "--config", os.path.join(TMP, "watch", "animidx.ini"))
        c.eq(p.returncode, 3, "exit status")
        c.that("no animidxd is running" in p.stderr, "message: %r" % p.stderr)


def test_references():
    with case(tap, "references under the daemon: a missing texture and particle resolve when they "
                   "appear, and are missing again when they go; the index equals a fresh scan's") as c:
        root = os.path.join(TMP, "tree7")
        alo = "Data/Art/Models/UV_WALKER.ALO"
        model(os.path.join(root, alo), WALKER)  # names MESH_00.tga and the proxy P_SMOKE_01
        d = Daemon("refs", [root]).start()
        d.sync()  # the initial scan runs after the daemon answers

        def resolution(name):
            rows = d.query("refs", alo)
            refs = [r for r in (rows[0]["references"] if rows else []) if r["name"] == name]
            return refs[0]["resolution"] + " " + (refs[0]["target_path"] or "-") if refs else None

        def missing():
            return sorted(m["name"] for m in d.query("refs", "--missing"))

        c.eq(resolution("MESH_00.tga"), "missing -", "texture before")
        c.eq(missing(), ["MESH_00.tga", "P_SMOKE_01"], "the missing list")
        write(os.path.join(root, "Data/Art/Textures/MESH_00.dds"), b"DDS ")
        amxgen("particle", os.path.join(root, "Data/Art/Models/P_SMOKE_01.ALO"), "P_SMOKE_01")
        d.sync()
        c.eq(resolution("MESH_00.tga"), "found Data/Art/Textures/MESH_00.dds",
             "the texture appears (DDS for TGA)")
        c.eq(resolution("P_SMOKE_01"), "found Data/Art/Models/P_SMOKE_01.ALO", "the particle appears")
        c.that("MESH_00.tga" not in missing(), "the texture left the missing list")
        compare_with_fresh_scan(c, d, "refs-appear")
        os.remove(os.path.join(root, "Data/Art/Textures/MESH_00.dds"))
        d.sync()
        c.eq(resolution("MESH_00.tga"), "missing -", "the texture goes")
        c.that("MESH_00.tga" in missing(), "back in the missing list")
        compare_with_fresh_scan(c, d, "refs-gone")
        d.check_clean_stop(c)


def test_sage_ini():
    with case(tap, "SAGE INI under the daemon: a model an INI names resolves when its W3D file "
                   "appears, a bone when the model changes, and is missing again when it goes; a "
                   "changed INI re-resolves; the index equals a fresh scan's") as c:
        root = os.path.join(TMP, "tree8")
        ini = "Data/INI/Object/Tank.ini"
        w3d = os.path.join(root, "Art/W3D/AVTank.w3d")
        text = ("Object Tank\n  Draw = W3DModelDraw ModuleTag_01\n    DefaultConditionState\n"
                "      Model = AVTank\n      WeaponFireFXBone = PRIMARY Muzzle\n    End\n  End\n"
                "End\n")
        write(os.path.join(root, ini), text.encode())
        d = Daemon("sage", [root]).start()
        d.sync()  # the initial scan (start returns once the socket answers)

        def resolution(name):
            rows = d.query("refs", ini)
            refs = [r for r in (rows[0]["references"] if rows else []) if r["name"] == name]
            return refs[0]["resolution"] + " " + (refs[0]["target_path"] or "-") if refs else None

        def codes():
            return sorted(i["code"] for i in d.query("issues", ini))

        c.eq(resolution("AVTank"), "missing -", "the model before")
        c.eq(codes(), ["REFERENCE_NOT_FOUND"], "one finding: the model")
        amxgen("w3d-model", w3d, "--name", "AVTANK", "--pivots", "TURRET")
        d.sync()
        c.eq(resolution("AVTank"), "found Art/W3D/AVTank.w3d", "the model appears")
        c.eq(codes(), ["MODEL_BONE_NOT_FOUND"], "its bone is not there")
        amxgen("w3d-model", w3d, "--name", "AVTANK", "--pivots", "TURRET,MUZZLE01")
        d.sync()
        c.eq(resolution("Muzzle"), "found Art/W3D/AVTank.w3d", "the model changes: MUZZLE01")
        c.eq(codes(), [], "no finding")
        compare_with_fresh_scan(c, d, "sage-appear")
        os.remove(w3d)
        d.sync()
        c.eq(resolution("AVTank"), "missing -", "the model goes")
        write(os.path.join(root, ini), text.replace("AVTank", "AVOther").encode())
        d.sync()
        c.eq(resolution("AVOther"), "missing -", "the INI changes")
        c.eq(resolution("AVTank"), None, "its old reference is gone")
        compare_with_fresh_scan(c, d, "sage-gone")
        d.check_clean_stop(c)


def test_sage_include():
    with case(tap, "BFME under the daemon: a draw-module fragment an INI file includes is read in "
                   "place; when the fragment changes, and when it goes, the including file's "
                   "states follow; the index equals a fresh scan's") as c:
        root = os.path.join(TMP, "tree9")
        ini = "Data/INI/Object/Ranger.ini"
        inc = os.path.join(root, "Data/INI/Includes/RangerAnims.inc")
        write(os.path.join(root, ini),
              b"Object Ranger\n  Draw = W3DScriptedModelDraw ModuleTag_01\n"
              b"    DefaultModelConditionState\n      Model = GURanger\n    End\n"
              b"    #include \"..\\includes\\rangeranims.inc\"\n  End\nEnd\n")
        fragment = ("AnimationState = MOVING\n  Animation = Run\n"
                    "    AnimationName = GURanger_SKL.GURanger_%s\n  End\nEnd\n")
        write(inc, (fragment % "RUNA").encode())
        d = Daemon("sage-include", [root]).start()
        d.sync()

        def animations():
            rows = d.query("refs", ini)
            return sorted(r["name"] for r in (rows[0]["references"] if rows else [])
                          if r["kind"] == "w3d-animation")

        c.eq(animations(), ["GURanger_SKL.GURanger_RUNA"], "the fragment's animation")
        write(inc, ("; changed\n" + fragment % "RUNB").encode())
        d.sync()
        c.eq(animations(), ["GURanger_SKL.GURanger_RUNB"], "the fragment changes")
        compare_with_fresh_scan(c, d, "include-changed")
        os.remove(inc)
        d.sync()
        c.eq(animations(), [], "the fragment goes")
        compare_with_fresh_scan(c, d, "include-gone")
        d.check_clean_stop(c)


def main():
    tap.diag("animidx %s, animidxd %s, daemon commands in the CLI: %s" % (ANIMIDX, ANIMIDXD, HAVE_CLI))
    tests = [test_start, test_cli_commands_registered, test_create_modify, test_rename_move_delete,
             test_deep_trees, test_pause_resume, test_burst, test_overflow, test_second_instance,
             test_reload, test_stop_main, test_stop_command, test_sigterm_during_burst, test_watch_limit,
             test_index_inside_root, test_watch_command, test_references, test_sage_ini,
             test_sage_include]
    try:
        for t in tests:
            if t is not test_start and t is not test_cli_commands_registered and MAIN is None:
                break
            t()
    finally:
        for d in DAEMONS:
            if d.alive():
                d.proc.send_signal(signal.SIGCONT)
                d.proc.kill()
                d.proc.wait()
    rc = tap.finish()
    if rc == 0 and not os.environ.get("AMX_KEEP_TMP"):
        shutil.rmtree(TMP, ignore_errors=True)
    else:
        print("# kept %s" % TMP)
    return rc


if __name__ == "__main__":
    sys.exit(main())
