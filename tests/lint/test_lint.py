#!/usr/bin/env python3
"""Tests of `animidx lint` (TAP on stdout; standard library only).

usage: test_lint.py ANIMIDX AMXGEN

Writes asset trees with known broken files with amxgen in a temporary directory and checks
lint's exit codes per gate, its text, JSON, SARIF and JUnit outputs, baselines, suppressions
and the config's severity overrides.
"""
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import xml.etree.ElementTree as ET

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "e2e"))
from tap import Tap, Cli, case, short, cache_dir  # noqa: E402

if len(sys.argv) < 3:
    sys.stderr.write("usage: test_lint.py ANIMIDX AMXGEN\n")
    sys.exit(2)

ANIMIDX = os.path.abspath(sys.argv[1])
AMXGEN = os.path.abspath(sys.argv[2])
TMP = tempfile.mkdtemp(prefix="animidx-lint-")
tap = Tap()
ax = Cli(ANIMIDX, TMP)
gen = Cli(AMXGEN, TMP)
ax.env["XDG_CACHE_HOME"] = os.path.join(TMP, "xdg-cache")
MODELS = "Data/Art/Models"
CORPUS = os.environ.get("AMX_CORPUS", os.path.join(HERE, "..", "..", "..", "shared", "corpus"))


def must(p, what, rc=0):
    if p.returncode != rc:
        raise AssertionError("%s: exit %d (want %d)\nstderr: %s\nstdout: %s" % (
            what, p.returncode, rc, p.stderr.strip()[:2000], p.stdout.strip()[:2000]))
    return p


def amxgen(*args):
    must(gen.run(*args), "amxgen " + " ".join(map(str, args)))


def model(tree, name, bones):
    d = os.path.join(tree, MODELS)
    os.makedirs(d, exist_ok=True)
    amxgen("model", os.path.join(d, name), "--bones", ",".join(bones))


def clip(tree, name, bones, indices=None, frames=20):
    d = os.path.join(tree, MODELS)
    os.makedirs(d, exist_ok=True)
    args = ["clip", os.path.join(d, name), "--bones", ",".join(bones), "--frames", frames]
    if indices:
        args += ["--indices", ",".join(map(str, indices))]
    amxgen(*args)


def particle(tree, name, internal):
    d = os.path.join(tree, MODELS)
    os.makedirs(d, exist_ok=True)
    amxgen("particle", os.path.join(d, name), internal)


