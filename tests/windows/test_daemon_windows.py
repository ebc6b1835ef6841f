#!/usr/bin/env python3
"""animidxd on Windows, under wine (scripts/windows.sh): the watcher (uv_fs_event, recursive),
the control socket as a named pipe of the user and index, sync, a rename (the row kept), a clean
stop on Ctrl-C and by 'animidx stop' over the pipe; and --help and errors in Windows terms. TAP
on stdout.

  test_daemon_windows.py ANIMIDX_EXE ANIMIDXD_EXE AMXGEN_EXE

The daemon's Linux suites (tests/daemon) speak to a Unix socket and send POSIX signals; this is
the same story told through what Windows has: the CLI over the pipe, Ctrl-C (wine turns the
SIGINT it is sent into the console's Ctrl-C event)."""
import json
import os
import shutil
import signal
import sqlite3
import subprocess
import sys
import tempfile
import time

cli, daemon, amxgen = (os.path.abspath(a) for a in sys.argv[1:4])
env = dict(os.environ, WINEDEBUG="-all", NO_COLOR="1")
tests = failures = 0


def check(name, ok, detail=""):
    global tests, failures
    tests += 1
    print(("ok" if ok else "not ok") + " %d - %s" % (tests, name))
    if not ok:
        failures += 1
        for line in str(detail).splitlines()[-25:]:
            print("# " + line)
    sys.stdout.flush()


def wine(prog, *args, timeout=120):
    return subprocess.run(["wine", prog] + [str(a) for a in args], env=env, timeout=timeout,
                          stdout=subprocess.PIPE, stderr=subprocess.PIPE, universal_newlines=True)


tmp = tempfile.mkdtemp(prefix="animidx-windows-daemon-")
tree, db = os.path.join(tmp, "Mod"), os.path.join(tmp, "index.db")
pipe = "//./pipe/animidx-test-%d" % os.getpid()
cfg = os.path.join(tmp, "animidx.ini")
with open(cfg, "w") as f:
    f.write("[index]\ndatabase = %s\n[daemon]\nsocket = %s\nsettle_ms = 50\nlog = %s\n" % (
        db, pipe, os.path.join(tmp, "animidxd.log")))
p = wine(amxgen, "demo", tree)  # the demo tree: models, clips, archives
made = p.returncode == 0 and os.path.isdir(tree)
if not made:  # an older amxgen: a tree of corpus files instead
    corpus = os.environ.get("AMX_CORPUS") or os.path.join(os.path.dirname(__file__), "..", "..", "..", "shared", "corpus")
    shutil.copytree(os.path.join(corpus, "alamo"), os.path.join(tree, "Data", "Art", "Models"))


def ax(*args, rc=0):
    p = wine(cli, *args, "--config", cfg)
    if p.returncode != rc:
        raise AssertionError("animidx %s: exit %d (want %d)\n%s%s" % (
            " ".join(args), p.returncode, rc, p.stdout, p.stderr))
    return p.stdout


def row_id(rel):
    """The files row id of a path relative to the tree (None when not indexed)."""
    con = sqlite3.connect("file:%s?mode=ro" % db, uri=True)
    try:
        r = con.execute("SELECT id FROM files WHERE path = ?", (rel.replace(os.sep, "/"),)).fetchone()
        return r[0] if r else None
    finally:
        con.close()


def indexed(rel):
    out = json.loads(ax("issues", "--json", "--severity", "info") or "{}")
    text = json.dumps(out)
    return rel in text


# --help and errors in Windows terms: %APPDATA%, '\\', no XDG, no SIGHUP, no systemd
top = wine(cli, "--help").stdout
scan_help = wine(cli, "issues", "--help").stdout
lint_help = wine(cli, "lint", "--help").stdout
dhelp = wine(daemon, "--help").stdout
posix_words = ("~/", "XDG", ".config", ".local/state", "SIGHUP", "systemd", "systemctl", "/tmp",
               "Unix socket", "man animidx")
said = [w for w in posix_words for t in (top, scan_help, lint_help, dhelp) if w in t]
check("--help says Windows paths: %APPDATA%\\animidx\\animidx.ini, %LOCALAPPDATA%, .\\; no "
      "POSIX path or signal",
      "config file (default: %APPDATA%\\animidx\\animidx.ini" in top and
      "%LOCALAPPDATA%\\animidx\\index.db" in top and "%LOCALAPPDATA%\\animidx\\lint-*.db" in top and
      "--config .\\animidx.ini" in top and "with .\\ or a trailing \\" in scan_help and
      "%LOCALAPPDATA%\\animidx" in lint_help and "default: %APPDATA%\\animidx\\animidx.ini" in dhelp and
      "Ctrl-C, Ctrl-Break" in dhelp and "'animidx stop', then animidxd" in dhelp and not said,
      "POSIX words: %s\n%s\n%s" % (said, top, dhelp))
noroot = os.path.join(tmp, "empty.ini")
open(noroot, "w").close()
e = wine(cli, "scan", "--config", noroot)
check("errors say Windows paths: 'animidx scan .\\Data'",
      e.returncode == 2 and "'animidx scan .\\Data'" in e.stderr, "exit %d: %s" % (e.returncode, e.stderr))

log = open(os.path.join(tmp, "stderr.txt"), "w")
proc = subprocess.Popen(["wine", daemon, "--foreground", "--config", cfg, tree], env=env,
                        stdout=log, stderr=log)
