#!/usr/bin/env python3
"""End-to-end tests of the animidx command line on generated trees.

usage: test_e2e.py ANIMIDX AMXGEN

Generates asset trees with amxgen in a temporary directory, scans them into temporary
databases and checks what the CLI reports (TAP on stdout). Nothing outside the temporary
directory is written.
"""
import json
import math
import os
import random
import re
import shutil
import signal
import sqlite3
import stat
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from tap import (Tap, Cli, case, canon, diff_rows, strip_root, short, run as tap_run,  # noqa: E402
                 popen as tap_popen, WINDOWS, posix_only)

if len(sys.argv) < 3:
    sys.stderr.write("usage: test_e2e.py ANIMIDX AMXGEN\n")
    sys.exit(2)

ANIMIDX = os.path.abspath(sys.argv[1])
AMXGEN = os.path.abspath(sys.argv[2])
TMP = tempfile.mkdtemp(prefix="animidx-e2e-")
tap = Tap()
ax = Cli(ANIMIDX, TMP)
gen = Cli(AMXGEN, TMP)

MODELS = "Data/Art/Models"
UNITS = "Data/Art/Units"
IS_ROOT = hasattr(os, "geteuid") and os.geteuid() == 0

# The shared folder sits beside the checkout (tests/meson.build sets AMX_CORPUS from the source
# root); the contract is its contracts/ sibling of corpus/.
SOURCE_ROOT = os.environ.get("AMX_SOURCE_ROOT") or os.path.dirname(
    os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
CORPUS = os.environ.get("AMX_CORPUS") or os.path.join(SOURCE_ROOT, "..", "shared", "corpus")
CONTRACT = os.environ.get("AMX_CONTRACT") or os.path.join(
    os.path.dirname(os.path.abspath(CORPUS)), "contracts", "cli-json.md")


# ---------------------------------------------------------------- helpers

def must(p, what, rc=0):
    if p.returncode != rc:
        raise AssertionError("%s: exit %d (want %d)\nstderr: %s" % (what, p.returncode, rc,
                                                                   p.stderr.strip()[:2000]))
    return p


def amxgen(*args):
    must(gen.run(*args), "amxgen " + " ".join(map(str, args)))


def model(path, bones, **kw):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    extra = []
    for k, v in kw.items():
        extra += ["--" + k, v]
    amxgen("model", path, "--bones", ",".join(bones), *extra)


def clip(path, bones, indices=None, fmt=2, frames=30, fps=30, seed=None):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    args = ["clip", path, "--bones", ",".join(bones), "--format", fmt, "--frames", frames,
            "--fps", fps]
    if indices is not None:
        args += ["--indices", ",".join(map(str, indices))]
    if seed is not None:
        args += ["--seed", seed]
    amxgen(*args)


def scan(root, db, *extra, rc=0):
    return ax.json("scan", root, "--db", db, "--json", "--quiet", *extra, want_rc=rc)


def skeletons(db, *extra):
    return ax.json("skeletons", "--db", db, "--json", *extra)


def clips(db, skel, *extra):
    return ax.json("clips", "--skeleton", skel, "--db", db, "--json", *extra)


def issues(db, *extra):
    return ax.json("issues", "--db", db, "--json", *extra)


def show(db, path, *extra, rc=0):
    return ax.json("show", path, "--db", db, "--json", *extra, want_rc=rc)


def by_path(rows):
    out = {}
    for r in rows:
        out.setdefault(r["path"], []).append(r)
    return out


def one_clip(db, skel, path):
    rows = [r for r in clips(db, skel) if r["path"] == path]
    if len(rows) != 1:
        raise AssertionError("clips --skeleton %s: %d rows for %s: %s" % (skel, len(rows), path,
                                                                         short(clips(db, skel))))
    return rows[0]


def bump_mtime(path, seconds=7):
    st = os.stat(path)
    os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns + seconds * 1000000000))


def state(db, names):
    """What the CLI says about the whole index: skeletons, issues and clips of every name."""
    cl = []
    for n in names:
        cl += clips(db, n)
    return {"skeletons": canon(skeletons(db)), "issues": canon(issues(db)), "clips": canon(cl)}


def compare_states(c, a, b, what):
    for k in ("skeletons", "clips", "issues"):
        if a[k] != b[k]:
            c.that(False, "%s: %s differ:\n%s" % (what, k, diff_rows(a[k], b[k])))


def db_counts(db):
    """Row counts of every table and a foreign-key check, read straight from the database."""
    con = sqlite3.connect(db)
    try:
        out = {}
        for t in ("files", "skeletons", "bones", "clips", "clip_tracks", "models", "meshes", "findings"):
            out[t] = con.execute("SELECT count(*) FROM %s" % t).fetchone()[0]
        out["fk_violations"] = len(con.execute("PRAGMA foreign_key_check").fetchall())
        out["duplicate_paths"] = con.execute(
            "SELECT count(*) FROM (SELECT root_id, path FROM files GROUP BY 1, 2 HAVING count(*) > 1)"
        ).fetchone()[0]
        out["unfinished_archives"] = con.execute(
            "SELECT count(*) FROM files WHERE format = 'meg' AND mtime_ns < 0").fetchone()[0]
        out["unlinked_clips"] = con.execute("SELECT count(*) FROM clips WHERE linked = 0").fetchone()[0]
        return out
    finally:
        con.close()


def codes_of(rows):
    return sorted(r["code"] for r in rows)


# ---------------------------------------------------------------- the main tree

ROOT = os.path.join(TMP, "tree")
DB = os.path.join(TMP, "db", "main.db")

# Every skeleton name a clip of the tree may target (clips --skeleton is per name).
NAMES = ["VSF_DEMO_XWING", "EV_DEMO_TIE", "EV_DEMO_TIE2", "VSF_DEMO_LOST", "UM_DEMO_WALKER",
         "UV_GEN_WALKER", "UM_GEN_AT",
         # the demo's MechWarrior 3 definitions, listed under their anim roots
         "MECH_ROOT_00", "MECH_ROOT_01", "MECH_ROOT_02"]

WALKER = ["Root", "Body", "Head", "Gun"]


def build_tree():
    amxgen("demo", ROOT)
    u = os.path.join(ROOT, UNITS)
    model(os.path.join(u, "UV_GEN_WALKER.ALO"), WALKER, meshes=2, vertices=30)
    clip(os.path.join(u, "UV_GEN_WALKER_WALK_00.ALA"), WALKER, fmt=1, frames=24, fps=15)
    clip(os.path.join(u, "UV_GEN_WALKER_ATTACKIDLE_00.ALA"), ["Body", "Gun"], [1, 3], frames=10)
    # outside the MODEL_TYPE_NN convention: no model loads it (CLIP_NOT_LOADED_BY_NAME, info,
    # naming the skeleton its bones fit)
    clip(os.path.join(u, "UV_GEN_WALKER_Special_Turn.ALA"), ["Root", "Head"], [0, 2], frames=12)
    # against another skeleton: index mismatch, renamed bone, index beyond the skeleton
    clip(os.path.join(u, "UV_GEN_WALKER_DIE_00.ALA"), ["Root", "Gun", "Neck", "Tail", "Body"],
         [0, 1, 2, 9, 7], frames=40)
    # lower-case file and bone names bind case-insensitively
    clip(os.path.join(u, "uv_gen_walker_idle_00.ala"), ["root", "BODY", "hEaD"], frames=8)
    amxgen("particle", os.path.join(ROOT, MODELS, "P_GEN_OK.ALO"), "p_gen_ok", "--emitters", 2)
    # a version-2 archive with its own model and clip
    m = os.path.join(TMP, "src_at.alo")
    c = os.path.join(TMP, "src_at.ala")
    model(m, ["Root", "Leg_L", "Leg_R"])
    clip(c, ["Root", "Leg_L", "Leg_R"], frames=16)
    amxgen("meg", os.path.join(ROOT, "Data", "Extra.meg"), "--version", 2,
           "DATA\\ART\\MODELS\\UM_GEN_AT.ALO=" + m, "DATA\\ART\\MODELS\\UM_GEN_AT_MOVE_00.ALA=" + c)


def fresh_state(tag):
    """A scan of the tree as it is now into a new database."""
    db = os.path.join(TMP, "db", "fresh-%s.db" % tag)
    s = scan(ROOT, db)
    return s, state(db, NAMES), db


def test_first_scan():
    with case(tap, "first scan: summary counts") as c:
        s = scan(ROOT, DB)
        f = s["files"]
        c.eq(f.get("alamo-alo"), 5, "files.alamo-alo (3 demo incl. archive member + 2 own)")
        c.eq(f.get("alamo-particle"), 4, "files.alamo-particle (with the proxies' P_SMOKE_01)")
        c.eq(f.get("alamo-ala"), 12, "files.alamo-ala")
        c.eq(f.get("meg"), 2, "files.meg")
        c.eq(f.get("mw3-anim"), 1, "files.mw3-anim (the demo's anim.zbd)")
        c.eq(f.get("alamo-xml"), 1, "files.alamo-xml (the demo's game object XML)")
        c.eq(f.get("other"), 5, "files.other (the textures the models name)")
        c.eq(f.get("unknown"), 0, "files.unknown")
        c.eq(s["clips"], 15, "clips (12 Alamo + 3 MechWarrior 3 definitions)")
        c.eq(s["clips_unbound"], 1, "clips_unbound (a model not in the tree)")
        c.eq(s["clips_not_loaded"], 1, "clips_not_loaded (a name outside MODEL_TYPE_NN)")
        c.eq(s["skeletons"], 5, "skeletons")
        c.eq(s["models"], 5, "models")
        c.eq(s["particles"], 4, "particles")
        c.eq(s["scan"]["files_seen"], 26, "scan.files_seen (archives count once)")
        c.eq(s["scan"]["files_decoded"], 25, "scan.files_decoded (archive members and XML included)")
        c.eq(s["scan"]["files_unchanged"], 0, "scan.files_unchanged")
        c.eq(s["scan"]["files_removed"], 0, "scan.files_removed")
        c.eq(s["scan"]["files_failed"], 0, "scan.files_failed")
        iss = issues(DB)
        for sev in ("error", "warning", "info"):
            c.eq(s["findings"][sev], sum(1 for i in iss if i["severity"] == sev),
                 "findings.%s vs issues --json" % sev)
        c.eq(sum(len(clips(DB, n)) for n in NAMES), s["clips"] - 1,
             "clips listed by clips --skeleton over every target name (all but the clip no model "
             "loads)")
        sk = skeletons(DB)
        c.eq(sorted(r["skeleton"] for r in sk),
             sorted(["EV_DEMO_TIE", "UM_DEMO_WALKER", "VSF_DEMO_XWING", "UV_GEN_WALKER", "UM_GEN_AT"]),
             "skeleton names")
        want_bones = {"EV_DEMO_TIE": 5, "UM_DEMO_WALKER": 7, "VSF_DEMO_XWING": 6, "UV_GEN_WALKER": 4,
                      "UM_GEN_AT": 3}
        want_clips = {"EV_DEMO_TIE": 1, "UM_DEMO_WALKER": 1, "VSF_DEMO_XWING": 3, "UV_GEN_WALKER": 4,
                      "UM_GEN_AT": 1}
        for r in sk:
            c.eq(r["bones"], want_bones.get(r["skeleton"]), "bones of " + r["skeleton"])
            c.eq(r["clips"], want_clips.get(r["skeleton"]), "clips of " + r["skeleton"])
            c.eq(r["format"], "alamo-alo", "format of " + r["skeleton"])
            c.eq(r.get("root"), os.path.realpath(ROOT), "root of " + r["skeleton"])


