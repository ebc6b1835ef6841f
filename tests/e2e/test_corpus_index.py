#!/usr/bin/env python3
"""Index the real-file corpus ($AMX_CORPUS, read-only) and check it against MANIFEST.tsv.

usage: test_corpus_index.py ANIMIDX

The corpus is scanned in place into a temporary database; nothing is copied or written
under $AMX_CORPUS. TAP on stdout.
"""
import json
import os
import struct
import subprocess
import re
import shutil
import signal
import sqlite3
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lint"))
from tap import Tap, Cli, case, canon, short, run as tap_run  # noqa: E402
import schema_check  # noqa: E402

if len(sys.argv) < 2:
    sys.stderr.write("usage: test_corpus_index.py ANIMIDX\n")
    sys.exit(2)

ANIMIDX = os.path.abspath(sys.argv[1])
AMXGEN = os.path.abspath(sys.argv[2]) if len(sys.argv) > 2 else None
CORPUS = os.environ.get("AMX_CORPUS", "")
TMP = tempfile.mkdtemp(prefix="animidx-corpus-")
tap = Tap()
ax = Cli(ANIMIDX, TMP)

LINK_CODES = {"SKELETON_NOT_FOUND", "BONE_NOT_IN_SKELETON", "BONE_INDEX_MISMATCH"}
OUR_EXT = (".alo", ".ala", ".meg")


def stem(name):
    return os.path.splitext(os.path.basename(name))[0]


def read_manifest():
    """{relative file: description} for every corpus file."""
    out = {}
    with open(os.path.join(CORPUS, "MANIFEST.tsv"), encoding="utf-8", errors="replace") as fh:
        for line in fh:
            cols = line.rstrip("\n").split("\t")
            if len(cols) >= 6 and "/" in cols[0] and not cols[0].startswith("#"):
                out[cols[0]] = cols[5]
    return out


def num(pattern, text):
    m = re.search(pattern, text)
    return int(m.group(1)) if m else None


def scan(root, db, rc=0):
    return ax.json("scan", root, "--db", db, "--json", "--quiet", want_rc=rc)


def chunks(b, start, end):
    """The chunks of an Alamo or W3D body: (type, body start, body end), clamped to the parent."""
    o = start
    while o + 8 <= end:
        t, n = struct.unpack_from("<II", b, o)
        n &= 0x7FFFFFFF
        yield t, o + 8, min(o + 8 + n, end)
        o += 8 + n


def minis(b, start, end):
    o = start
    while o + 2 <= end:
        t, n = b[o], b[o + 1]
        yield t, o + 2, min(o + 2 + n, end)
        o += 2 + n


def cstr(b, a, z):
    return b[a:z].split(b"\0")[0].decode("latin-1")


def w3d_textures(path):
    """Texture names of a W3D file's meshes: 0x0 mesh > 0x30 > 0x31 > 0x32 (w3d_file.h)."""
    b = open(path, "rb").read()
    out = []
    for t, a, z in chunks(b, 0, len(b)):
        if t == 0:
            for t2, a2, z2 in chunks(b, a, z):
                if t2 == 0x30:
                    for t3, a3, z3 in chunks(b, a2, z2):
                        if t3 == 0x31:
                            out += [cstr(b, a4, z4) for t4, a4, z4 in chunks(b, a3, z3) if t4 == 0x32]
    return out


def alo_references(path):
    """(kind, name) of an ALO file, read independently of animidx: model meshes 0x400 >
    0x10100 > shader 0x10101 and texture parameters 0x10105 (mini 2); connections 0x600 > proxy
    0x603 (mini 5); particles 0x900 > 0x800 > 0x700 > colour 0x3 and bump 0x45 textures."""
    b = open(path, "rb").read()
    out = []
    for t, a, z in chunks(b, 0, len(b)):
        if t == 0x400:
            for t2, a2, z2 in chunks(b, a, z):
                if t2 == 0x10100:
                    for t3, a3, z3 in chunks(b, a2, z2):
                        if t3 == 0x10101:
                            out.append(("shader", cstr(b, a3, z3)))
                        elif t3 == 0x10105:
                            out += [("texture", cstr(b, a4, z4)) for t4, a4, z4 in minis(b, a3, z3) if t4 == 2]
        elif t == 0x600:
            for t2, a2, z2 in chunks(b, a, z):
                if t2 == 0x603:
                    out += [("particle", cstr(b, a3, z3)) for t3, a3, z3 in minis(b, a2, z2) if t3 == 5]
        elif t == 0x900:
            for t2, a2, z2 in chunks(b, a, z):
                if t2 == 0x800:
                    for t3, a3, z3 in chunks(b, a2, z2):
                        if t3 == 0x700:
                            out += [("texture", cstr(b, a4, z4)) for t4, a4, z4 in chunks(b, a3, z3)
                                    if t4 in (0x3, 0x45)]
    return out


