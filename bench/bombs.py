#!/usr/bin/env python3
"""The bomb set of issue 16: small hostile inputs generated here (tests/tools/bombs.py, amxgen),
each run through the command that used to blow up, with its wall time, peak memory (max RSS
of the process) and output size checked against a bound. With --base, the same commands run
with a second build (e.g. the code before the fix) for a before/after table.

usage: bench/bombs.py --build DIR [--base DIR] [--keep] [--only NAME,...]

DIR is a meson build directory holding cli/animidx, daemon/animidxd and tests/amxgen. Run by
bench/bombs.sh, which builds them. Not part of the timed test suite: bounds are in seconds and
megabytes, and the slowest bomb of the old code takes about half a minute.
"""
import argparse
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "tests", "tools"))
import bombs  # noqa: E402


class Build:
    def __init__(self, d, gen=None):
        self.dir = os.path.abspath(d)
        self.animidx = os.path.join(self.dir, "cli", "animidx")
        self.animidxd = os.path.join(self.dir, "daemon", "animidxd")
        # the inputs are always written by this checkout's amxgen (an older one may lack the
        # commands); only the programs measured differ
        self.amxgen = gen or os.path.join(self.dir, "tests", "amxgen")
        for x in (self.animidx, self.animidxd, self.amxgen):
            if not os.access(x, os.X_OK):
                sys.exit("bombs.py: %s is missing (build it first: bench/bombs.sh does)" % x)


def env_for(tmp):
    """The environment of a run in tmp: HOME and the XDG directories inside it, and an empty
    configuration tmp/empty.ini (EMPTY_CONFIG; --config refuses a device such as /dev/null)."""
    with open(os.path.join(tmp, EMPTY_CONFIG), "w"):
        pass
    e = dict(os.environ)
    e.update({"HOME": tmp, "XDG_CONFIG_HOME": os.path.join(tmp, "xdg-config"),
              "XDG_STATE_HOME": os.path.join(tmp, "xdg-state"),
              "XDG_CACHE_HOME": os.path.join(tmp, "xdg-cache"), "LC_ALL": "C"})
    return e


EMPTY_CONFIG = "empty.ini"  # relative: each command runs in its tmp
TIME = "/usr/bin/time" if os.access("/usr/bin/time", os.X_OK) else None


def measure(argv, env, cwd, timeout=600, stdout=None):
    """Runs argv; returns (exit status, seconds, max RSS in MB). stdout: a file or None. The
    peak memory is GNU time's (%M) when it is there: a child's own ru_maxrss also counts the
    Python process it was forked from."""
    t0 = time.time()
    mem = None
    if TIME:
        mem = os.path.join(cwd, ".time-%d" % os.getpid())
        argv = [TIME, "-f", "%M", "-o", mem] + argv
    p = subprocess.Popen(argv, env=env, cwd=cwd, stdout=stdout or subprocess.DEVNULL,
                         stderr=subprocess.DEVNULL)
    try:
        deadline = t0 + timeout
        while True:
            pid, status, ru = os.wait4(p.pid, os.WNOHANG)
            if pid:
                break
            if time.time() > deadline:
                p.kill()
                pid, status, ru = os.wait4(p.pid, 0)
                return None, time.time() - t0, ru.ru_maxrss / 1024.0
            time.sleep(0.01)
    finally:
        p.returncode = 0
    rc = os.waitstatus_to_exitcode(status) if hasattr(os, "waitstatus_to_exitcode") else status >> 8
    rss = ru.ru_maxrss / 1024.0
    if mem:
        try:
            with open(mem) as fh:
                rss = int(fh.read().split()[-1]) / 1024.0
            os.remove(mem)
        except (OSError, ValueError, IndexError):
            pass
    return rc, time.time() - t0, rss


# ---------------------------------------------------------------- the bombs

def put_archive(tmp, tree, name, data):
    """Writes archive `name` with `data` into a new tree tmp/tree; returns (root, size)."""
    root = os.path.join(tmp, tree)
    os.makedirs(root, exist_ok=True)
    with open(os.path.join(root, name), "wb") as fh:
        fh.write(data)
    return root, len(data)


def scan(b, env, tmp, root, db, config=EMPTY_CONFIG):
    """animidx scan of `root` into a new index tmp/db, measured: (rc, secs, rss)."""
    return measure([b.animidx, "scan", root, "--db", os.path.join(tmp, db), "--quiet",
                    "--config", config], env, tmp)