def test_matched():
    with case(tap, "clips --skeleton: matched model binds with bones_missing 0") as c:
        rows = clips(DB, "VSF_DEMO_XWING")
        c.eq(sorted(r["path"] for r in rows),
             [MODELS + "/VSF_DEMO_XWING_ATTACK_00.ALA", MODELS + "/VSF_DEMO_XWING_DEPLOY_00.ALA",
              MODELS + "/VSF_DEMO_XWING_IDLE_00.ALA"], "paths")
        keys = {"path", "clip", "skeleton", "frames", "fps", "format", "bones_missing", "tracks", "bound"}
        for r in rows:
            c.that(keys <= set(r), "missing keys in %s" % short(r))
            c.eq(r["skeleton"], "VSF_DEMO_XWING", "skeleton")
            c.eq(r["format"], "alamo-ala", "format")
            c.that(r["bound"] is True, "bound of %s" % r["clip"])
            c.eq(r["bones_missing"], 0, "bones_missing of " + r["clip"])
        idle = [r for r in rows if r["clip"] == "VSF_DEMO_XWING_IDLE_00"]
        if c.eq(len(idle), 1, "idle rows"):
            c.eq((idle[0]["frames"], idle[0]["fps"], idle[0]["tracks"]), (60, 30, 6), "idle frames/fps/tracks")
        r = one_clip(DB, "UV_GEN_WALKER", UNITS + "/UV_GEN_WALKER_WALK_00.ALA")
        c.eq((r["frames"], r["fps"], r["tracks"], r["bones_missing"], r["bound"]), (24, 15, 4, 0, True),
             "format-1 clip frames/fps/tracks/bones_missing/bound")
        r = one_clip(DB, "UV_GEN_WALKER", UNITS + "/UV_GEN_WALKER_ATTACKIDLE_00.ALA")
        c.eq((r["bones_missing"], r["bound"]), (0, True), "MODEL_ATTACKIDLE_NN clip")
        nl = [i for i in issues(DB) if i["path"] == UNITS + "/UV_GEN_WALKER_Special_Turn.ALA"]
        c.eq([(i["code"], i["severity"]) for i in nl], [("CLIP_NOT_LOADED_BY_NAME", "info")],
             "clip outside the naming convention: not loaded by name, no bone finding")
        c.that(nl and "fit skeleton 'UV_GEN_WALKER'" in nl[0]["message"],
               "the hint names the skeleton its bones fit: %s" % short(nl))
        bad = [i for i in issues(DB) if i["path"].startswith(UNITS + "/UV_GEN_WALKER_WALK")
               or i["path"].startswith(MODELS + "/VSF_DEMO_XWING_DEPLOY") or i["path"].endswith("IDLE_00.ALA")]
        c.eq(bad, [], "findings of matched clips")


def test_case_insensitive():
    with case(tap, "skeleton names are case-insensitive (query, file names, bone names)") as c:
        a = clips(DB, "VSF_DEMO_XWING")
        for variant in ("vsf_demo_xwing", "Vsf_Demo_XWing"):
            c.eq(clips(DB, variant), a, "clips --skeleton " + variant)
        r = one_clip(DB, "uv_gen_walker", UNITS + "/uv_gen_walker_idle_00.ala")
        c.eq((r["clip"], r["bound"], r["bones_missing"], r["tracks"]),
             ("uv_gen_walker_idle_00", True, 0, 3), "lower-case clip with mixed-case bone names")
        c.eq(r["skeleton"], "UV_GEN_WALKER", "skeleton reported as the model names it")


def test_mismatched():
    with case(tap, "mismatched clip: BONE_INDEX_MISMATCH / BONE_NOT_IN_SKELETON with context and messages") as c:
        r = one_clip(DB, "EV_DEMO_TIE", MODELS + "/EV_DEMO_TIE_DIE_00.ALA")
        c.eq((r["bound"], r["bones_missing"], r["tracks"]), (True, 2, 3), "tie clip bound/bones_missing/tracks")
        iss = [i for i in issues(DB) if i["path"] == MODELS + "/EV_DEMO_TIE_DIE_00.ALA"]
        got = sorted((i["code"], i["context"], i["severity"]) for i in iss)
        c.eq(got, [("BONE_INDEX_MISMATCH", "bone 2", "error"), ("BONE_NOT_IN_SKELETON", "bone 4", "error")],
             "tie findings")
        for i in iss:
            if i["code"] == "BONE_INDEX_MISMATCH":
                for part in ("'Wing_R'", "bone 3", "'Wing_L'", "EV_DEMO_TIE"):
                    c.that(part in i["message"], "message %r lacks %s" % (i["message"], part))
            else:
                for part in ("'P_smoke_01'", "'P_smoke_00'", "EV_DEMO_TIE"):
                    c.that(part in i["message"], "message %r lacks %s" % (i["message"], part))

        path = UNITS + "/UV_GEN_WALKER_DIE_00.ALA"
        r = one_clip(DB, "UV_GEN_WALKER", path)
        c.eq((r["bound"], r["bones_missing"], r["tracks"]), (True, 4, 5), "own clip bound/bones_missing/tracks")
        iss = {i["context"]: i for i in issues(DB) if i["path"] == path}
        want = {
            "bone 1": ("BONE_INDEX_MISMATCH", ["'Gun'", "bone 3", "'Body'"]),
            "bone 2": ("BONE_NOT_IN_SKELETON", ["'Neck'", "'Head'"]),
            "bone 9": ("BONE_NOT_IN_SKELETON", ["'Tail'", "4 bones"]),
            "bone 7": ("BONE_INDEX_MISMATCH", ["'Body'", "bone 1", "4 bones"]),
        }
        c.eq(sorted(iss), sorted(want), "contexts of the findings")
        for ctx, (code, parts) in want.items():
            i = iss.get(ctx)
            if not i:
                continue
            c.eq(i["code"], code, ctx + " code")
            c.eq(i["severity"], "error", ctx + " severity")
            for part in parts + ["UV_GEN_WALKER"]:
                c.that(part in i["message"], "%s: message %r lacks %s" % (ctx, i["message"], part))

    with case(tap, "BONE_* findings carry the byte offset of the clip's track record") as c:
        for i in issues(DB):
            if not i["code"].startswith("BONE_"):
                continue
            size = os.path.getsize(os.path.join(ROOT, i["path"]))
            c.that(i["offset"] is None or 0 < i["offset"] < size,
                   "%s %s (%s): offset %r is not a track record's offset (file of %d bytes; "
                   "0 is the animation root chunk)" % (i["path"], i["code"], i["context"], i["offset"], size))


def test_not_found():
    with case(tap, "clip without a model: SKELETON_NOT_FOUND, bound false") as c:
        path = MODELS + "/VSF_DEMO_LOST_MOVE_00.ALA"
        r = one_clip(DB, "VSF_DEMO_LOST", path)
        c.eq((r["bound"], r["bones_missing"], r["skeleton"]), (False, 0, "VSF_DEMO_LOST"),
             "bound/bones_missing/skeleton")
        iss = [i for i in issues(DB) if i["path"] == path]
        c.eq([(i["code"], i["severity"]) for i in iss], [("SKELETON_NOT_FOUND", "warning")], "findings")
        if iss:
            c.that("VSF_DEMO_LOST" in iss[0]["message"], "message names the skeleton: %r" % iss[0]["message"])


def test_archive_clip():
    with case(tap, "clips inside MEG archives (v1 demo, v2 own) bind to the archived model") as c:
        r = one_clip(DB, "UM_DEMO_WALKER", "Data/Models.meg#DATA/ART/MODELS/UM_DEMO_WALKER_MOVE_00.ALA")
        c.eq((r["clip"], r["bound"], r["bones_missing"], r["tracks"], r["frames"]),
             ("UM_DEMO_WALKER_MOVE_00", True, 0, 7, 40), "demo walker clip")
        r = one_clip(DB, "um_gen_at", "Data/Extra.meg#DATA/ART/MODELS/UM_GEN_AT_MOVE_00.ALA")
        c.eq((r["bound"], r["bones_missing"], r["tracks"], r["frames"]), (True, 0, 3, 16), "v2 archive clip")
        sk = {r["skeleton"]: r for r in skeletons(DB)}
        c.eq(sk.get("UM_DEMO_WALKER", {}).get("path"), "Data/Models.meg#DATA/ART/MODELS/UM_DEMO_WALKER.ALO",
             "archived skeleton path")


def test_particle():
    with case(tap, "PARTICLE_NAME_MISMATCH warning (and none for a matching name)") as c:
        iss = [i for i in issues(DB) if i["code"] == "PARTICLE_NAME_MISMATCH"]
        c.eq([(i["path"], i["severity"]) for i in iss], [(MODELS + "/P_DEMO_FIRE.ALO", "warning")], "findings")
        if iss:
            c.that("p_demo_fire_old" in iss[0]["message"] and "P_DEMO_FIRE" in iss[0]["message"],
                   "message names both: %r" % iss[0]["message"])


def test_truncated():
    with case(tap, "truncated clip: error findings, status not ok, scan goes on") as c:
        path = MODELS + "/VSF_DEMO_XWING_ATTACK_00.ALA"
        iss = [i for i in issues(DB) if i["path"] == path]
        errs = [i for i in iss if i["severity"] == "error"]
        c.that(errs, "no error findings for the truncated file: %s" % short(iss))
        c.that(any(i["code"] in ("TRUNCATED", "CHUNK_OVERRUN", "SIZE_MISMATCH") for i in errs),
               "no TRUNCATED/CHUNK_OVERRUN/SIZE_MISMATCH: %s" % short(codes_of(iss)))
        sh = show(DB, path)
        c.eq(len(sh), 1, "show rows")
        if sh:
            c.that(sh[0]["status"] in ("partial", "error"), "status %r" % sh[0]["status"])
        # the index holds what dump reports for the file
        d = json.loads(must(ax.run("dump", "--json", os.path.join(ROOT, path)), "dump", rc=1).stdout)
        c.eq(sorted((i["code"], i["message"]) for i in errs),
             sorted((i["code"], i["message"]) for i in d["issues"] if i["severity"] == "error"),
             "decode findings in the index vs dump")


