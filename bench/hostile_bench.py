#!/usr/bin/env python3
"""The fourteen defects of issue 21 (an attacker's probe), each reproduced on the spot and run
with two builds, before and after the fixes: wall time, peak memory (GNU time %M), output size
or the behaviour (exit status, findings). See bench/README.md ("Hostile input of issue 21").

usage: bench/hostile_bench.py --before CLI --after CLI [--before-daemon D] [--after-daemon D]
                              [--amxgen G] [--only 1a,4,...] [--cap S] [--mem-cap MB]
                              [--big-xml-mb N] [--keep]

CLI is an animidx binary; the daemons default to ../daemon/animidxd next to each CLI's
directory, amxgen (which writes the models and clips) to ../tests/amxgen next to --after's (or
--before's). A run of the old code is stopped at --cap seconds (120) or --mem-cap MB of
resident memory (4096) and reported as '>120 s (killed)'; the new code gets --after-cap
seconds (300). Everything is written in a temporary directory, removed at the end unless --keep.
Progress goes to stderr, the table (Markdown) to stdout.
"""
import argparse
import contextlib
import importlib.util
import json
import os
import shutil
import signal
import sqlite3
import subprocess
import sys
import tempfile
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "tests", "tools"))
import bombs  # noqa: E402  (tests/tools/bombs.py: the generators the tests use too)

_spec = importlib.util.spec_from_file_location("bombs_bench", os.path.join(HERE, "bombs.py"))
bombs_bench = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(bombs_bench)
env_for, EMPTY_CONFIG, TIME = bombs_bench.env_for, bombs_bench.EMPTY_CONFIG, bombs_bench.TIME

CAP = 120.0      # seconds a command may run (--cap; --after-cap for the new code)
MEM_CAP = 4096   # MB of resident memory a command may take (--mem-cap)


# ---------------------------------------------------------------- running a command

class Result:
    """rc (None when killed), secs, cpu (user + system s), rss (MB), out/err (bytes written),
    head/errhead (the first 64 KB, text), killed (why, or None)."""
    def __init__(self):
        self.rc, self.secs, self.cpu, self.rss, self.killed = None, 0.0, 0.0, 0.0, None
        self.out = self.err = 0
        self.head = self.errhead = ""


def _drain(stream, res, attr, headattr):
    head = b""
    n = 0
    while True:
        chunk = stream.read(1 << 16)
        if not chunk:
            break
        n += len(chunk)
        if len(head) < 1 << 16:
            head += chunk[:(1 << 16) - len(head)]
        setattr(res, attr, n)
    setattr(res, headattr, head.decode("utf-8", "replace"))
    stream.close()


def _child_of(pid):
    """The program GNU time runs (its one child), or pid itself without GNU time."""
    if not TIME:
        return pid
    try:
        with open("/proc/%d/task/%d/children" % (pid, pid)) as fh:
            kids = fh.read().split()
        return int(kids[0]) if kids else None
    except (OSError, ValueError):
        return None


def _cpu_s(pid):
    """User + system seconds of a running process (/proc/PID/stat), 0 if gone."""
    try:
        with open("/proc/%d/stat" % pid) as fh:
            f = fh.read().rsplit(")", 1)[1].split()
        return (int(f[11]) + int(f[12])) / os.sysconf("SC_CLK_TCK")
    except (OSError, ValueError, IndexError):
        return 0.0


def _hwm_kb(pid):
    try:
        with open("/proc/%d/status" % pid) as fh:
            for line in fh:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1])
    except (OSError, ValueError):
        pass
    return 0


