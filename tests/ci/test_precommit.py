#!/usr/bin/env python3
"""Tests of the pre-commit hook (.pre-commit-hooks.yaml) with the real `pre-commit` tool.

usage: test_precommit.py ANIMIDX AMXGEN

Makes a hook repository holding this tree's .pre-commit-hooks.yaml, and a mod repository (git,
written with amxgen) whose .pre-commit-config.yaml uses it, with ANIMIDX on PATH: everything is
local, no network. Checks that `pre-commit run --all-files` passes on a clean tree and fails on a
broken clip, that the hook lints the staged files (a commit of a broken clip is refused, of the
fix accepted), that a staged re-rigged model reports the clips it broke, and that a staged BFME
#include fragment reports the INI file that reads it. TAP on stdout.
"""
import atexit
import os
import shutil
import signal
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "e2e"))
from tap import Tap, Cli, case  # noqa: E402

if len(sys.argv) < 3:
    sys.stderr.write("usage: test_precommit.py ANIMIDX AMXGEN\n")
    sys.exit(2)

ANIMIDX = os.path.abspath(sys.argv[1])
AMXGEN = os.path.abspath(sys.argv[2])
SOURCE = os.environ.get("AMX_SOURCE_ROOT") or os.path.abspath(os.path.join(HERE, "..", ".."))
TMP = tempfile.mkdtemp(prefix="animidx-precommit-")


def terminated(sig, frame):  # meson's timeout
    shutil.rmtree(TMP, ignore_errors=True)
    os._exit(128 + sig)  # at once: the test cases catch every exception, SystemExit too


atexit.register(shutil.rmtree, TMP, True)
signal.signal(signal.SIGTERM, terminated)
tap = Tap()
gen = Cli(AMXGEN, TMP)
MODELS = "Data/Art/Models"

PRE_COMMIT = shutil.which("pre-commit")
GIT = shutil.which("git")

# An environment of its own: no user or system git config, pre-commit's store and lint's index
# in the temp dir, the animidx under test first on PATH.
BIN = os.path.join(TMP, "bin")
os.makedirs(BIN)
os.symlink(ANIMIDX, os.path.join(BIN, "animidx"))
ENV = dict(os.environ)
ENV.update({
    "HOME": os.path.join(TMP, "home"), "XDG_CACHE_HOME": os.path.join(TMP, "cache"),
    "XDG_CONFIG_HOME": os.path.join(TMP, "config"), "PRE_COMMIT_HOME": os.path.join(TMP, "pc"),
    "PATH": BIN + os.pathsep + ENV.get("PATH", ""), "LC_ALL": "C.UTF-8",
    "GIT_CONFIG_NOSYSTEM": "1", "GIT_CONFIG_GLOBAL": os.devnull,
    "GIT_AUTHOR_NAME": "modder", "GIT_AUTHOR_EMAIL": "modder@example.invalid",
    "GIT_COMMITTER_NAME": "modder", "GIT_COMMITTER_EMAIL": "modder@example.invalid",
})
ENV.pop("PRE_COMMIT", None)
os.makedirs(ENV["HOME"])


def run(args, cwd, check=True):
    p = subprocess.run(args, cwd=cwd, env=ENV, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                       universal_newlines=True, timeout=300)
    if check and p.returncode != 0:
        raise AssertionError("%s: exit %d\n%s" % (" ".join(args), p.returncode, p.stdout[-3000:]))
    return p


def git(repo, *args, check=True):
    return run([GIT, "-c", "init.defaultBranch=main", "-c", "commit.gpgsign=false"] + list(args),
               repo, check)


def pre_commit(repo, *args):
    return run([PRE_COMMIT, "run", "--color", "never"] + list(args), repo, check=False)


def amxgen(*args):
    p = gen.run(*args)
    if p.returncode != 0:
        raise AssertionError("amxgen %s: %s" % (" ".join(map(str, args)), p.stderr))


def model(repo, name, bones):
    amxgen("model", os.path.join(repo, MODELS, name), "--bones", ",".join(bones))


def clip(repo, name, bones, indices=None, frames=20):
    args = ["clip", os.path.join(repo, MODELS, name), "--bones", ",".join(bones), "--frames", frames]
    if indices:
        args += ["--indices", ",".join(map(str, indices))]
    amxgen(*args)