def test_w3d(manifest):
    """Every real W3D file decodes cleanly and binds where its skeleton is in the corpus; the same
    files inside a BIG archive are indexed as members; a Shockwave .w3d is named for what it is."""
    root = os.path.join(CORPUS, "w3d")
    w3d = {k.split("/", 1)[1]: v for k, v in manifest.items() if k.startswith("w3d/")}
    db = os.path.join(TMP, "w3d.db")
    with case(tap, "W3D corpus: every file decodes, every binding resolves") as c:
        s = scan(root, db)
        c.eq(s["files"].get("w3d"), len(w3d), "w3d files (MANIFEST)")
        c.eq((s["findings"]["error"], s["findings"]["warning"]), (0, 0), "error and warning findings")
        # the textures the meshes name are the game's: without a base layer, info only
        iss = ax.json("issues", "--db", db, "--json")
        c.eq(sorted({(i["code"], i["severity"]) for i in iss}), [("REFERENCE_NOT_FOUND", "info")]
             if iss else [], "the only findings: textures of the game, at info")
        c.eq(s["clips_unbound"], 0, "clips without their hierarchy")
        for name in sorted(w3d):
            want = w3d_textures(os.path.join(root, name))
            got = [r["name"] for f in ax.json("refs", name, "--db", db, "--json")
                   for r in f["references"] if r["kind"] == "texture"]
            c.eq(got, want, name + ": texture references (an independent chunk walk)")
        hier = {}
        for name, desc in w3d.items():
            for m in re.finditer(r"HIERARCHY (\w+) v[\d.]+ (\d+) pivots", desc):
                hier[m.group(1)] = int(m.group(2))
        sk = ax.json("skeletons", "--db", db, "--json")
        got = {}
        for r in sk:
            got.setdefault(r["skeleton"], r["bones"])
        c.eq(got, hier, "hierarchies and pivot counts (MANIFEST)")
        anims = {}
        for desc in w3d.values():
            for m in re.finditer(r"(?:COMPRESSED_)?ANIM (\w+) \(htree (\w+)\) v[\d.]+ (\d+)f@(\d+)fps", desc):
                anims[m.group(1)] = (m.group(2), int(m.group(3)), int(m.group(4)))
        for anim, (htree, frames, fps) in sorted(anims.items()):
            rows = [r for r in ax.json("clips", "--skeleton", htree, "--db", db, "--json")
                    if r["clip"] == anim]
            c.that(rows, "%s is listed under %s" % (anim, htree))
            for r in rows:
                c.eq((r["frames"], r["fps"], r["bound"], r["bones_missing"]), (frames, fps, True, 0),
                     anim + ": frames, fps, bound, bones_missing")
    with case(tap, "W3D inside a BIG archive: members indexed and bound like loose files") as c:
        broot = os.path.join(TMP, "big")
        os.makedirs(os.path.join(broot, "Data"))
        names = ["bp_052816c_auelladan_skl.w3d", "bp_052816c_auelladan_runa.w3d", "ow3d_waymid.w3d"]
        members = ["art\\w3d\\" + n for n in names]
        p = tap_run(AMXGEN, ["big", os.path.join(broot, "Data", "W3DZH.big")] +
                    ["%s=%s" % (m, os.path.join(root, n)) for m, n in zip(members, names)],
                    stdout=subprocess.PIPE, stderr=subprocess.PIPE, universal_newlines=True)
        c.eq(p.returncode, 0, "amxgen big: " + p.stderr.strip())
        bdb = os.path.join(TMP, "big.db")
        s = scan(broot, bdb)
        c.eq(s["files"].get("big"), 1, "big files")
        c.eq(s["files"].get("w3d"), 3, "w3d members")
        c.eq(s["findings"]["error"] + s["findings"]["warning"], 0, "no findings")
        rows = ax.json("clips", "--skeleton", "auelladan_skl", "--db", bdb, "--json")
        c.eq([r["path"] for r in rows], ["Data/W3DZH.big#art/w3d/bp_052816c_auelladan_runa.w3d"],
             "member path of the bound clip")
        c.that(rows and rows[0]["bound"] and rows[0]["bones_missing"] == 0, "bound: %s" % rows)
    with case(tap, "a Shockwave 3D file named .w3d is reported as not a Westwood file") as c:
        sroot = os.path.join(TMP, "shockwave")
        os.makedirs(sroot)
        with open(os.path.join(sroot, "model.w3d"), "wb") as f:
            f.write(b"IFX\x00" + bytes(60))
        sdb = os.path.join(TMP, "sw.db")
        scan(sroot, sdb)
        iss = ax.json("issues", "--db", sdb, "--json")
        c.eq([(i["code"], i["severity"]) for i in iss], [("NOT_RECOGNISED", "warning")], "findings")
        c.that(iss and "Shockwave 3D" in iss[0]["message"], "message: %s" % iss)


def sage_rows(db):
    """Every reference and finding of an index, without row ids, sorted."""
    with sqlite3.connect("file:%s?mode=ro" % db, uri=True) as h:
        refs = h.execute(
            "SELECT f.path, r.kind, r.tag, r.name, r.key, r.line, r.offset, t.path, r.resolution, "
            "r.linked, r.model, r.model_key, r.via_key, o.name, s.kind, s.flags FROM refs r "
            "JOIN files f ON f.id = r.file_id LEFT JOIN files t ON t.id = r.target_id "
            "LEFT JOIN game_objects o ON o.id = r.object_id "
            "LEFT JOIN object_states s ON s.id = r.state_id").fetchall()
        found = h.execute("SELECT f.path, i.origin, i.code, i.severity, i.message, i.offset, "
                          "i.context FROM findings i JOIN files f ON f.id = i.file_id").fetchall()
    return sorted(map(repr, refs)) + sorted(map(repr, found))