def bomb_pak_shared(b, tmp, env):
    root, size = put_archive(tmp, "pak-shared", "Metroid1.pak", bombs.pak_shared(20, 256 << 20))
    rc, secs, rss = scan(b, env, tmp, root, "ps.db")
    return dict(what="scan of a %d KB PAK: 20 records of one member that inflates to 256 MiB"
                     % (size // 1024), rc=rc, secs=secs, rss=rss)


def bomb_pak_many(b, tmp, env):
    root, size = put_archive(tmp, "pak-many", "Metroid2.pak", bombs.pak_many(40, 8 << 20))
    rc, secs, rss = scan(b, env, tmp, root, "pm.db")
    return dict(what="scan of a %d KB PAK of 40 members of 8 MiB" % (size // 1024), rc=rc,
                secs=secs, rss=rss)


def bomb_pak_memory(b, tmp, env):
    root = os.path.join(tmp, "pak-memory")
    os.makedirs(root, exist_ok=True)
    for i in range(4):
        with open(os.path.join(root, "M%d.pak" % i), "wb") as fh:
            fh.write(bombs.pak_many(1, 60 << 20))
    cfg = os.path.join(tmp, "mem.ini")
    with open(cfg, "w") as fh:
        fh.write("[scan]\nmemory_mb = 1\njobs = 4\n")
    rc, secs, rss = scan(b, env, tmp, root, "mm.db", cfg)
    return dict(what="scan, memory_mb = 1 and 4 jobs, of 4 PAKs of one 60 MiB member", rc=rc,
                secs=secs, rss=rss)


def bomb_findings(b, tmp, env):
    root = os.path.join(tmp, "flood")
    os.makedirs(root, exist_ok=True)
    with open(os.path.join(root, "W.pak"), "wb") as fh:
        fh.write(bombs.pak_warnings(250))
    rc, secs, rss = measure([b.animidx, "lint", root, "--db", os.path.join(tmp, "fl.db"),
                             "--quiet", "--config", EMPTY_CONFIG], env, tmp)
    return dict(what="lint of a file with 250 warnings, then an error (exit 1 wanted)", rc=rc,
                secs=secs, rss=rss, want_rc=1)


def bomb_samples(b, tmp, env):
    f = os.path.join(tmp, "BIG_IDLE_00.ALA")
    subprocess.run([b.amxgen, "ala-constant", f, "--frames", "1000000", "--bones", "1"],
                   check=True, env=env, stdout=subprocess.DEVNULL)
    out = os.path.join(tmp, "samples.json")
    with open(out, "wb") as fh:
        rc, secs, rss = measure([b.animidx, "dump", "--json", "--samples", f, "--config",
                                 EMPTY_CONFIG], env, tmp, stdout=fh)
    return dict(what="dump --json --samples of a %d-byte clip of a million frames"
                     % os.path.getsize(f), rc=rc, secs=secs, rss=rss,
                out_mb=os.path.getsize(out) / 1e6)


def bomb_tree(b, tmp, env):
    root = os.path.join(tmp, "tree")
    subprocess.run([b.amxgen, "tree", root, "--bones", "20000", "--clips", "20"], check=True,
                   env=env, stdout=subprocess.DEVNULL)
    db = os.path.join(tmp, "tree.db")
    subprocess.run([b.animidx, "scan", root, "--db", db, "--quiet", "--config", EMPTY_CONFIG],
                   check=True, env=env, cwd=tmp, stdout=subprocess.DEVNULL)
    out = os.path.join(tmp, "tree-report")
    rc, secs, rss = measure([b.animidx, "report", "--db", db, "--out", out, "--config",
                             EMPTY_CONFIG], env, tmp)
    html = os.path.join(out, "report.html")
    return dict(what="report of a skeleton of 20,000 bones and 20 clips that do not match it",
                rc=rc, secs=secs, rss=rss,
                out_mb=os.path.getsize(html) / 1e6 if os.path.exists(html) else None)


def bomb_uplink(b, tmp, env):
    root = os.path.join(tmp, "uplink")
    for k in range(200):
        subprocess.run([b.amxgen, "clip", os.path.join(root, "z", "X%03d_IDLE_00.ALA" % k),
                        "--bones", "a"], check=True, env=env, stdout=subprocess.DEVNULL)
    for k in range(8):  # eight links back to the root, at different depths
        d = os.path.join(root, *["d%d" % i for i in range(k + 1)])
        os.makedirs(d, exist_ok=True)
        os.symlink(os.path.relpath(root, d), os.path.join(d, "up"))
    rc, secs, rss = scan(b, env, tmp, root, "uplink.db")
    import sqlite3
    con = sqlite3.connect(os.path.join(tmp, "uplink.db"))
    n = con.execute("SELECT count(*) FROM files").fetchone()[0]
    con.close()
    return dict(what="scan of 200 clips under 8 symbolic links to the root (rows: 208 wanted)",
                rc=rc, secs=secs, rss=rss, rows=n)


def bomb_big_shared(b, tmp, env):
    pair = os.path.join(tmp, "w3d-pair")
    subprocess.run([b.amxgen, "w3d-pair", pair], check=True, env=env, stdout=subprocess.DEVNULL)
    with open(os.path.join(pair, "SKL.w3d"), "rb") as fh:
        member = fh.read()
    root, size = put_archive(tmp, "big-shared", "W3D.big", bombs.big_shared(member, 20000))
    rc, secs, rss = scan(b, env, tmp, root, "bs.db")
    return dict(what="scan of a %d KB BIG of 20,000 entries pointing at one W3D" % (size // 1024),
                rc=rc, secs=secs, rss=rss, out_mb=os.path.getsize(os.path.join(tmp, "bs.db")) / 1e6)


def bomb_meg_overlap(b, tmp, env):
    clip = os.path.join(tmp, "ov.ala")
    subprocess.run([b.amxgen, "clip", clip, "--bones", "Root,Body,Head", "--frames", "60"],
                   check=True, env=env, stdout=subprocess.DEVNULL)
    with open(clip, "rb") as fh:
        member = fh.read()
    root, size = put_archive(tmp, "meg-overlap", "Models.meg", bombs.meg_overlap(member, 20000))
    rc, secs, rss = scan(b, env, tmp, root, "mo.db")
    return dict(what="scan of a %d KB MEG of 20,000 overlapping entries (out: the index)"
                     % (size // 1024), rc=rc, secs=secs, rss=rss,
                out_mb=os.path.getsize(os.path.join(tmp, "mo.db")) / 1e6)


def bomb_same_name(b, tmp, env):
    root = os.path.join(tmp, "same-name")
    first = os.path.join(root, "d0000")
    subprocess.run([b.amxgen, "w3d-pair", first], check=True, env=env, stdout=subprocess.DEVNULL)
    for k in range(1, 4000):
        shutil.copytree(first, os.path.join(root, "d%04d" % k))
    rc, secs, rss = scan(b, env, tmp, root, "sn.db")
    return dict(what="scan of 4,000 directories each holding the same-named W3D hierarchy "
                     "and animation", rc=rc, secs=secs, rss=rss)


def ini_root(tmp, tree, text):
    root = os.path.join(tmp, tree)
    os.makedirs(os.path.join(root, "Data", "INI", "Object"), exist_ok=True)
    with open(os.path.join(root, "Data", "INI", "Object", "bomb.ini"), "w") as fh:
        fh.write(text)
    return root, len(text)


def bomb_ini_macros(b, tmp, env):
    root, size = ini_root(tmp, "ini-macros", bombs.ini_macros(4096, 400000))
    rc, secs, rss = scan(b, env, tmp, root, "im.db")
    return dict(what="scan of a %d KB INI: 4,096 #define macros, then 400,000 names"
                     % (size // 1024), rc=rc, secs=secs, rss=rss)


def bomb_ini_states(b, tmp, env):
    root, size = ini_root(tmp, "ini-states", bombs.ini_states(150000, 150000))
    rc, secs, rss = scan(b, env, tmp, root, "is.db")
    return dict(what="scan of a %d KB INI: one draw module of 150,000 condition states"
                     % (size // 1024), rc=rc, secs=secs, rss=rss)


def bomb_ini_includes(b, tmp, env):
    root = os.path.join(tmp, "ini-includes")
    size = 0
    for rel, text in bombs.ini_includers(2000, (4 << 20) - 4096).items():
        path = os.path.join(root, rel)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "w") as fh:
            fh.write(text)
        size += len(text)
    db = os.path.join(tmp, "ii.db")
    rc, secs, rss = scan(b, env, tmp, root, "ii.db")
    return dict(what="scan of %d KB: 2,000 INI files of 150 bytes, each including one fragment "
                     "of 4 MiB of animation states (out: the index)" % (size // 1024),
                rc=rc, secs=secs, rss=rss,
                out_mb=os.path.getsize(db) / 1e6 if os.path.exists(db) else None)


def bomb_ini_includes_big(b, tmp, env):
    """The same, packed in one .big archive: each INI member reads the fragment beside it."""
    files = {rel.replace("/", "\\"): text.encode()
             for rel, text in bombs.ini_includers(2000, (4 << 20) - 4096).items()}
    root, size = put_archive(tmp, "ini-includes-big", "!Mod.big", bombs.big_archive(files))
    db = os.path.join(tmp, "iib.db")
    rc, secs, rss = scan(b, env, tmp, root, "iib.db")
    return dict(what="scan of a %d KB BIG: 2,000 INI members of 150 bytes, each including one "
                     "fragment member of 4 MiB of animation states (out: the index)"
                     % (size // 1024), rc=rc, secs=secs, rss=rss,
                out_mb=os.path.getsize(db) / 1e6 if os.path.exists(db) else None)


def bomb_ini_bones(b, tmp, env):
    root, size = ini_root(tmp, "ini-bones", bombs.ini_bones("BIGM", 800, 100))
    subprocess.run([b.amxgen, "w3d-model", os.path.join(root, "Art", "W3D", "bigm.w3d"), "--name",
                    "BIGM", "--extra", "60000"], check=True, env=env, stdout=subprocess.DEVNULL)
    rc, secs, rss = scan(b, env, tmp, root, "ib.db")
    return dict(what="scan of a %d KB INI naming 160,800 bones and sub-objects on a W3D model "
                     "of 60,000 of each" % (size // 1024), rc=rc, secs=secs, rss=rss)


def rss_kb(pid):
    with open("/proc/%d/status" % pid) as fh:
        for line in fh:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    return 0


def bomb_socket(b, tmp, env):
    root = os.path.join(tmp, "sock-tree")
    subprocess.run([b.amxgen, "demo", root], check=True, env=env, stdout=subprocess.DEVNULL)
    sock = os.path.join(tempfile.mkdtemp(prefix="amxb-", dir="/tmp"), "d.sock")
    cfg = os.path.join(tmp, "d.ini")
    with open(cfg, "w") as fh:
        fh.write("[index]\ndatabase = %s\n[scan]\nroots = %s\n[daemon]\nsocket = %s\n"
                 "log = %s\n" % (os.path.join(tmp, "d.db"), root, sock, os.path.join(tmp, "d.log")))
    d = subprocess.Popen([b.animidxd, "--config", cfg, "--foreground"], env=env, cwd=tmp,
                         stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)

    def status(timeout=60):
        s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        s.settimeout(timeout)
        s.connect(sock)
        s.sendall(b'{"cmd": "status"}\n')
        buf = b""
        while not buf.endswith(b"\n"):
            c = s.recv(65536)
            if not c:
                break
            buf += c
        s.close()
        return json.loads(buf)
    try:
        t0 = time.time()
        while True:
            try:
                if status(5).get("state") == "watching":
                    break
            except OSError:
                pass
            if time.time() - t0 > 60:
                return dict(what="daemon did not start", rc=None, secs=0, rss=0)
            time.sleep(0.1)
        base = rss_kb(d.pid)
        flood = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        flood.connect(sock)
        flood.setblocking(False)
        chunk = b'{"cmd": "status"}\n' * 512
        waits, t0 = [], time.time()
        while time.time() - t0 < 10:
            try:
                flood.send(chunk)
            except BlockingIOError:
                time.sleep(0.005)
            if len(waits) < 10 and time.time() - t0 > len(waits) + 0.5:
                t1 = time.time()
                status()
                waits.append(time.time() - t1)
        grown = (rss_kb(d.pid) - base) / 1024.0
        flood.close()
        return dict(what="daemon, 10 s of a client sending status requests and reading none",
                    rc=0, secs=max(waits) if waits else None, rss=grown, note="secs: another "
                    "client's slowest status; MB: the daemon's RSS growth")
    finally:
        d.send_signal(signal.SIGTERM)
        try:
            d.wait(60)
        except subprocess.TimeoutExpired:
            d.kill()
        shutil.rmtree(os.path.dirname(sock), ignore_errors=True)


# name: (function, max seconds, max MB, max output MB)
BOMBS = {
    "pak-shared": (bomb_pak_shared, 5, 64, None),
    "pak-many": (bomb_pak_many, 5, 128, None),
    "pak-memory": (bomb_pak_memory, 10, 160, None),
    "findings": (bomb_findings, 5, 64, None),
    "samples": (bomb_samples, 2, 64, 0.1),
    "tree": (bomb_tree, 5, 128, 40),
    "uplink": (bomb_uplink, 5, 64, None),
    "big-shared": (bomb_big_shared, 5, 64, 16),
    "meg-overlap": (bomb_meg_overlap, 10, 128, 48),
    "same-name": (bomb_same_name, 10, 96, None),
    "socket": (bomb_socket, 1, 32, None),
    "ini-macros": (bomb_ini_macros, 3, 64, None),
    "ini-states": (bomb_ini_states, 10, 160, None),
    "ini-bones": (bomb_ini_bones, 10, 192, None),
    "ini-includes": (bomb_ini_includes, 10, 192, 128),
    "ini-includes-big": (bomb_ini_includes_big, 10, 192, 128),
}


def verdict(name, r):
    _, max_s, max_mb, max_out = BOMBS[name]
    bad = []
    if r.get("rc") is None:
        bad.append("timed out or failed")
    elif r["rc"] != r.get("want_rc", 0):
        bad.append("exit %s" % r["rc"])
    if r.get("secs") is not None and r["secs"] > max_s:
        bad.append("%.1f s > %g" % (r["secs"], max_s))
    if r.get("rss") is not None and r["rss"] > max_mb:
        bad.append("%.0f MB > %g" % (r["rss"], max_mb))
    if max_out is not None and (r.get("out_mb") is None or r["out_mb"] > max_out):
        bad.append("output %s MB > %g" % (r.get("out_mb"), max_out))
    if name == "uplink" and r.get("rows") != 208:
        bad.append("%s rows" % r.get("rows"))
    return "PASS" if not bad else "MISS (" + "; ".join(bad) + ")"


def fmt(r):
    if not r:
        return "-"
    s = "%6.2f s %7.1f MB" % (r["secs"] or 0, r["rss"] or 0)
    if r.get("out_mb") is not None:
        s += " out %.2f MB" % r["out_mb"]
    if r.get("rows") is not None:
        s += " rows %d" % r["rows"]
    if r.get("rc") is None:
        s += " (killed)"
    return s


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--build", required=True)
    ap.add_argument("--base")
    ap.add_argument("--keep", action="store_true")
    ap.add_argument("--only")
    a = ap.parse_args()
    builds = [("after", Build(a.build))]
    if a.base:
        builds.insert(0, ("before", Build(a.base, builds[0][1].amxgen)))
    names = a.only.split(",") if a.only else list(BOMBS)
    results = {}
    tmp = tempfile.mkdtemp(prefix="animidx-bombs-")
    try:
        for label, b in builds:
            for n in names:
                t = os.path.join(tmp, label, n)
                os.makedirs(t)
                sys.stderr.write("bombs: %s %s ...\n" % (label, n))
                results[(label, n)] = BOMBS[n][0](b, t, env_for(t))
    finally:
        if a.keep:
            print("kept %s" % tmp)
        else:
            shutil.rmtree(tmp, ignore_errors=True)
    failed = 0
    print("| bomb | bound | %s |" % " | ".join(l for l, _ in builds))
    print("|---|---|" + "---|" * len(builds))
    for n in names:
        _, s, mb, out = BOMBS[n]
        bound = "%g s, %g MB%s" % (s, mb, ", out %g MB" % out if out is not None else "")
        cells = []
        for label, _ in builds:
            r = results[(label, n)]
            v = verdict(n, r)
            if label == "after" and v != "PASS":
                failed += 1
            cells.append("%s %s" % (fmt(r), v))
        print("| %s: %s | %s | %s |" % (n, results[("after", n)]["what"], bound, " | ".join(cells)))
    print("%d of %d bombs within their bounds" % (len(names) - failed, len(names)))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
