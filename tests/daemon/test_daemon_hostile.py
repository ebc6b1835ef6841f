#!/usr/bin/env python3
"""animidxd against hostile trees and clients (issue 16): a symbolic link back to an ancestor
directory, and control-socket clients that send requests and never read the replies.

usage: test_daemon_hostile.py ANIMIDX ANIMIDXD AMXGEN

Uses the helpers of test_daemon.py (the Daemon class, compare_with_fresh_scan); TAP on stdout.
"""
import os
import shutil
import signal
import socket
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import test_daemon as td  # noqa: E402  (reads sys.argv like this script)
from test_daemon import Daemon, case, clip, model, paths_in, compare_with_fresh_scan, tap  # noqa: E402

WALKER = td.WALKER
with open(td.ANIMIDXD, "rb") as _fh:
    SANITIZED = b"__asan_init" in _fh.read()  # its allocator keeps freed memory (RSS)


def test_symlink_to_ancestor():
    with case(tap, "ln -s .. inside a watched root: the daemon indexes each file once, under its "
                   "own path, and its index equals a fresh scan") as c:
        root = os.path.join(td.TMP, "uplink")
        model(os.path.join(root, "z", "UV_WALKER.ALO"), WALKER)
        clip(os.path.join(root, "z", "UV_WALKER_IDLE_00.ALA"), WALKER)
        os.makedirs(os.path.join(root, "a", "b"))
        os.symlink("../..", os.path.join(root, "a", "b", "up"))
        os.symlink("../z", os.path.join(root, "a", "zz"))
        d = Daemon("uplink-daemon", [root]).start()
        d.sync()
        # changes in the directory the links lead to, and a link made while watching
        clip(os.path.join(root, "z", "UV_WALKER_WALK_00.ALA"), WALKER, frames=12)
        clip(os.path.join(root, "z", "UV_WALKER_IDLE_00.ALA"), WALKER, frames=20)
        os.symlink("..", os.path.join(root, "a", "up2"))
        d.sync()
        got = paths_in(d.db)
        c.eq([p for p in got if p.startswith("a/")], ["a/b/up", "a/up2", "a/zz"],
             "rows under a/ (the links only)")
        c.eq([p for p in got if p.startswith("z/")],
             ["z/UV_WALKER.ALO", "z/UV_WALKER_IDLE_00.ALA", "z/UV_WALKER_WALK_00.ALA"],
             "the files, once each")
        compare_with_fresh_scan(c, d, "uplink")
        d.check_clean_stop(c)


def rss_kb(pid):
    with open("/proc/%d/status" % pid) as fh:
        for line in fh:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    return 0