try:
    # the initial scan, then the pipe answers
    up = False
    for _ in range(120):
        if proc.poll() is not None:
            break
        if wine(cli, "status", "--json", "--config", cfg).returncode == 0:
            up = True
            break
        time.sleep(1)
    check("animidxd starts under wine and answers 'animidx status' on its named pipe", up,
          open(os.path.join(tmp, "stderr.txt")).read())
    st = json.loads(ax("status", "--json")) if up else {}
    check("status: the watcher is uv_fs_event and the root is the Windows path of the tree",
          up and st.get("watcher", "").startswith("uv_fs_event") and
          any(r.startswith("Z:/") for r in st.get("roots", [])), st)

    # a new file is indexed after a sync
    src = None
    for d, _, fs in os.walk(tree):
        for n in fs:
            if n.upper().endswith(".ALA"):
                src = os.path.join(d, n)
                break
        if src:
            break
    new = os.path.join(os.path.dirname(src), "NEW_IDLE_00.ALA")
    shutil.copyfile(src, new)
    # and one after it: NEW's row id is not the highest (SQLite hands that out again)
    shutil.copyfile(src, os.path.join(os.path.dirname(src), "NEW_IDLE_01.ALA"))
    ax("sync", "--quiet")
    out = ax("show", os.path.relpath(new, tree).replace("/", "\\"))
    check("watch: a new file is indexed by the next sync (and shown by its Windows path)",
          "NEW_IDLE_00" in out, out)

    # a rename moves it: the same row (uv_fs_event's name gone, then name there, paired)
    moved = os.path.join(os.path.dirname(src), "MOVED_IDLE_00.ALA")
    new_id = row_id(os.path.relpath(new, tree))
    os.rename(new, moved)
    ax("sync", "--quiet")
    out_new = wine(cli, "show", os.path.relpath(moved, tree), "--config", cfg)
    out_old = wine(cli, "show", os.path.relpath(new, tree), "--config", cfg)
    moved_id = row_id(os.path.relpath(moved, tree))
    check("rename: the new name is indexed, keeping the row's id, and the old one is gone",
          out_new.returncode == 0 and out_old.returncode != 0 and new_id and moved_id == new_id,
          "ids %s -> %s\n" % (new_id, moved_id) +
          out_new.stdout + out_new.stderr + out_old.stdout + out_old.stderr)

    # a removed file is removed
    os.remove(moved)
    ax("sync", "--quiet")
    gone = wine(cli, "show", os.path.relpath(moved, tree), "--config", cfg)
    check("a removed file leaves the index", gone.returncode != 0, gone.stdout + gone.stderr)

    # a second daemon on the same index is refused (LockFileEx)
    second = wine(daemon, "--foreground", "--config", cfg, tree, timeout=60)
    check("a second animidxd on the same index is refused (exit 3, names the first)",
          second.returncode == 3 and "already running" in second.stderr, second.stderr)

    print("# overflow: SKIP on Windows under wine: uv_fs_event's buffer cannot be made to "
          "overflow on purpose here; the overflow rescan is the same code as on Linux")

    # a clean stop on Ctrl-C
    proc.send_signal(signal.SIGINT)
    try:
        rc = proc.wait(120)
    except subprocess.TimeoutExpired:
        proc.kill()
        rc = proc.wait()
    with open(os.path.join(tmp, "animidxd.log"), errors="replace") as f:
        text = f.read()
    check("shutdown: Ctrl-C stops animidxd cleanly (exit 0, every handle closed)",
          rc == 0 and "every handle closed" in text, "exit %s\n%s" % (rc, text[-2000:]))

    # 'animidx stop' over the named pipe: the same exit codes and messages as over a Unix socket
    log.close()
    log = open(os.path.join(tmp, "stderr.txt"), "w")
    proc = subprocess.Popen(["wine", daemon, "--foreground", "--config", cfg, tree], env=env,
                            stdout=log, stderr=log)
    up = False
    for _ in range(120):
        if proc.poll() is not None:
            break
        if wine(cli, "status", "--json", "--config", cfg).returncode == 0:
            up = True
            break
        time.sleep(1)
    pid = json.loads(ax("status", "--json")).get("pid") if up else None
    p = wine(cli, "stop", "--json", "--config", cfg)
    reply = json.loads(p.stdout) if p.returncode == 0 and p.stdout.strip() else {}
    ended = False
    try:
        proc.wait(10)  # stop returned once the index was closed: the exit follows at once
        ended = True
    except subprocess.TimeoutExpired:
        pass
    with open(os.path.join(tmp, "animidxd.log"), errors="replace") as f:
        text = f.read()
    check("'animidx stop' over the named pipe: exit 0 once animidxd has stopped, which exits 0 "
          "with every handle closed",
          up and p.returncode == 0 and reply.get("cmd") == "stop" and reply.get("pid") == pid and
          reply.get("database", "").endswith("/index.db") and ended and proc.returncode == 0 and
          "'animidx stop': stopping" in text and text.rstrip().endswith(
              "stopped: every handle closed, the loop is empty"),
          "up %s, stop exit %d: %s%s\nended %s (exit %s)\n%s" % (
              up, p.returncode, p.stdout, p.stderr, ended, proc.returncode, text[-1500:]))
    again = wine(cli, "stop", "--config", cfg)
    check("'animidx stop' with no daemon: exit 3, names the pipe the Windows way, no systemctl",
          again.returncode == 3 and "no animidxd is running on " + pipe.replace("/", "\\") in
          again.stderr and "systemctl" not in again.stderr and "socket is" not in again.stderr,
          "exit %d: %s" % (again.returncode, again.stderr))
finally:
    if proc.poll() is None:
        proc.kill()
        proc.wait()
    log.close()
    shutil.rmtree(tmp, ignore_errors=True)

print("1..%d" % tests)
sys.exit(1 if failures else 0)