def run(argv, cwd, env, timeout=None, mem_cap=None, signal_at=None):
    """Runs argv under GNU time in its own process group, reading its stdout and stderr as they
    come (counted, the first 64 KB kept); kills the group past `timeout` seconds or `mem_cap`
    MB of resident memory. signal_at = (ready, sig): when ready() turns true, sig is sent to the
    program and res.stop_secs is the time from then to its exit."""
    timeout = CAP if timeout is None else timeout
    mem_cap = MEM_CAP if mem_cap is None else mem_cap
    res = Result()
    memfile = os.path.join(cwd, ".hostile-time-%d" % os.getpid())
    full = ([TIME, "-f", "%M %U %S", "-o", memfile] if TIME else []) + [str(a) for a in argv]
    t0 = time.time()
    p = subprocess.Popen(full, cwd=cwd, env=env, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, start_new_session=True)
    readers = [threading.Thread(target=_drain, args=(p.stdout, res, "out", "head")),
               threading.Thread(target=_drain, args=(p.stderr, res, "err", "errhead"))]
    for t in readers:
        t.start()
    hwm, cpu, child, sent, last_poll = 0, 0.0, None, None, 0.0
    while True:
        pid, status, ru = os.wait4(p.pid, os.WNOHANG)
        if pid:
            break
        now = time.time()
        if child is None:
            child = _child_of(p.pid)
        if child and now - last_poll > 0.02:
            hwm = max(hwm, _hwm_kb(child))
            cpu = max(cpu, _cpu_s(child))
            last_poll = now
        if signal_at and sent is None and child and signal_at[0]():
            os.kill(child, signal_at[1])
            sent = time.time()
        why = None
        if now - t0 > timeout:
            why = ">%g s (killed)" % timeout
        elif hwm > mem_cap * 1024:
            why = ">%d MB at %.0f s (killed)" % (mem_cap, now - t0)
        if why:
            res.killed = why
            try:
                os.killpg(p.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
            pid, status, ru = os.wait4(p.pid, 0)
            break
        time.sleep(0.005)
    res.secs = time.time() - t0
    p.returncode = 0  # reaped above
    for t in readers:
        t.join()
    if sent is not None:
        res.stop_secs = time.time() - sent
    res.rss, res.cpu = hwm / 1024.0, cpu
    if not res.killed:
        res.rc = os.waitstatus_to_exitcode(status)
        res.cpu = ru.ru_utime + ru.ru_stime
        try:
            with open(memfile) as fh:
                m, u, sy = fh.read().split("\n")[-2].split()
            res.rss, res.cpu = int(m) / 1024.0, float(u) + float(sy)
        except (OSError, ValueError, IndexError):
            pass
    if os.path.exists(memfile):
        os.remove(memfile)
    return res


def cost(r):
    """'18.21 s (cpu 17.90 s), 1412 MB' or '>120 s (killed; cpu 30.1 s), 1412 MB so far'."""
    if r.killed:
        return "%s; cpu %.1f s), %.0f MB so far" % (r.killed[:-1], r.cpu, r.rss)
    return "%.2f s (cpu %.2f s), %.0f MB" % (r.secs, r.cpu, r.rss)


def mb(n):
    if n >= 10 << 20:
        return "%.0f MB" % (n / 1e6)
    if n >= 1 << 20:
        return "%.1f MB" % (n / 1e6)
    if n >= 10000:
        return "%.0f KB" % (n / 1e3)
    return "%d B" % n


def query(db, sql):
    if not os.path.exists(db):
        return []
    con = sqlite3.connect(db)
    try:
        return con.execute(sql).fetchall()
    except sqlite3.Error as e:
        return [("sqlite error: %s" % e,)]
    finally:
        con.close()


def codes(db, path_like="%"):
    """'CODE n, CODE n' of the findings of the files matching path_like."""
    rows = query(db, "SELECT f.code, count(*) FROM findings f JOIN files x ON x.id = f.file_id "
                     "WHERE x.path LIKE '%s' GROUP BY f.code ORDER BY f.code" % path_like)
    return ", ".join("%s %d" % (c, n) for c, n in rows) or "no findings"


def write(path, data):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "wb" if isinstance(data, bytes) else "w") as fh:
        fh.write(data)


def short(s, n=90):
    s = s.strip().replace("\n", "\\n").replace("|", "\\|")
    return s if len(s) <= n else s[:n] + "..."


# ---------------------------------------------------------------- the sides

class Side:
    def __init__(self, label, cli, daemon, amxgen, cap):
        self.label, self.cli, self.daemon, self.amxgen = label, cli, daemon, amxgen
        self.cap = cap  # seconds a command of this side may run, unless the case says

    def gen(self, *args):
        subprocess.run([self.amxgen] + [str(a) for a in args], check=True,
                       stdout=subprocess.DEVNULL)

    def ax(self, tmp, env, *args, **kw):
        kw.setdefault("timeout", self.cap)
        return run([self.cli] + list(args), tmp, env, **kw)


def scan_args(root, db, *extra):
    return ["scan", root, "--db", db, "--quiet", "--config", EMPTY_CONFIG] + list(extra)


# ---------------------------------------------------------------- 1. entities in an attribute

def entity_case(refs):
    def f(s, tmp, env):
        root = os.path.join(tmp, "mod")
        write(os.path.join(root, "XML", "Units.xml"), bombs.entity_doc(refs))
        db = os.path.join(tmp, "e.db")
        r = s.ax(tmp, env, *scan_args(root, db))
        size = os.path.getsize(db) if os.path.exists(db) else 0
        if r.killed:
            return "%s; index %s" % (cost(r), mb(size))
        n = query(db, "SELECT length(name) FROM game_objects")
        return "%s; exit %s; index %s; name stored %s chars" % (
            cost(r), r.rc, mb(size), n[0][0] if n else "-")
    return f


