#!/usr/bin/env python3
"""The end-to-end suites of tests/ run against the Windows build under wine (scripts/windows.sh).

  run_e2e.py BUILD_WIN AMXGEN [SUITE...]

The suites are the same files meson runs on Linux (tests/meson.build); AMX_TEST_WINE=wine makes
them start the .exe programs through wine, give them Windows paths (Z:\\...) and accept the Windows
form of paths in what they print (tests/e2e/tap.py). What cannot apply on Windows is skipped there
with the reason. AMXGEN writes the input files (bytes: the Linux build's amxgen will do). The
suites run two at a time, the longest first, each for at most AMX_E2E_LIMIT seconds
(default 900: a hung one is killed and fails); each one's TAP goes to BUILD_WIN/e2e-logs/NAME.tap and
all of them, renumbered, to stdout, then one line per suite with its counts and seconds.
"""
import os
import re
import signal
import subprocess
import sys
import threading
import time
from concurrent.futures import ThreadPoolExecutor

HERE = os.path.dirname(os.path.abspath(__file__))
TESTS = os.path.dirname(HERE)
SOURCE = os.path.dirname(TESTS)
LIMIT = int(os.environ.get("AMX_E2E_LIMIT", "900"))  # seconds a suite may take


def suites(build, amxgen):
    cli = os.path.join(build, "cli", "animidx.exe")
    daemon = os.path.join(build, "daemon", "animidxd.exe")
    t = lambda *p: os.path.join(TESTS, *p)  # noqa: E731
    # name: argv, as tests/meson.build gives them; longest first (seconds under wine on 2 cores
    # with other work running: lint 158, daemon 146, e2e 126, report 93, cli 90, corpus_index
    # 66, hostile_cli 30, daemon_hostile 29, link_hostile 27, follow 9)
    return {
        "lint": [t("lint", "test_lint.py"), cli, amxgen],
        "daemon": [t("daemon", "test_daemon.py"), cli, daemon, amxgen],
        "e2e": [t("e2e", "test_e2e.py"), cli, amxgen],
        "report": [t("lint", "test_report.py"), cli, amxgen],
        "cli": [t("e2e", "test_cli.py"), cli, amxgen, build],
        "corpus_index": [t("e2e", "test_corpus_index.py"), cli, amxgen],
        "hostile_cli": [t("e2e", "test_hostile.py"), cli, amxgen],
        "daemon_hostile": [t("daemon", "test_daemon_hostile.py"), cli, daemon, amxgen],
        "link_hostile": [t("e2e", "test_link_hostile.py"), cli, amxgen],
        "follow": [t("daemon", "test_follow.py"), cli, amxgen],
    }


def kill_group(pid):
    try:
        os.killpg(pid, signal.SIGKILL)
    except OSError:
        pass  # it ended meanwhile


def main(argv):
    if len(argv) < 3:
        sys.stderr.write(__doc__)
        return 2
    build, amxgen = os.path.abspath(argv[1]), os.path.abspath(argv[2])
    every = suites(build, amxgen)
    names = argv[3:] or list(every)
    unknown = [n for n in names if n not in every]
    if unknown:
        sys.stderr.write("run_e2e.py: no suite %s (known: %s)\n" % (", ".join(unknown), ", ".join(every)))
        return 2
    logs = os.path.join(build, "e2e-logs")
    os.makedirs(logs, exist_ok=True)
    env = dict(os.environ, AMX_TEST_WINE=os.environ.get("AMX_TEST_WINE", "wine"),
               WINEDEBUG=os.environ.get("WINEDEBUG", "-all"),
               AMX_CORPUS=os.environ.get("AMX_CORPUS", os.path.join(SOURCE, "..", "shared", "corpus")),
               AMX_SOURCE_ROOT=SOURCE, NO_COLOR="1")

    def run(name):
        t0 = time.time()
        log = os.path.join(logs, name + ".tap")
        with open(log, "w") as out:
            p = subprocess.Popen([sys.executable] + every[name], stdout=subprocess.PIPE,
                                 stderr=subprocess.STDOUT, env=env, universal_newlines=True,
                                 errors="replace", start_new_session=True)
            # a suite that hangs (a program under wine that never exits) fails at the limit
            # instead of holding CI: its process group is killed, the run goes on
            timer = threading.Timer(LIMIT, kill_group, (p.pid,))
            timer.start()
            last = t0
            for line in p.stdout:  # each test point's seconds, after it
                out.write(line)
                if re.match(r"(not )?ok \d+ ", line):
                    now = time.time()
                    out.write("# %.1f s\n" % (now - last))
                    last = now
            rc = p.wait()
            timer.cancel()
            if time.time() - t0 >= LIMIT:
                out.write("not ok 0 - the suite was killed at the limit of %d s (AMX_E2E_LIMIT)\n" % LIMIT)
        return name, rc, time.time() - t0, log

    n = 0
    summary = []
    with ThreadPoolExecutor(max_workers=int(os.environ.get("AMX_E2E_JOBS", "2"))) as pool:
        for name, rc, secs, log in pool.map(run, names):
            ok = skipped = failed = 0
            with open(log, errors="replace") as f:
                for line in f:
                    m = re.match(r"(not ok|ok) \d+ - (.*)", line.rstrip("\n"))
                    if m:
                        n += 1
                        print("%s %d - %s: %s" % (m.group(1), n, name, m.group(2)))
                        if m.group(1) == "not ok":
                            failed += 1
                        elif " # SKIP " in m.group(2):
                            skipped += 1
                        else:
                            ok += 1
                    elif line.startswith("#") and not re.match(r"# [0-9.]+ s$", line):
                        print(line.rstrip("\n"))
            if rc != 0 and not failed:  # died before its failures were counted
                n += 1
                failed += 1
                print("not ok %d - %s: the suite exited with %s (%s)" % (n, name, rc, log))
            summary.append("# %s: %d passed, %d skipped, %d failed, %.0f s" % (name, ok, skipped, failed, secs))
            sys.stdout.flush()
    print("1..%d" % n)
    for line in summary:
        print(line)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