def test_second_scan():
    with case(tap, "second scan of an unchanged tree decodes nothing") as c:
        before = state(DB, NAMES)
        s = scan(ROOT, DB)
        c.eq(s["scan"]["files_decoded"], 0, "files_decoded")
        c.eq(s["scan"]["files_unchanged"], 26, "files_unchanged")
        c.eq(s["scan"]["files_seen"], 26, "files_seen")
        c.eq(s["scan"]["files_rehashed"], 0, "files_rehashed")
        c.eq(s["scan"]["files_removed"], 0, "files_removed")
        compare_states(c, before, state(DB, NAMES), "index before/after the no-op scan")


def step(name, mutate, check, decoded=None, removed=None, rehashed=None):
    """Changes the tree, rescans, runs `check`, and compares the index with a fresh scan."""
    with case(tap, "incremental: " + name) as c:
        before = state(DB, NAMES)
        mutate()
        s = scan(ROOT, DB)
        if decoded is not None:
            c.eq(s["scan"]["files_decoded"], decoded, "files_decoded")
        if removed is not None:
            c.eq(s["scan"]["files_removed"], removed, "files_removed")
        if rehashed is not None:
            c.eq(s["scan"]["files_rehashed"], rehashed, "files_rehashed")
        after = state(DB, NAMES)
        check(c, before, after, s)
        fs, fresh, fdb = fresh_state(re.sub(r"\W+", "_", name)[:40])
        compare_states(c, after, fresh, "incremental index vs a fresh scan")
        for k in ("clips", "clips_unbound", "skeletons", "models", "particles", "files", "findings"):
            c.eq(s[k], fs[k], "summary %s vs a fresh scan" % k)
        dc, fc = db_counts(DB), db_counts(fdb)
        c.eq(dc, fc, "table row counts vs a fresh scan")


def test_incremental():
    tie = os.path.join(ROOT, MODELS, "EV_DEMO_TIE_DIE_00.ALA")

    def modify():
        clip(tie, ["Root", "Cockpit", "Gear"], [0, 1, 2], frames=45, seed=11)
        bump_mtime(tie)

    def check_modify(c, before, after, s):
        iss = [i for i in after["issues"] if i["path"] == MODELS + "/EV_DEMO_TIE_DIE_00.ALA"]
        c.eq([(i["code"], i["context"]) for i in iss], [("BONE_NOT_IN_SKELETON", "bone 2")], "new findings")
        if iss:
            c.that("'Gear'" in iss[0]["message"] and "'Wing_L'" in iss[0]["message"],
                   "message %r" % iss[0]["message"])
        r = [x for x in after["clips"] if x["path"] == MODELS + "/EV_DEMO_TIE_DIE_00.ALA"]
        c.eq([(x["bones_missing"], x["tracks"]) for x in r], [(1, 3)], "bones_missing/tracks")
        others_b = [i for i in before["issues"] if not i["path"].endswith("EV_DEMO_TIE_DIE_00.ALA")]
        others_a = [i for i in after["issues"] if not i["path"].endswith("EV_DEMO_TIE_DIE_00.ALA")]
        c.eq(others_a, others_b, "findings of the other files")

    step("modify a clip (different bones): its findings change", modify, check_modify, decoded=1, removed=0)

    xwing = os.path.join(ROOT, MODELS, "VSF_DEMO_XWING.ALO")
    xwing_copy = os.path.join(TMP, "xwing.alo")

    def delete_model():
        shutil.copy2(xwing, xwing_copy)
        os.unlink(xwing)

    def check_delete(c, before, after, s):
        c.that(all(r["skeleton"] != "VSF_DEMO_XWING" for r in after["skeletons"]), "skeleton still listed")
        rows = [r for r in after["clips"] if r["skeleton"] == "VSF_DEMO_XWING"]
        c.eq(len(rows), 3, "clips still targeting VSF_DEMO_XWING")
        c.that(all(r["bound"] is False for r in rows), "clips still bound: %s" % short(rows))
        nf = sorted(i["path"] for i in after["issues"] if i["code"] == "SKELETON_NOT_FOUND")
        c.eq(nf, [MODELS + "/VSF_DEMO_LOST_MOVE_00.ALA", MODELS + "/VSF_DEMO_XWING_ATTACK_00.ALA",
                  MODELS + "/VSF_DEMO_XWING_DEPLOY_00.ALA", MODELS + "/VSF_DEMO_XWING_IDLE_00.ALA"],
             "SKELETON_NOT_FOUND paths")
        c.that(all(i["path"] != MODELS + "/VSF_DEMO_XWING.ALO" for i in after["issues"]), "findings of the model")
        c.eq(s["clips_unbound"], 4, "clips_unbound")
        p = ax.run("show", "VSF_DEMO_XWING.ALO", "--db", DB)
        c.that(p.returncode != 0, "show of the deleted model exits 0")

    step("delete a model: its clips become SKELETON_NOT_FOUND", delete_model, check_delete,
         decoded=0, removed=1)

    def readd_model():
        shutil.copy2(xwing_copy, xwing)

    def check_readd(c, before, after, s):
        rows = [r for r in after["clips"] if r["skeleton"] == "VSF_DEMO_XWING"]
        c.eq(sorted((r["clip"], r["bound"], r["bones_missing"]) for r in rows),
             [("VSF_DEMO_XWING_ATTACK_00", True, 0), ("VSF_DEMO_XWING_DEPLOY_00", True, 0),
              ("VSF_DEMO_XWING_IDLE_00", True, 0)], "clips bound again")
        nf = [i["path"] for i in after["issues"] if i["code"] == "SKELETON_NOT_FOUND"]
        c.eq(nf, [MODELS + "/VSF_DEMO_LOST_MOVE_00.ALA"], "SKELETON_NOT_FOUND paths")
        sk = [r for r in after["skeletons"] if r["skeleton"] == "VSF_DEMO_XWING"]
        c.eq([(r["clips"], r["bones"]) for r in sk], [(3, 6)], "skeleton clips/bones")

    step("re-add the model: its clips bind again", readd_model, check_readd, decoded=1, removed=0)

    def add_model():
        model(os.path.join(ROOT, MODELS, "VSF_DEMO_LOST.ALO"), ["Root", "Turret"])

    def check_add(c, before, after, s):
        rows = [r for r in after["clips"] if r["clip"] == "VSF_DEMO_LOST_MOVE_00"]
        c.eq([(r["bound"], r["bones_missing"], r["skeleton"]) for r in rows], [(True, 0, "VSF_DEMO_LOST")],
             "the clip binds")
        c.eq([i for i in after["issues"] if i["code"] == "SKELETON_NOT_FOUND"], [], "SKELETON_NOT_FOUND left")
        c.eq(s["clips_unbound"], 0, "clips_unbound")

    step("add a model: a clip that had none binds", add_model, check_add, decoded=1, removed=0)

    smoke = os.path.join(ROOT, MODELS, "P_DEMO_SMOKE.ALO")
    touched = {}

    def touch():
        bump_mtime(smoke, 60)
        touched["mtime"] = os.stat(smoke).st_mtime_ns

    def check_touch(c, before, after, s):
        c.eq(after, before, "index after touching a file")
        sh = show(DB, "P_DEMO_SMOKE.ALO")
        # Windows file times count 100 ns (wine reads them so from the same file)
        want = touched["mtime"] // 100 * 100 if WINDOWS else touched["mtime"]
        c.eq([r["mtime_ns"] for r in sh], [want], "mtime_ns recorded for the touched file")
        s2 = scan(ROOT, DB)
        c.eq((s2["scan"]["files_decoded"], s2["scan"]["files_rehashed"], s2["scan"]["files_unchanged"]),
             (0, 0, s2["scan"]["files_seen"]), "the scan after that: decoded/rehashed/unchanged")

    step("touch a file (same content): no re-decode", touch, check_touch, decoded=0, removed=0, rehashed=1)

    def rename_clip():
        d = os.path.join(ROOT, MODELS, "Old")
        os.makedirs(d, exist_ok=True)
        os.rename(tie, os.path.join(d, "EV_DEMO_TIE_DIE_00.ALA"))

    def check_rename_clip(c, before, after, s):
        old, new = MODELS + "/EV_DEMO_TIE_DIE_00.ALA", MODELS + "/Old/EV_DEMO_TIE_DIE_00.ALA"
        c.that(all(r["path"] != old for r in after["issues"] + after["clips"]), "rows of the old path left")
        # the engine loads a model's clips from the model's directory: moved away, it is not
        # loaded for EV_DEMO_TIE any more, and its bone findings go
        moved = [(r["code"], r["context"]) for r in after["issues"] if r["path"] == new]
        c.eq(moved, [("SKELETON_NOT_FOUND", "skeleton")], "findings at the new path")
        c.that("DATA/ART/MODELS/OLD" in str([r["message"] for r in after["issues"] if r["path"] == new]),
               "the finding says where the model was looked for")
        rows = [r for r in after["clips"] if r["path"] == new]
        c.eq([(r["bound"], r["bones_missing"]) for r in rows], [(False, 0)], "clip at the new path")

    step("rename (move) a clip", rename_clip, check_rename_clip, decoded=1, removed=1)

    def rename_model():
        os.rename(os.path.join(ROOT, MODELS, "EV_DEMO_TIE.ALO"), os.path.join(ROOT, MODELS, "EV_DEMO_TIE2.ALO"))

    def check_rename_model(c, before, after, s):
        names = sorted(r["skeleton"] for r in after["skeletons"])
        c.that("EV_DEMO_TIE2" in names and "EV_DEMO_TIE" not in names, "skeletons: %s" % names)
        rows = [r for r in after["clips"] if r["clip"] == "EV_DEMO_TIE_DIE_00"]
        c.eq([(r["bound"], r["skeleton"]) for r in rows], [(False, "EV_DEMO_TIE")],
             "clip of the renamed model (no model named EV_DEMO_TIE or a prefix of it)")
        iss = [i for i in after["issues"] if i["path"].endswith("EV_DEMO_TIE_DIE_00.ALA")]
        c.eq(codes_of(iss), ["SKELETON_NOT_FOUND"], "its findings (the bone findings go)")

    step("rename a model: its clip loses the skeleton", rename_model, check_rename_model, decoded=1, removed=1)

    meg = os.path.join(ROOT, "Data", "Models.meg")
    meg_copy = os.path.join(TMP, "Models.meg")

    def delete_archive():
        shutil.copy2(meg, meg_copy)
        os.unlink(meg)

    def check_delete_archive(c, before, after, s):
        for k in ("skeletons", "clips", "issues"):
            c.eq([r["path"] for r in after[k] if r["path"].startswith("Data/Models.meg")], [],
                 k + " rows of the archive")
        c.eq(s["files"]["meg"], 1, "files.meg")
        p = ax.run("show", "Data/Models.meg#DATA/ART/MODELS/UM_DEMO_WALKER.ALO", "--db", DB)
        c.that(p.returncode != 0, "show of a member of the deleted archive exits 0")

    step("delete an archive: its members go", delete_archive, check_delete_archive, decoded=0, removed=1)

    def change_archive():
        # back, with the walker model's bones renamed: the archived clip no longer matches
        m = os.path.join(TMP, "walker2.alo")
        a = os.path.join(TMP, "walker_move.ala")
        model(m, ["Root", "Body", "Leg_A", "Leg_B", "Leg_C", "Leg_D", "Head"])
        must(ax.run("dump", "--json", meg_copy), "dump archive")
        clip(a, ["Root", "Body", "Leg_FL"], frames=40)
        amxgen("meg", meg, "DATA\\ART\\MODELS\\UM_DEMO_WALKER.ALO=" + m,
               "DATA\\ART\\MODELS\\UM_DEMO_WALKER_MOVE_00.ALA=" + a)

    def check_change_archive(c, before, after, s):
        path = "Data/Models.meg#DATA/ART/MODELS/UM_DEMO_WALKER_MOVE_00.ALA"
        rows = [r for r in after["clips"] if r["path"] == path]
        c.eq([(r["bound"], r["bones_missing"], r["tracks"]) for r in rows], [(True, 1, 3)], "archived clip")
        iss = [(i["code"], i["context"]) for i in after["issues"] if i["path"] == path]
        c.eq(iss, [("BONE_NOT_IN_SKELETON", "bone 2")], "its findings")

    step("add back a changed archive", change_archive, check_change_archive, decoded=3, removed=0)