def test_client_that_never_reads():
    with case(tap, "a control client that sends requests and never reads: the daemon stops "
                   "reading it, stays small, answers others at once, indexes changes, and drops "
                   "it after 10 s") as c:
        root = os.path.join(td.TMP, "flood")
        model(os.path.join(root, "UV_WALKER.ALO"), WALKER)
        d = Daemon("flood-daemon", [root]).start()
        d.sync()
        base = rss_kb(d.proc.pid)
        flood = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        flood.connect(d.sock)
        flood.setblocking(False)
        line = b'{"cmd": "status"}\n'
        chunk = line * 512
        sent, t0 = 0, time.time()
        lat = []
        while time.time() - t0 < 3 * td.SLOW:
            try:
                sent += flood.send(chunk)
            except BlockingIOError:
                time.sleep(0.01)
            if len(lat) < 5 and time.time() - t0 > 0.5 * (len(lat) + 1):
                t1 = time.time()
                r = d.request("status", timeout=60)
                lat.append(time.time() - t1)
                c.that(r.get("ok"), "status of another client: %s" % r)
        grown = rss_kb(d.proc.pid) - base
        c.note("flood: %d requests written in 3 s (the rest blocked), daemon RSS +%d KB, "
               "other clients' status in %s s" % (sent // len(line), grown,
                                                  ", ".join("%.3f" % x for x in lat)))
        c.that(sent // len(line) < 100000, "the daemon read %d requests it cannot answer" % (sent // len(line)))
        if not SANITIZED:
            c.that(grown < 16 * 1024, "the daemon grew by %d KB" % grown)
        c.that(lat and max(lat) < 2 * td.SLOW, "another client waited %.1f s" % max(lat or [0]))
        # file events still go through
        clip(os.path.join(root, "UV_WALKER_IDLE_00.ALA"), WALKER, frames=7)
        t1 = time.time()
        d.sync()
        c.that(time.time() - t1 < 5 * td.SLOW, "sync took %.1f s" % (time.time() - t1))
        c.that("UV_WALKER_IDLE_00.ALA" in paths_in(d.db), "the new clip is indexed")
        # the stalled client is dropped after 10 s of unread replies: what it reads then is
        # what was queued before, and then the end of the stream
        dropped = td.wait_for(lambda: "control client dropped" in d.log(), 20 * td.SLOW, 0.2)
        c.that(dropped, "no log line for the dropped client")
        flood.setblocking(True)
        flood.settimeout(10 * td.SLOW)
        got, end = 0, False
        try:
            while True:
                b = flood.recv(1 << 20)
                if not b:
                    end = True
                    break
                got += len(b)
        except ConnectionResetError:
            end = True  # closed with requests it never read: a reset
        except (socket.timeout, OSError) as e:
            c.note("reading the flood socket: %s" % e)
        flood.close()
        c.that(end, "the stalled client's socket did not end (%d bytes of replies read)" % got)
        c.that(got < 4 << 20, "%d bytes of replies were queued for it" % got)
        c.eq(d.request("status").get("ok"), True, "status after the drop")
        d.check_clean_stop(c)


def test_many_clients():
    with case(tap, "more than 64 control connections: the extra ones are refused with an error "
                   "line, the others keep working") as c:
        root = os.path.join(td.TMP, "many")
        model(os.path.join(root, "UV_WALKER.ALO"), WALKER)
        d = Daemon("many-daemon", [root]).start()
        d.sync()
        conns = []
        try:
            for _ in range(70):
                s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
                s.connect(d.sock)
                conns.append(s)
            time.sleep(0.5)
            refused = 0
            for s in conns:
                s.settimeout(0.2)
                try:
                    b = s.recv(4096)
                    if b"too many clients" in b:
                        refused += 1
                except socket.timeout:
                    pass
            c.eq(refused, 6, "connections refused")
            conns[0].settimeout(30 * td.SLOW)
            conns[0].sendall(b"status\n")
            reply = b""
            while not reply.endswith(b"\n"):
                b = conns[0].recv(65536)
                if not b:
                    break
                reply += b
            c.that(b'"ok":true' in reply, "status on an accepted connection: %r" % reply[:200])
        finally:
            for s in conns:
                s.close()
        time.sleep(0.3)
        c.eq(d.request("status").get("ok"), True, "status after they closed")
        d.check_clean_stop(c)


def test_lock_link():
    with case(tap, "a link planted at the index's lock file: the daemon refuses it (exit 3) and "
                   "the file it points at is untouched") as c:
        root = os.path.join(td.TMP, "locklink")
        model(os.path.join(root, "UV_WALKER.ALO"), WALKER)
        d = Daemon("locklink-daemon", [root])
        victim = os.path.join(d.dir, "victim")
        with open(victim, "w") as fh:
            fh.write("precious\n")
        os.symlink(victim, d.db + ".animidxd.lock")
        d.start(wait=False)
        try:
            rc = d.proc.wait(20 * td.SLOW)
        except Exception:
            d.proc.kill()
            rc = d.proc.wait()
        d.proc = None
        d.stderr.close()
        c.eq(rc, 3, "exit status")
        with open(victim) as fh:
            c.eq(fh.read(), "precious\n", "the file the link points at")
        c.that("lock file" in d.log(), "the message: %r" % d.log()[-500:])


FORGED = "x\n::error file=README.md::forged\nlint: 0 files, 0 errors; passed\x1b[2K\n"


def test_forged_log_lines():
    with case(tap, "names holding LF and ESC forge no line in the daemon's log, in status or sync "
                   "(issue 21, defect 5)") as c:
        import re
        root = os.path.join(td.TMP, "forged" + FORGED + "root")
        model(os.path.join(root, FORGED + ".ALO"), WALKER)
        d = Daemon("forged-daemon", [])
        d.start("--", root)
        d.sync()
        clip(os.path.join(root, FORGED + "_IDLE_00.ALA"), WALKER + [FORGED], frames=9)
        d.sync()
        log = d.log().split("[stderr]")[0]
        stamp = re.compile(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3} animidxd\[\d+\] \w+: ")
        bad = [ln for ln in log.splitlines() if not stamp.match(ln)]
        c.eq(bad, [], "log lines that are not a record of their own")
        c.that("\x1b" not in log, "raw ESC in the log")
        c.that("x\\x0A::error" in log, "the name escaped in the log: %r" % log[-600:])
        for cmd in ("status", "sync"):
            p = d.cli(cmd, rc=None)
            text = p.stdout + p.stderr
            c.that(not [ln for ln in text.split("\n") if ln.startswith("::error") or
                        ln.startswith("lint: 0")], "%s: forged lines in %r" % (cmd, text[:500]))
            c.that("\x1b" not in text, "%s: raw ESC in %r" % (cmd, text[:300]))
        st = d.cli("status").stdout
        c.that("forgedx\\x0A::error file=README.md::forged\\x0Alint: 0 files, 0 errors; "
               "passed\\x1B[2K\\x0Aroot" in st, "status names the root escaped: %r" % st[:600])
        d.check_clean_stop(c)


def test_links_out_of_root():
    with case(tap, "a link out of a watched root: not followed, not watched (LINK_NOT_FOLLOWED); "
                   "with --follow-links it is scanned and watched (issue 21, defect 6)") as c:
        root = os.path.join(td.TMP, "linkroot")
        outside = os.path.join(td.TMP, "linkoutside")
        model(os.path.join(root, "UV_WALKER.ALO"), WALKER)
        clip(os.path.join(outside, "UV_WALKER_IDLE_00.ALA"), WALKER)
        os.symlink(outside, os.path.join(root, "out"))
        os.symlink("/proc/self", os.path.join(root, "self"))
        d = Daemon("linkout-daemon", [root]).start()
        d.sync()
        c.eq(paths_in(d.db), ["UV_WALKER.ALO", "out", "self"], "indexed paths")
        codes = {i["path"]: i["code"] for i in d.query("issues")}
        c.eq((codes.get("out"), codes.get("self")), ("LINK_NOT_FOLLOWED", "LINK_NOT_FOLLOWED"), "findings")
        clip(os.path.join(outside, "UV_WALKER_WALK_00.ALA"), WALKER)
        d.sync()
        c.eq(paths_in(d.db, "out"), ["out"], "a change out of the root is not indexed")
        st = d.status()
        c.that(st.get("watches", 99) <= 2, "watches: %s" % st.get("watches"))
        d.check_clean_stop(c)
        os.unlink(os.path.join(root, "self"))
        d.start("--follow-links")
        d.sync()
        c.eq(paths_in(d.db, "out"), ["out/UV_WALKER_IDLE_00.ALA", "out/UV_WALKER_WALK_00.ALA"],
             "--follow-links: indexed under the link")
        clip(os.path.join(outside, "UV_WALKER_RUN_00.ALA"), WALKER)
        d.sync()
        c.that("out/UV_WALKER_RUN_00.ALA" in paths_in(d.db, "out"), "--follow-links: watched")
        compare_with_fresh_scan(c, d, "linkout", "--follow-links")
        d.check_clean_stop(c)


def main():
    tests = [test_symlink_to_ancestor, test_client_that_never_reads, test_many_clients,
             test_lock_link, test_forged_log_lines, test_links_out_of_root]
    try:
        only = os.environ.get("AMX_ONLY")  # e.g. AMX_ONLY=test_lock_link: those tests alone
        for t in tests:
            if not only or t.__name__ in only.split(","):
                t()
    finally:
        for d in td.DAEMONS:
            if d.alive():
                d.proc.send_signal(signal.SIGCONT)
                d.proc.kill()
                d.proc.wait()
    rc = tap.finish()
    if rc == 0 and not os.environ.get("AMX_KEEP_TMP"):
        shutil.rmtree(td.TMP, ignore_errors=True)
    else:
        print("# kept %s" % td.TMP)
    return rc


if __name__ == "__main__":
    sys.exit(main())
