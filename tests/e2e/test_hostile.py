#!/usr/bin/env python3
"""Hostile input through the command line (issue 16): decompression bombs, findings that must
not hide errors, symbolic links back into the tree, unreadable directories, other programs'
databases and configurations, report output through planted links, FIFOs, names that are not
text, samples of clips that claim millions of frames.

usage: test_hostile.py ANIMIDX AMXGEN

Everything is generated at run time in a temporary directory (tests/tools/bombs.py and amxgen);
each test is bounded in time so a regression to the old cost fails instead of hanging.
"""
import json
import os
import shutil
import sqlite3
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(HERE, "..", "tools"))
from tap import Tap, Cli, case, short  # noqa: E402
import bombs  # noqa: E402

if len(sys.argv) < 3:
    sys.stderr.write("usage: test_hostile.py ANIMIDX AMXGEN\n")
    sys.exit(2)

ANIMIDX = os.path.abspath(sys.argv[1])
AMXGEN = os.path.abspath(sys.argv[2])
TMP = tempfile.mkdtemp(prefix="animidx-hostile-")
tap = Tap()
ax = Cli(ANIMIDX, TMP)
gen = Cli(AMXGEN, TMP)
IS_ROOT = hasattr(os, "geteuid") and os.geteuid() == 0
# Sanitizer builds are slower: time bounds are scaled by this.
with open(ANIMIDX, "rb") as _fh:
    SLOW = 4 if b"AddressSanitizer" in _fh.read() else 1


def must(p, what, rc=0):
    if rc is not None and p.returncode != rc:
        raise AssertionError("%s: exit %d (want %d)\nstderr: %s\nstdout: %s" % (
            what, p.returncode, rc, p.stderr.strip()[:2000], p.stdout.strip()[:1000]))
    return p


def amxgen(*args):
    must(gen.run(*args), "amxgen " + " ".join(map(str, args)))


def write(path, data):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "wb" if isinstance(data, bytes) else "w") as fh:
        fh.write(data)


def fresh(name):
    d = os.path.join(TMP, name)
    shutil.rmtree(d, ignore_errors=True)
    os.makedirs(d)
    return d


def timed(*args, **kw):
    t0 = time.time()
    p = ax.run(*args, **kw)
    return p, time.time() - t0


def issues(db, *extra):
    return json.loads(must(ax.run("issues", "--db", db, "--json", *extra), "issues").stdout)


def paths(db):
    con = sqlite3.connect(db)
    try:
        return sorted(r[0] for r in con.execute("SELECT path FROM files"))
    finally:
        con.close()


def as_nobody():
    def drop():
        os.setgroups([])
        os.setgid(65534)
        os.setuid(65534)
    return drop


# ---------------------------------------------------------------- 1. PAK decompression bomb

def test_pak_bomb():
    with case(tap, "PAK bomb: 20 records of one 256 MiB member scan in seconds, one "
                   "LIMIT_EXCEEDED, nothing inflated") as c:
        root = fresh("pakbomb")
        write(os.path.join(root, "Metroid1.pak"), bombs.pak_shared(20, 256 << 20))
        db = os.path.join(TMP, "pakbomb.db")
        p, secs = timed("scan", root, "--db", db, "--json", "--quiet", timeout=120)
        must(p, "scan")
        c.that(secs < 10 * SLOW, "the scan took %.1f s (it inflated the member)" % secs)
        got = issues(db)
        c.eq([(i["code"], i["severity"]) for i in got], [("LIMIT_EXCEEDED", "error")], "findings")
        c.that(got and "unpack budget" in got[0]["message"], "message: %s" % short(got))
        c.eq(paths(db), ["Metroid1.pak"], "no member is indexed")
        p, secs = timed("dump", "--json", os.path.join(root, "Metroid1.pak"), timeout=120)
        c.eq(p.returncode, 1, "dump exit status (an error finding)")
        c.that(secs < 10 * SLOW, "dump took %.1f s" % secs)
        d = json.loads(p.stdout)
        c.eq(sum(1 for e in d["entries"] if e["valid"]), 0, "valid entries")

    with case(tap, "PAK of many members: the archive's budget stops the unpacking at the first "
                   "member past it") as c:
        root = fresh("pakmany")
        write(os.path.join(root, "Metroid2.pak"), bombs.pak_many(40, 8 << 20))
        db = os.path.join(TMP, "pakmany.db")
        must(ax.run("scan", root, "--db", db, "--quiet", timeout=120), "scan")
        got = issues(db)
        c.eq([i["code"] for i in got], ["LIMIT_EXCEEDED"], "findings")
        members = [x for x in paths(db) if "#" in x]
        # 64 MiB + 32 x ~330 KB: nine members of 8 MiB, not forty
        c.eq(len(members), 9, "members unpacked")


