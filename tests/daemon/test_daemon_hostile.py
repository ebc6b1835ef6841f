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


def main():
    tests = [test_symlink_to_ancestor]
    try:
        for t in tests:
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