def test_sage():
    """The SAGE trees of the corpus (issue 24): the Generals mod's INI parses with no
    INI_MALFORMED; the BFME2 sample binds its hero's animation through the INI, and `show` and
    `clips --model` say so."""
    gen = os.path.join(CORPUS, "mods", "Generals_Rebalanced")
    bfme = os.path.join(CORPUS, "mods", "BFME2_sample")
    if not os.path.isdir(gen) or not os.path.isdir(bfme):
        tap.skip("sage", "no mods/Generals_Rebalanced or mods/BFME2_sample in the corpus")
        return
    db = os.path.join(TMP, "generals.db")
    with case(tap, "Generals_Rebalanced: every INI file read, no INI_MALFORMED, the retail "
                   "16-character animation name found in 6 files") as c:
        s = scan(gen, db)
        c.eq(s["files"].get("sage-ini"), 59, "INI files")
        iss = ax.json("issues", "--db", db, "--json")
        c.eq([i for i in iss if i["code"] == "INI_MALFORMED"], [], "INI_MALFORMED")
        long_names = [i for i in iss if i["code"] == "W3D_NAME_TOO_LONG"]
        c.eq(len(long_names), 6, "W3D_NAME_TOO_LONG")
        c.that(all("'NBNMissle_A3ENSS' has 16 characters" in i["message"] for i in long_names),
               "all the nuke missile's animation: %s" % short(long_names))
        c.that(all(i["severity"] == "info" for i in iss if i["code"] == "REFERENCE_NOT_FOUND"),
               "missing base-game assets are info without a base layer")
        shown = ax.json("show", "data/ini/crate.ini", "--db", db, "--json", want_rc=None)
        c.eq([x["path"] for x in shown or []], ["Data/INI/Crate.ini"],
             "an INI file's path in any case, as the SAGE engine's file system takes it (README)")
    ref_db = db
    with case(tap, "Generals_Rebalanced: scans killed (kill -9) at points through the scan and "
                   "its link pass, then a full scan: the references and findings of a scan never "
                   "stopped") as c:
        c.skip_on_windows("kill -9 is POSIX's (wine's programs stop through wineserver)")
        want = sage_rows(ref_db)
        c.that(len(want) > 30000, "references and findings: %d" % len(want))
        t0 = time.monotonic()
        scan(gen, os.path.join(TMP, "generals-timed.db"))
        took = time.monotonic() - t0
        killed, pending_seen = [], 0
        # The kill points are fractions of a scan's time; a scan that ends before its kill
        # (the machine got faster: the timed scan ran under load) makes `took` its own time,
        # and more points are tried until four scans were killed (at most eight more).
        points = [0.1, 0.3, 0.5, 0.6, 0.7, 0.8, 0.9, 0.95]
        extra = [0.2, 0.4, 0.55, 0.65, 0.75, 0.85, 0.15, 0.45]
        i = 0
        while i < len(points):
            f = points[i]
            kdb = os.path.join(TMP, "generals-kill-%d.db" % i)
            p = ax.popen("scan", gen, "--db", kdb, "--quiet", "--jobs", "1" if i % 2 else "0")
            started = time.monotonic()
            time.sleep(took * f)
            if p.poll() is None:
                os.kill(p.pid, signal.SIGKILL)
                killed.append(round(took * f, 2))
            else:
                took = min(took, time.monotonic() - started)
            p.wait()
            i += 1
            if i == len(points) and len(killed) < 4 and extra:
                points += extra
                extra = []
            if os.path.exists(kdb):
                with sqlite3.connect("file:%s?mode=ro" % kdb, uri=True) as h:
                    try:
                        pending_seen += h.execute("SELECT count(*) FROM ini_refs_pending").fetchone()[0] > 0
                        c.eq(h.execute("SELECT count(*) FROM ini_refs_pending p JOIN refs r ON "
                                       "r.file_id = p.file_id").fetchone()[0], 0,
                             "an INI file with its blob and its rows after a kill at %.2f s" % (took * f))
                    except sqlite3.OperationalError:
                        pass  # killed before the schema was written
            scan(gen, kdb)
            c.eq(sage_rows(kdb), want, "after a kill at %.2f s, then a full scan" % (took * f))
        c.note("a scan took %.2f s; killed at %s; %d kills left INI references pending"
               % (took, killed, pending_seen))
        c.that(len(killed) >= 4, "fewer than four scans were interrupted: %s" % killed)
    db = os.path.join(TMP, "bfme.db")
    with case(tap, "BFME2_sample: aragorn.ini parses and binds; guaragorn_pala.w3d holds "
                   "GUISILDUR_SKL.GUARAGORN_PALA") as c:
        s = scan(bfme, db)
        c.eq(s["clips_unbound"], 1, "clips_unbound: the PALA animation; the HLOD GADUZ built on "
             "the absent MUDRMTROLL_SKL is a model, not a clip")
        iss = ax.json("issues", "--db", db, "--json")
        ini = [i for i in iss if i["path"].endswith("aragorn.ini")]
        c.eq(sorted((i["code"], i["severity"]) for i in ini),
             [("REFERENCE_NOT_FOUND", "info")] * 5, "aragorn.ini: 4 animations (GUAragorn_IDLE "
             "named with and without its hierarchy) and the include the sample does not carry")
        pala = ax.json("show", "guaragorn_pala.w3d", "--db", db, "--json")[0]
        c.eq([(k["clip"], k["skeleton"]) for k in pala["clips"]],
             [("GUARAGORN_PALA", "GUISILDUR_SKL")], "the PALA animation's hierarchy")
        rows = ax.json("clips", "--model", "guaragorn_skn", "--db", db, "--json")
        via = [r["via"] for r in rows if r["bound_by"] == "ini"]
        c.eq(via, ["object 'GondorAragorn' (AnimationState EMOTION_ALERT), "
                   "Data/INI/Object/Men/Heroes/aragorn.ini:52"], "clips --model: the INI binding")
        c.eq(sorted(r["clip"] for r in rows), ["GUARAGORN_IDLA", "GUARAGORN_IDLA"],
             "the idle animation, by the INI and by its W3D header")
        skn = ax.json("show", "guaragorn_skn.w3d", "--db", db, "--json")[0]
        c.eq(sorted(o["name"] for o in skn.get("used_by", [])),
             ["GondorAragorn", "GondorAragornMP"], "show: the objects that draw the model")
        shown = ax.json("show", "aragorn.ini", "--db", db, "--json")[0]
        c.eq(sorted({o["name"] for o in shown.get("game_objects", [])}),
             ["GondorAragorn", "GondorAragornMP"], "show: the INI's objects")
        p = ax.run("clips", "--model", "X", "--skeleton", "Y", "--db", db)
        c.eq(p.returncode, 2, "clips --model with --skeleton: usage error")


def test_dump_schema():
    """docs/dump.schema.json describes what dump --json writes for every file of the corpus
    (Alamo, MEG, W3D, the mods' XML and SAGE INI)."""
    schema_path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "docs",
                               "dump.schema.json")
    with open(schema_path, encoding="utf-8") as fh:
        schema = json.load(fh)
    files = sorted(os.path.join(d, f) for d, _, fs in os.walk(CORPUS) for f in fs
                   if f != "MANIFEST.tsv")
    with case(tap, "dump --json of every corpus file is valid against docs/dump.schema.json") as c:
        formats, problems = set(), []
        for k in range(0, len(files), 50):
            p = ax.run("dump", "--json", *files[k:k + 50])
            for line in p.stdout.splitlines():
                o = json.loads(line)
                formats.add(o["format"])
                problems += ["%s: %s" % (o["path"], e) for e in schema_check.validate(o, schema)[:3]]
        c.eq(problems[:5], [], "schema errors (%d in all)" % len(problems))
        c.that({"alamo-ala", "alamo-xml", "sage-ini", "w3d", "meg"} <= formats,
               "formats dumped: %s" % sorted(formats))