# ---------------------------------------------------------------- 3. findings that hide errors

def test_findings_cap():
    with case(tap, "an error after 250 warnings is kept: lint fails, the summary counts the "
                   "dropped warnings") as c:
        root = fresh("flood")
        write(os.path.join(root, "W.pak"), bombs.pak_warnings(250))
        p = ax.run("lint", root, "--db", os.path.join(TMP, "flood.db"), "--format", "json",
                   "--quiet")
        c.eq(p.returncode, 1, "lint exit status (stderr %r)" % p.stderr[-500:])
        got = [i for i in issues(os.path.join(TMP, "flood.db")) if i["path"] == "W.pak"]
        c.eq(sum(1 for i in got if i["code"] == "CHUNK_OVERRUN" and i["severity"] == "error"), 1,
             "the CHUNK_OVERRUN error")
        summary = [i for i in got if i["code"] == "LIMIT_EXCEEDED"]
        c.eq(len(summary), 1, "one summary finding")
        c.that(summary and summary[0]["severity"] == "warning" and
               "51 more findings" in summary[0]["message"] and "51 warnings" in summary[0]["message"],
               "summary: %s" % short(summary))
        d = ax.run("dump", os.path.join(root, "W.pak"))
        c.eq(d.returncode, 1, "dump exit status")
        c.that("51 more findings in this file were not recorded (51 warnings" in d.stdout,
               "dump: %s" % d.stdout[-400:])


# ---------------------------------------------------------------- 4. symbolic links

def test_symlink_ancestor():
    with case(tap, "ln -s .. a/up: files keep their own path, the link is a DIRECTORY_LOOP") as c:
        root = fresh("uplink")
        amxgen("clip", os.path.join(root, "z", "X_IDLE_00.ALA"), "--bones", "a,b")
        amxgen("model", os.path.join(root, "z", "X.ALO"), "--bones", "a,b")
        os.makedirs(os.path.join(root, "a"))
        os.symlink("..", os.path.join(root, "a", "up"))
        os.symlink("../z", os.path.join(root, "a", "zz"))
        db = os.path.join(TMP, "uplink.db")
        must(ax.run("scan", root, "--db", db, "--quiet"), "scan")
        c.eq(paths(db), ["a/up", "a/zz", "z/X.ALO", "z/X_IDLE_00.ALA"], "indexed paths")
        by = {i["path"]: i for i in issues(db)}
        c.that(by.get("a/up", {}).get("code") == "DIRECTORY_LOOP" and
               "the root" in by["a/up"]["message"], "a/up: %s" % short(by.get("a/up")))
        c.that(by.get("a/zz", {}).get("code") == "DIRECTORY_LOOP" and
               "'z'" in by["a/zz"]["message"], "a/zz: %s" % short(by.get("a/zz")))
        # a scope through the link is the file's own path
        must(ax.run("scan", root, "--db", db, "--quiet"), "rescan")
        c.eq(paths(db), ["a/up", "a/zz", "z/X.ALO", "z/X_IDLE_00.ALA"], "after a rescan")