def case_sigterm(s, tmp, env):
    root = os.path.join(tmp, "mod")
    os.makedirs(os.path.join(root, "XML"))
    size = bombs.one_line_xml(os.path.join(root, "XML", "Big.xml"), 10000000)
    db = os.path.join(tmp, "t.db")
    started = time.time()

    def ready():  # the scan has recorded its root (it handles signals by then), + 0.5 s
        if time.time() - started > 30:
            return True
        if not getattr(ready, "at", None):
            try:
                if query(db, "SELECT count(*) FROM roots")[0][0]:
                    ready.at = time.time()
            except (IndexError, TypeError):
                pass
            return False
        return time.time() - ready.at > 0.5
    r = s.ax(tmp, env, "scan", root, "--db", db, "--config", EMPTY_CONFIG,
             signal_at=(ready, signal.SIGTERM))
    if not hasattr(r, "stop_secs"):
        return "%s; ended before the signal (exit %s)" % (cost(r), r.rc)
    return "exit %.2f s after SIGTERM (exit status %s; %s file)" % (
        r.stop_secs, r.rc if not r.killed else r.killed, mb(size))


# ---------------------------------------------------------------- 2. same-named objects

def case_same_name(s, tmp, env):
    root = os.path.join(tmp, "Mod", "Data")
    models = os.path.join(root, "Art", "Models")
    s.gen("model", os.path.join(models, "M.ALO"), "--bones", "Root,Body,Head")
    for i in range(20):
        s.gen("clip", os.path.join(models, "S_IDLE_%02d.ALA" % i), "--bones", "Root,Body,Head")
    write(os.path.join(root, "XML", "Units.xml"), bombs.same_named_units(10000))
    other = os.path.join(tmp, "Other")
    s.gen("model", os.path.join(other, "O.ALO"), "--bones", "Root")
    alone = s.ax(tmp, env, *scan_args(root, os.path.join(tmp, "alone.db")))
    bound = query(os.path.join(tmp, "alone.db"),
                  "SELECT count(*) FROM clip_bindings WHERE how = 'xml-override'")
    # the same scan into a new index, and a scan of another root 0.5 s after it started
    db = os.path.join(tmp, "s.db")
    second = {}

    def other_scan():
        time.sleep(0.5)
        second["r"] = s.ax(tmp, env, *scan_args(other, db))
    t = threading.Thread(target=other_scan)
    t.start()
    r = s.ax(tmp, env, *scan_args(root, db))
    t.join()

    def end(x):
        if x.killed:
            return x.killed
        locked = " 'database is locked'" if "locked" in x.errhead else ""
        return "exit %s%s, %.1f s" % (x.rc, locked, x.secs)
    rows = query(db, "SELECT count(*), count(DISTINCT clip_id) FROM clip_bindings "
                     "WHERE how = 'xml-override'")
    return "%s; exit %s; clips bound %s/20. Again with a `scan` of another root meanwhile: " \
        "this scan %s, the other %s; %s override bindings of %s clips" % (
            cost(alone), alone.rc if not alone.killed else "-", bound[0][0] if bound else "-",
            end(r), end(second["r"]), rows[0][0] if rows else "-", rows[0][1] if rows else "-")


# ---------------------------------------------------------------- 3. output in proportion

def proportion_case(args):
    def f(s, tmp, env):
        top = os.path.dirname(os.path.dirname(tmp))  # one index per side for 3a, 3b, 3c
        db = os.path.join(top, "proportion-%s.db" % s.label)
        if not os.path.exists(db):
            root = os.path.join(top, "proportion-tree-%s" % s.label, "Data")
            write(os.path.join(root, "XML", "Big.xml"), bombs.proportion_doc())
            s.ax(tmp, env, *scan_args(root, db))
        r = s.ax(tmp, env, *(args + ["--db", db, "--config", EMPTY_CONFIG]))
        return "%s out; %s; exit %s" % (mb(r.out), cost(r), r.rc if not r.killed else "-")
    return f


# ---------------------------------------------------------------- 4. the daemon's health

def daemon_status(s, tmp, env, cfg):
    r = s.ax(tmp, env, "status", "--json", "--config", cfg, timeout=30)
    try:
        return r.rc, json.loads(r.head)
    except ValueError:
        return r.rc, {}


def sync(s, tmp, env, cfg):
    """(exit status, what sync said: 'in sync' or its error, the temporary directory cut)."""
    r = s.ax(tmp, env, "sync", "--json", "--config", cfg, timeout=60)
    try:
        o = json.loads(r.head)
        said = "in sync" if o.get("ok") else o.get("error", "?")
    except ValueError:
        said = (r.head + " " + r.errhead).strip()
    return r.rc, short(said.replace(os.path.dirname(cfg) + "/", ""), 110)


def health(st):
    """The status's health and its problems' kinds (a daemon before the fix has neither)."""
    if "health" not in st:
        return "no health field"
    kinds = ",".join(p.get("kind", "?") for p in st.get("problems") or [])
    return "health %s%s" % (st["health"], " (%s)" % kinds if kinds else "")