BONES = ["Root", "Body", "Turret", "Barrel"]
BROKEN = [0, 2, 1, 3]   # the clip's tracks in the bone order of an older rig


def hook_repository():
    """A repository holding the hook definition, as pre-commit clones it."""
    repo = os.path.join(TMP, "hooks")
    os.makedirs(repo)
    shutil.copy(os.path.join(SOURCE, ".pre-commit-hooks.yaml"), repo)
    git(repo, "init", "-q")
    git(repo, "add", ".pre-commit-hooks.yaml")
    git(repo, "commit", "-q", "-m", "hooks")
    return repo, git(repo, "rev-parse", "HEAD").stdout.strip()


def mod_repository(hooks, rev):
    repo = os.path.join(TMP, "mod")
    os.makedirs(os.path.join(repo, MODELS))
    amxgen("assets", repo)
    model(repo, "X.ALO", BONES)
    clip(repo, "X_IDLE_00.ALA", BONES)
    clip(repo, "X_MOVE_00.ALA", BONES)
    with open(os.path.join(repo, ".pre-commit-config.yaml"), "w") as f:
        f.write("repos:\n  - repo: %s\n    rev: %s\n    hooks:\n      - id: animidx-lint\n"
                % (hooks, rev))
    with open(os.path.join(repo, "README.txt"), "w") as f:  # not an asset: the hook skips it
        f.write("a mod\n")
    git(repo, "init", "-q")
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "a clean mod")
    return repo


if not PRE_COMMIT or not GIT:
    tap.skip("pre-commit hook", "pre-commit or git is not installed (Debian: pre-commit, git; "
                                "scripts/test.sh installs them)")
    sys.exit(tap.finish())

HOOKS, REV = hook_repository()
MOD = mod_repository(HOOKS, REV)

with case(tap, "pre-commit run --all-files passes on a clean tree") as c:
    p = pre_commit(MOD, "--all-files")
    c.eq(p.returncode, 0, "exit status\n" + p.stdout)
    c.that("animidx lint" in p.stdout and "Passed" in p.stdout, "the hook ran and passed: %s" % p.stdout)

with case(tap, "pre-commit run --all-files fails on a broken clip and names it") as c:
    clip(MOD, "X_IDLE_00.ALA", BONES, indices=BROKEN)
    p = pre_commit(MOD, "--all-files")
    c.eq(p.returncode, 1, "exit status\n" + p.stdout)
    c.that("Failed" in p.stdout, "the hook failed: %s" % p.stdout)
    c.that("Art/Models/X_IDLE_00.ALA" in p.stdout and "BONE_INDEX_MISMATCH" in p.stdout,
           "lint's finding in the output: %s" % p.stdout)
    c.that("X_MOVE_00" not in p.stdout, "the clean clip is not named")

with case(tap, "a commit of the broken clip is refused, the commit of its fix goes through") as c:
    run([PRE_COMMIT, "install"], MOD)
    git(MOD, "add", os.path.join(MODELS, "X_IDLE_00.ALA"))
    p = git(MOD, "commit", "-m", "broken export", check=False)
    c.eq(p.returncode, 1, "git commit of the broken clip\n" + p.stdout)
    c.that("BONE_INDEX_MISMATCH" in p.stdout, "says why: %s" % p.stdout)
    clip(MOD, "X_IDLE_00.ALA", BONES, frames=30)  # re-exported right (and longer)
    git(MOD, "add", os.path.join(MODELS, "X_IDLE_00.ALA"))
    p = git(MOD, "commit", "-m", "fixed export", check=False)
    c.eq(p.returncode, 0, "git commit of the fix\n" + p.stdout)
    c.that("animidx lint" in p.stdout and "Passed" in p.stdout, "the hook ran: %s" % p.stdout)

with case(tap, "only the staged files are linted: a broken file that is not staged is not named") as c:
    clip(MOD, "X_MOVE_00.ALA", BONES, indices=BROKEN)        # broken, left unstaged
    amxgen("particle", os.path.join(MOD, MODELS, "P_FIRE.ALO"), "p_fire")
    git(MOD, "add", os.path.join(MODELS, "P_FIRE.ALO"))
    p = pre_commit(MOD)
    c.eq(p.returncode, 0, "exit status\n" + p.stdout)
    c.that("X_MOVE_00" not in p.stdout, "the unstaged clip is not named: %s" % p.stdout)
    git(MOD, "commit", "-q", "-m", "a particle")
    git(MOD, "checkout", "--", os.path.join(MODELS, "X_MOVE_00.ALA"))