def test_duplicate_names():
    with case(tap, "same-named skeletons: the binding does not depend on scan history") as c:
        root = os.path.join(TMP, "dups")
        model(os.path.join(root, "Data/B/X_GEN.ALO"), ["Root", "Body"])
        clip(os.path.join(root, "Data/Art/Models/X_GEN_IDLE_00.ALA"), ["Root", "Arm"])
        db1 = os.path.join(TMP, "db", "dups1.db")
        scan(root, db1)
        model(os.path.join(root, "Data/A/X_GEN.ALO"), ["Root", "Arm"])
        scan(root, db1)
        a = state(db1, ["X_GEN"])
        # fresh scans: one thread (files written in walk order), then the default thread count
        fresh = []
        for k, jobs in enumerate(("1", "0", "0", "0")):
            db2 = os.path.join(TMP, "db", "dups2-%d.db" % k)
            scan(root, db2, "--jobs", jobs)
            fresh.append(state(db2, ["X_GEN"]))
        compare_states(c, a, fresh[0], "incremental (Data/B first, Data/A added) vs fresh --jobs 1")
        for k in (1, 2, 3):
            compare_states(c, fresh[0], fresh[k], "fresh --jobs 1 vs fresh --jobs 0 (run %d)" % k)


# ---------------------------------------------------------------- queries and commands

def test_issue_filters():
    with case(tap, "issues --severity / --code / PATH filters") as c:
        every = issues(DB)
        c.that(len({i["severity"] for i in every}) >= 2, "want findings of two severities: %s" % short(every))
        order = {"info": 0, "warning": 1, "error": 2}
        for sev in ("info", "warning", "error"):
            got = issues(DB, "--severity", sev)
            c.eq(canon(got), canon([i for i in every if order[i["severity"]] >= order[sev]]),
                 "--severity " + sev)
        for code in ("BONE_NOT_IN_SKELETON", "SKELETON_NOT_FOUND", "PARTICLE_NAME_MISMATCH", "APC_BAD_TYPE"):
            got = issues(DB, "--code", code)
            c.eq(canon(got), canon([i for i in every if i["code"] == code]), "--code " + code)
        c.eq(canon(issues(DB, "--code", "bone_not_in_skeleton")), canon(issues(DB, "--code", "BONE_NOT_IN_SKELETON")),
             "--code is case-insensitive")
        got = issues(DB, "--severity", "error", "--code", "SKELETON_NOT_FOUND")
        c.eq(got, [], "--severity error --code SKELETON_NOT_FOUND (a warning)")
        got = issues(DB, UNITS)
        c.eq(canon(got), canon([i for i in every if i["path"].startswith(UNITS + "/")]), "PATH " + UNITS)
        keys = {"path", "code", "severity", "message", "offset", "context"}
        for i in every:
            if not keys <= set(i):
                c.that(False, "issue lacks keys: %s" % short(i))
                break
        for args in (["--severity", "fatal"], ["--code", "NO_SUCH_CODE"]):
            p = ax.run("issues", "--db", DB, *args)
            c.eq(p.returncode, 2, "issues " + " ".join(args))
        p = ax.run("issues", "--db", DB)
        c.eq(p.returncode, 0, "issues text exit")
        c.that(re.search(r"\d+ findings", p.stdout), "text output ends with a count: %r" % p.stdout[-200:])


def test_show():
    with case(tap, "show: clip, model and archive, text and JSON") as c:
        clip_path = UNITS + "/UV_GEN_WALKER_DIE_00.ALA"
        for arg in (clip_path, "UV_GEN_WALKER_DIE_00.ALA"):
            sh = show(DB, arg)
            if not c.eq(len(sh), 1, "show %s: rows" % arg):
                continue
            f = sh[0]
            c.eq((f["path"], f["format"], f["version"], f["status"], f["container"]),
                 (clip_path, "alamo-ala", "2", "ok", None), "file fields")
            c.eq(f["size"], os.path.getsize(os.path.join(ROOT, clip_path)), "size")
            c.that(re.fullmatch(r"[0-9a-f]{16}", f.get("xxh3", "")), "xxh3 %r" % f.get("xxh3"))
            cl = f.get("clips", [])
            if c.eq(len(cl), 1, "clips"):
                c.eq((cl[0]["clip"], cl[0]["skeleton"], cl[0]["bound"], cl[0]["frames"], cl[0]["bones_missing"]),
                     ("UV_GEN_WALKER_DIE_00", "UV_GEN_WALKER", True, 40, 4), "clip fields")
                c.eq([(t["bone"], t["bone_index"]) for t in cl[0]["tracks"]],
                     [("Root", 0), ("Gun", 1), ("Neck", 2), ("Tail", 9), ("Body", 7)], "tracks")
            c.eq(sorted(i["code"] for i in f.get("issues", [])),
                 ["BONE_INDEX_MISMATCH", "BONE_INDEX_MISMATCH", "BONE_NOT_IN_SKELETON", "BONE_NOT_IN_SKELETON"],
                 "issues")
        p = must(ax.run("show", clip_path, "--db", DB), "show text")
        for part in ("UV_GEN_WALKER_DIE_00 -> skeleton UV_GEN_WALKER", "40 frames", "4 bones do not match",
                     "BONE_INDEX_MISMATCH", "Neck"):
            c.that(part in p.stdout, "show text lacks %r:\n%s" % (part, p.stdout))

        sh = show(DB, UNITS + "/UV_GEN_WALKER.ALO")
        if c.eq(len(sh), 1, "model rows"):
            f = sh[0]
            c.eq(f["format"], "alamo-alo", "model format")
            sk = f.get("skeletons", [])
            c.eq([(s["name"], [b["name"] for b in s["bones"]]) for s in sk], [("UV_GEN_WALKER", WALKER)], "bones")
            if sk:
                c.eq(sk[0]["bones"][0]["parent"], -1, "root bone parent")
            meshes = [m for m in f.get("meshes", []) if "kind" not in m]
            c.eq(len(meshes), 2, "meshes")
        p = must(ax.run("show", "UV_GEN_WALKER.ALO", "--db", DB), "show model text")
        for part in ("skeleton UV_GEN_WALKER: 4 bones", "model: 2 meshes", "Gun"):
            c.that(part in p.stdout, "show model text lacks %r:\n%s" % (part, p.stdout))

        sh = show(DB, "Data/Extra.meg")
        if c.eq(len(sh), 1, "archive rows"):
            f = sh[0]
            c.eq((f["format"], f["version"]), ("meg", "2"), "archive format/version")
            c.eq(sorted((m["path"], m["format"], m["status"]) for m in f.get("members", [])),
                 [("Data/Extra.meg#DATA/ART/MODELS/UM_GEN_AT.ALO", "alamo-alo", "ok"),
                  ("Data/Extra.meg#DATA/ART/MODELS/UM_GEN_AT_MOVE_00.ALA", "alamo-ala", "ok")], "members")
        p = must(ax.run("show", "Extra.meg", "--db", DB), "show archive text")
        c.that("UM_GEN_AT_MOVE_00.ALA" in p.stdout and "archive members" in p.stdout,
               "show archive text:\n%s" % p.stdout)
        sh = show(DB, "UM_GEN_AT_MOVE_00.ALA")
        if c.eq(len(sh), 1, "member rows"):
            c.eq(sh[0]["container"], "Data/Extra.meg", "member container")
        p = ax.run("show", "NO_SUCH_FILE.ALA", "--db", DB)
        c.that(p.returncode != 0 and "NO_SUCH_FILE.ALA" in p.stderr, "show of an unknown path: exit %d, %r" % (
            p.returncode, p.stderr))
        c.eq(ax.run("show", "--db", DB).returncode, 2, "show without a path")


DUMP_KEYS = {"schema", "path", "format", "version", "status", "skeletons", "clips", "issues"}
FORMATS = {"alamo-alo", "alamo-particle", "alamo-ala", "meg", "mw3-anim", "mp-anim", "mp-cinf", "mp-ancs",
           "mp-pak", "w3d", "big", "unknown"}


def check_dump_object(c, o, where):
    c.that(DUMP_KEYS <= set(o), "%s: keys %s lack %s" % (where, sorted(o), sorted(DUMP_KEYS - set(o))))
    c.eq(o.get("schema"), 1, where + " schema")
    c.that(o.get("format") in FORMATS, "%s: format %r" % (where, o.get("format")))
    c.that(isinstance(o.get("version"), str), "%s: version %r is not a string" % (where, o.get("version")))
    c.that(o.get("status") in ("ok", "partial", "error"), "%s: status %r" % (where, o.get("status")))
    for s in o.get("skeletons", []):
        c.that({"name", "bones"} <= set(s), "%s: skeleton keys %s" % (where, sorted(s)))
        for k, b in enumerate(s.get("bones", [])):
            c.that({"name", "parent"} <= set(b), "%s: bone keys %s" % (where, sorted(b)))
            c.that(b.get("parent") == -1 or 0 <= b.get("parent", -2) < len(s["bones"]),
                   "%s: bone %d parent %r" % (where, k, b.get("parent")))
    for cl in o.get("clips", []):
        c.that({"name", "skeleton", "frames", "fps", "duration", "tracks"} <= set(cl),
               "%s: clip keys %s" % (where, sorted(cl)))
        if cl.get("frames") and cl.get("fps"):
            c.that(abs(cl["duration"] - cl["frames"] / cl["fps"]) < 1e-3,
                   "%s: duration %r for %r frames @ %r" % (where, cl["duration"], cl["frames"], cl["fps"]))
        for t in cl.get("tracks", []):
            c.that({"bone", "bone_index", "channels"} <= set(t), "%s: track keys %s" % (where, sorted(t)))
            c.that(isinstance(t.get("channels"), list), "%s: channels %r" % (where, t.get("channels")))
    for i in o.get("issues", []):
        c.that({"code", "severity", "message", "offset", "context"} <= set(i), "%s: issue keys %s" % (where, sorted(i)))