FINGERPRINTS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "decoder_fingerprints.json")
DECODE_C = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "lib", "format",
                        "decode.c")


def decoder_versions():
    """Each format's decoder_version, from lib/format/decode.c's table."""
    with open(DECODE_C, encoding="utf-8") as fh:
        text = fh.read()
    return {m.group(1): int(m.group(2)) for m in
            re.finditer(r'\.name = "([a-z0-9-]+)",[^}]*?\.decoder_version = (\d+)', text)}


def test_decoder_fingerprints():
    """What each decoder makes of the corpus (dump --json --samples, paths left out), hashed per
    format, against tests/e2e/decoder_fingerprints.json: a change to a decoder's output must come
    with a new decoder_version in lib/format/decode.c, or an index made before keeps the old
    result for every unchanged file (the sage-ini decoder stayed at version 1 through two rounds of
    changes). AMX_UPDATE_FINGERPRINTS=1 records the new hashes of formats whose version changed."""
    import hashlib
    files = sorted(os.path.join(d, f) for d, _, fs in os.walk(CORPUS) for f in fs
                   if f != "MANIFEST.tsv")
    digests = {}
    for k in range(0, len(files), 50):
        p = ax.run("dump", "--json", "--samples", *files[k:k + 50])
        for line in p.stdout.splitlines():
            o = json.loads(line)
            path = os.path.relpath(o.pop("path"), CORPUS).replace(os.sep, "/")
            h = digests.setdefault(o["format"], hashlib.sha256())
            h.update(path.encode() + b"\0" + json.dumps(o, sort_keys=True).encode() + b"\n")
    versions = decoder_versions()
    with open(FINGERPRINTS, encoding="utf-8") as fh:
        table = json.load(fh)
    known = table["formats"]
    update = os.environ.get("AMX_UPDATE_FINGERPRINTS") == "1"
    with case(tap, "each decoder's output on the corpus matches its decoder_version "
                   "(tests/e2e/decoder_fingerprints.json)") as c:
        c.that(len(versions) >= 10, "decoder versions read from decode.c: %s" % versions)
        for fmt in sorted(digests):
            got, version = digests[fmt].hexdigest(), versions.get(fmt)
            entry = known.get(fmt)
            if entry and entry["decoder_version"] == version:
                c.that(entry["sha256"] == got,
                       "%s: the decoded output changed (sha256 %s) but its decoder_version is "
                       "still %s: bump it in lib/format/decode.c, so that existing indexes decode "
                       "those files again, then run the corpus suite with "
                       "AMX_UPDATE_FINGERPRINTS=1" % (fmt, got, version))
            elif update:
                known[fmt] = {"decoder_version": version, "sha256": got}
            else:
                c.that(False, "%s: decoder_version %s, recorded %s: run the corpus suite with "
                              "AMX_UPDATE_FINGERPRINTS=1 to record sha256 %s"
                       % (fmt, version, entry and entry["decoder_version"], got))
    if update:
        with open(FINGERPRINTS, "w", encoding="utf-8") as fh:
            json.dump(table, fh, indent=2, sort_keys=True)
            fh.write("\n")


