#!/usr/bin/env python3
"""Hostile input to the link pass through the command line (issue 21): many game objects of one
name, and more references in one file than the findings cap. SAGE INI (issue 24): thousands of
macros, of condition states in one draw module, of bones and sub-objects named on a model of
thousands of each; each is timed against the same amount of work without the hostile shape.

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


# ---------------------------------------------------------------- SAGE INI: look-ups by name

def scan_secs(root, what):
    db = os.path.join(os.path.dirname(root), "db-" + os.path.basename(root))
    t0 = time.time()
    must(ax.run("scan", root, "--db", db, "--quiet", "--jobs", "1", timeout=600), what)
    return time.time() - t0, db


def ini_tree(name, text, model=None, extra=0):
    root = os.path.join(fresh(name), "Mod")
    write(os.path.join(root, "Data", "INI", "Object", "bomb.ini"), text)
    if model:
        amxgen("w3d-model", os.path.join(root, "Art", "W3D", model.lower() + ".w3d"),
               "--name", model, "--extra", str(extra))
    return root


def test_ini_macros():
    with case(tap, "4,096 #define macros, then 200,000 names: each name is one look-up, not one "
                   "per macro") as c:
        many, db = scan_secs(ini_tree("macros", bombs.ini_macros(4096, 200000)), "macros")
        one, _ = scan_secs(ini_tree("macro", bombs.ini_macros(1, 200000)), "one macro")
        # each name compared with every macro: 10 s against 0.35 s
        print("# 4,096 macros: %.2f s, one macro: %.2f s" % (many, one))
        c.that(many < 4 * one + 1, "4,096 macros: %.2f s, one macro: %.2f s" % (many, one))
        c.eq(rows(db, "SELECT count(*) FROM game_objects"), [(1,)], "the object")
        c.eq(rows(db, "SELECT count(*) FROM findings WHERE code = 'LIMIT_EXCEEDED'"), [(0,)],
             "no limit reached (4,096 macros are allowed)")


def test_ini_states():
    with case(tap, "80,000 condition states in one draw module: a state's flags are looked up "
                   "among the module's, not compared with each") as c:
        one, db = scan_secs(ini_tree("states", bombs.ini_states(80000, 80000)), "one module")
        many, _ = scan_secs(ini_tree("modules", bombs.ini_states(80000, 100)), "800 modules")
        # each state's flags compared with every earlier one's: 32 s against 4.4 s
        print("# one module: %.2f s, 800 modules: %.2f s" % (one, many))
        c.that(one < 3 * many + 1, "one module: %.2f s, 800 modules: %.2f s" % (one, many))
        c.eq(rows(db, "SELECT count(*) FROM object_states"), [(80001,)], "every state indexed")
        c.eq(rows(db, "SELECT count(*) FROM refs WHERE kind = 'w3d-model'"), [(80001,)],
             "every state's model")
        c.eq(rows(db, "SELECT count(*) FROM findings WHERE code = 'INI_MALFORMED'"), [(0,)],
             "no duplicate reported")


def test_ini_bones():
    with case(tap, "a model of 20,000 bones and sub-objects, 80,400 bone, sub-object and "
                   "particle bone names on it: each is a look-up, not a walk of the model") as c:
        text = bombs.ini_bones("BIGM", 400, 100)
        big, db = scan_secs(ini_tree("bones", text, "BIGM", 20000), "big model")
        small, _ = scan_secs(ini_tree("bone", text, "BIGM", 0), "small model")
        # each name compared with every bone and sub-object: 20 s against 2 s
        print("# 20,000 bones: %.2f s, 1: %.2f s" % (big, small))
        c.that(big < 3 * small + 1, "20,000 bones: %.2f s, 1: %.2f s" % (big, small))
        got = dict(rows(db, "SELECT code, count(*) FROM findings GROUP BY code"))
        c.eq(got.get("MODEL_BONE_NOT_FOUND"), 200, "bone findings kept")
        c.eq(rows(db, "SELECT kind, count(*) FROM refs WHERE resolution = 'missing' "
                      "GROUP BY kind ORDER BY kind"),
             [("bone", 400), ("particle-bone", 40000), ("sub-object", 40000)],
             "every name looked up and not found (a state keeps one bone per weapon slot)")


def main():
    for t in (test_same_named_objects, test_reference_cap, test_ini_macros, test_ini_states,
              test_ini_bones):
        t()
    rc = tap.finish()
    if rc == 0 and not os.environ.get("AMX_KEEP_TMP"):
        shutil.rmtree(TMP, ignore_errors=True)
    else:
        print("# kept %s" % TMP)
    return rc


if __name__ == "__main__":
    sys.exit(main())