def test_dump():
    with case(tap, "dump --json: contract keys and exit codes") as c:
        files = [MODELS + "/VSF_DEMO_XWING.ALO", MODELS + "/VSF_DEMO_XWING_IDLE_00.ALA", "Data/Extra.meg",
                 MODELS + "/P_DEMO_FIRE.ALO", UNITS + "/UV_GEN_WALKER_WALK_00.ALA"]
        p = must(ax.run("dump", "--json", *[os.path.join(ROOT, f) for f in files]), "dump clean files")
        lines = p.stdout.splitlines()
        c.eq(len(lines), len(files), "one JSON line per file")
        objs = []
        for f, line in zip(files, lines):
            o = json.loads(line)
            objs.append(o)
            check_dump_object(c, o, f)
            c.eq(o.get("path"), os.path.join(ROOT, f), f + " path")
        if len(objs) == len(files):
            xw, idle, meg, fire, walk = objs
            c.eq((xw["format"], xw["status"]), ("alamo-alo", "ok"), "model format/status")
            c.eq([(s["name"], len(s["bones"])) for s in xw["skeletons"]], [("VSF_DEMO_XWING", 6)], "model skeleton")
            c.eq((idle["format"], idle["version"], idle["status"]), ("alamo-ala", "1", "ok"), "clip fields")
            c.eq([(x["name"], x["skeleton"], x["frames"]) for x in idle["clips"]],
                 [("VSF_DEMO_XWING_IDLE_00", "VSF_DEMO_XWING", 60)], "clip")
            c.eq((walk["version"], walk["clips"][0]["frames"] if walk["clips"] else None), ("1", 24), "format-1 clip")
            c.eq((meg["format"], meg["version"]), ("meg", "2"), "archive")
            c.eq(fire["format"], "alamo-particle", "particle format")
            c.eq([i["code"] for i in fire["issues"]], ["PARTICLE_NAME_MISMATCH"], "particle issues")
        # the index and dump agree on the tracks of every clip
        for f in (MODELS + "/VSF_DEMO_XWING_IDLE_00.ALA", UNITS + "/UV_GEN_WALKER_DIE_00.ALA"):
            d = json.loads(must(ax.run("dump", "--json", os.path.join(ROOT, f)), "dump " + f).stdout)
            sh = show(DB, f)
            if sh and sh[0].get("clips") and d["clips"]:
                c.eq([(t["bone"], t["bone_index"], t["channels"]) for t in sh[0]["clips"][0]["tracks"]],
                     [(t["bone"], t["bone_index"], ",".join(t["channels"])) for t in d["clips"][0]["tracks"]],
                     f + ": tracks in the index vs dump")

        trunc = os.path.join(ROOT, MODELS, "VSF_DEMO_XWING_ATTACK_00.ALA")
        p = ax.run("dump", "--json", trunc)
        c.eq(p.returncode, 1, "dump of the truncated file (error finding)")
        o = json.loads(p.stdout)
        check_dump_object(c, o, "truncated")
        c.that(o["status"] in ("partial", "error") and any(i["severity"] == "error" for i in o["issues"]),
               "truncated: status %r issues %s" % (o["status"], short(o["issues"])))
        missing = os.path.join(ROOT, MODELS, "NOPE.ALA")
        c.eq(ax.run("dump", "--json", missing).returncode, 3, "dump of a missing file")
        c.eq(ax.run("dump", "--json").returncode, 2, "dump without files")
        c.eq(ax.run("dump").returncode, 2, "dump without arguments")
        c.eq(ax.run("dump", "--json", os.path.join(ROOT, files[0]), missing).returncode, 3,
             "dump of a good and a missing file")
        c.eq(ax.run("dump", "--json", os.path.join(ROOT, files[0]), trunc).returncode, 1,
             "dump of a good and a broken file")
        p = ax.run("dump", os.path.join(ROOT, files[1]))
        c.that(p.returncode == 0 and "VSF_DEMO_XWING_IDLE_00" in p.stdout, "dump text: %d %r" % (p.returncode, p.stdout[:300]))

    with case(tap, "dump --samples --json: every sample array has `frames` entries") as c:
        for f in (MODELS + "/VSF_DEMO_XWING_IDLE_00.ALA", MODELS + "/VSF_DEMO_XWING_DEPLOY_00.ALA",
                  UNITS + "/UV_GEN_WALKER_WALK_00.ALA", UNITS + "/uv_gen_walker_idle_00.ala"):
            o = json.loads(must(ax.run("dump", "--samples", "--json", os.path.join(ROOT, f)), "dump " + f).stdout)
            check_dump_object(c, o, f)
            c.that(o["clips"], f + ": no clips")
            for cl in o["clips"]:
                n = cl["frames"]
                for t in cl["tracks"]:
                    smp = t.get("samples")
                    if not c.that(isinstance(smp, dict), "%s %s: no samples" % (f, t["bone"])):
                        continue
                    for ch, width in (("rotation", 4), ("translation", 3), ("scale", 3), ("visibility", None)):
                        arr = smp.get(ch)
                        if not c.that(isinstance(arr, list), "%s %s: no %s samples" % (f, t["bone"], ch)):
                            continue
                        c.eq(len(arr), n, "%s %s %s samples" % (f, t["bone"], ch))
                        for v in arr:
                            if width:
                                ok = isinstance(v, list) and len(v) == width and all(
                                    isinstance(x, (int, float)) and math.isfinite(x) for x in v)
                            else:
                                ok = v in (0, 1)
                            if not ok:
                                c.that(False, "%s %s %s: bad sample %r" % (f, t["bone"], ch, v))
                                break
                    for q in smp.get("rotation") or []:
                        if isinstance(q, list) and len(q) == 4 and abs(math.sqrt(sum(x * x for x in q)) - 1) > 1e-3:
                            c.that(False, "%s %s: rotation %r is not a unit quaternion" % (f, t["bone"], q))
                            break
            # without --samples there are none
            o = json.loads(must(ax.run("dump", "--json", os.path.join(ROOT, f)), "dump").stdout)
            c.that(all("samples" not in t for cl in o["clips"] for t in cl["tracks"]), f + ": samples without --samples")

    with case(tap, "dump ARCHIVE.meg#DATA/ART/MODELS/NAME.ALA") as c:
        meg = os.path.join(ROOT, "Data", "Extra.meg")
        for member in ("DATA/ART/MODELS/UM_GEN_AT_MOVE_00.ALA", "DATA\\ART\\MODELS\\UM_GEN_AT_MOVE_00.ALA"):
            p = ax.run("dump", "--json", meg + "#" + member)
            if not c.eq(p.returncode, 0, "exit for " + member):
                c.note(p.stderr)
                continue
            o = json.loads(p.stdout)
            check_dump_object(c, o, member)
            c.eq((o["format"], [(x["name"], x["skeleton"], x["frames"], len(x["tracks"])) for x in o["clips"]]),
                 ("alamo-ala", [("UM_GEN_AT_MOVE_00", "UM_GEN_AT", 16, 3)]), member)
        p = ax.run("dump", "--json", meg + "#DATA/ART/MODELS/UM_GEN_AT.ALO")
        c.eq(p.returncode, 0, "model member exit")
        if p.returncode == 0:
            o = json.loads(p.stdout)
            c.eq([(s["name"], len(s["bones"])) for s in o["skeletons"]], [("UM_GEN_AT", 3)], "model member skeleton")
        p = ax.run("dump", "--json", meg + "#DATA/ART/MODELS/NOT_THERE.ALA")
        c.that(p.returncode in (2, 3) and "NOT_THERE" in p.stderr, "missing member: exit %d %r" % (p.returncode, p.stderr))


def test_dump_member_name():
    with case(tap, "dump ARCHIVE#member names the clip as the archive does, whatever case is typed") as c:
        meg = os.path.join(ROOT, "Data", "Extra.meg")
        exact = ax.run("dump", "--json", meg + "#DATA/ART/MODELS/UM_GEN_AT_MOVE_00.ALA")
        lower = ax.run("dump", "--json", meg + "#data/art/models/um_gen_at_move_00.ala")
        c.eq((exact.returncode, lower.returncode), (0, 0), "exit statuses")
        if exact.returncode == 0 and lower.returncode == 0:
            a, b = json.loads(exact.stdout), json.loads(lower.stdout)
            c.eq([(x["name"], x["skeleton"]) for x in b["clips"]], [(x["name"], x["skeleton"]) for x in a["clips"]],
                 "clip name/skeleton (the index says %s)" % short(
                     [r["clip"] for r in clips(DB, "UM_GEN_AT") if "#" in r["path"]]))


def test_multi_root():
    with case(tap, "two roots in one index: paths per root, a scan of one root keeps the other") as c:
        r1, r2 = os.path.join(TMP, "mr1"), os.path.join(TMP, "mr2")
        model(os.path.join(r1, "X_ONE.ALO"), ["Root", "A"])
        clip(os.path.join(r1, "X_ONE_IDLE_00.ALA"), ["Root", "B"])
        clip(os.path.join(r2, "X_ONE_IDLE_00.ALA"), ["Root", "A"])
        db = os.path.join(TMP, "db", "multi.db")
        p = must(ax.run("scan", r1, r2, "--db", db, "--json", "--quiet"), "scan of two roots")
        s = json.loads(p.stdout)
        c.eq((s["scan"]["files_seen"], s["clips"], s["skeletons"]), (3, 2, 1), "files_seen/clips/skeletons")
        rows = sorted((r["root"], r["path"], r["bound"], r["bones_missing"]) for r in clips(db, "X_ONE"))
        # unrelated roots never bind to each other: the second root's clip has no model
        c.eq(rows, [(os.path.realpath(r1), "X_ONE_IDLE_00.ALA", True, 1),
                    (os.path.realpath(r2), "X_ONE_IDLE_00.ALA", False, 0)], "clips of both roots")
        s2 = scan(r2, db)
        c.eq((s2["scan"]["files_removed"], s2["clips"], s2["skeletons"]), (0, 2, 1), "after scanning only the second root")
        os.unlink(os.path.join(r1, "X_ONE.ALO"))
        scan(r1, db)
        rows = sorted((r["root"], r["bound"]) for r in clips(db, "X_ONE"))
        c.eq(rows, [(os.path.realpath(r1), False), (os.path.realpath(r2), False)],
             "the model of the first root deleted: clips of both roots unbound")
        nf = sorted(i["root"] for i in issues(db, "--code", "SKELETON_NOT_FOUND"))
        c.eq(nf, sorted([os.path.realpath(r1), os.path.realpath(r2)]), "SKELETON_NOT_FOUND in both roots")