def truncated_clip(tree, name):
    clip(tree, name, ["Root", "Body", "Arm"], frames=30)
    p = os.path.join(tree, MODELS, name)
    with open(p, "r+b") as f:
        f.truncate(os.path.getsize(p) // 2)


def lint(tree, *args, rc=None, cwd=None):
    p = ax.run("lint", "Data", *args, cwd=cwd or tree)
    if rc is not None:
        must(p, "lint %s %s" % (tree, " ".join(map(str, args))), rc)
    return p


def lint_json(tree, *args, rc=None):
    p = lint(tree, "--format", "json", *args, rc=rc)
    return json.loads(p.stdout)


def new_tree(name):
    """A new tree with the textures and the particle the writer's models name (amxgen assets):
    every reference resolves, so the findings are the ones each test plants."""
    t = os.path.join(TMP, name)
    shutil.rmtree(t, ignore_errors=True)
    os.makedirs(t)
    amxgen("assets", t)
    return t


def meg_tree(name):
    """A tree with Data/Models.meg holding a model and a clip with a bone it lacks; the loose
    copies stay in Data/Art/Models."""
    tree = new_tree(name)
    model(tree, "W.ALO", ["Root", "Body"])
    clip(tree, "W_WALK_00.ALA", ["Root", "Leg"])
    src = os.path.join(tree, MODELS)
    amxgen("meg", os.path.join(tree, "Data", "Models.meg"),
           "DATA/ART/MODELS/W.ALO=" + os.path.join(src, "W.ALO"),
           "DATA/ART/MODELS/W_WALK_00.ALA=" + os.path.join(src, "W_WALK_00.ALA"))
    return tree


# ---------------------------------------------------------------- trees

CLEAN = new_tree("clean")
model(CLEAN, "A_SHIP.ALO", ["Root", "Body", "Gun"])
clip(CLEAN, "A_SHIP_IDLE_00.ALA", ["Root", "Body", "Gun"])

WARN = new_tree("warn")  # warnings only: a particle's name, a clip without its model
model(WARN, "A_SHIP.ALO", ["Root", "Body", "Gun"])
clip(WARN, "A_SHIP_IDLE_00.ALA", ["Root", "Body", "Gun"])
particle(WARN, "P_FIRE.ALO", "p_fire_old")
clip(WARN, "Z_LOST_MOVE_00.ALA", ["Root", "Turret"])

DEMO = new_tree("demo")  # errors: bone mismatches, a truncated clip; warnings; an archive
amxgen("demo", DEMO)

MANY = new_tree("many")  # one clip with six bones its skeleton does not have
model(MANY, "M_UNIT.ALO", ["Root", "Body", "Leg_A", "Leg_B", "Leg_C", "Leg_D", "Head"])
clip(MANY, "M_UNIT_WALK_00.ALA", ["Root", "X1", "X2", "X3", "X4", "X5", "X6"])


def write(path, text):
    with open(path, "w") as f:
        f.write(text)
    return path


# ---------------------------------------------------------------- exit codes

with case(tap, "exit codes per gate: clean, warnings only, errors") as c:
    want = {  # tree: (error gate, warning gate, info gate)
        "clean": (CLEAN, (0, 0, 0)),
        "warn": (WARN, (0, 1, 1)),
        "demo": (DEMO, (1, 1, 1)),
    }
    for name, (tree, rcs) in want.items():
        for gate, rc in zip(("error", "warning", "info"), rcs):
            p = lint(tree, "--fail-on", gate)
            c.eq(p.returncode, rc, "%s --fail-on %s (stderr %s)" % (name, gate, p.stderr.strip()[:300]))
    c.eq(lint(DEMO).returncode, 1, "demo with the default gate (error)")
    c.eq(lint(WARN).returncode, 0, "warnings with the default gate (error)")

with case(tap, "usage and config errors exit 2, I/O and database errors exit 3") as c:
    c.eq(lint(DEMO, "--fail-on", "fatal").returncode, 2, "--fail-on fatal")
    c.eq(lint(DEMO, "--fail-on", "off").returncode, 2, "--fail-on off")
    c.eq(lint(DEMO, "--format", "xml").returncode, 2, "--format xml")
    c.eq(lint(DEMO, "--baseline", "a.json", "--write-baseline", "b.json").returncode, 2,
         "--baseline with --write-baseline")
    bad = write(os.path.join(TMP, "bad.json"), "{not json")
    c.eq(lint(DEMO, "--baseline", bad).returncode, 2, "a baseline that is not JSON")
    c.eq(lint(DEMO, "--suppressions", bad).returncode, 2, "suppressions that are not JSON")
    wrong = write(os.path.join(TMP, "wrong.json"), '{"findings": {"code": "X"}}')
    c.eq(lint(DEMO, "--baseline", wrong).returncode, 2, "a baseline whose findings are not an array")
    nocode = write(os.path.join(TMP, "nocode.json"), '{"suppressions": [{"path": "*", "reason": "r"}]}')
    c.eq(lint(DEMO, "--suppressions", nocode).returncode, 2, "a suppression without a code")
    unknown = write(os.path.join(TMP, "unknown.json"),
                    '{"suppressions": [{"code": "NO_SUCH_CODE", "path": "*", "reason": "r"}]}')
    p = lint(DEMO, "--suppressions", unknown)
    c.eq(p.returncode, 2, "a suppression of an unknown code")
    c.that("NO_SUCH_CODE" in p.stderr, "the message names the code: %r" % p.stderr)
    noreason = write(os.path.join(TMP, "noreason.json"), '{"suppressions": [{"code": "*", "path": "*"}]}')
    c.eq(lint(DEMO, "--suppressions", noreason).returncode, 2, "a suppression without a reason")
    cfg = write(os.path.join(TMP, "badcfg.ini"), "[severity]\nTRUNCATED = fatal\n")
    c.eq(lint(DEMO, "--config", cfg).returncode, 2, "a bad config")
    c.eq(lint(DEMO, "--baseline", os.path.join(TMP, "missing.json")).returncode, 3, "a missing baseline")
    c.eq(ax.run("lint", os.path.join(TMP, "no-such-dir")).returncode, 3, "a missing directory")
    c.eq(lint(DEMO, "--db", "/proc/animidx/x.db").returncode, 3, "an index that cannot be created")
    p = ax.run("lint", "--help")
    c.eq(p.returncode, 0, "lint --help")
    for opt in ("--fail-on", "--format", "--baseline", "--write-baseline", "--suppressions"):
        c.that(opt in p.stdout, "--help mentions " + opt)

# ---------------------------------------------------------------- text

with case(tap, "text: grouped by file, with code, severity, message and location") as c:
    p = lint(DEMO, rc=1)
    out = p.stdout
    c.that("Art/Models/EV_DEMO_TIE_DIE_00.ALA\n" in out, "a file header line: %s" % out[:600])
    c.that("error   BONE_INDEX_MISMATCH (offset 182, bone 2): bone 2 'Wing_R'" in out,
           "severity, code, offset, bone and message on one line")
    c.that("warning SKELETON_NOT_FOUND (skeleton):" in out, "a finding without an offset")
    c.that(out.count("Art/Models/VSF_DEMO_XWING_ATTACK_00.ALA\n") == 1, "one header per file")
    last = out.strip().splitlines()[-1]
    c.that(last.startswith("lint: ") and "5 errors, 2 warnings" in last and "FAILED" in last,
           "the summary line: %r" % last)
    p = lint(CLEAN, rc=0)
    c.that("passed" in p.stdout.strip().splitlines()[-1], "a clean tree passes: %r" % p.stdout)

with case(tap, "text: repeated findings of one code in one file are collapsed") as c:
    p = lint(MANY, rc=1)
    lines = [ln for ln in p.stdout.splitlines() if "BONE_NOT_IN_SKELETON" in ln]
    c.eq(len([ln for ln in lines if ln.startswith("  error")]), 3, "findings shown (%s)" % p.stdout)
    c.that("  ... and 3 more BONE_NOT_IN_SKELETON" in p.stdout, "the collapsed line: %s" % p.stdout)
    j = lint_json(MANY, rc=1)
    c.eq(len([f for f in j["findings"] if f["code"] == "BONE_NOT_IN_SKELETON"]), 6,
         "JSON keeps every finding")

# ---------------------------------------------------------------- json

with case(tap, "json: findings, totals and verdict") as c:
    j = lint_json(DEMO, rc=1)
    c.eq(j["gate"], "error", "gate")
    c.eq(j["passed"], False, "passed")
    c.eq(j["totals"], {"error": 5, "warning": 2, "info": 0}, "totals")
    c.eq(len(j["findings"]), 7, "findings")
    f = j["findings"][0]
    for key in ("path", "code", "severity", "message", "offset", "context", "format", "fingerprint"):
        c.that(key in f, "finding has %s: %s" % (key, short(f)))
    c.eq(sorted(set(x["path"] for x in j["findings"])),
         ["Art/Models/EV_DEMO_TIE_DIE_00.ALA", "Art/Models/P_DEMO_FIRE.ALO",
          "Art/Models/VSF_DEMO_LOST_MOVE_00.ALA", "Art/Models/VSF_DEMO_XWING_ATTACK_00.ALA"],
         "paths relative to the root")
    db = os.path.join(TMP, "demo-given.db")
    lint(DEMO, "--db", db, rc=1)
    rows = json.loads(must(ax.run("issues", "--json", "--db", db), "issues").stdout)
    c.eq(sorted((r["path"], r["code"], r["context"]) for r in rows),
         sorted((r["path"], r["code"], r["context"]) for r in j["findings"]),
         "the same findings as 'issues' on the index lint wrote with --db")

with case(tap, "lint is incremental: the second run re-decodes nothing") as c:
    db = os.path.join(TMP, "incr.db")
    lint(DEMO, "--db", db, rc=1)
    scan = json.loads(must(ax.run("scan", "Data", "--db", db, "--json", cwd=DEMO), "scan").stdout)
    c.eq(scan["scan"]["files_decoded"], 0, "files decoded by a scan after lint")
    own = os.listdir(os.path.join(cache_dir(ax.env), "animidx"))
    c.that(any(n.startswith("lint-") and n.endswith(".db") for n in own),
           "lint keeps its own index in XDG_CACHE_HOME (Windows: %%LOCALAPPDATA%%): %s" % own)

def fresh_checkout(tree):
    """What a CI checkout does to a tree: every file written anew (new inodes, modification
    times of now), the contents unchanged."""
    pristine = tree + ".pristine"
    shutil.rmtree(pristine, ignore_errors=True)
    shutil.copytree(tree, pristine)
    shutil.rmtree(tree)
    shutil.copytree(pristine, tree, copy_function=shutil.copyfile)
    shutil.rmtree(pristine)


with case(tap, "CI cache: after a fresh checkout a restored index re-hashes and decodes nothing") as c:
    tree = new_tree("checkout")
    amxgen("demo", tree)  # loose models and clips, game object XML, a MEG archive, anim.zbd
    ax.env["XDG_CACHE_HOME"] = os.path.join(TMP, "ci-cache")  # the directory CI would cache
    try:
        cold = lint_json(tree, rc=1)
        assets = [p for p in (os.path.join(d, f) for d, _, fs in os.walk(tree) for f in fs)
                  if not p.endswith(".tga")]  # the textures are files of other kinds
        c.that(cold["scan"]["files_decoded"] > len(assets),
               "the cold run decodes every asset and archive member: %s" % short(cold["scan"]))
        before = os.stat(assets[0]).st_mtime_ns
        fresh_checkout(tree)
        c.that(os.stat(assets[0]).st_mtime_ns != before, "the checkout gave the files new times")
        warm = lint_json(tree, rc=1)
        c.eq(warm["scan"]["files_decoded"], 0, "files decoded after the checkout")
        c.eq(warm["scan"]["files_rehashed"], len(assets), "files re-hashed (every asset, once)")
        c.eq(warm["scan"]["files_seen"], cold["scan"]["files_seen"], "files seen")
        c.eq([f["fingerprint"] for f in warm["findings"]],
             [f["fingerprint"] for f in cold["findings"]], "the same findings")
        again = lint_json(tree, rc=1)
        c.eq((again["scan"]["files_decoded"], again["scan"]["files_rehashed"],
              again["scan"]["files_unchanged"]), (0, 0, cold["scan"]["files_seen"]),
             "the next run: decoded, re-hashed, unchanged (textures too)")
        # a file whose content changed is decoded; scan --json counts the same way
        clip(tree, "VSF_DEMO_XWING_IDLE_00.ALA", ["Root", "Body"], frames=12)
        db = os.path.join(TMP, "checkout.db")
        must(ax.run("scan", "Data", "--db", db, cwd=tree), "scan")
        fresh_checkout(tree)
        s = json.loads(must(ax.run("scan", "Data", "--db", db, "--json", cwd=tree), "scan").stdout)
        c.eq((s["scan"]["files_decoded"], s["scan"]["files_rehashed"]), (0, len(assets)),
             "scan --json after a checkout: decoded, re-hashed")
        changed = lint_json(tree, rc=1)
        c.eq(changed["scan"]["files_decoded"], 1, "lint after one clip changed: decoded")
    finally:
        ax.env["XDG_CACHE_HOME"] = os.path.join(TMP, "xdg-cache")


with case(tap, "lint FILE...: the file's Data tree is scanned, only the files given are reported") as c:
    m = os.path.join(DEMO, "Data", "Art", "Models")
    p = ax.run("lint", os.path.join(m, "EV_DEMO_TIE_DIE_00.ALA"), cwd=DEMO)
    must(p, "lint one broken clip", 1)
    c.that("BONE_INDEX_MISMATCH" in p.stdout and "BONE_NOT_IN_SKELETON" in p.stdout,
           "the clip is checked against its model's skeleton: %s" % p.stdout)
    c.that("TRUNCATED" not in p.stdout and "P_DEMO_FIRE" not in p.stdout,
           "other files' findings are left out: %s" % p.stdout)
    c.that(p.stdout.strip().splitlines()[-1].startswith("lint: 1 file, 2 errors, 0 warnings"),
           "summary: %r" % p.stdout)
    j = json.loads(must(ax.run("lint", "Data/Art/Models/VSF_DEMO_XWING_IDLE_00.ALA",
                               "Data/Art/Models/VSF_DEMO_XWING.ALO", "Data/Art/Models/P_DEMO_FIRE.ALO",
                               "--format", "json", cwd=DEMO), "lint three files").stdout)
    c.eq(j["passed"], True, "warnings only: passed")
    # the root is the Data directory the files are in: the models' references resolve there
    c.eq(j["roots"], [os.path.realpath(os.path.join(DEMO, "Data"))], "one root: their Data tree")
    c.eq([(f["path"], f["code"]) for f in j["findings"]],
         [("Art/Models/P_DEMO_FIRE.ALO", "PARTICLE_NAME_MISMATCH")], "the findings of the files given")
    x = ET.fromstring(must(ax.run("lint", "Data/Art/Models/EV_DEMO_TIE_DIE_00.ALA",
                                  "Data/Art/Models/VSF_DEMO_XWING.ALO", "--format", "junit",
                                  cwd=DEMO), "junit of two files", 1).stdout)
    cases = sorted((t.get("name"), t.find("failure") is not None) for t in x.iter("testcase"))
    c.eq(cases, [("Art/Models/EV_DEMO_TIE_DIE_00.ALA", True), ("Art/Models/VSF_DEMO_XWING.ALO", False)],
         "junit: one testcase per file given")
    # a directory and a file in it: the directory wins
    j = json.loads(must(ax.run("lint", "Data/Art/Models/P_DEMO_FIRE.ALO", "Data/Art/Models",
                               "--format", "json", cwd=DEMO), "lint a file and its directory", 1).stdout)
    c.eq(j["totals"], {"error": 5, "warning": 2, "info": 0}, "every finding of the directory")
    # an archive given as a file: its members' findings
    tree = meg_tree("lint-file-meg")
    j = json.loads(must(ax.run("lint", "Data/Models.meg", "--format", "json", cwd=tree),
                        "lint an archive", 1).stdout)
    c.eq(sorted(set((f["path"], f["code"]) for f in j["findings"])),
         [("Models.meg#DATA/ART/MODELS/W_WALK_00.ALA", "BONE_NOT_IN_SKELETON")], "member findings")
    # a loose file whose name merely starts with a given file's name and '#' is not its member
    clip(tree, "W_IDLE_00.ALA", ["Root", "Body"])
    clip(tree, "W_IDLE_00.ALA#old.ALA", ["Root", "Tail"])
    j = json.loads(must(ax.run("lint", os.path.join("Data", MODELS[5:], "W_IDLE_00.ALA"), "--format",
                               "json", cwd=tree), "lint a clean clip").stdout)
    c.eq(j["findings"], [], "no findings of W_IDLE_00.ALA#old.ALA")
    # a file animidx does not read: said, not an error
    notes = write(os.path.join(tree, "Data", "notes.txt"), "hello\n")
    p = ax.run("lint", notes, cwd=tree)
    must(p, "lint a text file", 0)
    c.that("not a file animidx reads" in p.stderr, "stderr: %r" % p.stderr)
    c.that("lint: 0 files" in p.stdout, "stdout: %r" % p.stdout)
    c.eq(ax.run("lint", "/dev/null", cwd=tree).returncode, 2, "a device is a usage error")


# ---------------------------------------------------------------- config overrides

with case(tap, "lint FILE --dependents: the clips a model given broke, the files that name one") as c:
    tree = new_tree("dependents")
    model(tree, "X.ALO", ["Root", "Body", "Turret"])
    clip(tree, "X_IDLE_00.ALA", ["Root", "Body", "Turret"])
    clip(tree, "X_MOVE_00.ALA", ["Root", "Body", "Turret"])
    clip(tree, "Y_IDLE_00.ALA", ["Root", "Leg"])        # broken, and no business of X.ALO
    model(tree, "X.ALO", ["Root", "Turret", "Body"])    # re-rigged: both X clips break
    m = os.path.join(MODELS, "X.ALO")
    alone = json.loads(ax.run("lint", m, "--format", "json", cwd=tree).stdout)
    c.eq(alone["findings"], [], "without --dependents: the model's own findings (none)")
    p = ax.run("lint", m, "--dependents", "--format", "json", cwd=tree)
    c.eq(p.returncode, 1, "exit status")
    got = json.loads(p.stdout)
    c.eq(sorted(set((f["path"], f["code"]) for f in got["findings"])),
         [("Art/Models/X_IDLE_00.ALA", "BONE_INDEX_MISMATCH"),
          ("Art/Models/X_MOVE_00.ALA", "BONE_INDEX_MISMATCH")], "the clips bound to the model")
    # a particle replaced by a mesh model: the models whose proxies name it are reported
    model(tree, "P_SMOKE_01.ALO", ["Root"])
    p = ax.run("lint", os.path.join(MODELS, "P_SMOKE_01.ALO"), "--dependents", "--format", "json",
               cwd=tree)
    got = json.loads(p.stdout)
    named = sorted(set(f["path"] for f in got["findings"] if f["code"] == "REFERENCE_WRONG_KIND"))
    c.that("Art/Models/X.ALO" in named and "Art/Models/Y_IDLE_00.ALA" not in named,
           "the models naming the particle: %s" % named)
    p = ax.run("lint", "Data", "--dependents", "--format", "json", cwd=tree)
    c.eq(len(json.loads(p.stdout)["findings"]),
         len(lint_json(tree)["findings"]), "with a directory: every finding, as without")


with case(tap, "severity overrides and ignores from the config apply to every format") as c:
    cfg = write(os.path.join(TMP, "override.ini"),
                "[severity]\nPARTICLE_NAME_MISMATCH = info\nSKELETON_NOT_FOUND = off\n")
    for gate, rc in (("error", 0), ("warning", 0), ("info", 1)):
        c.eq(lint(WARN, "--config", cfg, "--fail-on", gate).returncode, rc, "--fail-on %s" % gate)
    j = lint_json(WARN, "--config", cfg, "--fail-on", "info")
    c.eq([(f["code"], f["severity"]) for f in j["findings"]], [("PARTICLE_NAME_MISMATCH", "info")],
         "json findings")
    s = json.loads(lint(WARN, "--config", cfg, "--format", "sarif").stdout)
    res = s["runs"][0]["results"]
    c.eq([(r["ruleId"], r["level"]) for r in res], [("PARTICLE_NAME_MISMATCH", "note")], "sarif results")
    rules = {r["id"]: r for r in s["runs"][0]["tool"]["driver"]["rules"]}
    c.eq(rules["SKELETON_NOT_FOUND"]["defaultConfiguration"], {"enabled": False, "level": "none"},
         "sarif: an ignored rule")
    c.eq(rules["PARTICLE_NAME_MISMATCH"]["defaultConfiguration"]["level"], "note",
         "sarif: an overridden rule's level")
    x = ET.fromstring(lint(WARN, "--config", cfg, "--format", "junit", "--fail-on", "info").stdout)
    failed = [tc.get("name") for tc in x.iter("testcase") if tc.find("failure") is not None]
    c.eq(failed, ["Art/Models/P_FIRE.ALO"], "junit failures with --fail-on info")
    text = lint(WARN, "--config", cfg).stdout
    c.that("SKELETON_NOT_FOUND" not in text, "text leaves the ignored code out")
    c.that("info    PARTICLE_NAME_MISMATCH" in text, "text shows the overridden severity")
    ign = write(os.path.join(TMP, "ignore.ini"), "[scan]\nignore = Art/Models/P_F*, Art/Models/Z_*\n")
    c.eq(lint(WARN, "--config", ign, "--fail-on", "info").returncode, 0, "ignore globs (an incremental run)")
    c.eq(lint(WARN, "--fail-on", "info").returncode, 1, "and without them again")

# ---------------------------------------------------------------- sarif

SARIF_LEVELS = {"none", "note", "warning", "error"}


def check_sarif(c, s, tree_prefix="Data/"):
    """The parts of SARIF 2.1.0 GitHub code scanning requires."""
    c.eq(s.get("version"), "2.1.0", "version")
    c.that(isinstance(s.get("$schema"), str) and "sarif" in s["$schema"] and "2.1.0" in s["$schema"],
           "$schema: %r" % s.get("$schema"))
    c.that(isinstance(s.get("runs"), list) and len(s["runs"]) == 1, "one run")
    run = s["runs"][0]
    driver = run["tool"]["driver"]
    c.eq(driver.get("name"), "animidx", "tool.driver.name")
    rules = driver.get("rules", [])
    ids = [r.get("id") for r in rules]
    c.that(len(ids) == len(set(ids)) and all(ids), "rules have unique ids")
    c.that(len(rules) <= 25000, "at most 25000 rules")
    for r in rules:
        c.that(r.get("shortDescription", {}).get("text"), "rule %s: shortDescription" % r.get("id"))
        c.that(r.get("fullDescription", {}).get("text") and len(r["fullDescription"]["text"]) <= 1000,
               "rule %s: fullDescription" % r.get("id"))
        c.that(r.get("help", {}).get("text"), "rule %s: help" % r.get("id"))
        c.that(r.get("defaultConfiguration", {}).get("level") in SARIF_LEVELS, "rule %s: level" % r.get("id"))
        c.that(len(r.get("properties", {}).get("tags", [])) <= 20, "rule %s: at most 20 tags" % r.get("id"))
    results = run.get("results")
    c.that(isinstance(results, list), "results is a list")
    c.that(len(results) <= 25000, "at most 25000 results")
    fps = []
    for res in results:
        rid = res.get("ruleId")
        c.that(rid in ids, "result's ruleId %r is a rule" % rid)
        if "ruleIndex" in res:
            c.eq(ids[res["ruleIndex"]], rid, "ruleIndex points at the rule")
        c.that(res.get("level") in SARIF_LEVELS, "result level")
        c.that(isinstance(res.get("message", {}).get("text"), str) and res["message"]["text"],
               "message.text")
        locs = res.get("locations")
        c.that(isinstance(locs, list) and 1 <= len(locs) <= 10, "1 to 10 locations")
        pl = locs[0]["physicalLocation"]
        uri = pl["artifactLocation"]["uri"]
        c.that(uri and not uri.startswith("/") and "://" not in uri and "#" not in uri and "\\" not in uri,
               "relative artifact URI: %r" % uri)
        c.that(uri.startswith(tree_prefix), "URI %r relative to the repository (%s)" % (uri, tree_prefix))
        c.eq(pl.get("region", {}).get("startLine"), 1, "region.startLine")
        pf = res.get("partialFingerprints", {})
        c.that(pf.get("primaryLocationLineHash"), "partialFingerprints.primaryLocationLineHash")
        fps.append(pf.get("primaryLocationLineHash"))
    c.eq(len(fps), len(set(fps)), "fingerprints are unique within the run")
    return results


with case(tap, "sarif: the parts of SARIF 2.1.0 GitHub code scanning requires") as c:
    p = lint(DEMO, "--format", "sarif")
    c.eq(p.returncode, 1, "exit status follows the gate")
    s = json.loads(p.stdout)
    results = check_sarif(c, s)
    c.eq(len(results), 7, "results")
    driver = s["runs"][0]["tool"]["driver"]
    rules = json.loads(must(ax.run("rules", "--json"), "rules").stdout)
    c.eq([r["id"] for r in driver["rules"]], [r["code"] for r in rules], "rules are the catalogue, in order")
    cat = {r["code"]: r for r in rules}
    for r in driver["rules"]:
        c.eq(r["shortDescription"]["text"], cat[r["id"]]["summary"], "%s summary" % r["id"])
        c.eq(r["help"]["text"], cat[r["id"]]["help"], "%s help" % r["id"])
    by = {(r["ruleId"], r["properties"]["path"], r["properties"]["context"]): r for r in results}
    bim = by[("BONE_INDEX_MISMATCH", "Art/Models/EV_DEMO_TIE_DIE_00.ALA", "bone 2")]
    c.eq(bim["locations"][0]["physicalLocation"]["artifactLocation"]["uri"],
         "Data/Art/Models/EV_DEMO_TIE_DIE_00.ALA", "uri")
    c.that("byte offset 182" in bim["message"]["text"] and "bone 2" in bim["message"]["text"],
           "the offset and bone are in the message: %r" % bim["message"]["text"])
    c.eq(bim["properties"]["offset"], 182, "offset in the properties")
    c.eq(bim["level"], "error", "level")
    again = json.loads(lint(DEMO, "--format", "sarif").stdout)["runs"][0]["results"]
    c.eq([r["partialFingerprints"] for r in again], [r["partialFingerprints"] for r in results],
         "fingerprints are stable across runs")

with case(tap, "sarif: fingerprints ignore the message; archive members point at the archive") as c:
    tree = meg_tree("sarif-meg")
    src = os.path.join(tree, MODELS)
    shutil.rmtree(src)
    amxgen("assets", tree)  # the particle the archived model's proxy names
    s = json.loads(lint(tree, "--format", "sarif", rc=1).stdout)
    res = check_sarif(c, s)
    c.eq(len(res), 1, "one finding (%s)" % short(res))
    r = res[0]
    c.eq(r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"], "Data/Models.meg",
         "the archive is the artifact")
    c.that("DATA/ART/MODELS/W_WALK_00.ALA" in r["message"]["text"], "the member is in the message")
    c.eq(r["properties"]["path"], "Models.meg#DATA/ART/MODELS/W_WALK_00.ALA", "the member path")
    # Renaming the bone changes the message but not the identity (code + path + context).
    amxgen("clip", os.path.join(TMP, "w2.ALA"), "--bones", "Root,Tail")
    amxgen("model", os.path.join(TMP, "w.ALO"), "--bones", "Root,Body")
    amxgen("meg", os.path.join(tree, "Data", "Models.meg"), "DATA/ART/MODELS/W.ALO=" + os.path.join(TMP, "w.ALO"),
           "DATA/ART/MODELS/W_WALK_00.ALA=" + os.path.join(TMP, "w2.ALA"))
    r2 = json.loads(lint(tree, "--format", "sarif", rc=1).stdout)["runs"][0]["results"][0]
    c.that(r2["message"]["text"] != r["message"]["text"], "the message changed")
    c.eq(r2["partialFingerprints"], r["partialFingerprints"], "the fingerprint did not")

with case(tap, "sarif: a root outside the working directory uses a uriBaseId") as c:
    elsewhere = new_tree("elsewhere")
    p = ax.run("lint", os.path.join(DEMO, "Data"), "--format", "sarif", cwd=elsewhere)
    s = json.loads(p.stdout)
    run = s["runs"][0]
    base = run.get("originalUriBaseIds", {})
    c.eq(list(base), ["ROOT0"], "originalUriBaseIds")
    c.that(base.get("ROOT0", {}).get("uri", "").startswith("file:///") and
           base["ROOT0"]["uri"].endswith("/Data/"), "the base is the root: %s" % short(base))
    loc = run["results"][0]["locations"][0]["physicalLocation"]["artifactLocation"]
    c.eq(loc.get("uriBaseId"), "ROOT0", "uriBaseId")
    c.that(loc["uri"].startswith("Art/"), "uri relative to the base: %r" % loc["uri"])

# ---------------------------------------------------------------- sarif and junit, validated

SOURCE = os.environ.get("AMX_SOURCE_ROOT") or os.path.normpath(os.path.join(HERE, "..", ".."))


def test_tools():
    """The validators (scripts/test-tools.sh installs them into build-tools/, once)."""
    p = subprocess.run(["bash", os.path.join(SOURCE, "scripts", "test-tools.sh")],
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE, universal_newlines=True,
                       timeout=900)
    if p.returncode != 0:
        raise AssertionError("scripts/test-tools.sh failed: %s" % p.stderr[-2000:])
    return p.stdout.strip().splitlines()[-1]


TOOLS = test_tools()
MULTITOOL = os.path.join(TOOLS, "npm", "node_modules", "@microsoft", "sarif-multitool-linux",
                         "Sarif.Multitool")
SARIF_SCHEMA = os.path.join(TOOLS, "sarif-schema-2.1.0.json")
JSONSCHEMA = "/usr/bin/jsonschema" if os.path.exists("/usr/bin/jsonschema") else "jsonschema"
JUNIT_XSD = os.path.join(SOURCE, "tests", "lint", "schemas", "jenkins-junit.xsd")


def sarif_problems(text):
    """What the SARIF 2.1.0 JSON schema (jsonschema) and the SARIF multitool (its built-in
    schema, the SARIF rules and GitHub's ingestion rules) say about a log: a list of lines."""
    path = os.path.join(TMP, "check.sarif")
    with open(path, "w") as f:
        f.write(text)
    problems = []
    p = subprocess.run([JSONSCHEMA, "-i", path, SARIF_SCHEMA], stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE, universal_newlines=True, timeout=300)
    if p.returncode != 0:
        problems += ["jsonschema: " + l for l in (p.stdout + p.stderr).splitlines()
                     if l.strip() and "DeprecationWarning" not in l and "from jsonschema" not in l]
    out = os.path.join(TMP, "check.out.sarif")
    env = dict(os.environ, DOTNET_SYSTEM_GLOBALIZATION_INVARIANT="1", DOTNET_CLI_TELEMETRY_OPTOUT="1")
    p = subprocess.run([MULTITOOL, "validate", path, "--rule-kind", "Gh;Sarif", "-o", out, "--log",
                        "ForceOverwrite"], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                       universal_newlines=True, timeout=300, env=env)
    if p.returncode != 0:
        problems.append("multitool exit %d: %s" % (p.returncode, (p.stdout + p.stderr)[-1500:]))
    else:
        for r in json.load(open(out))["runs"][0].get("results", []):
            if r.get("level", "warning") in ("error", "warning"):
                msg = r.get("message", {})
                problems.append("multitool %s: %s" % (r.get("ruleId"), msg.get("text") or msg.get("arguments")))
    return problems


def junit_problems(text):
    path = os.path.join(TMP, "check.xml")
    with open(path, "w") as f:
        f.write(text)
    p = subprocess.run(["xmllint", "--noout", "--schema", JUNIT_XSD, path], stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE, universal_newlines=True, timeout=300)
    return [] if p.returncode == 0 else p.stderr.strip().splitlines()


with case(tap, "the validators catch what they should (a broken SARIF log, a broken JUnit file)") as c:
    good = lint(DEMO, "--format", "sarif").stdout
    bad = json.loads(good)
    bad["runs"][0]["results"][0]["level"] = "fatal"
    c.that(any(l.startswith("jsonschema") for l in sarif_problems(json.dumps(bad))),
           "jsonschema rejects a level outside the enum")
    bad = json.loads(good)
    del bad["runs"][0]["results"][0]["message"]
    c.that(any("JSON1002" in l for l in sarif_problems(json.dumps(bad))),
           "the multitool rejects a result without a message")
    bad = json.loads(good)
    for r in bad["runs"][0]["tool"]["driver"]["rules"]:
        r["name"] = r["id"]
    c.that(any("SARIF1001" in l for l in sarif_problems(json.dumps(bad))),
           "the multitool's rules flag rule names equal to their ids")
    junit = lint(DEMO, "--format", "junit").stdout
    c.that(junit_problems(junit.replace("<testsuites ", '<testsuites skipped="0" ')),
           "xmllint rejects skipped on <testsuites> (Jenkins schema)")

with case(tap, "sarif validates against the SARIF 2.1.0 schema and GitHub's rules (each, capped, grouped)") as c:
    for args in ([], ["--max-results", "2"], ["--group-by", "file"], ["--group-by", "code"],
                 ["--group-by", "code", "--max-results", "1"]):
        for tree in (DEMO, MANY):
            p = lint(tree, "--format", "sarif", *args)
            c.eq(p.returncode, 1, "exit status (%s)" % " ".join(args))
            c.eq(sarif_problems(p.stdout), [], "%s %s" % (os.path.basename(tree), " ".join(args)))
            check_sarif(c, json.loads(p.stdout))

with case(tap, "sarif: rule names differ from ids, helpUri is the rule's section of docs/rules.md") as c:
    s = json.loads(lint(DEMO, "--format", "sarif").stdout)
    driver = s["runs"][0]["tool"]["driver"]
    c.that(driver.get("informationUri", "").endswith("/README.md"), "informationUri: %r" % driver.get("informationUri"))
    rules_md = open(os.path.join(SOURCE, "docs", "rules.md"), encoding="utf-8").read()
    for r in driver["rules"]:
        c.that(r["name"].lower() != r["id"].lower() and re.match(r"^[A-Z][A-Za-z0-9]+$", r["name"]), "name of %s: %r" % (r["id"], r["name"]))
        c.that(r.get("helpUri", "").endswith("/docs/rules.md#" + r["id"].lower()), "helpUri of %s" % r["id"])
        c.that(re.search(r"^### %s$" % r["id"], rules_md, re.M), "docs/rules.md has a section for %s" % r["id"])
    c.eq(driver["rules"][0]["name"], "TruncatedData", "a one-word code's name")
    names = {r["id"]: r["name"] for r in driver["rules"]}
    c.eq(names["BONE_NOT_IN_SKELETON"], "BoneNotInSkeleton", "a longer name")

with case(tap, "sarif --max-results: the most severe first, the rest said in a notification and on stderr") as c:
    full = json.loads(lint(DEMO, "--format", "sarif").stdout)["runs"][0]["results"]
    levels = [r["level"] for r in full]
    order = {"error": 0, "warning": 1, "note": 2}
    c.eq(levels, sorted(levels, key=order.get), "results sorted by severity: %s" % levels)
    c.that(levels[0] == "error" and levels[-1] == "warning", "errors first, warnings last")
    p = lint(DEMO, "--format", "sarif", "--max-results", "5")
    run = json.loads(p.stdout)["runs"][0]
    c.eq([r["level"] for r in run["results"]], ["error"] * 5, "the five errors are kept")
    notes = run["invocations"][0]["toolExecutionNotifications"]
    left = [n for n in notes if n.get("descriptor", {}).get("id") == "animidx/results-left-out"]
    c.eq(len(left), 1, "one notification: %s" % short(notes))
    c.that(left and "2 of 7 results left out" in left[0]["message"]["text"] and
           "0 errors, 2 warnings, 0 notes" in left[0]["message"]["text"], "what was left out: %s" % short(left))
    c.that("SARIF: 5 of 7 results written (--max-results 5" in p.stderr, "stderr says so: %r" % p.stderr)
    p = lint(DEMO, "--format", "sarif", "--max-results", "7")
    c.that("results written" not in p.stderr and not [n for n in json.loads(p.stdout)["runs"][0]["invocations"][0]
           ["toolExecutionNotifications"] if n.get("descriptor")], "nothing said when nothing is left out")
    c.eq(lint(DEMO, "--format", "sarif", "--max-results", "0").returncode, 2, "--max-results 0 is a usage error")
    c.eq(lint(DEMO, "--format", "sarif", "--max-results", "25001").returncode, 2, "over 25000: usage error")
    c.eq(lint(DEMO, "--max-results", "5").returncode, 2, "--max-results without sarif")
    c.eq(lint(DEMO, "--group-by", "file").returncode, 2, "--group-by without sarif")
    c.eq(lint(DEMO, "--format", "sarif", "--group-by", "dir").returncode, 2, "--group-by dir")
    c.that("--max-results" in ax.run("lint", "--help").stdout and "--group-by" in ax.run("lint", "--help").stdout,
           "lint --help lists them")

with case(tap, "sarif --group-by file|code: one result per file or code, with the count and first locations") as c:
    run = json.loads(lint(DEMO, "--format", "sarif", "--group-by", "file").stdout)["runs"][0]
    res = run["results"]
    c.eq(len(res), 4, "one result per file with findings: %s" % short([r["properties"]["path"] for r in res]))
    by = {r["properties"]["path"]: r for r in res}
    t = by["Art/Models/VSF_DEMO_XWING_ATTACK_00.ALA"]
    c.eq((t["ruleId"], t["level"], t["properties"]["count"]), ("TRUNCATED", "error", 3), "the truncated clip")
    c.that(t["message"]["text"].startswith("3 findings in this file: 2 TRUNCATED, 1 SIZE_MISMATCH. First: "),
           "message: %r" % t["message"]["text"])
    c.eq(sum(r["properties"]["count"] for r in res), 7, "the counts add up")
    run = json.loads(lint(MANY, "--format", "sarif", "--group-by", "code").stdout)["runs"][0]
    c.eq([(r["ruleId"], r["properties"]["count"], r["properties"]["files"]) for r in run["results"]],
         [("BONE_NOT_IN_SKELETON", 6, 1)], "one result per code")
    run = json.loads(lint(DEMO, "--format", "sarif", "--group-by", "code").stdout)["runs"][0]
    c.eq(sorted(r["ruleId"] for r in run["results"]), sorted(["TRUNCATED", "SIZE_MISMATCH", "BONE_INDEX_MISMATCH",
         "BONE_NOT_IN_SKELETON", "PARTICLE_NAME_MISMATCH", "SKELETON_NOT_FOUND"]), "codes")
    fps = [r["partialFingerprints"]["primaryLocationLineHash"] for r in run["results"]]
    c.eq(len(set(fps)), len(fps), "one fingerprint per group")

with case(tap, "junit validates against the Jenkins JUnit schema, suites named without the checkout path") as c:
    for tree, args in ((DEMO, []), (DEMO, ["--fail-on", "warning"]), (CLEAN, []), (MANY, [])):
        p = lint(tree, "--format", "junit", *args)
        c.eq(junit_problems(p.stdout), [], "%s %s" % (os.path.basename(tree), args))
        x = ET.fromstring(p.stdout)
        c.that("skipped" not in x.attrib, "no skipped on <testsuites>")
        for s_ in x.findall("testsuite"):
            c.eq(s_.get("name"), "animidx lint Data", "suite name")
            c.that(TMP not in p.stdout, "no absolute path of the checkout")
    p = ax.run("lint", os.path.join(DEMO, "Data"), "--format", "junit", cwd=new_tree("elsewhere-junit"))
    c.eq([s_.get("name") for s_ in ET.fromstring(p.stdout).findall("testsuite")], ["animidx lint Data"],
         "a root outside the working directory: its name")

with case(tap, "lint text: a line per code with counts, the fail reason last") as c:
    p = lint(DEMO)
    lines = p.stdout.strip().splitlines()
    c.that(re.match(r"^TRUNCATED\s+error\s+2 findings in 1 file\s+\(fails --fail-on\)$", lines[-8]), "TRUNCATED line: %r" % lines[-8])
    c.that(re.match(r"^SKELETON_NOT_FOUND\s+warning\s+1 finding\s+in 1 file$", lines[-3]), "warning line: %r" % lines[-3])
    # how to declare the game is said once, before the verdict (not in each finding)
    c.that(lines[-2].startswith("lint: note: 1 finding says a file was not found") and
           "--base DIR" in lines[-2], "the base layer note: %r" % lines[-2])
    c.eq(sum("--base DIR" in l for l in lines), 1, "lines that say how to declare the game")
    c.that(re.match(r"^lint: \d+ files, 5 errors, 2 warnings, 0 info; --fail-on error: FAILED: 5 findings at or "
                    r"above error \(2 TRUNCATED, 1 BONE_INDEX_MISMATCH, 1 BONE_NOT_IN_SKELETON, 1 SIZE_MISMATCH\)$",
                    lines[-1]), "the verdict with its reason: %r" % lines[-1])
    p = lint(DEMO, "--format", "sarif")
    c.that(p.stderr.strip().splitlines()[-1].startswith("lint: ") and "FAILED: 5 findings" in p.stderr,
           "with a machine format, on stderr: %r" % p.stderr[-300:])
    p = lint(DEMO, "--fail-on", "warning")
    c.that(p.stdout.strip().splitlines()[-1].endswith("FAILED: 7 findings at or above warning (2 TRUNCATED, "
           "1 BONE_INDEX_MISMATCH, 1 BONE_NOT_IN_SKELETON, 1 SIZE_MISMATCH, ...)"), "at the warning gate: %r" % p.stdout[-200:])
    c.that(lint(CLEAN).stdout.strip().splitlines()[-1].endswith("--fail-on error: passed"), "a pass says passed")

# ---------------------------------------------------------------- junit

with case(tap, "junit: one testcase per asset, one failure per failing asset") as c:
    p = lint(DEMO, "--format", "junit")
    c.eq(p.returncode, 1, "exit status")
    x = ET.fromstring(p.stdout)
    c.eq(x.tag, "testsuites", "root element")
    suites = x.findall("testsuite")
    c.eq(len(suites), 1, "one testsuite per root")
    cases = list(x.iter("testcase"))
    names = [tc.get("name") for tc in cases]
    c.eq(len(names), len(set(names)), "one testcase per asset")
    c.eq(len(cases), 15, "assets: 13 files of our formats and archive members (anim.zbd too), and the game object XML")
    c.that("Models.meg#DATA/ART/MODELS/UM_DEMO_WALKER_MOVE_00.ALA" in names, "archive members are assets")
    c.that(all(not n.startswith("/") for n in names), "names are relative paths")
    formats = {"alamo-alo", "alamo-ala", "alamo-particle", "alamo-xml", "meg", "mw3-anim"}
    c.that(all(tc.get("classname") in formats for tc in cases),
           "classname is the format: %s" % sorted(set(tc.get("classname") for tc in cases)))
    failing = {tc.get("name"): tc.find("failure") for tc in cases if tc.find("failure") is not None}
    c.eq(sorted(failing), ["Art/Models/EV_DEMO_TIE_DIE_00.ALA", "Art/Models/VSF_DEMO_XWING_ATTACK_00.ALA"],
         "failing assets at the error gate")
    body = failing["Art/Models/VSF_DEMO_XWING_ATTACK_00.ALA"].text
    c.that(body.count("TRUNCATED") == 2 and "SIZE_MISMATCH" in body, "the failure lists its findings: %r" % body)
    c.eq(x.get("tests"), str(len(cases)), "testsuites tests")
    c.eq(x.get("failures"), "2", "testsuites failures")
    c.eq(suites[0].get("failures"), "2", "testsuite failures")
    warn = [tc for tc in cases if tc.get("name") == "Art/Models/P_DEMO_FIRE.ALO"][0]
    c.that(warn.find("failure") is None and "PARTICLE_NAME_MISMATCH" in (warn.findtext("system-out") or ""),
           "a finding below the gate goes to system-out")
    x = ET.fromstring(lint(DEMO, "--format", "junit", "--fail-on", "warning").stdout)
    c.eq(x.get("failures"), "4", "failures at the warning gate")

# ---------------------------------------------------------------- baseline

with case(tap, "baseline round trip: only a new broken file fails") as c:
    tree = new_tree("baseline")
    shutil.copytree(os.path.join(DEMO, "Data"), os.path.join(tree, "Data"), dirs_exist_ok=True)
    base = os.path.join(tree, "baseline.json")
    p = lint(tree, "--write-baseline", base)
    c.eq(p.returncode, 0, "--write-baseline exits 0 (%s)" % p.stderr.strip())
    b = json.load(open(base))
    c.eq(len(b["findings"]), 7, "findings recorded")
    c.that(all(set(f) >= {"code", "path", "context"} for f in b["findings"]), "identity fields recorded")
    c.eq(lint(tree, "--baseline", base, "--fail-on", "info").returncode, 0, "nothing new")
    # The message is not part of the identity: a baseline with other messages still matches.
    for f in b["findings"]:
        f["message"] = "edited"
    edited = write(os.path.join(tree, "edited.json"), json.dumps(b))
    c.eq(lint(tree, "--baseline", edited, "--fail-on", "info").returncode, 0, "messages are not identity")
    truncated_clip(tree, "VSF_DEMO_XWING_HIT_00.ALA")
    p = lint(tree, "--baseline", base, "--format", "json")
    c.eq(p.returncode, 1, "a new broken file fails")
    j = json.loads(p.stdout)
    c.eq(sorted(set(f["path"] for f in j["findings"])), ["Art/Models/VSF_DEMO_XWING_HIT_00.ALA"],
         "only the new file is reported")
    c.eq(j["baselined"], 7, "baselined")
    p = lint(tree, "--baseline", base)
    c.that("(new since the baseline; 7 in it)" in p.stdout and "VSF_DEMO_XWING_ATTACK_00" not in p.stdout,
           "text: %s" % p.stdout)
    s = json.loads(lint(tree, "--baseline", base, "--format", "sarif").stdout)
    res = s["runs"][0]["results"]
    c.that(res and all(r["baselineState"] == "new" for r in res) and
           all(r["properties"]["path"].endswith("_HIT_00.ALA") for r in res), "sarif: only new results")
    # One more finding of an identity already in the baseline counts as new.
    b = json.load(open(base))
    b["findings"] = [f for f in b["findings"] if not (f["code"] == "TRUNCATED" and f["path"].endswith("ATTACK_00.ALA"))][:]
    b["findings"].append({"code": "TRUNCATED", "path": "Art/Models/VSF_DEMO_XWING_ATTACK_00.ALA", "context": ""})
    fewer = write(os.path.join(tree, "fewer.json"), json.dumps(b))
    os.remove(os.path.join(tree, MODELS, "VSF_DEMO_XWING_HIT_00.ALA"))
    j = lint_json(tree, "--baseline", fewer, rc=1)
    c.eq([(f["code"], f["path"]) for f in j["findings"]],
         [("TRUNCATED", "Art/Models/VSF_DEMO_XWING_ATTACK_00.ALA")], "counts per identity")

# ---------------------------------------------------------------- suppressions

with case(tap, "suppressions: used ones hide findings, unused ones are reported") as c:
    supp = write(os.path.join(TMP, "supp.json"), json.dumps({"suppressions": [
        {"code": "TRUNCATED", "path": "art/models/*_ATTACK_*", "reason": "known broken export, ticket 12"},
        {"code": "SIZE_MISMATCH", "path": "Art/Models/VSF_DEMO_XWING_ATTACK_00.ALA", "reason": "same file"},
        {"code": "*", "path": "Art/Models/EV_DEMO_TIE_DIE_00.ALA", "reason": "re-export pending"},
        {"code": "BAD_MAGIC", "path": "Art/Old/*", "reason": "old files, long gone"},
    ]}))
    p = lint(DEMO, "--suppressions", supp)
    c.eq(p.returncode, 0, "only warnings are left (%s)" % p.stdout)
    c.that("unused suppression: BAD_MAGIC Art/Old/*" in p.stdout, "text reports the unused one: %s" % p.stdout)
    c.that("TRUNCATED" not in p.stdout.replace("unused", ""), "suppressed findings are not shown")
    j = lint_json(DEMO, "--suppressions", supp)
    c.eq(j["suppressed"], 5, "suppressed")
    c.eq(j["unused_suppressions"], [{"code": "BAD_MAGIC", "path": "Art/Old/*", "reason": "old files, long gone"}],
         "unused suppressions in JSON")
    c.eq(sorted(f["code"] for f in j["findings"]), ["PARTICLE_NAME_MISMATCH", "SKELETON_NOT_FOUND"], "left")
    p = lint(DEMO, "--suppressions", supp, "--format", "sarif")
    c.that("unused suppression: BAD_MAGIC" in p.stderr, "stderr reports it with sarif: %r" % p.stderr)
    notes = json.loads(p.stdout)["runs"][0]["invocations"][0]["toolExecutionNotifications"]
    c.eq(len(notes), 1, "sarif tool notification")
    c.eq(lint(DEMO, "--suppressions", supp, "--fail-on", "warning").returncode, 1, "the gate still applies")
    arr = write(os.path.join(TMP, "supp-array.json"), json.dumps([
        {"code": "*", "path": "*", "reason": "everything, as a bare array"}]))
    c.eq(lint(DEMO, "--suppressions", arr, "--fail-on", "info").returncode, 0, "a bare array of suppressions")

# ---------------------------------------------------------------- SAGE roots

with case(tap, "lint of one SAGE INI, W3D or directory scans the game's directory (Data/INI beside Art)") as c:
    sage = os.path.join(TMP, "sage")
    ini_dir = os.path.join(sage, "data", "ini", "object")  # BFME mods spell it in lower case
    w3d_dir = os.path.join(sage, "Art", "W3D")
    os.makedirs(ini_dir)
    os.makedirs(w3d_dir)
    amxgen("w3d-model", os.path.join(w3d_dir, "AVTANK.W3D"), "--name", "AVTANK", "--pivots", "TURRET")
    ini = write(os.path.join(ini_dir, "tank.ini"),
                "Object Tank\n  Draw = W3DModelDraw ModuleTag_01\n    DefaultConditionState\n"
                "      Model = AVTank\n      WeaponMuzzleFlash = PRIMARY Barrel\n    End\n  End\nEnd\n")
    whole = None
    for given in (sage, os.path.join(sage, "data"), os.path.join(sage, "data", "ini"), ini,
                  os.path.join(w3d_dir, "AVTANK.W3D")):
        p = ax.run("lint", given, "--format", "json")
        must(p, "lint " + given)  # a warning and an info: below the default gate
        j = json.loads(p.stdout)
        c.eq(j["roots"], [os.path.realpath(sage)], "root of %s" % given)
        got = sorted((f["code"], f["path"]) for f in j["findings"])
        if given == sage:
            whole = got
            c.eq(got, [("MODEL_BONE_NOT_FOUND", "data/ini/object/tank.ini")],
                 "the model is found in Art/W3D, its missing bone is the one finding")
        elif given.endswith(".W3D"):
            c.eq(got, [], "the model alone has no finding")
        else:
            c.eq(got, whole, "%s: the same findings as the whole tree (no model 'not found')" % given)
    # a tree that merely lies below a SAGE game's directory keeps its own Data root
    alamo = os.path.join(sage, "Mods", "X")
    model(alamo, "A_SHIP.ALO", ["Root", "Body"])
    p = ax.run("lint", os.path.join(alamo, MODELS, "A_SHIP.ALO"), "--format", "json")
    must(p, "lint of an Alamo model below a SAGE directory")
    c.eq(json.loads(p.stdout)["roots"], [os.path.realpath(os.path.join(alamo, "Data"))], "Alamo root")
    if os.path.isdir(os.path.join(CORPUS, "mods", "BFME2_sample")):
        bfme = os.path.join(CORPUS, "mods", "BFME2_sample")
        one = os.path.join(bfme, "Data", "INI", "Object", "Men", "Heroes", "aragorn.ini")
        a = json.loads(ax.run("lint", bfme, "--format", "json").stdout)
        b = json.loads(ax.run("lint", one, "--format", "json").stdout)
        mine = sorted(f["message"] for f in a["findings"] if f["path"].endswith("aragorn.ini"))
        c.that(len(mine) > 0, "the corpus INI has findings")
        c.eq(sorted(f["message"] for f in b["findings"]), mine,
             "BFME2_sample's hero INI alone: the findings of the whole tree for it")

with case(tap, "lint of a BFME #include fragment: not decoded alone, its includers with --dependents") as c:
    bfme = os.path.join(TMP, "bfme")
    w3d_dir = os.path.join(bfme, "Art", "W3D")
    os.makedirs(w3d_dir)
    os.makedirs(os.path.join(bfme, "Data", "INI", "Includes"))
    amxgen("w3d-model", os.path.join(w3d_dir, "GURANGER.W3D"), "--name", "GURANGER",
           "--pivots", "BAT")
    write(os.path.join(bfme, "Data", "INI", "ranger.ini"),
          "Object Ranger\n  Draw = W3DScriptedModelDraw ModuleTag_Draw\n"
          "    DefaultModelConditionState\n      Model = GURanger\n    End\n"
          "    #include \"Includes\\Walk.inc\"\n  End\nEnd\n")
    write(os.path.join(bfme, "Data", "INI", "archer.ini"),  # names no fragment
          "Object Archer\n  Draw = W3DScriptedModelDraw ModuleTag_Draw\n"
          "    DefaultModelConditionState\n      Model = GURanger\n"
          "    End\n    AnimationState = MOVING\n      Animation = Walk\n"
          "        AnimationName = GURANGER.GURANGER_RUNA\n      End\n    End\n  End\nEnd\n")
    frag = write(os.path.join(bfme, "Data", "INI", "Includes", "Walk.inc"),
                 "    AnimationState = MOVING\n      Animation = Walk\n"
                 "        AnimationName = GURANGER.GURANGER_WALK\n      End\n    End\n")
    p = ax.run("lint", frag, "--format", "json")
    must(p, "lint of the fragment alone")
    c.eq(json.loads(p.stdout)["findings"], [], "nothing of its own")
    c.that("not decoded on its own; nothing to check (1 file names it: --dependents checks it)"
           in p.stderr, "says how to check it: %r" % p.stderr)
    p = ax.run("lint", frag, "--dependents", "--format", "json")
    must(p, "lint --dependents of the fragment")
    got = [(f["code"], f["path"]) for f in json.loads(p.stdout)["findings"]]
    c.eq(got, [("REFERENCE_NOT_FOUND", "Data/INI/ranger.ini")], "the includer's finding only")
    c.that("GURANGER_WALK" in p.stdout and "(Walk.inc line 3)" in p.stdout,
           "from the fragment's line: %s" % p.stdout)
    c.that("the 1 file that names it is checked (--dependents)" in p.stderr, "stderr: %r" % p.stderr)


shutil.rmtree(TMP, ignore_errors=True)
sys.exit(tap.finish())
