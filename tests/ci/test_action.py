#!/usr/bin/env python3
"""Tests of the GitHub Action (action.yml and scripts/action/*.sh) on fixture repositories.

usage: test_action.py ANIMIDX AMXGEN

Runs action.yml's steps with the environment GitHub sets (tests/ci/gha.py: GITHUB_OUTPUT,
GITHUB_STEP_SUMMARY, GITHUB_PATH, RUNNER_TEMP, RUNNER_TOOL_CACHE, ...; actions/cache and the
SARIF upload stood in for) on repositories written with amxgen. The first job builds animidx
from this source tree, as the Action does on a runner; later jobs restore it from the cache.
Checks the SARIF uploaded, the job summary, the outputs and the job's exit status against what
ANIMIDX (the build under test) reports for the same tree, and that a job after a fresh checkout
with the restored index decodes nothing. TAP on stdout.
"""
import atexit
import json
import os
import re
import shutil
import signal
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "e2e"))
sys.path.insert(0, HERE)
from tap import Tap, Cli, case, short  # noqa: E402
import gha  # noqa: E402

if len(sys.argv) < 3:
    sys.stderr.write("usage: test_action.py ANIMIDX AMXGEN\n")
    sys.exit(2)

ANIMIDX = os.path.abspath(sys.argv[1])
AMXGEN = os.path.abspath(sys.argv[2])
SOURCE = os.environ.get("AMX_SOURCE_ROOT") or os.path.abspath(os.path.join(HERE, "..", ".."))
TMP = tempfile.mkdtemp(prefix="animidx-action-")
tap = Tap()
gen = Cli(AMXGEN, TMP)
ax = Cli(ANIMIDX, TMP)
ax.env["XDG_CACHE_HOME"] = os.path.join(TMP, "direct-cache")
MODELS = "Data/Art/Models"

# The runner fetches OWNER/REPO@REF to .../_actions/OWNER/REPO/REF: the action's files are this
# source tree, seen through that path (the SARIF rules then link to github.com/OWNER/REPO).
ACTION = os.path.join(TMP, "runner", "_actions", "animidx", "animidx", "v1")
os.makedirs(os.path.dirname(ACTION))
os.symlink(SOURCE, ACTION)


def cleanup():
    """The temp dir goes whatever ends the test (a failure, meson's timeout: SIGTERM); the link
    to the source tree first, so that nothing is removed through it."""
    if os.path.islink(ACTION):
        os.unlink(ACTION)
    shutil.rmtree(TMP, ignore_errors=True)


def terminated(sig, frame):
    cleanup()
    os._exit(128 + sig)  # at once: the test cases catch every exception, SystemExit too


atexit.register(cleanup)
signal.signal(signal.SIGTERM, terminated)
WORKSPACE = os.path.join(TMP, "runner", "work", "mod", "mod")
HOME = os.path.join(TMP, "home")
CACHES = {}   # actions/cache's store: it outlives the jobs
SHA = "1234567890abcdef1234567890abcdef12345678"


def amxgen(*args):
    p = gen.run(*args)
    if p.returncode != 0:
        raise AssertionError("amxgen %s: %s" % (" ".join(map(str, args)), p.stderr))


def model(tree, name, bones):
    os.makedirs(os.path.join(tree, MODELS), exist_ok=True)
    amxgen("model", os.path.join(tree, MODELS, name), "--bones", ",".join(bones))


def clip(tree, name, bones, indices=None):
    os.makedirs(os.path.join(tree, MODELS), exist_ok=True)
    args = ["clip", os.path.join(tree, MODELS, name), "--bones", ",".join(bones), "--frames", 20]
    if indices:
        args += ["--indices", ",".join(map(str, indices))]
    amxgen(*args)