# ---------------------------------------------------------------- 9. an unreadable directory

def test_unreadable_dir():
    with case(tap, "a directory that becomes unreadable keeps its rows, gets one IO_ERROR, and "
                   "the scan exits 3 (incomplete)") as c:
        base = tempfile.mkdtemp(prefix="animidx-hostile-nobody-")
        try:
            os.chmod(base, 0o777)
            root = os.path.join(base, "tree")
            amxgen("demo", root)
            locked = os.path.join(root, "Data", "Locked")
            amxgen("model", os.path.join(locked, "HIDDEN.ALO"), "--bones", "Root")
            amxgen("clip", os.path.join(locked, "Sub", "HIDDEN_IDLE_00.ALA"), "--bones", "Root")
            for d, _, fs in os.walk(root):
                os.chmod(d, 0o777)
                for f in fs:
                    os.chmod(os.path.join(d, f), 0o666)
            db = os.path.join(base, "n.db")
            run = dict(env=ax.env, cwd=base, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                       universal_newlines=True, timeout=120)
            pre = as_nobody() if IS_ROOT else None
            try:
                p = subprocess.run([ANIMIDX, "scan", root, "--db", db, "--json", "--quiet"],
                                   preexec_fn=pre, **run)
            except (OSError, subprocess.SubprocessError) as e:
                c.skip("cannot run the scan as uid 65534: %s" % e)
                return
            c.eq(p.returncode, 0, "first scan (stderr %r)" % p.stderr[-300:])
            before = paths(db)
            c.that("Data/Locked/HIDDEN.ALO" in before and
                   "Data/Locked/Sub/HIDDEN_IDLE_00.ALA" in before, "indexed: %s" % short(before))
            os.chmod(locked, 0)
            p = subprocess.run([ANIMIDX, "scan", root, "--db", db, "--json", "--quiet"],
                               preexec_fn=pre, **run)
            c.eq(p.returncode, 3, "exit status of the incomplete scan")
            c.that("the scan is incomplete" in p.stderr, "stderr: %r" % p.stderr)
            try:
                s = json.loads(p.stdout)["scan"]
                c.eq((s["complete"], s["dirs_unreadable"]), (False, 1), "scan JSON")
            except (ValueError, KeyError) as e:
                c.that(False, "scan JSON: %s: %r" % (e, p.stdout[:500]))
            after = paths(db)
            c.eq([x for x in before if x not in after], [], "rows lost")
            got = [i for i in issues(db) if i["path"].startswith("Data/Locked")]
            c.eq([(i["path"], i["code"]) for i in got if i["code"] == "IO_ERROR"],
                 [("Data/Locked", "IO_ERROR")], "one IO_ERROR, on the directory")
            os.chmod(locked, 0o777)
            p = subprocess.run([ANIMIDX, "scan", root, "--db", db, "--json", "--quiet"],
                               preexec_fn=pre, **run)
            c.eq(p.returncode, 0, "readable again")
            c.eq(paths(db), before, "rows after it is readable again")
            if IS_ROOT:
                c.note("ran the scans as uid 65534 (the tests run as root)")
        finally:
            for d, ds, fs in os.walk(base):
                for x in ds + fs:
                    try:
                        os.chmod(os.path.join(d, x), 0o755, follow_symlinks=False)
                    except OSError:
                        pass
            shutil.rmtree(base, ignore_errors=True)


def main():
    tests = [test_pak_bomb, test_findings_cap, test_symlink_ancestor, test_unreadable_dir]
    for t in tests:
        t()
    rc = tap.finish()
    if rc == 0 and not os.environ.get("AMX_KEEP_TMP"):
        shutil.rmtree(TMP, ignore_errors=True)
    else:
        print("# kept %s" % TMP)
    return rc


if __name__ == "__main__":
    sys.exit(main())