def test_layers_cli():
    with case(tap, "layers from the command line: scan/lint --base, --include-base, show and "
                   "clips say where the skeleton came from") as c:
        game, mod = os.path.join(TMP, "layers", "Game"), os.path.join(TMP, "layers", "Mod")
        amxgen("assets", game)  # what the game's model names: its references resolve
        rig = ["Root", "Hull", "Turret"]
        model(os.path.join(game, "Data", "Art", "Models", "U_TANK.ALO"), rig)
        clip(os.path.join(game, "Data", "Art", "Models", "U_GONE_IDLE_00.ALA"), rig)  # the base's own
        clip(os.path.join(mod, "Data", "Art", "Models", "U_TANK_DIE_00.ALA"), ["Root", "Turret", "Hull"])
        db = os.path.join(TMP, "db", "layers.db")
        s = scan(mod, db)
        c.eq(s["clips_unbound"], 1, "without its game: the mod's clip has no model")
        nf = issues(db, "--code", "SKELETON_NOT_FOUND")
        c.that(nf and "base layer" not in nf[0]["message"], "the finding does not repeat how to "
               "declare the game: %s" % short(nf))
        c.eq(s.get("not_found_without_base_layers"), 1, "the summary counts what a base layer may hold")
        off = os.path.join(TMP, "layers", "off.ini")
        write(off, "[severity]\nSKELETON_NOT_FOUND = off\n")
        c.eq(scan(mod, db, "--config", off).get("not_found_without_base_layers"), 0,
             "a code turned off in the config is not counted (it disappears everywhere)")
        p = ax.run("scan", mod, "--db", db, "--config", off)
        c.that("--base DIR" not in p.stdout, "nor is the note printed: %s" % short(p.stdout))
        p = ax.run("scan", mod, "--db", db)
        c.eq(sum("--base DIR" in l for l in p.stdout.splitlines()), 1, "the summary says it once: %s"
             % short(p.stdout))
        s = scan(mod, db, "--base", game)
        c.eq(s["clips_unbound"], 0, "with --base: clips_unbound (the base's own finding left out)")
        got = sorted((i["path"], i["code"]) for i in issues(db))
        c.eq(got, [("Data/Art/Models/U_TANK_DIE_00.ALA", "BONE_INDEX_MISMATCH")] * 2,
             "issues: the mod's findings only")
        allf = sorted(i["code"] for i in issues(db, "--include-base"))
        c.eq(allf, ["BONE_INDEX_MISMATCH", "BONE_INDEX_MISMATCH", "SKELETON_NOT_FOUND"],
             "issues --include-base: the base's own finding too")
        bone = issues(db, "--code", "BONE_INDEX_MISMATCH")
        c.that(all("in base layer " + os.path.realpath(game) in i["message"] for i in bone),
               "bone messages name the skeleton's file and layer: %s" % short(bone))
        rows = clips(db, "U_TANK")
        c.eq([(r["path"], r["bound"], r["bound_by"], r["via"], r["skeleton_path"], r["skeleton_root"])
              for r in rows if r["root"] == os.path.realpath(mod)],
             [("Data/Art/Models/U_TANK_DIE_00.ALA", True, "name", "type DIE",
               "Data/Art/Models/U_TANK.ALO", os.path.realpath(game))], "clips --skeleton")
        sh = show(db, "U_TANK_DIE_00.ALA")
        b = sh[0]["clips"][0]["bound_by"] if sh and sh[0]["clips"] else []
        c.eq([(x["how"], x["base_layer"], x["bones_missing"]) for x in b], [("name", True, 2)],
             "show: the binding and its layer")
        p = ax.run("show", "U_TANK_DIE_00.ALA", "--db", db)
        c.that("base layer" in p.stdout and "naming convention" in p.stdout, "show text: %s" % p.stdout[-400:])
        # the layers are recorded: a scan without --base keeps them; --no-base drops them
        s = scan(mod, db)
        c.eq(s["clips_unbound"], 0, "a later scan without --base keeps the recorded layers")
        s = scan(mod, db, "--no-base")
        c.eq(s["clips_unbound"], 1, "--no-base: the layers go")
        p = ax.run("scan", mod, "--base", os.path.join(TMP, "layers", "Nowhere"), "--db", db)
        c.eq(p.returncode, 3, "a base layer that is not there: exit status")
        c.that("base layer" in p.stderr and "Nowhere" in p.stderr, "its message: %s" % p.stderr)
        # lint: the game's own problem does not fail the mod's CI
        ldb = os.path.join(TMP, "db", "layers-lint.db")
        p = ax.run("lint", mod, "--base", game, "--db", ldb, "--format", "json")
        js = json.loads(p.stdout) if p.stdout.strip().startswith("{") else {}
        codes = sorted(f["code"] for f in js.get("findings", []))
        c.eq((p.returncode, codes), (1, ["BONE_INDEX_MISMATCH", "BONE_INDEX_MISMATCH"]),
             "lint --base: exit status and findings")


def test_help_and_usage():
    with case(tap, "--help for every command; unknown command/option exit 2") as c:
        p = ax.run("--help")
        c.eq(p.returncode, 0, "animidx --help")
        cmds = re.findall(r"^  (\w+)\s{2,}\S", p.stdout.split("commands:", 1)[-1].split("\n\n")[0], re.M)
        c.that({"scan", "dump", "clips", "skeletons", "issues", "show", "rules"} <= set(cmds),
               "commands listed: %s" % cmds)
        for cmd in cmds:
            for args in ([cmd, "--help"], ["--help", cmd], [cmd, "-h"]):
                p = ax.run(*args)
                c.eq(p.returncode, 0, " ".join(args))
                c.that(p.stdout.startswith("usage: animidx " + cmd), "%s: %r" % (" ".join(args), p.stdout[:80]))
        c.eq(ax.run("--version").returncode, 0, "--version")
        c.eq(ax.run().returncode, 2, "no arguments")
        for args in (["frobnicate"], ["skeletons", "--frobnicate"], ["scan", ROOT, "--jobs", "many"],
                     ["clips", "--db"], ["skeletons", "--json=yes"], ["issues", "--severity"]):
            p = ax.run(*args)
            c.eq(p.returncode, 2, " ".join(args))
            c.that(p.stderr.strip(), "%s: no message on stderr" % " ".join(args))
        c.eq(ax.run("skeletons", "--db", os.path.join(TMP, "db", "never.db")).returncode, 3, "query of a missing db")
        c.eq(ax.run("scan", os.path.join(TMP, "no-such-dir"), "--db", os.path.join(TMP, "db", "x.db"),
                    "--quiet").returncode, 3, "scan of a missing directory")
        notdb = os.path.join(TMP, "db", "not-a-db.db")
        with open(notdb, "wb") as fh:
            fh.write(b"this is not sqlite" * 100)
        c.eq(ax.run("skeletons", "--db", notdb).returncode, 3, "query of a file that is not a database")


def contract_codes():
    codes = {}
    with open(CONTRACT, encoding="utf-8") as fh:
        for line in fh:
            m = re.match(r"^\|\s*`?([A-Z][A-Z0-9_]+)`?\s*\|\s*(info|warning|error)\s*\|", line)
            if m:
                codes[m.group(1)] = m.group(2)
    return codes


def test_rules():
    with case(tap, "rules lists every code of the contract's table, with its default severity") as c:
        want = contract_codes()
        c.that(len(want) >= 18, "parsed %d codes from %s" % (len(want), CONTRACT))
        rules = ax.json("rules", "--json")
        got = {r["code"]: r for r in rules}
        for code, sev in sorted(want.items()):
            if c.that(code in got, "rules lacks " + code):
                c.eq(got[code]["default_severity"], sev, code + " default severity")
                c.eq(got[code]["severity"], sev, code + " severity")
        p = must(ax.run("rules"), "rules text")
        for code in want:
            c.that(re.search(r"^%s\s" % code, p.stdout, re.M), "rules text lacks " + code)


# ---------------------------------------------------------------- config

def write(path, text):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as fh:
        fh.write(text)
    return path


def test_config():
    cdir = os.path.join(TMP, "cfg")
    with case(tap, "config [severity] overrides what issues reports") as c:
        cfg = write(os.path.join(cdir, "sev.ini"), "[severity]\nBONE_NOT_IN_SKELETON = warning\n")
        plain = issues(DB, "--code", "BONE_NOT_IN_SKELETON")
        c.that(plain and all(i["severity"] == "error" for i in plain), "default severities: %s" % short(plain))
        got = issues(DB, "--code", "BONE_NOT_IN_SKELETON", "--config", cfg)
        c.eq(canon(got), canon([dict(i, severity="warning") for i in plain]), "with the override")
        errs = issues(DB, "--severity", "error", "--config", cfg)
        c.that(all(i["code"] != "BONE_NOT_IN_SKELETON" for i in errs), "--severity error still lists them")
        r = {x["code"]: x for x in ax.json("rules", "--json", "--config", cfg)}
        c.eq((r["BONE_NOT_IN_SKELETON"]["severity"], r["BONE_NOT_IN_SKELETON"]["default_severity"]),
             ("warning", "error"), "rules with the config")
        off = write(os.path.join(cdir, "off.ini"), "[severity]\nPARTICLE_NAME_MISMATCH = off\n")
        c.eq([i for i in issues(DB, "--config", off) if i["code"] == "PARTICLE_NAME_MISMATCH"], [], "off hides it")
        # dump applies it too
        p = ax.run("dump", "--json", "--config", cfg, os.path.join(ROOT, MODELS, "P_DEMO_FIRE.ALO"))
        c.eq(p.returncode, 0, "dump with a config")
        # ./animidx.ini in the working directory is read only when given with --config (a mod
        # unpacked there must not change the rules)
        wd = os.path.join(TMP, "wd")
        write(os.path.join(wd, "animidx.ini"), "[severity]\nSKELETON_NOT_FOUND = error\n")
        p = ax.run("issues", "--db", DB, "--json", "--code", "SKELETON_NOT_FOUND", cwd=wd)
        got = json.loads(p.stdout) if p.returncode == 0 else None
        c.that(got and all(i["severity"] == "warning" for i in got), "./animidx.ini applied: %s" % short(got))
        here = ".\\animidx.ini" if WINDOWS else "./animidx.ini"  # as the system writes it
        c.that(here + " is not read unless given with --config" in p.stderr, "stderr %r" % p.stderr)
        p = ax.run("issues", "--db", DB, "--json", "--code", "SKELETON_NOT_FOUND", "--config",
                   "./animidx.ini", cwd=wd)
        got = json.loads(p.stdout) if p.returncode == 0 else None
        c.that(got and all(i["severity"] == "error" for i in got), "--config ./animidx.ini not applied: %s" % short(got))

    with case(tap, "config [scan] ignore skips files and directories") as c:
        cfg = write(os.path.join(cdir, "ign.ini"), "[scan]\nignore = *_DIE_*, units\n")
        db = os.path.join(TMP, "db", "ignore.db")
        s = scan(ROOT, db, "--config", cfg)
        paths = [r["path"] for n in NAMES for r in clips(db, n)]
        c.that(all("_DIE_" not in p and not p.startswith(UNITS) for p in paths), "ignored clips indexed: %s" % paths)
        c.that(any(p.endswith("VSF_DEMO_XWING_IDLE_00.ALA") for p in paths), "other clips missing: %s" % paths)
        c.eq(ax.run("show", "UV_GEN_WALKER.ALO", "--db", db).returncode, 1, "show of a file in an ignored directory")
        # files indexed before, ignored now: they leave the index
        db2 = os.path.join(TMP, "db", "ignore-later.db")
        scan(ROOT, db2)
        s2 = scan(ROOT, db2, "--config", cfg)
        c.eq(canon(skeletons(db2)), canon(skeletons(db)), "skeletons after ignoring indexed files")
        c.eq(canon(issues(db2)), canon(issues(db)), "issues after ignoring indexed files")
        c.eq(s2["clips"], s["clips"], "clips")

    with case(tap, "config: an unknown key or section is exit 2 naming file:line") as c:
        for name, text, line in (("key.ini", "; comment\n[scan]\nfrobnicate = 1\n", 3),
                                 ("sect.ini", "[index]\n\n[frobnicate]\nx = 1\n", 3),
                                 ("sev.ini", "[severity]\nNO_SUCH_CODE = error\n", 2),
                                 ("val.ini", "[severity]\nTRUNCATED = loud\n", 2)):
            cfg = write(os.path.join(cdir, "bad", name), text)
            for args in (["skeletons", "--db", DB], ["scan", ROOT, "--db", os.path.join(TMP, "db", "bad.db")]):
                p = ax.run(*args, "--config", cfg)
                c.eq(p.returncode, 2, "%s with %s" % (args[0], name))
                c.that("%s:%d:" % (cfg, line) in p.stderr, "%s: stderr %r does not name %s:%d" % (name, p.stderr, cfg, line))
        c.that(not os.path.exists(os.path.join(TMP, "db", "bad.db")), "scan with a bad config created its database")
        p = ax.run("skeletons", "--db", DB, "--config", os.path.join(cdir, "missing.ini"))
        c.eq(p.returncode, 2, "a missing --config file")

    with case(tap, "config [index] database is relative to the config file") as c:
        cfg = write(os.path.join(cdir, "idx", "db.ini"), "[index]\ndatabase = state/my.db\n")
        p = ax.run("scan", ROOT, "--config", cfg, "--quiet", "--json")
        c.eq(p.returncode, 0, "scan exit")
        c.that(os.path.exists(os.path.join(cdir, "idx", "state", "my.db")), "database not created next to the config")
        c.eq(len(ax.json("skeletons", "--json", "--config", cfg)), 5, "skeletons through the configured database")


