#!/usr/bin/env python3
"""Hostile input to the link pass through the command line (issue 21): many game objects of one
name, and more references in one file than the findings cap.

usage: test_link_hostile.py ANIMIDX AMXGEN

Everything is generated at run time in a temporary directory; each test is bounded in time so a
regression to the old cost fails instead of hanging.
"""
import os
import shutil
import sqlite3
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(HERE, "..", "tools"))
from tap import Tap, Cli, case, short  # noqa: E402
import bombs  # noqa: E402

if len(sys.argv) < 3:
    sys.stderr.write("usage: test_link_hostile.py ANIMIDX AMXGEN\n")
    sys.exit(2)

ANIMIDX = os.path.abspath(sys.argv[1])
AMXGEN = os.path.abspath(sys.argv[2])
TMP = tempfile.mkdtemp(prefix="animidx-link-hostile-")
tap = Tap()
ax = Cli(ANIMIDX, TMP)
gen = Cli(AMXGEN, TMP)
# Sanitizer builds are slower: time bounds are scaled by this.
with open(ANIMIDX, "rb") as _fh:
    SLOW = 4 if b"__asan_init" in _fh.read() else 1


def must(p, what, rc=0):
    if rc is not None and p.returncode != rc:
        raise AssertionError("%s: exit %d (want %d)\nstderr: %s\nstdout: %s" % (
            what, p.returncode, rc, p.stderr.strip()[:2000], p.stdout.strip()[:1000]))
    return p


def amxgen(*args):
    must(gen.run(*args), "amxgen " + " ".join(map(str, args)))


def write(path, data):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as fh:
        fh.write(data)


def fresh(name):
    d = os.path.join(TMP, name)
    shutil.rmtree(d, ignore_errors=True)
    os.makedirs(d)
    return d


def rows(db, sql):
    con = sqlite3.connect(db)
    try:
        return con.execute(sql).fetchall()
    finally:
        con.close()


# ---------------------------------------------------------------- 2. objects of one name

def test_same_named_objects():
    with case(tap, "40 game objects named A with an override set, 10,000 more named A each a "
                   "variant of A, 20 clips of the set: the link pass stays linear, and a scan of "
                   "another root meanwhile does not find the index locked") as c:
        d = fresh("samename")
        root = os.path.join(d, "Mod", "Data")
        models = os.path.join(root, "Art", "Models")
        amxgen("model", os.path.join(models, "M.ALO"), "--bones", "Root,Body,Head")
        for i in range(20):
            amxgen("clip", os.path.join(models, "S_IDLE_%02d.ALA" % i), "--bones", "Root,Body,Head")
        write(os.path.join(root, "XML", "Units.xml"), bombs.same_named_units(10000))
        other = os.path.join(d, "Other")
        amxgen("model", os.path.join(other, "O.ALO"), "--bones", "Root")
        db = os.path.join(d, "db")
        t0 = time.time()
        first = ax.popen("scan", root, "--db", db, "--quiet")
        time.sleep(0.2)
        second = ax.run("scan", other, "--db", db, "--quiet", timeout=120)
        out, err = first.communicate(timeout=300)
        secs = time.time() - t0
        c.eq(first.returncode, 0, "the scan of the mod (stderr %s)" % short(err))
        c.eq(second.returncode, 0, "the scan of another root meanwhile (stderr %s)" % short(second.stderr))
        c.that("locked" not in second.stderr, "stderr: %s" % short(second.stderr))
        # each clip walked up to 256 objects x 16 variant levels, each lookup reading every
        # object of the name: 29-70 s, 141 s on a loaded machine
        c.that(secs < 10 * SLOW, "the scan took %.1f s" % secs)
        c.eq(rows(db, "SELECT count(*) FROM clip_bindings WHERE how = 'xml-override'"), [(20,)],
             "each clip bound to M through the override")
        c.eq(rows(db, "SELECT count(*) FROM findings WHERE code = 'LIMIT_EXCEEDED'"), [(0,)],
             "no limit reached")


# ---------------------------------------------------------------- 7. the findings cap

def test_reference_cap():
    with case(tap, "100,000 missing names in one XML file: at most 200 reference findings and "
                   "one LIMIT_EXCEEDED counting the rest") as c:
        d = fresh("refcap")
        root = os.path.join(d, "Data")
        os.makedirs(os.path.join(root, "XML"))
        bombs.missing_refs_xml(os.path.join(root, "XML", "Many.xml"), 100000)
        db = os.path.join(d, "db")
        p = ax.run("scan", root, "--db", db, "--quiet", timeout=300)
        must(p, "scan")
        got = dict((code, n) for code, n in rows(
            db, "SELECT code, count(*) FROM findings WHERE origin = 'refs' GROUP BY code"))
        c.eq(got.get("REFERENCE_NOT_FOUND"), 200, "reference findings kept")
        c.eq(got.get("LIMIT_EXCEEDED"), 1, "one LIMIT_EXCEEDED")
        msg = rows(db, "SELECT message FROM findings WHERE code = 'LIMIT_EXCEEDED'")
        c.that(msg and "99800 more findings" in msg[0][0], "message: %s" % short(msg))


def main():
    for t in (test_same_named_objects, test_reference_cap):
        t()
    rc = tap.finish()
    if rc == 0 and not os.environ.get("AMX_KEEP_TMP"):
        shutil.rmtree(TMP, ignore_errors=True)
    else:
        print("# kept %s" % TMP)
    return rc


if __name__ == "__main__":
    sys.exit(main())