def repository(name, broken=True, under=""):
    """A mod repository: a model, a clip that fits it, and (broken) a clip saved with the
    bone order of an older rig (BONE_INDEX_MISMATCH) and a truncated one (TRUNCATED)."""
    repo = os.path.join(TMP, "repos", name)
    shutil.rmtree(repo, ignore_errors=True)
    tree = os.path.join(repo, under)
    os.makedirs(tree)
    amxgen("assets", tree)
    model(tree, "X.ALO", ["Root", "Body", "Turret", "Barrel"])
    clip(tree, "X_MOVE_00.ALA", ["Root", "Body", "Turret", "Barrel"])
    if broken:
        clip(tree, "X_IDLE_00.ALA", ["Root", "Body", "Turret", "Barrel"], indices=[0, 1, 3, 2])
        clip(tree, "X_DIE_00.ALA", ["Root", "Body", "Turret", "Barrel"])
        p = os.path.join(tree, MODELS, "X_DIE_00.ALA")
        with open(p, "r+b") as f:
            f.truncate(os.path.getsize(p) // 2)
    else:
        clip(tree, "X_IDLE_00.ALA", ["Root", "Body", "Turret", "Barrel"])
    return repo


def checkout(repo):
    """A fresh checkout of the repository into the workspace: every file written anew."""
    shutil.rmtree(WORKSPACE, ignore_errors=True)
    shutil.copytree(repo, WORKSPACE, copy_function=shutil.copyfile)


def job(repo, **inputs):
    checkout(repo)
    env = dict(os.environ)
    env.update({"HOME": HOME, "LC_ALL": "C"})
    for k in ("XDG_CACHE_HOME", "XDG_CONFIG_HOME", "XDG_STATE_HOME"):
        env.pop(k, None)
    j = gha.Job(os.path.join(TMP, "runner"), ACTION, WORKSPACE, CACHES, env=env, sha=SHA)
    return j.run(os.path.join(ACTION, "action.yml"), inputs)


def step(j, name):
    for n, outcome, text in j.log:
        if n == name:
            return outcome, text
    raise AssertionError("no step %r in %s" % (name, [n for n, _, _ in j.log]))


def summary(j):
    with open(j.summary) as f:
        return f.read()


def direct(repo, *args):
    """What the build under test says of the repository: lint --format json, run in it."""
    p = ax.run("lint", *args, "--format", "json", cwd=repo)
    if p.returncode not in (0, 1):
        raise AssertionError("lint in %s: exit %d: %s" % (repo, p.returncode, p.stderr))
    return p.returncode, json.loads(p.stdout)


def explain(j):
    return "\n".join("%s: %s\n%s" % (n, o, t[-3000:]) for n, o, t in j.log)


BROKEN = repository("broken")
CLEAN = repository("clean", broken=False)

# ---------------------------------------------------------------- the first job: a build

with case(tap, "a first job builds animidx, lints, uploads SARIF, writes the summary and fails") as c:
    rc, want = direct(BROKEN, "Data")
    c.eq(rc, 1, "direct lint of the broken repository")
    j = job(BROKEN)
    c.eq(j.status, "failure", "job status")
    outcome, text = step(j, "Install or build animidx")
    c.eq(outcome, "success", "build step: " + text[-2000:])
    c.eq(j.steps["build"]["outputs"].get("built"), "true", "built")
    c.that(os.path.isfile(os.path.join(j.steps["key"]["outputs"]["prefix"], "bin", "animidx")),
           "animidx installed in the prefix")
    c.that(any(e[0] == "save" and e[1].startswith("animidx-build-") for e in j.cache_events),
           "the build is saved to the cache: %s" % j.cache_events)
    c.eq(j.outputs["exit-code"], "1", "output exit-code")
    c.eq(step(j, "Job summary and verdict")[0], "failure", "the verdict step fails the job")
    c.eq((j.outputs["errors"], j.outputs["warnings"], j.outputs["info"]),
         tuple(str(want["totals"][s]) for s in ("error", "warning", "info")),
         "outputs errors, warnings, info (as lint says)")
    c.that(int(j.outputs["files-decoded"]) >= 4, "files decoded: %s" % j.outputs["files-decoded"])
    # SARIF
    c.eq(len(j.uploads), 1, "SARIF uploads")
    if j.uploads:
        f, category, doc = j.uploads[0]
        c.eq(category, "animidx", "category")
        results = doc["runs"][0]["results"]
        got = sorted((r["ruleId"], r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"])
                     for r in results)
        c.eq(got, sorted((x["code"], "Data/" + x["path"]) for x in want["findings"]),
             "results: code and repository path of each finding")
        c.that(("BONE_INDEX_MISMATCH", "Data/Art/Models/X_IDLE_00.ALA") in got, "the re-rigged clip")
        rules = doc["runs"][0]["tool"]["driver"]["rules"]
        c.that(all(r["helpUri"].startswith(
            "https://github.com/animidx/animidx/blob/v1/docs/rules.md#") for r in rules),
            "rules link to the action's repository at its ref: %s" % rules[0]["helpUri"])
    # summary
    s = summary(j)
    c.that(s.startswith("### animidx lint: FAILED"), "summary title: %r" % s[:200])
    n = len(want["findings"])
    c.that("**%d findings at or above error**" % n in s, "the count that fails: %s" % s[:600])
    codes = {}
    for x in want["findings"]:
        codes.setdefault(x["code"], []).append(x)
    for code, xs in codes.items():
        row = "| %s | %s | %d | %d |" % (code.replace("_", "\\_"), xs[0]["severity"], len(xs),
                                         len(set(x["path"] for x in xs)))
        c.that(row in s, "the row %s in %s" % (row, s))
    c.that("BONE_INDEX_MISMATCH" in codes and "TRUNCATED" in codes, "the planted codes: %s" % codes)
    c.that("#### First errors (%d of %d)" % (n, n) in s, "first errors heading")
    c.that("[Data/Art/Models/X\\_IDLE\\_00\\.ALA](https://github.com/example/mod/blob/%s/"
           "Data/Art/Models/X_IDLE_00.ALA)" % SHA in s.replace("\\/", "/"),
           "an error row links its file in the repository: %s" % s)
    c.that(any(e[0] == "save" and e[1].startswith("animidx-index-") for e in j.cache_events),
           "the index is saved although lint failed: %s" % j.cache_events)
    if c.problems:
        c.note(explain(j))

# ---------------------------------------------------------------- the next job: the caches

with case(tap, "the next job: the build and the index come from the cache, nothing is decoded") as c:
    j = job(BROKEN)
    outcome, text = step(j, "Install or build animidx")
    c.eq((outcome, j.steps["build"]["outputs"].get("built")), ("success", "false"),
         "build step restored, not built")
    c.that("using the cached build" in text, "says so: %s" % text[-500:])
    c.eq(step(j, "Save the animidx build")[0], "skipped", "the build is not saved again")
    restores = [e for e in j.cache_events if e[0] == "restore" and e[1].startswith("animidx-index-")]
    c.that(restores and restores[0][2], "the index restored from the last job: %s" % j.cache_events)
    c.eq(j.outputs["files-decoded"], "0", "files decoded after the fresh checkout")
    c.eq(j.outputs["exit-code"], "1", "exit-code")
    c.that("The index: 0 files decoded" in summary(j), "the summary says what was decoded")
    if c.problems:
        c.note(explain(j))

with case(tap, "a fixed clip: the job passes and only that clip is decoded") as c:
    j = job(CLEAN)
    c.eq(j.status, "success", "job status")
    c.eq(j.outputs["exit-code"], "0", "exit-code")
    c.eq(j.outputs["errors"], "0", "errors")
    c.eq(j.outputs["files-decoded"], "1", "files decoded (X_IDLE_00.ALA; X_DIE_00.ALA is gone)")
    s = summary(j)
    c.that(s.startswith("### animidx lint: passed"), "summary: %r" % s[:300])
    c.that("First errors" not in s, "no error list")
    c.eq(len(j.uploads), 1, "SARIF is uploaded when lint passes too")
    if c.problems:
        c.note(explain(j))

# ---------------------------------------------------------------- inputs

with case(tap, "inputs: working-directory, paths on lines, baseline, fail-on, no SARIF, no index cache") as c:
    repo = repository("nested", under="mods/MyMod")
    mod = os.path.join(repo, "mods", "MyMod")
    p = ax.run("lint", "Data", "--write-baseline", "base.json", cwd=mod)
    c.eq(p.returncode, 0, "write the baseline: " + p.stderr)
    saved = set(CACHES)
    j = job(repo, **{"working-directory": "mods/MyMod", "paths": "Data\n", "baseline": "base.json",
                     "upload-sarif": "false", "cache-index": "false"})
    c.eq((j.status, j.outputs["exit-code"]), ("success", "0"), "the baseline holds every error")
    c.eq(j.uploads, [], "no SARIF uploaded")
    c.eq(set(CACHES), saved, "no cache saved")
    rc, want = direct(mod, "Data")
    c.that("(not counted: %d in the baseline)" % len(want["findings"]) in summary(j),
           "the summary counts the baseline: %s" % summary(j))
    # a new broken clip is not in the baseline: it fails, with repository paths in the SARIF
    clip(mod, "X_ATTACK_00.ALA", ["Root", "Turret", "Body", "Barrel"])
    j = job(repo, **{"working-directory": "mods/MyMod", "paths": "Data", "baseline": "base.json",
                     "fail-on": "warning", "cache-index": "false"})
    c.eq((j.status, j.outputs["exit-code"]), ("failure", "1"), "a new finding fails")
    rc, now = direct(mod, "Data", "--baseline", "base.json")
    c.eq(len(j.uploads), 1, "SARIF uploads")
    for _, _, doc in j.uploads:
        uris = [r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"]
                for r in doc["runs"][0]["results"]]
        c.eq(uris, ["mods/MyMod/Data/Art/Models/X_ATTACK_00.ALA"] * len(now["findings"]),
             "SARIF: only the new findings, at their repository path")
    c.that("mods/MyMod/Data/Art/Models/X\\_ATTACK\\_00\\.ALA" in summary(j).replace("\\/", "/"),
           "the summary names the repository path")
    if c.problems:
        c.note(explain(j))

with case(tap, "a bad input: exit 2, the summary says lint did not run, nothing uploaded") as c:
    j = job(BROKEN, **{"fail-on": "fatal"})
    c.eq((j.status, j.outputs["exit-code"]), ("failure", "2"), "status, exit-code")
    outcome, text = step(j, "Job summary and verdict")
    c.eq(outcome, "failure", "the verdict step")
    c.that("did not run (exit 2)" in summary(j), "summary: %s" % summary(j))
    c.eq(j.uploads, [], "no SARIF")
    c.eq(step(j, "Save the lint index")[0], "skipped", "no index saved")
    outcome, text = step(j, "animidx lint")
    c.that("--fail-on: expected error, warning or info, got 'fatal'" in text, "lint's message in the log")

with case(tap, "the summary shows names from the files as text, never as Markdown or HTML") as c:
    repo = repository("names", broken=False)
    clip(repo, "A|B<img src=x>_IDLE_00.ALA", ["Root", "Body"])  # no model A|B...: a warning
    j = job(repo, **{"fail-on": "warning"})
    s = summary(j)
    c.eq(j.outputs["exit-code"], "1", "exit-code")
    c.that("A\\|B\\<img src\\=x\\>\\_IDLE\\_00\\.ALA" in s, "the name escaped: %s" % s)
    rows = [l for l in s.splitlines() if l.startswith("| [Data")]
    c.eq(len(rows), 1, "rows of findings")
    for line in rows:
        cells = line[2:-2].split(" | ")
        c.eq(len(cells), 4, "cells in %s" % line)
        for cell in cells:
            c.that(not re.search(r"(?<!\\)[<>|]", cell), "no raw markup in the cell %s" % cell)


with case(tap, "the runner stands in only for what it knows (the test can fail)") as c:
    bad = os.path.join(TMP, "bad-action.yml")
    with open(bad, "w") as f:
        f.write("runs:\n  using: composite\n  steps:\n    - uses: actions/unknown@v1\n")
    try:
        gha.Job(os.path.join(TMP, "runner"), ACTION, WORKSPACE, {}).run(bad, {})
        c.that(False, "an unknown action is an error")
    except gha.ActionError:
        pass
    try:
        gha.Job(os.path.join(TMP, "runner"), ACTION, WORKSPACE, {}).run(
            os.path.join(ACTION, "action.yml"), {"no-such-input": "x"})
        c.that(False, "an undeclared input is an error")
    except gha.ActionError:
        pass

sys.exit(tap.finish())