def test_mod():
    """The real submod in the corpus: its parent mod and the game are absent, as for most users."""
    mod = os.path.join(CORPUS, "mods", "CIS_PROTEUS")
    if not os.path.isdir(mod):
        tap.skip("mod", "no mods/CIS_PROTEUS in the corpus")
        return
    db = os.path.join(TMP, "mod.db")
    s = scan(mod, db)
    iss = ax.json("issues", "--db", db, "--json")
    clips = {}
    counted = []
    for sk in ax.json("skeletons", "--db", db, "--json"):
        bound = set()
        for r in ax.json("clips", "--skeleton", sk["skeleton"], "--db", db, "--json"):
            clips.setdefault(r["path"], []).append(r)
            if r["bound"] and (r["skeleton_root"], r["skeleton_path"]) == (sk["root"], sk["path"]):
                bound.add(r["path"])
        counted.append((sk["skeleton"], sk["clips"], len(bound)))
    with case(tap, "mod: skeletons counts every clip bound to a skeleton, an XML override's too "
                   "(as clips --skeleton lists them)") as c:
        c.eq([x for x in counted if x[1] != x[2]], [], "(skeleton, skeletons' count, clips bound)")
        c.eq([x[1] for x in counted if x[0] == "Hero_Super_Tank"], [3],
             "Hero_Super_Tank: the Super_Tank override's 3 clips, inherited by Drogen_Hosh_Supertank")
    with case(tap, "mod: report.json lists a clip under every skeleton it is bound to, with that "
                   "binding's bones (as skeletons counts and clips --skeleton lists)") as c:
        out = os.path.join(TMP, "mod-report")
        os.makedirs(out, exist_ok=True)
        ax.run("report", "--db", db, "--out", out)
        with open(os.path.join(out, "report.json"), encoding="utf-8") as f:
            rep = json.load(f)
        listed = {(sk["skeleton"], sk["path"]): sk["clips"] for sk in rep["skeletons"]}
        c.eq(sorted((k[0], len(v)) for k, v in listed.items() if len(v) != dict(
                 ((x[0], x[1]) for x in counted)).get(k[0])), [],
             "(skeleton, clips listed) where skeletons counts otherwise")
        hero = [v for k, v in listed.items() if k[0] == "Hero_Super_Tank"]
        c.eq([(x["clip"], x["bones_missing"], x["bound_by"]) for x in (hero[0] if hero else [])],
             [("Confederate_Super_Tank_Deploy_00", 4, "xml-override"),
              ("Confederate_Super_Tank_Idle_00", 4, "xml-override"),
              ("Confederate_Super_Tank_Undeploy_00", 4, "xml-override")],
             "Hero_Super_Tank: the override's clips, 4 bones not matching (was: no clips)")
        c.eq([(x["clip"], x["bones_missing"]) for k, v in listed.items()
              if k[0] == "Confederate_Super_Tank" for x in v],
             [("Confederate_Super_Tank_Deploy_00", 0), ("Confederate_Super_Tank_Idle_00", 0),
              ("Confederate_Super_Tank_Undeploy_00", 0)], "the same clips under their own model")
        unbound = [(x["path"], x["clip"]) for x in rep["unbound_clips"]]
        under = {(x["path"], x["clip"]) for v in listed.values() for x in v}
        c.eq(len(unbound), len(set(unbound)), "unbound clips, each once")
        c.eq(sorted(set(unbound) & under), [], "a clip both unbound and under a skeleton")
    with case(tap, "mod: kalani_Die_00.ALA keeps its real BONE_INDEX_MISMATCH findings") as c:
        k = [i for i in iss if i["path"].endswith("kalani_Die_00.ALA")]
        c.eq(len(k), 16, "kalani_Die_00 findings")
        c.that(all(i["code"] == "BONE_INDEX_MISMATCH" and "'kalani'" in i["message"] for i in k),
               "all BONE_INDEX_MISMATCH against kalani: %s" % short(k))
    with case(tap, "mod: bone findings only against the model the clip's name or the XML gives") as c:
        bone = [i for i in iss if i["code"].startswith("BONE_")]
        c.that(bone, "bone findings")
        for i in bone:
            name = stem(i["path"])
            m = re.search(r"in skeleton '([^']+)'", i["message"])
            model = m.group(1) if m else ""
            by_name = name.upper().startswith(model.upper() + "_")
            by_xml = " via Data/XML/" in i["context"]
            c.that(by_name or by_xml, "%s: a bone finding against %s (%s)" % (i["path"], model, i["context"]))
        xml = [i for i in bone if " via Data/XML/" in i["context"]]
        c.eq(sorted({(stem(i["path"]), re.search(r"skeleton '([^']+)'", i["message"]).group(1)) for i in xml}),
             [("Confederate_Super_Tank_Deploy_00", "Hero_Super_Tank"),
              ("Confederate_Super_Tank_Idle_00", "Hero_Super_Tank"),
              ("Confederate_Super_Tank_Undeploy_00", "Hero_Super_Tank")],
             "the override of Super_Tank inherited by Drogen_Hosh_Supertank onto a re-rigged model")
    with case(tap, "mod: every clip whose model is missing gets exactly one SKELETON_NOT_FOUND") as c:
        nf = {}
        for i in iss:
            if i["code"] == "SKELETON_NOT_FOUND":
                nf[i["path"]] = nf.get(i["path"], 0) + 1
        c.eq(sorted(set(nf.values())), [1], "SKELETON_NOT_FOUND per clip")
        c.eq(len(nf), s["clips_unbound"], "clips_unbound")
        bound = {p for p, rows in clips.items() if any(r["bound"] for r in rows)}
        c.eq(sorted(set(nf) & bound), [], "a clip both bound and not found")
        # a name of no type of the table, or a number the engine's numbering never reaches
        unplayed = {i["path"] for i in iss if i["code"] in ("CLIP_NOT_LOADED_BY_NAME",
                                                            "ANIMATION_NOT_REACHED")}
        c.eq(sorted(unplayed & (bound | set(nf))), [], "a clip both unplayed and bound or not found")
        c.eq(len(nf) + len(bound) + len(unplayed), s["clips"], "every clip is bound or says why not")
        for p in nf:
            m = [i["message"] for i in iss if i["path"] == p and i["code"] == "SKELETON_NOT_FOUND"][0]
            c.that("of this tree" in m and "base layer" not in m, "%s: %s" % (p, m))
    with case(tap, "mod: only types of the engine's table bind by name; the names of no type "
                   "(checked by hand against ModVerify's SupportedModelAnimationTypes) bind nothing") as c:
        types = sorted({r["via"] for rows in clips.values() for r in rows
                        if r["bound"] and r.get("bound_by") == "name"})
        c.eq(types, ["type " + t for t in (
            "ATTACK", "ATTACKIDLE", "DEPLOY", "DEPLOYED_DIE", "DIE", "IDLE", "LAND", "MOVE",
            "MOVESTART", "MOVE_ENDONE", "TAKEOFF", "TURNL", "TURNL_BEGIN", "TURNL_END", "TURNR",
            "TURNR_BEGIN", "TURNR_END", "UNDEPLOY")], "the types clips bind by")
        # TRANSITION and ATTACKMOVE are no types (the baseline bound these three by them), nor
        # is MOVE_START (MOVESTART is)
        unplayed = {os.path.basename(i["path"]): i["message"] for i in iss
                    if i["code"] == "CLIP_NOT_LOADED_BY_NAME"}
        c.eq(sorted(unplayed), ["CIS_Crab_Droid_Transition_00.ALA",
                                "CIS_Vulture_Ground_ATTACKMOVE_00.ALA",
                                "CIS_Vulture_Ground_MOVE_START_00.ALA", "kalani_Transition_00.ALA"],
             "CLIP_NOT_LOADED_BY_NAME")
        c.eq(sorted(p for p, rows in clips.items() if any(r["bound"] for r in rows)
                    and os.path.basename(p) in unplayed), [], "none of them is bound")
        c.that("did you mean CIS_Vulture_Ground_MOVESTART_00 (type MOVESTART)?"
               in unplayed.get("CIS_Vulture_Ground_MOVE_START_00.ALA", ""), "the reading that loads")
        c.that("'kalani' is a model here, and Transition is no type of Forces of Corruption"
               in unplayed.get("kalani_Transition_00.ALA", ""), "the word that is no type")
        c.eq([i for i in iss if i["code"] == "ANIMATION_NOT_REACHED"], [],
             "no gap in the numbering (each model's clips of a type run from 00)")
    with case(tap, "mod: the XML's game objects and references are indexed (equal to ElementTree)") as c:
        import xml.etree.ElementTree as ET
        tags = {"Land_Model_Name", "Space_Model_Name", "Galactic_Model_Name",
                "Destroyed_Galactic_Model_Name", "Galactic_Fleet_Override_Model_Name", "GUI_Model_Name",
                "GUI_Model", "Tactical_Model_Name", "WaypointFlagModelName", "Event_Model_Name",
                "Damaged_Smoke_Asset_Name", "Model_To_Attach", "Model_Name", "Flame_Emitter_Model_Name",
                "Land_Terrain_Model_Mapping",
                "Land_Model_Anim_Override_Name", "Space_Model_Anim_Override_Name"}

        def tag_refs(t):
            """The references of element t: a tag's own, or those of the tags at any depth below
            it (an element inside a tag is not read)."""
            if t.tag == "Land_Terrain_Model_Mapping":
                return len((t.text or "").split(",")) // 2
            if t.tag in tags:
                return 1
            return sum(tag_refs(x) for x in t)
        objects = refs = 0
        for dirpath, _, files in os.walk(os.path.join(mod, "Data", "XML")):
            for f in files:
                r = ET.parse(os.path.join(dirpath, f)).getroot()
                for o in r:  # a tag below a child of the root with no Name is no one's, but read
                    objects += o.get("Name") is not None
                    refs += tag_refs(o) + (o.tag == "File")  # a list file's entries
        got = [ax.json("show", "CIS_Ground_Units.xml", "--db", db, "--json")]
        import sqlite3
        con = sqlite3.connect(db)
        c.eq(con.execute("SELECT count(*) FROM game_objects").fetchone()[0], objects, "game objects")
        c.eq(con.execute("SELECT count(*) FROM refs r JOIN files f ON f.id = r.file_id "
                         "WHERE f.format = 'alamo-xml'").fetchone()[0], refs, "XML references")
        con.close()
        sh = ax.json("show", "Hero_Super_Tank.alo", "--db", db, "--json")
        users = [(u["name"], u["tag"]) for u in (sh[0].get("used_by", []) if sh else [])]
        c.eq(users, [("Drogen_Hosh_Supertank", "Land_Model_Name")], "show on a model: who uses it")
        c.that(got and got[0] and got[0][0].get("game_objects"), "show on an XML file: its objects")
    with case(tap, "mod: missing references are info without a base layer, one entry per file "
                   "the engine looks for") as c:
        refs_err = [i for i in iss if i["code"].startswith("REFERENCE") and i["severity"] != "info"]
        c.eq(refs_err, [], "reference findings above info")
        missing = ax.json("refs", "--missing", "--db", db, "--json")
        files = {m["file"] for m in missing}
        # models the XML names that live in the parent mod (checked by hand: not in the tree)
        for want in ("DATA/ART/MODELS/MULTI-TROOP_TRANSPORT.ALO", "DATA/ART/MODELS/HMP_LANDER.ALO",
                     "DATA/ART/MODELS/TF_PAC.ALO"):
            c.that(want in files, "%s is in refs --missing" % (want,))
        c.that(all(m["severity"] == "info" for m in missing), "severities")
        c.that(missing[0]["references"] >= missing[-1]["references"], "most referenced first")
        keys = [(m["file"], m["resolution"]) for m in missing]
        c.eq(len(keys), len(set(keys)), "one entry per file (its spellings differ in case, "
                                        "extension, _ALT and _LOD)")
        c.that(all(sum(sp["references"] for sp in m["spellings"]) == m["references"] for m in missing),
               "the spellings count every reference")
        con = sqlite3.connect(db)
        want = con.execute("SELECT count(*) FROM refs r JOIN files f ON f.id = r.file_id JOIN roots t "
                           "ON t.id = f.root_id WHERE r.resolution IN ('missing', 'wrong-kind', "
                           "'unusable') AND t.role = 'target'").fetchone()[0]
        con.close()
        c.eq(sum(m["references"] for m in missing), want, "the entries hold every unresolved reference")