@contextlib.contextmanager
def daemon_on_demo(s, tmp, env, *extra):
    """animidxd --foreground on a new demo tree tmp/root (and `extra` arguments), its index,
    socket and log in tmp, until it is no longer scanning; yields (process, config, root) and
    stops it with SIGTERM."""
    root = os.path.join(tmp, "root")
    s.gen("demo", root)
    cfg = os.path.join(tmp, "d.ini")
    sockdir = tempfile.mkdtemp(prefix="amxh-", dir="/tmp")  # a socket path holds <= 107 bytes
    write(cfg, "[index]\ndatabase = %s\n[daemon]\nsocket = %s\nlog = %s\n" % (
        os.path.join(tmp, "d.db"), os.path.join(sockdir, "d.sock"), os.path.join(tmp, "d.log")))
    d = subprocess.Popen([s.daemon, root, "--config", cfg, "--foreground"] + list(extra), cwd=tmp,
                         env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        deadline = time.time() + 60
        while time.time() < deadline and d.poll() is None:
            _, st = daemon_status(s, tmp, env, cfg)
            if st and st.get("state") != "scanning":
                break
            time.sleep(0.2)
        yield d, cfg, root
    finally:
        if d.poll() is None:
            d.send_signal(signal.SIGTERM)
            try:
                d.wait(60)
            except subprocess.TimeoutExpired:
                d.kill()
                d.wait()
        shutil.rmtree(sockdir, ignore_errors=True)


def files_in(tmp):
    return query(os.path.join(tmp, "d.db"), "SELECT count(*) FROM files")[0][0] \
        if os.path.exists(os.path.join(tmp, "d.db")) else 0


def case_daemon_base(s, tmp, env):
    with daemon_on_demo(s, tmp, env, "--base", os.path.join(tmp, "missing")) as (d, cfg, root):
        if d.poll() is not None:
            return "animidxd exit %s at start" % d.returncode
        n = sum(len(fs) for _, _, fs in os.walk(root))
        src, st = daemon_status(s, tmp, env, cfg)
        rc, said = sync(s, tmp, env, cfg)
        return "index %d of %d files; status exit %s, %s, %s; sync exit %s: %s" % (
            files_in(tmp), n, src, st.get("state", "?"), health(st), rc, said)


def case_daemon_root(s, tmp, env):
    with daemon_on_demo(s, tmp, env) as (d, cfg, root):
        _, st0 = daemon_status(s, tmp, env, cfg)
        keep = os.path.join(tmp, "root.saved")
        shutil.copytree(root, keep, symlinks=True)
        shutil.rmtree(root)
        time.sleep(1.0)
        rc_gone, said_gone = sync(s, tmp, env, cfg)
        _, st_gone = daemon_status(s, tmp, env, cfg)
        shutil.copytree(keep, root, symlinks=True)
        time.sleep(3.0)
        rc, said = sync(s, tmp, env, cfg)
        _, st1 = daemon_status(s, tmp, env, cfg)
        # a file saved in the restored tree: is it seen?
        write(os.path.join(root, "Data", "XML", "hostile_probe.xml"),
              '<Units><SpaceUnit Name="Probe"/></Units>\n')
        time.sleep(1.0)
        sync(s, tmp, env, cfg)
        seen = query(os.path.join(tmp, "d.db"),
                     "SELECT count(*) FROM files WHERE path LIKE '%hostile_probe.xml'")
        return ("root deleted: sync exit %s (%s), %s; restored, 3 s later: sync exit %s (%s), "
                "watches %s -> %s -> %s; a file saved then: %s" % (
                    rc_gone, said_gone, health(st_gone), rc, said, st0.get("watches"),
                    st_gone.get("watches"), st1.get("watches"),
                    "indexed" if seen and seen[0][0] else "NOT indexed"))


def case_daemon_hup(s, tmp, env):
    with daemon_on_demo(s, tmp, env) as (d, cfg, root):
        sync(s, tmp, env, cfg)
        _, st0 = daemon_status(s, tmp, env, cfg)
        d.send_signal(signal.SIGHUP)
        time.sleep(2.0)
        sync(s, tmp, env, cfg)
        _, st1 = daemon_status(s, tmp, env, cfg)
        return "full_rescans %s -> %s, batches %s -> %s" % (
            st0.get("full_rescans"), st1.get("full_rescans"), st0.get("batches"),
            st1.get("batches"))


# ---------------------------------------------------------------- 5. names that forge lines

def case_forged(s, tmp, env):
    root = os.path.join(tmp, "mod")
    s.gen("model", os.path.join(root, bombs.FORGED + ".ALO"), "--bones", "Root,Body")
    s.gen("clip", os.path.join(root, bombs.FORGED + "_IDLE_00.ALA"), "--bones",
          "Root," + bombs.FORGED + "_BONE")
    db = os.path.join(tmp, "f.db")
    s.ax(tmp, env, *scan_args(root, db))
    out = []
    for cmd in (["lint", root], ["issues"]):
        r = s.ax(tmp, env, *(cmd + ["--db", db, "--config", EMPTY_CONFIG]))
        text = r.head + r.errhead
        forged = [ln for ln in text.split("\n") if ln.startswith("::error") or
                  ln.startswith("lint: 0 files, 0 errors; passed")]
        out.append("%s: %d forged lines, %d raw ESC" % (cmd[0], len(forged), text.count("\x1b")))
    return "; ".join(out)


# ---------------------------------------------------------------- 6. links out of the root

def links_case(target):
    def f(s, tmp, env):
        root = os.path.join(tmp, "mod", "Data")
        s.gen("model", os.path.join(root, "Art", "Models", "X.ALO"), "--bones", "Root")
        os.symlink(target, os.path.join(root, "etc" if target == "/etc" else "self"))
        db = os.path.join(tmp, "l.db")
        r = s.ax(tmp, env, *scan_args(root, db))
        n = query(db, "SELECT count(*) FROM files")
        size = os.path.getsize(db) if os.path.exists(db) else 0
        said = "%s files indexed, index %s" % (n[0][0] if n else "-", mb(size))
        if r.killed:
            return "%s; %s" % (cost(r), said)
        return "%s; exit %s; %s; LINK_NOT_FOLLOWED %d" % (
            cost(r), r.rc, said, query(db, "SELECT count(*) FROM findings WHERE code = "
                                           "'LINK_NOT_FOLLOWED'")[0][0])
    return f


# ---------------------------------------------------------------- 7. the findings cap

def case_refcap(s, tmp, env):
    root = os.path.join(tmp, "mod", "Data")
    os.makedirs(os.path.join(root, "XML"))
    bombs.missing_refs_xml(os.path.join(root, "XML", "Many.xml"), 1000100)
    db = os.path.join(tmp, "r.db")
    r = s.ax(tmp, env, *scan_args(root, db))
    if r.killed:
        return cost(r)
    got = dict(query(db, "SELECT code, count(*) FROM findings GROUP BY code"))
    return "%s; exit %s; REFERENCE_NOT_FOUND %d, LIMIT_EXCEEDED %d; index %s" % (
        cost(r), r.rc, got.get("REFERENCE_NOT_FOUND", 0), got.get("LIMIT_EXCEEDED", 0),
        mb(os.path.getsize(db)))


# ---------------------------------------------------------------- 8. incremental = fresh

RIG_A = "Root,Hull,Turret,Muzzle_A,Muzzle_B"
RIG_B = "Root,Hull,Turret,Muzzle_B,Muzzle_A"


def not_loaded(db):
    m = query(db, "SELECT f.message FROM findings f JOIN files x ON x.id = f.file_id WHERE "
                  "f.code = 'CLIP_NOT_LOADED_BY_NAME' AND x.path LIKE '%Odd_Name.ALA'")
    return m[0][0] if m else None


def fits(msg):
    if msg is None:
        return "no CLIP_NOT_LOADED_BY_NAME"
    if "no indexed skeleton fits" in msg:
        return "'no skeleton fits'"
    i = msg.find("fit skeleton")
    return "'%s'" % msg[i:msg.find("'", msg.find("'", i) + 1) + 1] if i >= 0 else short(msg, 50)


def case_incremental(s, tmp, env):
    root = os.path.join(tmp, "Mod")
    s.gen("clip", os.path.join(root, "Data", "Art", "Models", "Odd_Name.ALA"), "--bones", RIG_A)
    s.gen("model", os.path.join(root, "Data", "Art", "Models", "Other.ALO"), "--bones", RIG_B)
    db = os.path.join(tmp, "i.db")
    s.ax(tmp, env, *scan_args(root, db))
    out = []
    for step in ("add", "remove"):
        aaa = os.path.join(root, "Data", "Art", "AAA.ALO")
        if step == "add":
            s.gen("model", aaa, "--bones", RIG_A)
        else:
            os.remove(aaa)
        s.ax(tmp, env, *scan_args(root, db))
        fresh = os.path.join(tmp, "fresh-%s.db" % step)
        s.ax(tmp, env, *scan_args(root, fresh))
        a, b = fits(not_loaded(db)), fits(not_loaded(fresh))
        out.append("skeleton AAA %s: incremental %s, fresh %s%s" % (
            "added" if step == "add" else "removed", a, b, "" if a == b else " (DIFFER)"))
    return "; ".join(out)


# ---------------------------------------------------------------- 9. a deep variant chain

def case_variants(s, tmp, env):
    root = os.path.join(tmp, "Mod", "Data")
    s.gen("model", os.path.join(root, "Art", "Models", "Deep.ALO"), "--bones", RIG_B)
    s.gen("clip", os.path.join(root, "Art", "Models", "Deep_Set_IDLE_00.ALA"), "--bones", RIG_A)
    out = []
    for depth in (17, 300):
        write(os.path.join(root, "XML", "Units.xml"), bombs.variant_chain_units(depth))
        db = os.path.join(tmp, "v%d.db" % depth)
        s.ax(tmp, env, *scan_args(root, db))
        out.append("depth %d: %s" % (depth, codes(db, "%Deep_Set_IDLE_00.ALA")))
    return "; ".join(out)


# ---------------------------------------------------------------- 10. entities in text

def case_entity_text(s, tmp, env):
    root = os.path.join(tmp, "mod")
    write(os.path.join(root, "XML", "A.xml"), bombs.ENTITY_IN_TEXT)
    db = os.path.join(tmp, "t.db")
    s.ax(tmp, env, *scan_args(root, db))
    refs = [r[0] for r in query(db, "SELECT name FROM refs ORDER BY name")]
    xml = query(db, "SELECT count(*) FROM findings WHERE code = 'XML_MALFORMED'")
    return "reference %s; XML_MALFORMED %s" % (", ".join("'%s'" % x for x in refs) or "none",
                                              xml[0][0] if xml else "-")


# ---------------------------------------------------------------- 11. a base layer that nests

def case_base_nesting(s, tmp, env):
    top = os.path.join(tmp, "nest")
    mod = os.path.join(top, "Mod", "Data")
    s.gen("model", os.path.join(mod, "Art", "Models", "X.ALO"), "--bones", "a,b")
    db = os.path.join(tmp, "n.db")
    r = s.ax(tmp, env, "scan", mod, "--base", os.path.dirname(mod), "--db", db, "--quiet",
             "--config", EMPTY_CONFIG)
    rows = query(db, "SELECT count(*) FROM files WHERE path LIKE '%X.ALO'")
    sh = s.ax(tmp, env, "show", os.path.join(mod, "Art", "Models", "X.ALO"), "--db", db,
              "--config", EMPTY_CONFIG) if os.path.exists(db) else None
    def said(x):  # the message's first line without the temporary directory
        m = x.errhead.strip().split("\n")[0].replace(top + "/", "").replace(top, ".")
        return " (%s)" % short(m, 110) if x.rc and m else ""
    return "scan --base PARENT: exit %s%s; X.ALO indexed %s times; show ABSPATH: %s" % (
        r.rc, said(r), rows[0][0] if rows else 0,
        "exit %s%s" % (sh.rc, said(sh)) if sh else "no index")


# ---------------------------------------------------------------- 12. side files

def side_setup(s, tmp, env):
    tree = os.path.join(tmp, "tree")
    s.gen("demo", tree)
    db = os.path.join(tmp, "x.db")
    s.ax(tmp, env, *scan_args(tree, db))
    return tree, db


def side_read_case(path_kind):
    def f(s, tmp, env):
        tree, db = side_setup(s, tmp, env)
        if path_kind == "fifo":
            path = os.path.join(tmp, "fifo")
            os.mkfifo(path)
        else:
            path = "/dev/zero"
        out = []
        for opt, argv, cap in (
                ("--baseline", ["lint", tree, "--db", db, "--quiet", "--baseline", path], 30),
                ("report --previous", ["report", "--db", db, "--out", os.path.join(tmp, "o"),
                                       "--previous", path], 30)):
            r = s.ax(tmp, env, *(argv + ["--config", EMPTY_CONFIG]), timeout=cap, mem_cap=2048)
            out.append("%s: %s%s" % (opt, cost(r), "" if r.killed else ", exit %s" % r.rc))
        return "; ".join(out)
    return f


def case_side_links(s, tmp, env):
    tree, db = side_setup(s, tmp, env)
    victim = os.path.join(tmp, "victim")
    write(victim, "precious\n")
    link = os.path.join(tmp, "base.json")
    os.symlink(victim, link)
    s.ax(tmp, env, "lint", tree, "--db", db, "--write-baseline", link, "--quiet", "--config",
         EMPTY_CONFIG)
    with open(victim) as fh:
        a = fh.read() == "precious\n"
    write(victim, "precious\n")
    out = os.path.join(tmp, "out")
    os.makedirs(out)
    os.symlink(victim, os.path.join(out, "report.html"))
    s.ax(tmp, env, "report", "--db", db, "--out", out, "--quiet", "--config", EMPTY_CONFIG)
    with open(victim) as fh:
        b = fh.read() == "precious\n"
    html = os.path.join(out, "report.html")

    def state(untouched, path):
        return "target %s, %s" % ("untouched" if untouched else "OVERWRITTEN",
                                  "still a link" if os.path.islink(path) else "now a file")
    return "--write-baseline LINK: %s; report.html a link: %s" % (
        state(a, link), state(b, html))


# ---------------------------------------------------------------- 13. a reader open

def case_reader(s, tmp, env):
    root = os.path.join(tmp, "root")
    s.gen("demo", root)
    db = os.path.join(tmp, "r.db")
    s.ax(tmp, env, *scan_args(root, db))
    write(os.path.join(root, "Data", "Art", "Models", "touched.xml"),
          '<u><o Name="A"><Land_Model_Name>A.alo</Land_Model_Name></o></u>')
    con = sqlite3.connect(db, isolation_level=None)
    try:
        con.execute("BEGIN")
        con.execute("SELECT count(*) FROM files").fetchall()  # holds a read snapshot
        r = s.ax(tmp, env, *scan_args(root, db))
    finally:
        con.execute("COMMIT")
        con.close()
    plain = s.ax(tmp, env, *scan_args(root, db))
    return "incremental scan with a reader open: %s, exit %s (without: %.2f s)" % (
        cost(r), r.rc, plain.secs)


# ---------------------------------------------------------------- 14. libxml2's messages, memory

def case_xml_stderr(s, tmp, env):
    root = os.path.join(tmp, "mod")
    for name, data in bombs.XML_NOT_TEXT.items():
        write(os.path.join(root, "XML", name), data)
    db = os.path.join(tmp, "m.db")
    r = s.ax(tmp, env, *scan_args(root, db))
    nul = query(db, "SELECT f.message FROM findings f JOIN files x ON x.id = f.file_id WHERE "
                    "x.path LIKE '%Nul.xml'")
    said = "; ".join(m for (m,) in nul)
    return "scan --quiet: %d bytes on stderr (%s); Nul.xml: %s" % (
        r.err, short(r.errhead, 40) or "none",
        "'Latin-1'" if "Latin-1" in said else short(said, 50) or "no finding")


def big_xml_case(megabytes):
    def f(s, tmp, env):
        root = os.path.join(tmp, "mod")
        size = bombs.one_line_xml(os.path.join(root, "XML", "Big.xml"),
                                  (megabytes or BIG_XML_MB) * 250000)
        r = s.ax(tmp, env, *scan_args(root, os.path.join(tmp, "b.db")))
        return "%s; exit %s; a %s file" % (cost(r), r.rc if not r.killed else "-", mb(size))
    return f


BIG_XML_MB = 200

# id, defect, what is run (the table's command column), function
CASES = [
    ("1a", 1, "`scan`: 62 KB XML, an entity of 50,000 chars named 4,000 times in a Name",
     entity_case(4000)),
    ("1b", 1, "`scan`: the same with 8,000 references (124 KB)", entity_case(8000)),
    ("1c", 1, "`scan`, SIGTERM 0.5 s after the root is recorded, while a 40 MB one-line XML "
              "decodes", case_sigterm),
    ("2", 2, "`scan`: 40 objects named A (model, override set S) + 10,000 variants named A + 20 "
             "clips S_IDLE_NN; then again with a `scan` of another root 0.5 s later",
     case_same_name),
    ("3a", 3, "`refs --missing` after a scan of a 365 KB XML (300,000-char Name, 65 KB terrain "
              "mapping)", proportion_case(["refs", "--missing"])),
    ("3b", 3, "`refs XML/Big.xml` (same index)", proportion_case(["refs", "XML/Big.xml"])),
    ("3c", 3, "`show XML/Big.xml` (same index)", proportion_case(["show", "XML/Big.xml"])),
    ("4a", 4, "`animidxd ROOT --base MISSING` (demo tree), then `status`, `sync`",
     case_daemon_base),
    ("4b", 4, "animidxd on the demo tree; the root deleted (`sync`), restored (`sync`), a file "
              "added", case_daemon_root),
    ("4c", 4, "animidxd; SIGHUP with the same config", case_daemon_hup),
    ("5", 5, "`lint` and `issues` piped, a model, clip and bone named "
             "`x\\n::error file=README.md::...\\nlint: 0 files, 0 errors; passed\\x1b[2K\\n`",
     case_forged),
    ("6a", 6, "`scan` of a mod with `Data/etc -> /etc`", links_case("/etc")),
    ("6b", 6, "`scan` of a mod with `Data/self -> /proc/self`", links_case("/proc/self")),
    ("7", 7, "`scan`: one XML file naming 1,000,100 missing models (37 MB)", case_refcap),
    ("8", 8, "clip Odd_Name.ALA (fits rig A), a skeleton AAA of rig A added, then removed: "
             "incremental `scan` vs a fresh one", case_incremental),
    ("9", 9, "clip of the override set of V0, V0 a variant of V1 ... of V17 (V300), whose "
             "model's bones are in another order: the clip's findings", case_variants),
    ("10", 10, "`scan`: `<Land_Model_Name>x&i;y.alo</...>`, `&i;` an internal entity",
     case_entity_text),
    ("11", 11, "`scan MOD --base PARENT_OF_MOD`, then `show MOD/.../X.ALO`", case_base_nesting),
    ("12a", 12, "`lint --baseline /dev/zero`, `report --previous /dev/zero` (stopped at 30 s or "
                "2 GB)", side_read_case("zero")),
    ("12b", 12, "the same with a FIFO nobody writes (stopped at 30 s)", side_read_case("fifo")),
    ("12c", 12, "`lint --write-baseline LINK`, `report --out DIR` with DIR/report.html a link",
     case_side_links),
    ("13", 13, "incremental `scan` (one file changed) while a reader holds a read transaction",
     case_reader),
    ("14a", 14, "`scan --quiet` of a Shift_JIS XML, a bad UTF-16 XML, an XML holding a NUL",
     case_xml_stderr),
    ("14b", 14, "`scan` of a one-line XML of BIG MB, 50 million empty elements (peak memory)",
     big_xml_case(None)),
    ("14c", 14, "the same at 40 MB (10 million elements)", big_xml_case(40)),
]


def main():
    global CAP, MEM_CAP, BIG_XML_MB
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--before", required=True, help="the animidx of the old code")
    ap.add_argument("--after", required=True, help="the animidx of the new code")
    ap.add_argument("--before-daemon", help="its animidxd (default: CLI/../../daemon/animidxd)")
    ap.add_argument("--after-daemon", help="its animidxd (default: CLI/../../daemon/animidxd)")
    ap.add_argument("--amxgen", help="the sample writer (default: next to --after's build)")
    ap.add_argument("--only", help="case ids or defect numbers, comma-separated (1a,4,12)")
    ap.add_argument("--cap", type=float, default=CAP,
                    help="seconds a command of the old code may run (120)")
    ap.add_argument("--after-cap", type=float, default=300,
                    help="seconds a command of the new code may run (300)")
    ap.add_argument("--mem-cap", type=int, default=MEM_CAP, help="MB a command may take (4096)")
    ap.add_argument("--big-xml-mb", type=int, default=BIG_XML_MB,
                    help="size of case 14b's one-line XML in MB (200)")
    ap.add_argument("--keep", action="store_true", help="keep the temporary directory")
    a = ap.parse_args()
    CAP, MEM_CAP, BIG_XML_MB = a.cap, a.mem_cap, a.big_xml_mb

    def near(cli, rel):
        return os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(cli)), "..", rel))
    amxgen = a.amxgen or next((g for g in (near(a.after, "tests/amxgen"),
                                           near(a.before, "tests/amxgen"))
                               if os.access(g, os.X_OK)), None)
    sides = [Side("before", os.path.abspath(a.before),
                  a.before_daemon or near(a.before, "daemon/animidxd"), amxgen, a.cap),
             Side("after", os.path.abspath(a.after),
                  a.after_daemon or near(a.after, "daemon/animidxd"), amxgen, a.after_cap)]
    for x in [amxgen] + [p for s in sides for p in (s.cli, s.daemon)]:
        if not x or not os.access(x, os.X_OK):
            sys.exit("hostile_bench.py: %s is missing or not executable" % x)
    CASES[:] = [(c[0], c[1], c[2].replace("BIG MB", "%d MB" % BIG_XML_MB).replace(
        "50 million", "%g million" % (BIG_XML_MB / 4)), c[3]) for c in CASES]
    want = a.only.split(",") if a.only else None
    cases = [c for c in CASES if not want or c[0] in want or str(c[1]) in want]
    tmp = tempfile.mkdtemp(prefix="animidx-hostile-bench-")
    rows = []
    load0 = os.getloadavg()
    try:
        for cid, _, what, fn in cases:
            cells = []
            for s in sides:
                t = os.path.join(tmp, cid, s.label)
                os.makedirs(t)
                sys.stderr.write("hostile_bench: %s %s ...\n" % (cid, s.label))
                try:
                    cells.append(fn(s, t, env_for(t)))
                except Exception as e:  # noqa: BLE001 (a case that breaks is reported as such)
                    cells.append("bench error: %s: %s" % (type(e).__name__, short(str(e), 120)))
                sys.stderr.write("    %s\n" % cells[-1])
            rows.append((cid, what, cells))
    finally:
        if a.keep:
            sys.stderr.write("hostile_bench: kept %s\n" % tmp)
        else:
            shutil.rmtree(tmp, ignore_errors=True)
    load1 = os.getloadavg()
    print("before: %s\nafter:  %s\nload average %.2f %.2f %.2f at the start, %.2f %.2f %.2f at "
          "the end; %d cores\n" % (sides[0].cli, sides[1].cli, *load0, *load1, os.cpu_count()))
    print("| case | command | before | after |")
    print("|---|---|---|---|")
    for cid, what, cells in rows:
        print("| %s | %s | %s | %s |" % (cid, what, cells[0], cells[1]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