with case(tap, "a staged re-rigged model fails on the clips it broke (--dependents)") as c:
    model(MOD, "X.ALO", ["Root", "Turret", "Body", "Barrel"])
    git(MOD, "add", os.path.join(MODELS, "X.ALO"))
    p = pre_commit(MOD)
    c.eq(p.returncode, 1, "exit status\n" + p.stdout)
    c.that("Art/Models/X_IDLE_00.ALA" in p.stdout and "Art/Models/X_MOVE_00.ALA" in p.stdout,
           "both clips are named: %s" % p.stdout)
    c.that("BONE_INDEX_MISMATCH" in p.stdout, "with the code")


def bfme_repository(hooks, rev):
    """A BFME mod: a ranger whose animation states are in an #include fragment."""
    repo = os.path.join(TMP, "bfme")
    w3d = os.path.join(repo, "Art", "W3D")
    os.makedirs(w3d)
    amxgen("w3d-model", os.path.join(w3d, "GURanger.w3d"), "--name", "GURANGER",
           "--pivots", "ROOTB,BAT")
    amxgen("w3d-pair", w3d, "--name", "IUOTHER")   # a clip whose header says 'IUOTHER.ANIM'
    os.rename(os.path.join(w3d, "IUOTHER_anim.w3d"), os.path.join(w3d, "ANIM.w3d"))
    os.makedirs(os.path.join(repo, "Data", "INI", "Object"))
    os.makedirs(os.path.join(repo, "Data", "INI", "Includes"))
    with open(os.path.join(repo, "Data", "INI", "Object", "ranger.ini"), "w") as f:
        f.write("Object GondorRanger\n  Draw = W3DScriptedModelDraw ModuleTag_Draw\n"
                "    DefaultModelConditionState\n      Model = GURanger\n    End\n"
                "    #include \"..\\Includes\\RangerAnims.inc\"\n  End\nEnd\n")
    fragment(repo, "GURANGER.GURANGER_IDLA")   # in the base game (not found: info)
    with open(os.path.join(repo, ".pre-commit-config.yaml"), "w") as f:
        f.write("repos:\n  - repo: %s\n    rev: %s\n    hooks:\n      - id: animidx-lint\n"
                % (hooks, rev))
    git(repo, "init", "-q")
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "a ranger")
    run([PRE_COMMIT, "install"], repo)
    return repo


def fragment(repo, animation):
    """The ranger's idle state, playing `animation`."""
    with open(os.path.join(repo, "Data", "INI", "Includes", "RangerAnims.inc"), "w") as f:
        f.write("IdleAnimationState\n  Animation = Idle\n    AnimationName = %s\n"
                "  End\nEnd\n" % animation)


with case(tap, "a staged BFME #include fragment fails on the INI file that reads it") as c:
    BFME = bfme_repository(HOOKS, REV)
    fragment(BFME, "IUOTHER.ANIM")   # ANIM.w3d: registered as IUOTHER.IUOTHER.ANIM, not this
    git(BFME, "add", "Data/INI/Includes/RangerAnims.inc")
    p = git(BFME, "commit", "-m", "the ranger idles as the other", check=False)
    c.eq(p.returncode, 1, "git commit of the fragment\n" + p.stdout)
    c.that("Data/INI/Object/ranger.ini" in p.stdout and "REFERENCE_WRONG_KIND" in p.stdout,
           "the includer's finding: %s" % p.stdout)
    c.that("RangerAnims.inc line 3" in p.stdout, "names the fragment's line: %s" % p.stdout)
    c.that("the 1 file that names it is checked" in p.stdout, "says what was checked")
    fragment(BFME, "GURANGER.GURANGER_IDLB")   # another of the base game's
    git(BFME, "add", "Data/INI/Includes/RangerAnims.inc")
    p = git(BFME, "commit", "-m", "the ranger's own idle", check=False)
    c.eq(p.returncode, 0, "git commit of the fix\n" + p.stdout)
    c.that("animidx lint" in p.stdout and "Passed" in p.stdout, "the hook ran: %s" % p.stdout)


sys.exit(tap.finish())