def main():
    if not CORPUS or not os.path.isdir(os.path.join(CORPUS, "alamo")):
        tap.skip("corpus", "AMX_CORPUS is not set or has no alamo/ directory")
        return tap.finish()
    manifest = read_manifest()
    alamo = {k.split("/", 1)[1]: v for k, v in manifest.items() if k.startswith("alamo/")}
    ala = {f: d for f, d in alamo.items() if f.lower().endswith(".ala")}
    models = {f: d for f, d in alamo.items() if "ALO model" in d}
    particles = {f: d for f, d in alamo.items() if "particle system" in d}
    db = os.path.join(TMP, "alamo.db")
    root = os.path.join(CORPUS, "alamo")

    summary = None
    with case(tap, "scan $AMX_CORPUS/alamo") as c:
        summary = scan(root, db)
        c.eq(summary["files"].get("alamo-ala"), len(ala), "alamo-ala files")
        c.eq(summary["files"].get("alamo-alo"), len(models), "alamo-alo files")
        c.eq(summary["files"].get("alamo-particle"), len(particles), "alamo-particle files")
        c.eq(summary["files"].get("unknown"), 0, "unknown files")
        c.eq(summary["clips"], len(ala), "clips")
        c.eq(summary["skeletons"], len(models), "skeletons")
        c.eq(summary["scan"]["files_failed"], 0, "files_failed")
        on_disk = sorted(os.listdir(root))
        c.eq(on_disk, sorted(alamo), "files on disk vs MANIFEST.tsv")
    if summary is None:
        return tap.finish()

    issues = ax.json("issues", "--db", db, "--json")
    by_path = {}
    for i in issues:
        by_path.setdefault(i["path"], []).append(i)
    shows = {}
    for f in sorted(alamo):
        rows = ax.json("show", f, "--db", db, "--json", want_rc=None) or []
        shows[f] = rows[0] if len(rows) == 1 else None

    with case(tap, "every corpus file is indexed with status ok and no error-severity decode finding") as c:
        for f in sorted(alamo):
            s = shows.get(f)
            if not c.that(s, "%s: not in the index (show found %s)" % (f, s)):
                continue
            decode = [i for i in by_path.get(f, []) if i["code"] not in LINK_CODES]
            errs = [i for i in decode if i["severity"] == "error"]
            if s["status"] != "ok" or errs:
                c.that(False, "%s: status %s, findings:\n    %s" % (f, s["status"], "\n    ".join(
                    "%s %s @%s (%s): %s" % (i["severity"], i["code"], i["offset"], i["context"], i["message"])
                    for i in decode) or "none"))
            for i in decode:
                if i["severity"] != "error":
                    c.note("%s: %s %s @%s: %s" % (f, i["severity"], i["code"], i["offset"], i["message"]))

    with case(tap, "dump --json decodes every corpus file the way the index does") as c:
        for f in sorted(alamo):
            p = ax.run("dump", "--json", os.path.join(root, f))
            try:
                o = json.loads(p.stdout)
            except ValueError:
                c.that(False, "%s: dump exit %d, output %r, stderr %r" % (f, p.returncode, p.stdout[:200], p.stderr))
                continue
            errs = [i for i in o.get("issues", []) if i["severity"] == "error"]
            c.eq(p.returncode, 1 if errs else 0, f + ": dump exit status")
            c.that(not errs, "%s: dump error findings %s" % (f, short(errs)))
            s = shows.get(f)
            if s:
                c.eq((o.get("format"), o.get("version"), o.get("status")), (s["format"], s["version"], s["status"]),
                     f + ": format/version/status in dump vs index")

    with case(tap, "VSF_Tie_Aggressor_Hyperspace_In.ala: no model loads it by name, so no bone "
                   "finding (one CLIP_NOT_LOADED_BY_NAME, info)") as c:
        # The engine loads <MODEL>_<TYPE>_<NN>.ALA only: this name has no number, and its bones
        # are another model's (the 9 findings it used to get against VSF_Tie_Aggressor were
        # false alarms of a prefix fallback the engine does not have).
        f = "VSF_Tie_Aggressor_Hyperspace_In.ala"
        rows = [r for r in ax.json("clips", "--skeleton", "VSF_Tie_Aggressor", "--db", db, "--json") if r["path"] == f]
        c.eq(rows, [], "clips --skeleton VSF_Tie_Aggressor rows for the clip")
        got = [(i["code"], i["severity"], i["context"]) for i in by_path.get(f, [])]
        c.eq(got, [("CLIP_NOT_LOADED_BY_NAME", "info", "clip")], "its findings")
        msg = " ".join(i["message"] for i in by_path.get(f, []))
        c.that("no indexed skeleton fits all its bones" in msg, "the hint: %s" % msg)
        sk = [s for s in ax.json("skeletons", "--db", db, "--json") if s["skeleton"] == "VSF_Tie_Aggressor"]
        c.eq([(s["bones"], s["clips"]) for s in sk], [(6, 0)], "the skeleton's bones/clips")

    with case(tap, "clips with bones-match=yes bind to their model with bones_missing 0 and no BONE_* findings") as c:
        n = 0
        for f, d in sorted(ala.items()):
            m = re.search(r"model (\S+) bones-match=yes", d)
            if not m:
                continue
            n += 1
            skel = stem(m.group(1))
            rows = [r for r in ax.json("clips", "--skeleton", skel, "--db", db, "--json") if r["path"] == f]
            if not c.eq(len(rows), 1, "%s: rows under skeleton %s" % (f, skel)):
                continue
            r = rows[0]
            c.eq((r["bound"], r["bones_missing"], r["skeleton"].upper()), (True, 0, skel.upper()),
                 f + ": bound/bones_missing/skeleton")
            bone = [i for i in by_path.get(f, []) if i["code"] in LINK_CODES]
            c.eq(bone, [], f + ": link findings")
            frames = num(r"(\d+) stored frames", d)
            fps = re.search(r"@([\d.]+) fps", d)
            c.eq((r["frames"], r["tracks"]), (frames, num(r"(\d+) animated bones", d)), f + ": frames/tracks")
            if fps:
                c.that(abs(r["fps"] - float(fps.group(1))) < 1e-3, "%s: fps %r, manifest %s" % (f, r["fps"], fps.group(1)))
        c.that(n >= 12, "only %d bones-match=yes clips in the manifest" % n)

    with case(tap, "clip details match MANIFEST.tsv (ALA format, visibility tracks)") as c:
        for f, d in sorted(ala.items()):
            s = shows.get(f)
            if not s or not s.get("clips"):
                c.that(False, "%s: no clip in show: %s" % (f, short(s)))
                continue
            c.eq(s["version"], str(num(r"ALA format (\d)", d)), f + ": version")
            cl = s["clips"][0]
            vis = sum(1 for t in cl["tracks"] if "visibility" in t["channels"].split(","))
            want = num(r"(\d+) bones with 0x1007 visibility", d)
            if want is not None:
                c.eq(vis, want, f + ": tracks with visibility")
            c.eq(len(cl["tracks"]), num(r"(\d+) animated bones", d), f + ": tracks listed")

    with case(tap, "VSB_HYENA_BOMBER_DEPLOY_00.ala (no model) gets SKELETON_NOT_FOUND") as c:
        f = "VSB_HYENA_BOMBER_DEPLOY_00.ala"
        got = [(i["code"], i["severity"]) for i in by_path.get(f, [])]
        c.eq(got, [("SKELETON_NOT_FOUND", "warning")], "findings")
        rows = [r for r in ax.json("clips", "--skeleton", "VSB_HYENA_BOMBER", "--db", db, "--json") if r["path"] == f]
        c.eq([(r["bound"], r["tracks"], r["frames"]) for r in rows], [(False, 29, 74)], "clip row")
        c.eq(summary["clips_unbound"], 1, "clips_unbound")

    with case(tap, "P_BLINK_RED_120.ALO gets PARTICLE_NAME_MISMATCH (and no other particle does)") as c:
        pm = [i for i in issues if i["code"] == "PARTICLE_NAME_MISMATCH"]
        c.eq([(i["path"], i["severity"]) for i in pm], [("P_BLINK_RED_120.ALO", "warning")], "findings")
        if pm:
            c.that("p_blink_red_2" in pm[0]["message"], "message %r" % pm[0]["message"])

    with case(tap, "models and particle systems match MANIFEST.tsv") as c:
        for f, d in sorted(models.items()):
            s = shows.get(f)
            if not s:
                continue
            c.eq(s["format"], "alamo-alo", f + ": format")
            c.eq([(k["name"], len(k["bones"])) for k in s.get("skeletons", [])], [(stem(f), num(r"(\d+) bones", d))],
                 f + ": skeleton")
            summ = [m for m in s.get("meshes", []) if "kind" in m]
            if c.eq(len(summ), 1, f + ": model summary rows"):
                got = summ[0]
                c.eq(got["meshes"], num(r"(\d+) meshes", d), f + ": meshes")
                c.eq(got["proxies"], num(r"(\d+) proxies", d), f + ": proxies")
                c.eq(got["lights"], num(r"(\d+) lights", d) or 0, f + ": lights")
        for f, d in sorted(particles.items()):
            s = shows.get(f)
            if not s:
                continue
            c.eq(s["format"], "alamo-particle", f + ": format")
            summ = [m for m in s.get("meshes", []) if "kind" in m]
            name = re.search(r'internal name "([^"]+)"', d)
            c.eq([(m["kind"], m["name"], m["emitters"]) for m in summ],
                 [("particle", name.group(1) if name else None, num(r"(\d+) emitters", d))], f + ": particle")

    with case(tap, "a rescan of the corpus decodes nothing and changes nothing") as c:
        before = (canon(ax.json("skeletons", "--db", db, "--json")), canon(issues))
        s2 = scan(root, db)
        c.eq((s2["scan"]["files_decoded"], s2["scan"]["files_unchanged"], s2["scan"]["files_removed"]),
             (0, len(alamo), 0), "decoded/unchanged/removed")
        after = (canon(ax.json("skeletons", "--db", db, "--json")), canon(ax.json("issues", "--db", db, "--json")))
        c.eq(after, before, "skeletons and issues")

    # ---- the MEG fixtures
    meg = {k.split("/", 1)[1]: v for k, v in manifest.items() if k.startswith("meg/")}
    mroot = os.path.join(CORPUS, "meg")
    mdb = os.path.join(TMP, "meg.db")
    msum = None
    with case(tap, "scan $AMX_CORPUS/meg: every fixture archive is indexed") as c:
        msum = scan(mroot, mdb)
        c.eq(msum["files"].get("meg"), len(meg), "meg files")
        c.eq(sorted(os.listdir(mroot)), sorted(meg), "files on disk vs MANIFEST.tsv")
        for f, d in sorted(meg.items()):
            rows = ax.json("show", f, "--db", mdb, "--json", want_rc=None) or []
            if not c.eq(len(rows), 1, f + ": show rows"):
                continue
            s = rows[0]
            c.eq((s["format"], s["status"]), ("meg", "ok"), f + ": format/status")
            c.eq(s["version"], str(num(r"MEG format (\d)", d)), f + ": version")
            named = re.findall(r"\b([A-Z]\.TXT|TEST\.TXT)\b", d)
            want = 0 if "zero files" in d else num(r"(\d+) (?:zero-length )?entr(?:y|ies)", d)
            if want is None:
                want = len(named)
            c.eq(len(s.get("members", [])), want, f + ": members")
            for name in named:
                c.that(any(m["path"] == f + "#" + name for m in s.get("members", [])),
                       "%s: member %s not in %s" % (f, name, [m["path"] for m in s.get("members", [])]))
            errs = [i for i in s.get("issues", []) if i["severity"] == "error"]
            c.eq(errs, [], f + ": error findings of the archive itself")
        p = ax.run("dump", "--json", os.path.join(mroot, "v1_1_file_data.meg") + "#TEST.TXT")
        c.that(p.returncode in (0, 1) and json.loads(p.stdout or "{}").get("format") == "unknown",
               "dump of a member: exit %d %r %r" % (p.returncode, p.stdout[:200], p.stderr))
        p = ax.run("show", "v1_1_file_data.meg#TEST.TXT", "--db", mdb)
        c.that(p.returncode == 1 and "of a kind animidx does not read" in p.stderr,
               "show of a member show lists but does not index: says why: exit %d %r"
               % (p.returncode, p.stderr))

    with case(tap, "MEG fixtures: members of other formats are not findings (as loose files of other formats)") as c:
        # A loose TEST.TXT is indexed as 'other' without a finding; inside an archive it should be too:
        # game archives hold XML, textures and sounds next to models.
        mi = ax.json("issues", "--db", mdb, "--json")
        other = [i for i in mi if not i["path"].lower().endswith(OUR_EXT)]
        c.eq([(i["path"], i["code"], i["severity"]) for i in other], [], "findings of non-Alamo members")

    with case(tap, "alamo corpus: texture, shader and proxy references listed as an independent reader "
                   "finds them; without a base layer, no error finding from them") as c:
        n = 0
        for f in sorted(models) + sorted(particles):
            want = alo_references(os.path.join(root, f))
            rows = ax.json("refs", f, "--db", db, "--json")
            got = [(r["kind"], r["name"]) for x in rows for r in x["references"]
                   if r["kind"] in ("texture", "shader", "particle")]
            # dazzle textures are references too; the independent reader leaves dazzles out
            got = [g for g, r in zip(got, [r for x in rows for r in x["references"]
                                           if r["kind"] in ("texture", "shader", "particle")])
                   if not r["tag"].startswith("dazzle")]
            c.eq(got, want, f + ": references")
            n += len(want)
        c.that(n > 100, "references in the corpus: %d" % n)
        ref_errors = [i for i in issues if i["code"].startswith("REFERENCE") and i["severity"] != "info"]
        c.eq(ref_errors, [], "reference findings above info")

    test_w3d(manifest)
    test_mod()
    test_sage()
    test_dump_schema()
    test_decoder_fingerprints()
    return tap.finish()


if __name__ == "__main__":
    try:
        rc = main()
    finally:
        shutil.rmtree(TMP, ignore_errors=True)
    sys.exit(rc)