# ---------------------------------------------------------------- bad input

def test_bad_input():
    root = os.path.join(TMP, "bad")
    amxgen("demo", root)
    m = os.path.join(root, MODELS)
    rnd = random.Random(1234)
    with open(os.path.join(m, "JUNK.ALO"), "wb") as fh:
        fh.write(bytes(rnd.getrandbits(8) for _ in range(5000)))
    with open(os.path.join(m, "JUNK2.ALA"), "wb") as fh:
        fh.write(b"\x00\x10\x00\x00" + bytes(rnd.getrandbits(8) for _ in range(300)))
    open(os.path.join(m, "EMPTY_IDLE_00.ALA"), "wb").close()
    with open(os.path.join(root, "Data", "JUNK.MEG"), "wb") as fh:
        fh.write(b"\xff\xff\xff\x7f\xff\xff\xff\x7f" + b"\x01" * 40)
    # a model cut short
    with open(os.path.join(m, "VSF_DEMO_XWING.ALO"), "rb") as fh:
        data = fh.read()
    with open(os.path.join(m, "HALF_MODEL.ALO"), "wb") as fh:
        fh.write(data[: len(data) // 2])
    loopdir = os.path.join(root, "Data", "Loops", "sub")
    os.makedirs(loopdir)
    # What Windows has not: Unix links (wine shows a link as what it points to, and cannot make
    # Windows ones), FIFOs, chmod's mode bits (Windows has ACLs). Those checks are skipped there.
    links_why = posix_only("Unix symbolic links (wine shows them as their targets)")
    fifo_why = posix_only("Windows has no FIFOs")
    chmod_why = posix_only("chmod 000 is a POSIX mode; Windows has ACLs")
    if not links_why:
        os.symlink("..", os.path.join(loopdir, "loop"))
        os.symlink(".", os.path.join(loopdir, "self"))
        os.symlink("nowhere.ALA", os.path.join(loopdir, "dangling.ALA"))
    if not fifo_why:
        os.mkfifo(os.path.join(loopdir, "FIFO_IDLE_00.ALA"))
    locked = os.path.join(m, "LOCKED_IDLE_00.ALA")
    clip(locked, ["Root"])
    lockeddir = os.path.join(root, "Data", "Locked")
    model(os.path.join(lockeddir, "HIDDEN.ALO"), ["Root"])
    if not chmod_why:
        os.chmod(locked, 0)
        os.chmod(lockeddir, 0)
    db = os.path.join(TMP, "db", "bad.db")
    clean_db = os.path.join(TMP, "db", "clean-demo.db")
    clean = os.path.join(TMP, "clean-demo")
    amxgen("demo", clean)
    scan(clean, clean_db)
    try:
        with case(tap, "bad input never ends a scan") as c:
            s = scan(root, db)
            iss = by_path(issues(db))
            good = [r for r in canon(skeletons(db)) if r["path"] not in (MODELS + "/HALF_MODEL.ALO", "Data/Locked/HIDDEN.ALO")]
            c.eq(good, canon(skeletons(clean_db)), "skeletons of the good files")
            for n in ("VSF_DEMO_XWING", "EV_DEMO_TIE", "UM_DEMO_WALKER"):
                c.eq(canon(clips(db, n)), canon(clips(clean_db, n)), "clips of " + n)
            for p in ("Data/Art/Models/JUNK.ALO", "Data/Art/Models/JUNK2.ALA", "Data/JUNK.MEG",
                      "Data/Art/Models/EMPTY_IDLE_00.ALA"):
                got = iss.get(p, [])
                c.that(got and all(i["code"] in ("NOT_RECOGNISED", "BAD_MAGIC", "BAD_VALUE", "TRUNCATED",
                                                 "CHUNK_OVERRUN", "MISSING_CHUNK") for i in got),
                       "%s: findings %s" % (p, short(got)))
            c.that([i for i in iss.get("Data/Art/Models/HALF_MODEL.ALO", []) if i["severity"] == "error"],
                   "HALF_MODEL.ALO: no error findings: %s" % short(iss.get("Data/Art/Models/HALF_MODEL.ALO")))
            loops = {p: codes_of(v) for p, v in iss.items() if p.startswith("Data/Loops")}
            if links_why:
                c.note("links: " + links_why)
            else:
                c.eq(loops.get("Data/Loops/sub/loop"), ["DIRECTORY_LOOP"], "ln -s .. loop")
                c.eq(loops.get("Data/Loops/sub/self"), ["DIRECTORY_LOOP"], "ln -s . self")
                c.eq(loops.get("Data/Loops/sub/dangling.ALA"), ["IO_ERROR"], "dangling symlink")
            if fifo_why:
                c.note("FIFO: " + fifo_why)
            else:
                c.that("Data/Loops/sub/FIFO_IDLE_00.ALA" not in iss, "the FIFO: %s" % short(iss.get("Data/Loops/sub/FIFO_IDLE_00.ALA")))
            if not links_why:  # the links and the FIFO
                c.that(s["scan"]["files_failed"] >= 3, "files_failed %d" % s["scan"]["files_failed"])
            if chmod_why:
                c.note(chmod_why)
            elif IS_ROOT:
                c.note("running as root: the chmod 000 file and directory are readable (see the next test)")
            else:
                c.eq(codes_of(iss.get("Data/Art/Models/LOCKED_IDLE_00.ALA", [])), ["IO_ERROR"], "chmod 000 file")
                c.eq(codes_of(iss.get("Data/Locked", [])), ["IO_ERROR"], "chmod 000 directory")
            dd = ax.run("dump", "--json", os.path.join(m, "EMPTY_IDLE_00.ALA"))
            c.that(dd.returncode in (0, 1) and json.loads(dd.stdout)["status"] == "error",
                   "dump of an empty file: %d %r" % (dd.returncode, dd.stdout[:300]))

        with case(tap, "rescans of the bad tree keep every finding (scanner notices too), without duplicates") as c:
            first = canon(issues(db))
            for k in (2, 3):
                scan(root, db)
                again = canon(issues(db))
                c.that(again == first, "findings after scan %d:\n%s" % (k, diff_rows(first, again)))
            c.eq(db_counts(db)["duplicate_paths"], 0, "duplicate file rows")

        with case(tap, "NOT_RECOGNISED findings have the severity `rules` documents") as c:
            rules = {r["code"]: r["default_severity"] for r in ax.json("rules", "--json")}
            nr = [i for i in issues(db) if i["code"] == "NOT_RECOGNISED"]
            c.that(nr, "no NOT_RECOGNISED findings")
            for i in nr:
                c.eq(i["severity"], rules["NOT_RECOGNISED"], "%s: NOT_RECOGNISED severity" % i["path"])

        with case(tap, "unreadable file and directory (chmod 000) are IO_ERROR findings") as c:
            if chmod_why:
                c.skip(chmod_why)
            elif not IS_ROOT:
                iss = by_path(issues(db))
                c.eq(codes_of(iss.get("Data/Art/Models/LOCKED_IDLE_00.ALA", [])), ["IO_ERROR"], "file")
                c.eq(codes_of(iss.get("Data/Locked", [])), ["IO_ERROR"], "directory")
            else:
                unpriv_unreadable(c)
    finally:
        os.chmod(lockeddir, 0o755)
        os.chmod(locked, 0o644)


def unpriv_unreadable(c):
    """As root, chmod 000 does not stop reads: run the scan as 'nobody' instead (if possible)."""
    base = tempfile.mkdtemp(prefix="animidx-e2e-nobody-")
    try:
        os.chmod(base, 0o755)
        root = os.path.join(base, "tree")
        amxgen("demo", root)
        locked = os.path.join(root, MODELS, "LOCKED_IDLE_00.ALA")
        clip(locked, ["Root"])
        lockeddir = os.path.join(root, "Data", "Locked")
        model(os.path.join(lockeddir, "HIDDEN.ALO"), ["Root"])
        for d, _, fs in os.walk(root):
            os.chmod(d, 0o755)
            for f in fs:
                os.chmod(os.path.join(d, f), 0o644)
        os.chmod(locked, 0)
        os.chmod(lockeddir, 0)
        dbdir = os.path.join(base, "db")
        os.mkdir(dbdir)
        os.chmod(dbdir, 0o777)
        db = os.path.join(dbdir, "n.db")

        def drop():
            os.setgroups([])
            os.setgid(65534)
            os.setuid(65534)
        try:
            p = subprocess.run([ANIMIDX, "scan", root, "--db", db, "--json", "--quiet"], env=ax.env,
                               cwd=base, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                               universal_newlines=True, timeout=120, preexec_fn=drop)
        except (OSError, subprocess.SubprocessError) as e:
            c.skip("running as root and cannot drop to uid 65534: %s" % e)
            return
        if p.returncode != 0 and "Permission denied" in p.stderr and not os.path.exists(db):
            c.skip("running as root; uid 65534 cannot use the temporary directory: %s" % p.stderr.strip())
            return
        # the unreadable directory makes the scan incomplete: exit 3 (docs: README "Exit codes")
        c.eq(p.returncode, 3, "scan as uid 65534 (stderr %r)" % p.stderr.strip())
        c.that("the scan is incomplete" in p.stderr, "stderr: %r" % p.stderr)
        iss = by_path(issues(db))
        c.eq(codes_of(iss.get(MODELS + "/LOCKED_IDLE_00.ALA", [])), ["IO_ERROR"], "chmod 000 file")
        c.eq(codes_of(iss.get("Data/Locked", [])), ["IO_ERROR"], "chmod 000 directory")
        c.eq(len(skeletons(db)), 3, "the readable models are indexed")
        c.note("ran the scan as uid 65534 (the tests run as root)")
    finally:
        for d, ds, fs in os.walk(base):
            for x in ds + fs:
                try:
                    os.chmod(os.path.join(d, x), 0o755, follow_symlinks=False)
                except OSError:
                    pass
        shutil.rmtree(base, ignore_errors=True)


# ---------------------------------------------------------------- crash consistency

def test_crash():
    root = os.path.join(TMP, "crash")
    amxgen("bench", root, "--models", 1500, "--vertices", 40)
    # a large archive first in walk order, so some kills land while its members are written
    src = os.path.join(TMP, "crash-src")
    members = []
    for i in range(120):
        mp, cp = os.path.join(src, "m%03d.alo" % i), os.path.join(src, "c%03d.ala" % i)
        bones = ["Root", "Body", "Arm_%d" % (i % 7)]
        model(mp, bones, vertices=60)
        clip(cp, bones if i % 10 else ["Root", "Wrong"], frames=50, seed=i)
        members += ["DATA\\ART\\MODELS\\UM_CRASH_%03d.ALO=%s" % (i, mp),
                    "DATA\\ART\\MODELS\\UM_CRASH_%03d_MOVE_00.ALA=%s" % (i, cp)]
    amxgen("meg", os.path.join(root, "Data", "AAA_Crash.meg"), *members)
    names = ["BM_BENCH_00000", "BM_BENCH_00777", "BM_BENCH_01499", "UM_CRASH_000", "UM_CRASH_010", "UM_CRASH_119"]

    ref_db = os.path.join(TMP, "db", "crash-ref.db")
    t0 = time.monotonic()
    ref_sum = scan(root, ref_db)
    took = time.monotonic() - t0
    ref = state(ref_db, names)

    for jobs in ("1", "0"):
        with case(tap, "crash consistency: kill -9 during scans (--jobs %s), then a full scan" % jobs) as c:
            db = os.path.join(TMP, "db", "crash-%s.db" % jobs)
            delays = sorted({0.3} | {round(took * f, 3) for f in (0.05, 0.15, 0.3, 0.5, 0.7, 0.9)})
            killed = []
            for d in delays:
                p = ax.popen("scan", root, "--db", db, "--quiet", "--jobs", jobs)
                time.sleep(d)
                if p.poll() is None:
                    os.kill(p.pid, signal.SIGKILL)
                    killed.append(d)
                p.wait()
            c.note("full scan took %.2f s; killed at %s of %s" % (took, killed, delays))
            c.that(len(killed) >= 2, "fewer than two scans were interrupted (tree too small for this machine?)")
            s = scan(root, db, "--jobs", jobs)
            c.eq(s["scan"]["files_seen"], ref_sum["scan"]["files_seen"], "files_seen")
            for k in ("clips", "clips_unbound", "skeletons", "models", "particles", "files", "findings"):
                c.eq(s[k], ref_sum[k], "summary " + k)
            compare_states(c, state(db, names), ref, "after kills vs a fresh scan")
            c.eq(db_counts(db), db_counts(ref_db), "table row counts vs a fresh scan")
            s2 = scan(root, db, "--jobs", jobs)
            c.eq((s2["scan"]["files_decoded"], s2["scan"]["files_removed"]), (0, 0),
                 "the next scan decodes and removes nothing")

    with case(tap, "Ctrl-C during a scan: exit 130, what was decoded is kept, the next scan completes it") as c:
        db = os.path.join(TMP, "db", "crash-int.db")
        stopped = []
        for d in sorted({max(0.2, round(took * f, 3)) for f in (0.2, 0.5)}):
            p = tap_popen(ANIMIDX, ["scan", root, "--db", db, "--quiet"], cwd=TMP,
                          env=ax.env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
            time.sleep(d)
            if p.poll() is None:
                p.send_signal(signal.SIGINT)
                stopped.append(d)
            out, err = p.communicate(timeout=120)
            if p.returncode == 0:
                continue  # finished before the signal
            c.eq(p.returncode, 130, "exit code after Ctrl-C at %.3f s" % d)
            c.that("interrupted" in err and "run the scan again" in err, "message: %r" % err)
            c.eq(out, "", "no summary after an interrupted scan")
            counts = db_counts(db)
            c.eq((counts["fk_violations"], counts["duplicate_paths"]), (0, 0), "consistent after Ctrl-C")
        c.note("full scan took %.2f s; SIGINT at %s" % (took, stopped))
        c.that(len(stopped) >= 1, "no scan was interrupted (tree too small for this machine?)")
        s = scan(root, db)
        c.eq(s["scan"]["files_removed"], 0, "nothing to remove after Ctrl-C")
        for k in ("clips", "clips_unbound", "skeletons", "models", "particles", "files", "findings"):
            c.eq(s[k], ref_sum[k], "summary " + k)
        compare_states(c, state(db, names), ref, "after Ctrl-C vs a fresh scan")
        c.eq(db_counts(db), db_counts(ref_db), "table row counts vs a fresh scan")


# ---------------------------------------------------------------- main

def test_metroid_prime():
    """A PAK whose ANIMs bind to their CINF through an ANCS character set (compressed members)."""
    with case(tap, "Metroid Prime: PAK members indexed, ANIMs bound through the character set") as c:
        root = os.path.join(TMP, "mp")
        os.makedirs(os.path.join(root, "Data"))
        amxgen("mp-pak", os.path.join(root, "Data", "Metroid1.pak"))
        db = os.path.join(TMP, "mp.db")
        s = scan(root, db)
        f = s["files"]
        c.eq(f.get("mp-pak"), 1, "files.mp-pak")
        c.eq(f.get("mp-cinf"), 1, "files.mp-cinf (a compressed member)")
        c.eq(f.get("mp-ancs"), 1, "files.mp-ancs (a compressed member)")
        c.eq(f.get("mp-anim"), 3, "files.mp-anim")
        sk = ax.json("skeletons", "--db", db, "--json")
        c.eq([(r["skeleton"], r["bones"], r["clips"], r["format"]) for r in sk],
             [("C1000001", 4, 2, "mp-cinf")], "skeletons")
        rows = {r["clip"]: r for r in clips(db, "c1000001")}
        c.eq(sorted(rows), ["A0000001", "A0000002"], "clips the character set plays")
        c.eq(rows.get("A0000001", {}).get("bones_missing"), 0, "A0000001 bones_missing")
        c.eq(rows.get("A0000002", {}).get("bones_missing"), 1, "A0000002 bones_missing")
        c.eq(rows.get("A0000001", {}).get("path"), "Data/Metroid1.pak#A0000001.ANIM", "member path")
        iss = issues(db)
        got = sorted((i["path"], i["code"], i["context"]) for i in iss)
        c.eq(got, [("Data/Metroid1.pak#A0000002.ANIM", "BONE_NOT_IN_SKELETON", "bone 9"),
                   ("Data/Metroid1.pak#A0000003.ANIM", "SKELETON_NOT_FOUND", "skeleton")],
             "findings")
        bad = [i for i in iss if i["code"] == "BONE_NOT_IN_SKELETON"]
        c.that(bad and bad[0]["offset"] is not None and "bone id 9" in bad[0]["message"],
               "the bone finding points at the channel: %s" % short(bad))
        sh = show(db, "A0000002.ANIM")
        det = sh[0]["clips"][0].get("details", {}) if sh and sh[0].get("clips") else {}
        c.eq(det.get("mp", {}).get("root_bone_id"), 3, "show details: root bone id")
        c.eq([ch["bone_id"] for ch in det.get("mp", {}).get("channels", [])], [3, 9],
             "show details: channels")
        out = ax.run("show", "A0000002.ANIM", "--db", db)
        c.that("bone 9: rotation 3 keys" in out.stdout, "show text lists channels:\n" + out.stdout)
        p = ax.run("dump", "--json", os.path.join(root, "Data", "Metroid1.pak") + "#C1000001.CINF")
        c.eq(p.returncode, 0, "dump of a member: exit status")
        d = [json.loads(x) for x in p.stdout.splitlines() if x.strip()]
        c.eq(d[0]["format"] if d else None, "mp-cinf", "dump of a compressed member")
        c.eq([b["parent"] for b in d[0]["skeletons"][0]["bones"]] if d else None, [-1, 0, 0, 1],
             "CINF bones, parents first")
        s2 = scan(root, db)
        c.eq(s2["scan"]["files_decoded"], 0, "rescan decodes nothing")
        # [root PATH] game = mp2 reaches the decoders: these MP1 files are reported as such
        cfg = os.path.join(TMP, "mp.ini")
        with open(cfg, "w") as f:
            f.write("[root mp]\ngame = mp2\n")
        hinted = ax.json("dump", "--json", "--config", cfg,
                         os.path.join(root, "Data", "Metroid1.pak") + "#A0000001.ANIM", want_rc=None)
        c.that(any("game setting says mp2" in i["message"] for i in hinted.get("issues", [])),
               "the game setting is applied: %s" % short(hinted.get("issues")))


def main():
    try:
        build_tree()
    except Exception as e:  # the rest cannot run
        tap.result(False, "generate the test tree", [str(e)])
        return tap.finish()
    tests = [test_first_scan, test_matched, test_case_insensitive, test_mismatched, test_not_found,
             test_archive_clip, test_particle, test_truncated, test_issue_filters, test_show, test_dump,
             test_config, test_second_scan, test_incremental, test_duplicate_names, test_dump_member_name,
             test_multi_root, test_layers_cli, test_help_and_usage,
             test_rules, test_bad_input, test_metroid_prime, test_crash]
    only = os.environ.get("E2E_ONLY")
    for t in tests:
        if only and t.__name__ not in only.split(","):
            continue
        try:
            t()
        except Exception as e:
            import traceback
            tap.result(False, t.__name__ + " (setup)", [traceback.format_exc()])
    return tap.finish()


if __name__ == "__main__":
    try:
        rc = main()
    finally:
        if not os.environ.get("E2E_KEEP"):
            for d, ds, fs in os.walk(TMP):
                for x in ds:
                    try:
                        os.chmod(os.path.join(d, x), 0o755)
                    except OSError:
                        pass
            shutil.rmtree(TMP, ignore_errors=True)
        else:
            sys.stdout.write("# kept %s\n" % TMP)
    sys.exit(rc)
