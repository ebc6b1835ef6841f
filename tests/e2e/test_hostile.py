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
import signal
import sqlite3
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(HERE, "..", "tools"))
from tap import (Tap, Cli, case, short, run as tap_run, popen as tap_popen,  # noqa: E402
                 host_text, WINDOWS)
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
    SANITIZED = b"__asan_init" in _fh.read()
# under wine, process starts, the file system and the report measured 2-3x slower
SLOW = 4 if SANITIZED else 3 if WINDOWS else 1


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


# ---------------------------------------------------------------- 2. link pass and archive amplification

def test_amplification():
    with case(tap, "a BIG of 20,000 entries pointing at one W3D: in seconds, its bytes decoded "
                   "once, every name indexed, one ARCHIVE_OVERLAP counting the repeats") as c:
        root = fresh("bigshared")
        amxgen("w3d-pair", os.path.join(TMP, "w3dpair"))
        with open(os.path.join(TMP, "w3dpair", "SKL.w3d"), "rb") as fh:
            member = fh.read()
        write(os.path.join(root, "W3D.big"), bombs.big_shared(member, 20000))
        db = os.path.join(TMP, "bigshared.db")
        p, secs = timed("scan", root, "--db", db, "--json", "--quiet", timeout=300)
        must(p, "scan", rc=None)
        c.that(secs < 20 * SLOW, "the scan took %.1f s" % secs)
        members = [x for x in paths(db) if "#" in x]
        c.eq(len(members), 20000, "members indexed by name")
        con = sqlite3.connect(db)
        decoded = con.execute("SELECT count(*) FROM files WHERE path LIKE '%#%' "
                              "AND format <> 'unknown'").fetchone()[0]
        con.close()
        c.eq(decoded, 1, "members decoded")
        got = issues(db, "--code", "ARCHIVE_OVERLAP")
        c.eq(len(got), 1, "one ARCHIVE_OVERLAP")
        c.that(got and got[0]["message"].startswith(
            "19999 entries share stored bytes with other entries: 0 start inside another entry's "
            "data, 19999 repeat"), "message: %s" % short(got))
        c.eq(issues(db, "--code", "LIMIT_EXCEEDED"), [], "no LIMIT_EXCEEDED")
        c.that(os.path.getsize(db) < 16 << 20, "index of %d bytes" % os.path.getsize(db))

    with case(tap, "a MEG whose entries overlap: ARCHIVE_OVERLAP counts them, and they are "
                   "decoded within the archive's budget") as c:
        root = fresh("megoverlap")
        amxgen("clip", os.path.join(TMP, "ov.ala"), "--bones", "Root,Body,Head", "--frames", "60")
        with open(os.path.join(TMP, "ov.ala"), "rb") as fh:
            member = fh.read()
        write(os.path.join(root, "Models.meg"), bombs.meg_overlap(member, 6000))
        db = os.path.join(TMP, "megoverlap.db")
        must(ax.run("scan", root, "--db", db, "--quiet", timeout=120), "scan", rc=None)
        got = issues(db, "--code", "ARCHIVE_OVERLAP")
        c.eq(len(got), 1, "one ARCHIVE_OVERLAP")
        c.that(got and got[0]["message"].startswith("5999 entries share stored bytes"),
               "message: %s" % short(got))
        members = [x for x in paths(db) if "#" in x]
        size = os.path.getsize(os.path.join(root, "Models.meg"))
        bound = (size + (16 << 20)) // len(member) + 2
        c.that(len(members) <= bound, "%d members indexed, more than %d" % (len(members), bound))
        got = issues(db, "--code", "LIMIT_EXCEEDED")
        c.eq(len(got), 1, "one LIMIT_EXCEEDED")
        c.that(got and "add up to its size and 16 MiB" in got[0]["message"], "message: %s" % short(got))
        c.that(os.path.getsize(db) < 48 << 20, "index of %d bytes" % os.path.getsize(db))

    with case(tap, "the link pass is near-linear: 4x the directories of a same-named W3D "
                   "hierarchy and animation cost well under 16x") as c:
        def tree(n):
            root = fresh("samename%d" % n)
            amxgen("w3d-pair", os.path.join(root, "d0000"))
            for k in range(1, n):
                shutil.copytree(os.path.join(root, "d0000"), os.path.join(root, "d%04d" % k))
            db = os.path.join(TMP, "samename%d.db" % n)
            p, secs = timed("scan", root, "--db", db, "--quiet", "--jobs", "1", timeout=600)
            must(p, "scan", rc=None)
            return secs, db
        small, _ = tree(250)
        big, db = tree(1000)
        c.that(big < 8 * max(small, 0.05), "250 dirs %.2f s, 1000 dirs %.2f s" % (small, big))
        con = sqlite3.connect(db)
        own = con.execute("SELECT count(*) FROM clip_bindings WHERE via = 'same directory'").fetchone()[0]
        con.close()
        c.eq(own, 1000, "each animation binds to its own directory's hierarchy")


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
        if c.posix_only("Unix symbolic links (wine shows a link as its target and cannot make Windows ones)"):
            return
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


def test_links_out_of_root():
    """Issue 21 (6): the scan reads what the user named."""
    d = fresh("linksout")
    root = os.path.join(d, "mod")
    outside = os.path.join(d, "machine")   # stands for /etc: files that are not the mod's
    amxgen("model", os.path.join(root, "Data", "Art", "Models", "M.ALO"), "--bones", "a,b")
    amxgen("clip", os.path.join(outside, "conf", "M_IDLE_00.ALA"), "--bones", "a,b")
    write(os.path.join(outside, "conf", "secret.txt"), "root:x:0:0\n")
    amxgen("clip", os.path.join(d, "further", "F_IDLE_00.ALA"), "--bones", "a")
    os.symlink(os.path.join(d, "further"), os.path.join(outside, "conf", "further"))
    os.symlink(os.path.join(outside, "conf"), os.path.join(root, "Data", "etc"))
    os.symlink(os.path.join(outside, "conf", "M_IDLE_00.ALA"), os.path.join(root, "Data", "X_IDLE_00.ALA"))
    os.symlink("/proc/self", os.path.join(root, "Data", "self"))
    db = os.path.join(d, "index.db")
    with case(tap, "links out of the root are not followed: LINK_NOT_FOLLOWED (info) names where "
                   "each leads; /proc/self does not explode") as c:
        if c.posix_only("Unix symbolic links (wine shows a link as its target and cannot make Windows ones)"):
            return
        p, secs = timed("scan", root, "--db", db, "--quiet", timeout=60)
        c.eq(p.returncode, 0, "scan exit status (stderr %r)" % p.stderr[:300])
        c.that(secs < 5 * SLOW, "scan took %.1f s" % secs)
        c.eq(paths(db), ["Data/Art/Models/M.ALO", "Data/X_IDLE_00.ALA", "Data/etc", "Data/self"],
             "indexed paths")
        by = {i["path"]: i for i in issues(db)}
        for path, target in (("Data/etc", os.path.realpath(os.path.join(outside, "conf"))),
                             ("Data/X_IDLE_00.ALA", None), ("Data/self", "/proc/")):
            i = by.get(path, {})
            c.that(i.get("code") == "LINK_NOT_FOLLOWED" and i.get("severity") == "info" and
                   (target or "") in i.get("message", "") and "--follow-links" in i.get("message", ""),
                   "%s: %s" % (path, short(i)))
        p = ax.run("lint", root, "--db", db, "--format", "sarif")
        try:
            uris = sorted({r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"]
                           for r in json.loads(p.stdout)["runs"][0]["results"]})
        except (ValueError, KeyError, IndexError) as e:
            uris = ["SARIF: %s" % e]
        c.eq([u for u in uris if "/etc/" in u or "/self/" in u or "secret" in u], [],
             "SARIF results on files of the machine")
        c.eq(ax.run("rules", "LINK_NOT_FOLLOWED").returncode, 0, "animidx rules LINK_NOT_FOLLOWED")
    with case(tap, "--follow-links (and [scan] follow_links = true) follows them one level; a "
                   "rescan without it removes what they led to") as c:
        if c.posix_only("Unix symbolic links (wine shows a link as its target and cannot make Windows ones)"):
            return
        p, secs = timed("scan", root, "--db", db, "--quiet", "--follow-links", timeout=120)
        c.eq(p.returncode, 0, "scan --follow-links exit status (stderr %r)" % p.stderr[:300])
        c.that(secs < 20 * SLOW, "scan --follow-links took %.1f s" % secs)
        got = paths(db)
        c.that("Data/etc/M_IDLE_00.ALA" in got and "Data/X_IDLE_00.ALA" in got,
               "followed: %s" % short([x for x in got if not x.startswith("Data/self/")]))
        c.that(not [x for x in got if x.startswith("Data/etc/further/")],
               "a link inside a followed link was followed: %s" % short(got))
        by = {i["path"]: i for i in issues(db)}
        c.that(by.get("Data/etc/further", {}).get("code") == "LINK_NOT_FOLLOWED" and
               "one level" in by["Data/etc/further"]["message"], "Data/etc/further: %s" % short(by.get("Data/etc/further")))
        n_self = len([x for x in got if x.startswith("Data/self/")])
        c.that(0 < n_self < 20000, "files under /proc/self: %d" % n_self)
        c.that(not [x for x in got if x.startswith("Data/self/root/") or x.startswith("Data/self/cwd/")],
               "/proc/self/root or cwd followed")
        must(ax.run("scan", root, "--db", db, "--quiet"), "rescan without --follow-links")
        c.eq(paths(db), ["Data/Art/Models/M.ALO", "Data/X_IDLE_00.ALA", "Data/etc", "Data/self"],
             "after a rescan without it")
        cfg = os.path.join(d, "follow.ini")
        write(cfg, "[scan]\nfollow_links = true\n")
        must(ax.run("scan", root, "--db", db, "--quiet", "--config", cfg), "scan with the key")
        c.that("Data/etc/M_IDLE_00.ALA" in paths(db), "[scan] follow_links = true follows")
        write(cfg, "[scan]\nfollow_links = sometimes\n")
        p = ax.run("scan", root, "--db", db, "--quiet", "--config", cfg)
        c.that(p.returncode == 2 and "follow_links" in p.stderr, "a bad value: %r" % p.stderr)


# ---------------------------------------------------------------- 9. an unreadable directory

def test_unreadable_dir():
    with case(tap, "a directory that becomes unreadable keeps its rows, gets one IO_ERROR, and "
                   "the scan exits 3 (incomplete)") as c:
        if c.posix_only("chmod 000 and running as another user are POSIX; Windows has ACLs"):
            return
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


# ---------------------------------------------------------------- 7. someone else's database

def sql(db, *stmts):
    con = sqlite3.connect(db)
    try:
        out = None
        for st in stmts:
            out = con.execute(st).fetchall()
        con.commit()
        return out
    finally:
        con.close()


def db_state(db):
    """What another program would notice: its tables, user_version, journal mode, side files."""
    return (sql(db, "SELECT type, name FROM sqlite_schema ORDER BY name"),
            sql(db, "PRAGMA user_version")[0][0], sql(db, "PRAGMA application_id")[0][0],
            sql(db, "PRAGMA journal_mode")[0][0],
            sorted(f for f in os.listdir(os.path.dirname(db)) if f.startswith(os.path.basename(db) + "-")))


def test_foreign_database():
    tree = fresh("dbtree")
    amxgen("demo", tree)
    with case(tap, "--db on another program's SQLite database: exit 3, a clear message, the file "
                   "untouched (no tables, no user_version, no WAL)") as c:
        d = fresh("foreign")
        other = os.path.join(d, "other.db")
        sql(other, "CREATE TABLE notes(id INTEGER PRIMARY KEY, text TEXT)",
            "INSERT INTO notes(text) VALUES ('mine')")
        before = db_state(other)
        for args in (["scan", tree, "--db", other, "--quiet"], ["issues", "--db", other],
                     ["lint", tree, "--db", other, "--quiet"]):
            p = ax.run(*args)
            c.eq(p.returncode, 3, "%s: exit status" % args[0])
            c.that("not an animidx index: an SQLite database of another program" in p.stderr,
                   "%s: stderr %r" % (args[0], p.stderr))
        c.eq(db_state(other), before, "the database after the attempts")
        sql(other, "PRAGMA application_id = 1234")
        p = ax.run("scan", tree, "--db", other, "--quiet")
        c.that(p.returncode == 3 and "application_id 0x000004D2" in p.stderr, "stderr %r" % p.stderr)
        junk = os.path.join(d, "junk.db")
        write(junk, b"not a database at all, but long enough to have a header " * 20)
        p = ax.run("issues", "--db", junk)
        c.that(p.returncode == 3 and "not an SQLite database" in p.stderr, "junk: %r" % p.stderr)

    with case(tap, "a new index gets the application_id; an earlier animidx's index (no id, its "
                   "tables) still opens and gets it") as c:
        d = fresh("ours")
        db = os.path.join(d, "index.db")
        must(ax.run("scan", tree, "--db", db, "--quiet"), "scan")
        c.eq(sql(db, "PRAGMA application_id")[0][0], 0x414D5849, "application_id of a new index")
        want = issues(db)
        sql(db, "PRAGMA application_id = 0")   # as an earlier animidx left it
        c.eq(issues(db), want, "a read-only query of the earlier index")
        c.eq(sql(db, "PRAGMA application_id")[0][0], 0, "a query does not write the id")
        must(ax.run("scan", tree, "--db", db, "--quiet"), "rescan")
        c.eq(sql(db, "PRAGMA application_id")[0][0], 0x414D5849, "the id after a scan")

    with case(tap, "a failed migration leaves the journal mode (and the id) as they were") as c:
        d = fresh("failmig")
        db = os.path.join(d, "old.db")
        init = os.path.join(os.path.dirname(HERE), "..", "sql", "migrations", "0001_init.sql")
        con = sqlite3.connect(db)
        with open(init) as fh:
            con.executescript(fh.read())
        # 0002 adds clips.details: an index that already has it cannot be migrated
        con.executescript("ALTER TABLE clips ADD COLUMN details TEXT; PRAGMA user_version = 1;")
        con.close()
        before = db_state(db)
        p = ax.run("scan", tree, "--db", db, "--quiet")
        c.eq(p.returncode, 3, "exit status")
        c.that("0002" in p.stderr and "failed" in p.stderr, "stderr %r" % p.stderr)
        c.eq(db_state(db), before, "the database after the failed migration")


def test_readonly_index():
    with case(tap, "a read-only index (0444 in a directory the user cannot write) can be queried") as c:
        if c.posix_only("chmod modes and running as another user are POSIX; Windows has ACLs"):
            return
        base = tempfile.mkdtemp(prefix="animidx-hostile-ro-")
        try:
            os.chmod(base, 0o755)
            tree = os.path.join(base, "tree")
            amxgen("demo", tree)
            dbdir = os.path.join(base, "db")
            os.mkdir(dbdir)
            db = os.path.join(dbdir, "index.db")
            must(ax.run("scan", tree, "--db", db, "--quiet"), "scan")
            want = issues(db)
            os.chmod(db, 0o444)
            os.chmod(dbdir, 0o555)
            if not IS_ROOT:
                pre = None
            else:
                pre = as_nobody()
            # with the -wal/-shm a reader left (empty), and with none (a copied index)
            for phase in ("side files left by a reader", "the index file alone"):
                if phase == "the index file alone":
                    os.chmod(dbdir, 0o755)
                    for f in os.listdir(dbdir):
                        if f != "index.db":
                            os.remove(os.path.join(dbdir, f))
                    os.chmod(dbdir, 0o555)
                try:
                    p = subprocess.run([ANIMIDX, "issues", "--db", db, "--json"], env=ax.env,
                                       cwd=base, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                       universal_newlines=True, timeout=60, preexec_fn=pre)
                except (OSError, subprocess.SubprocessError) as e:
                    c.skip("cannot drop to uid 65534: %s" % e)
                    return
                c.eq(p.returncode, 0, "%s: issues exit status (stderr %r)" % (phase, p.stderr))
                c.that("not an animidx index" not in p.stderr, "%s: stderr %r" % (phase, p.stderr))
                try:
                    c.eq(json.loads(p.stdout), want, "%s: the findings" % phase)
                except ValueError:
                    c.that(False, "%s: not JSON: %r" % (phase, p.stdout[:300]))
            # a scan cannot write it, and says so truthfully
            p = subprocess.run([ANIMIDX, "scan", tree, "--db", db, "--quiet"], env=ax.env, cwd=base,
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                               universal_newlines=True, timeout=60, preexec_fn=pre)
            c.eq(p.returncode, 3, "scan exit status")
            c.that("not an animidx index" not in p.stderr, "scan stderr %r" % p.stderr)
        finally:
            os.chmod(os.path.join(base, "db"), 0o755)
            shutil.rmtree(base, ignore_errors=True)


def test_config_location():
    with case(tap, "lint says which configuration it used; ./animidx.ini only with --config") as c:
        wd = fresh("cfgwd")
        amxgen("demo", os.path.join(wd, "Data"))
        write(os.path.join(wd, "animidx.ini"),
              "[severity]\nBONE_NOT_IN_SKELETON = off\nBONE_INDEX_MISMATCH = off\n"
              "SIZE_MISMATCH = off\nTRUNCATED = off\nCHUNK_OVERRUN = off\n"
              "[index]\ndatabase = /tmp/elsewhere-%d.db\n" % os.getpid())
        p = ax.run("lint", "Data", "--db", os.path.join(wd, "l.db"), cwd=wd)
        c.eq(p.returncode, 1, "lint fails on the demo's errors (the mod's ini is not read)")
        c.that("lint: configuration: none (built-in defaults)" in p.stdout, "stdout %r" % p.stdout[-400:])
        c.that("not read unless given with --config" in p.stderr, "stderr %r" % p.stderr)
        c.that(not os.path.exists("/tmp/elsewhere-%d.db" % os.getpid()), "the ini moved the index")
        p = ax.run("lint", "Data", "--db", os.path.join(wd, "l.db"), "--config", "./animidx.ini",
                   "--format", "json", cwd=wd)
        c.eq(p.returncode, 0, "with --config ./animidx.ini (stderr %r)" % p.stderr[-300:])
        try:
            c.eq(json.loads(p.stdout)["config"], "./animidx.ini", "JSON config")
        except (ValueError, KeyError) as e:
            c.that(False, "lint JSON: %s" % e)
        c.that("lint: configuration: ./animidx.ini" in p.stderr, "stderr %r" % p.stderr[-300:])


# ---------------------------------------------------------------- 8. report --out and links

def test_report_links():
    with case(tap, "report --out DIR never writes through a link planted in DIR") as c:
        d = fresh("reportlinks")
        tree = os.path.join(d, "tree")
        amxgen("demo", tree)
        db = os.path.join(d, "index.db")
        must(ax.run("scan", tree, "--db", db, "--quiet"), "scan")
        out = os.path.join(d, "out")
        os.makedirs(out)
        victims = {}
        for name in (".report.json.tmp", ".report.html.tmp", "report.json"):
            v = os.path.join(d, "victim-" + name.strip("."))
            write(v, "precious\n")
            os.symlink(v, os.path.join(out, name))
            victims[name] = v
        p = ax.run("report", "--db", db, "--out", out)
        c.eq(p.returncode, 0, "report exit status (stderr %r)" % p.stderr)
        for name, v in victims.items():
            with open(v) as fh:
                c.eq(fh.read(), "precious\n", "the file %s pointed at" % name)
        for name in ("report.json", "report.html"):
            f = os.path.join(out, name)
            c.that(os.path.isfile(f) and not os.path.islink(f), "%s is a regular file" % name)
        c.eq(sorted(x for x in os.listdir(out) if x.startswith(".report") and not os.path.islink(os.path.join(out, x))),
             [], "temporary files left behind")
        mode = os.stat(os.path.join(out, "report.json")).st_mode & 0o777
        c.eq(mode & 0o444, 0o444, "report.json readable as before (mode %o)" % mode)


def test_side_files():
    """Issue 21 (12): a side file is a regular file of bounded size; an output is written beside
    its target and renamed over it, never through a link."""
    d = fresh("sidefiles")
    tree = os.path.join(d, "tree")
    amxgen("demo", tree)
    db = os.path.join(d, "index.db")
    must(ax.run("scan", tree, "--db", db, "--quiet"), "scan")
    fifo = os.path.join(d, "fifo")
    os.mkfifo(fifo)
    big = os.path.join(d, "big.json")
    with open(big, "wb") as fh:  # sparse: 300 MiB claimed, nothing stored
        fh.truncate(300 << 20)
    cases = [("--baseline", ["lint", tree, "--db", db, "--baseline"]),
             ("--suppressions", ["lint", tree, "--db", db, "--suppressions"]),
             ("--previous", ["report", "--db", db, "--out", os.path.join(d, "out"), "--previous"]),
             ("--config", ["issues", "--db", db, "--config"])]
    with case(tap, "--baseline, --suppressions, report --previous and --config refuse a FIFO, a "
                   "device and a file over the limit at once (exit 2, what it is and the fix)") as c:
        for opt, argv in cases:
            for path, what in ((fifo, "a FIFO"), ("/dev/zero", "a character device"),
                               (big, "300 MiB, more than the")):
                try:
                    p, secs = timed(*argv, path, timeout=30)
                except subprocess.TimeoutExpired:
                    c.that(False, "%s %s: still reading after 30 s" % (opt, path))
                    continue
                c.eq(p.returncode, 2, "%s %s: exit status (stderr %r)" % (opt, path, p.stderr[:300]))
                c.that(what in p.stderr and ("at most 256 MiB" in p.stderr or
                                             "at most 1 MiB" in p.stderr),
                       "%s %s: message %r" % (opt, path, p.stderr[:300]))
                c.that(secs < 5 * SLOW, "%s %s took %.1f s" % (opt, path, secs))
    with case(tap, "--write-baseline through a planted link: the link is replaced by the file, the "
                   "file it pointed at is untouched; report.html likewise") as c:
        if c.posix_only("a planted Unix symbolic link (wine shows it as its target and cannot make Windows ones)"):
            return
        victim = os.path.join(d, "victim")
        write(victim, "precious\n")
        link = os.path.join(d, "base.json")
        os.symlink(victim, link)
        p = ax.run("lint", tree, "--db", db, "--write-baseline", link, "--quiet")
        c.eq(p.returncode, 0, "exit status (stderr %r)" % p.stderr[:300])
        with open(victim) as fh:
            c.eq(fh.read(), "precious\n", "the file the link pointed at")
        c.that(os.path.isfile(link) and not os.path.islink(link), "base.json is a regular file")
        try:
            with open(link) as fh:
                c.eq(json.load(fh).get("kind"), "animidx-baseline", "the baseline's kind")
        except ValueError as e:
            c.that(False, "base.json is not JSON: %s" % e)
        c.eq([x for x in os.listdir(d) if x.startswith(".base.json")], [], "temporary files left")
        p = ax.run("lint", tree, "--db", db, "--baseline", link, "--quiet")
        c.eq(p.returncode, 0, "lint with that baseline: nothing new")
        out = os.path.join(d, "out")
        os.makedirs(out, exist_ok=True)
        html = os.path.join(out, "report.html")
        os.symlink(victim, html)
        must(ax.run("report", "--db", db, "--out", out, "--quiet"), "report")
        with open(victim) as fh:
            c.eq(fh.read(), "precious\n", "the file report.html pointed at")
        c.that(os.path.isfile(html) and not os.path.islink(html), "report.html is a regular file")
        # a directory the output cannot be created in: exit 3, nothing left behind
        p = ax.run("lint", tree, "--db", db, "--write-baseline", os.path.join(d, "no", "b.json"))
        c.eq(p.returncode, 3, "--write-baseline into a missing directory (stderr %r)" % p.stderr[:200])


# ---------------------------------------------------------------- 9. names

def test_names_not_text():
    with case(tap, "names that are not UTF-8 are stored escaped (%XX), losslessly: two files "
                   "never look alike, and lint of one file finds it") as c:
        if c.posix_only("Windows file names are UTF-16: a name of bytes that are not UTF-8 cannot exist there"):
            return
        root = fresh("names").encode()
        names = [b"A\xff_IDLE_00.ALA", b"A\xfe_IDLE_00.ALA", b"A%FF_IDLE_00.ALA",
                 b"caf\xc3\xa9_IDLE_00.ALA"]
        for n in names:
            amxgen("clip", os.fsdecode(os.path.join(root, n)), "--bones", "a,b")
        db = os.path.join(TMP, "names.db")
        must(ax.run("scan", os.fsdecode(root), "--db", db, "--quiet"), "scan")
        got = sorted(i["path"] for i in issues(db))
        want = sorted(["A%FF_IDLE_00.ALA", "A%FE_IDLE_00.ALA", "A%25FF_IDLE_00.ALA",
                       "caf\u00e9_IDLE_00.ALA"])
        c.eq(got, want, "paths of the findings (JSON)")
        c.eq(len(set(got)), 4, "four distinct paths")
        p = ax.run("lint", os.fsdecode(os.path.join(root, names[0])), "--db", db, "--format", "json",
                   "--quiet")
        try:
            paths_linted = sorted({f["path"] for f in json.loads(p.stdout)["findings"]})
        except (ValueError, KeyError):
            paths_linted = p.stdout[:300]
        c.eq(paths_linted, ["A%FF_IDLE_00.ALA"], "lint of the file named A\\xff...")
        # the report decodes the clips again from their files for the plots
        out = os.path.join(TMP, "names-report")
        must(ax.run("report", "--db", db, "--out", out), "report")
        with open(os.path.join(out, "report.html"), encoding="utf-8") as fh:
            html = fh.read()
        c.that("the file could not be decoded again" not in html, "a clip's file was not found again")

    with case(tap, "control characters in names are escaped on a terminal") as c:
        if c.posix_only("Windows file names cannot hold control characters, and its console is not a POSIX terminal (pty)"):
            return
        import pty
        root = fresh("ctrl")
        evil = "X\x1b]0;pwned\x07\x1b[2J_IDLE_00.ALA"
        amxgen("clip", os.path.join(root, evil), "--bones", "a")
        db = os.path.join(TMP, "ctrl.db")
        must(ax.run("scan", root, "--db", db, "--quiet"), "scan")
        master, slave = pty.openpty()
        try:
            p = subprocess.run([ANIMIDX, "issues", "--db", db], env=ax.env, stdout=slave,
                               stderr=slave, timeout=60)
            os.close(slave)
            out = b""
            while True:
                try:
                    chunk = os.read(master, 65536)
                except OSError:
                    break
                if not chunk:
                    break
                out += chunk
        finally:
            os.close(master)
        c.eq(p.returncode, 0, "issues exit status")
        for colour in (b"\x1b[1;31m", b"\x1b[33m", b"\x1b[36m", b"\x1b[0m"):  # our own colours pass
            out = out.replace(colour, b"")
        c.that(b"\x1b" not in out and b"\x07" not in out, "raw control bytes on the terminal: %r" % out[:300])
        c.that(b"X\\x1B]0;pwned\\x07\\x1B[2J_IDLE_00.ALA" in out, "escaped name: %r" % out[:300])



FORGED = bombs.FORGED


def forged_lines(text):
    """The lines of an output that a forged name would have added."""
    return [ln for ln in text.split("\n")
            if ln.startswith("::error") or ln.startswith("lint: 0 files, 0 errors; passed") or
            ln.startswith("_IDLE_00") or ln.startswith("_BONE")]


def test_forged_lines():
    """Issue 21 (5): a name that holds LF, CR, ESC forges no line in any text output, piped."""
    if WINDOWS:
        why = "not on Windows: its file names cannot hold control characters (LF, CR, ESC)"
        tap.skip("a name holding '\\n::error ...\\nlint: ... passed\\x1b[2K' forges no line in "
                 "lint, issues, show, refs, changes, clips, skeletons, dump (piped)", why)
        tap.skip("the same names in JSON, SARIF and JUnit: escaped by their formats' rules, read "
                 "back as they are", why)
        return
    root = fresh("forged")
    clipname = FORGED + "_IDLE_00.ALA"
    # a model and a clip whose names (and a bone's) hold the forged lines; the clip names a
    # bone the model lacks, so a finding's message holds them too
    amxgen("model", os.path.join(root, FORGED + ".ALO"), "--bones", "Root,Body")
    amxgen("clip", os.path.join(root, clipname), "--bones", "Root," + FORGED + "_BONE")
    db = os.path.join(TMP, "forged.db")
    must(ax.run("scan", root, "--db", db, "--quiet"), "scan")
    esc_name = "x\\x0A::error file=README.md::forged\\x0Alint: 0 files, 0 errors; passed\\x1B[2K\\x0A"
    runs = {
        "changes": ax.run("changes", "--db", db),
        "lint": ax.run("lint", root, "--db", db),
        "issues": ax.run("issues", "--db", db),
        "show": ax.run("show", "--db", db, os.path.join(root, clipname)),
        "refs": ax.run("refs", "--db", db, os.path.join(root, FORGED + ".ALO")),
        "clips": ax.run("clips", "--db", db, "--bone", "Root"),
        "skeletons": ax.run("skeletons", "--db", db),
        "dump": ax.run("dump", os.path.join(root, clipname)),
        "dump (stderr)": ax.run("dump", os.path.join(root, FORGED + "missing")),
        "show (stderr)": ax.run("show", "--db", db, FORGED + "missing"),
    }
    with case(tap, "a name holding '\\n::error ...\\nlint: ... passed\\x1b[2K' forges no line in "
                   "lint, issues, show, refs, changes, clips, skeletons, dump (piped)") as c:
        for what, p in runs.items():
            text = p.stdout + p.stderr
            c.eq(forged_lines(text), [], "%s: forged lines" % what)
            c.that("\x1b" not in text and "\r" not in text, "%s: raw control bytes: %r" % (what, text[:300]))
            c.that(esc_name in text, "%s: the name escaped in %r" % (what, text[:400]))
    with case(tap, "the same names in JSON, SARIF and JUnit: escaped by their formats' rules, read "
                   "back as they are") as c:
        got = json.loads(must(ax.run("issues", "--db", db, "--json"), "issues --json").stdout)
        c.that(any(i["path"] == clipname for i in got), "issues --json paths: %s" % short([i["path"] for i in got]))
        sarif = ax.run("lint", root, "--db", db, "--format", "sarif").stdout
        c.eq(forged_lines(sarif), [], "SARIF: forged lines")
        try:
            uris = [r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"]
                    for r in json.loads(sarif)["runs"][0]["results"]]
            c.that(any("x%0A::error" in u for u in uris), "SARIF URIs: %s" % short(uris))
        except (ValueError, KeyError, IndexError) as e:
            c.that(False, "SARIF: %s" % e)
        junit = ax.run("lint", root, "--db", db, "--format", "junit").stdout
        c.eq(forged_lines(junit), [], "JUnit: forged lines")
        c.that("\x1b" not in junit and esc_name in junit, "JUnit: %r" % junit[:400])
        import xml.dom.minidom
        try:
            xml.dom.minidom.parseString(junit)
        except Exception as e:  # noqa: BLE001 (any parse error)
            c.that(False, "JUnit is not XML: %s" % e)
        # C1 controls are escaped in JSON too (a terminal may run U+009B as CSI)
        amxgen("clip", os.path.join(root, "Y\u009b2J_IDLE_00.ALA"), "--bones", "a")
        must(ax.run("scan", root, "--db", db, "--quiet"), "rescan")
        raw = must(ax.run("issues", "--db", db, "--json"), "issues --json").stdout
        c.that("\u009b" not in raw and "\\u009b" in raw, "C1 in JSON: %r" % raw[:200])


def test_dump_fifo():
    with case(tap, "dump of a FIFO or a device is refused at once (not read)") as c:
        d = fresh("fifo")
        fifo = os.path.join(d, "X_IDLE_00.ALA")
        os.mkfifo(fifo)
        for path, kind in ((fifo, "a FIFO"), ("/dev/zero", "a character device"), (d, "a directory")):
            try:
                p = ax.run("dump", path, timeout=10)
            except subprocess.TimeoutExpired:
                c.that(False, "dump %s blocked" % path)
                continue
            c.eq(p.returncode, 3, "dump %s: exit status" % path)
            c.that(kind in p.stderr and "skipped" in p.stderr, "dump %s: stderr %r" % (path, p.stderr))


# ---------------------------------------------------------------- 9. output in proportion

def test_samples_linear():
    with case(tap, "dump --samples of a tiny clip that claims a million frames stays small; "
                   "--max-frames asks for more") as c:
        d = fresh("samples")
        big = os.path.join(d, "BIG.ALA")
        amxgen("ala-constant", big, "--frames", 1000000, "--bones", 1)
        c.that(os.path.getsize(big) < 400, "the file has %d bytes" % os.path.getsize(big))
        p, secs = timed("dump", "--json", "--samples", big, timeout=60)
        c.eq(p.returncode, 0, "exit status (an info finding only)")
        c.that(len(p.stdout) < 4096, "%d bytes of JSON from a %d-byte file" % (len(p.stdout), os.path.getsize(big)))
        try:
            o = json.loads(p.stdout)
            c.that(all("samples" not in t for cl in o["clips"] for t in cl["tracks"]), "samples given")
            lim = [i for i in o["issues"] if i["code"] == "LIMIT_EXCEEDED"]
            c.that(lim and lim[0]["severity"] == "info" and "4096" in lim[0]["message"],
                   "finding: %s" % short(o["issues"]))
        except (ValueError, KeyError) as e:
            c.that(False, "dump JSON: %s" % e)
        mid = os.path.join(d, "MID.ALA")
        amxgen("ala-constant", mid, "--frames", 5000, "--bones", 2)
        o = json.loads(must(ax.run("dump", "--json", "--samples", mid), "dump").stdout)
        c.that(all("samples" not in t for t in o["clips"][0]["tracks"]), "5000 frames: not sampled by default")
        o = json.loads(must(ax.run("dump", "--json", "--samples", "--max-frames", 5000, mid), "dump").stdout)
        c.eq([len(t.get("samples", {}).get("rotation", [])) for t in o["clips"][0]["tracks"]],
             [5000, 5000], "samples with --max-frames 5000")
        p = ax.run("dump", "--samples", "--max-frames", "lots", mid)
        c.eq(p.returncode, 2, "a bad --max-frames")

    with case(tap, "report.html: the bone tree of 20,000 bones is drawn in linear time, and the "
                   "trees drawn do not grow with the clips") as c:
        d = fresh("treebig")
        amxgen("tree", os.path.join(d, "t"), "--bones", 20000, "--clips", 12)
        db = os.path.join(d, "db")
        must(ax.run("scan", os.path.join(d, "t"), "--db", db, "--quiet"), "scan")
        p, secs = timed("report", "--db", db, "--out", os.path.join(d, "out"), timeout=120)
        must(p, "report")
        # quadratic in the bones, each tree took about a quarter of a second
        c.that(secs < 2 * SLOW, "report of 12 trees of 20,000 bones took %.1f s" % secs)
        trees = {}
        for clips in (60, 120):
            d = fresh("tree%d" % clips)
            amxgen("tree", os.path.join(d, "t"), "--bones", 300, "--clips", clips)
            db = os.path.join(d, "db")
            must(ax.run("scan", os.path.join(d, "t"), "--db", db, "--quiet"), "scan")
            must(ax.run("report", "--db", db, "--out", os.path.join(d, "out"), timeout=120), "report")
            with open(os.path.join(d, "out", "report.html"), encoding="utf-8") as fh:
                trees[clips] = fh.read().count("<svg class=\"tree\"")
        c.that(trees[60] == trees[120] and trees[60] <= 60, "trees drawn: %s" % trees)


# ------------------------------------------- issue 21: hostile XML (defects 1, 10 and 14)

def query(db, sql_text):
    con = sqlite3.connect(db)
    try:
        return con.execute(sql_text).fetchall()
    finally:
        con.close()


def test_xml_entities():
    with case(tap, "issue 21/1: 4,000 references to an entity of 50,000 characters in an "
                   "attribute (a 62 KB file) scan in a moment; the name is kept as written and "
                   "one finding names the entity") as c:
        root = fresh("entity")
        write(os.path.join(root, "XML", "Units.xml"), bombs.entity_doc(4000))
        db = os.path.join(TMP, "entity.db")
        p, secs = timed("scan", root, "--db", db, "--quiet", timeout=300)
        must(p, "scan")
        # 18 s, 1.4 GB and an index of 600 MB before (the name expanded, 200,000,000 chars)
        c.that(secs < 3 * SLOW, "the scan took %.1f s" % secs)
        c.that(os.path.getsize(db) < 4 << 20, "index of %d bytes" % os.path.getsize(db))
        c.eq(query(db, "SELECT substr(name, 1, 6), substr(name, 257) FROM game_objects"),
             [("&a;&a;", "\u2026(12000 bytes)")],
             "the object's name, as written (12,000 bytes: stored cut, issue 21/3)")
        got = [i["message"] for i in issues(db, "--code", "XML_MALFORMED")]
        c.that(len(got) == 1 and "entity reference '&a;' (4000 times, first at line 4)" in got[0]
               and "not expanded" in got[0], "findings: %s" % short(got))

    with case(tap, "issue 21/10: x&i;y in element text is a reference to 'x&i;y.alo' (not "
                   "'xy.alo'), with a finding naming the entity, in a well-formed file and after "
                   "an error") as c:
        root = fresh("entitytext")
        write(os.path.join(root, "XML", "A.xml"), bombs.ENTITY_IN_TEXT)
        write(os.path.join(root, "XML", "B.xml"),
              '<u>\n<o Name="B">\n<Note>a < b</Note>\n'
              '<Space_Model_Name>p&q;r.alo</Space_Model_Name>\n</o>\n</u>\n')
        write(os.path.join(root, "Art", "Models", "xy.alo"), b"")
        db = os.path.join(TMP, "entitytext.db")
        must(ax.run("scan", root, "--db", db, "--quiet"), "scan")
        c.eq(query(db, "SELECT name FROM refs ORDER BY name"), [("p&q;r.alo",), ("x&i;y.alo",)],
             "references")
        got = sorted((i["path"], i["message"]) for i in issues(db, "--code", "XML_MALFORMED"))
        c.that(any(p == "XML/A.xml" and "entity reference '&i;' (1 time, first at line 5)" in m
                   for p, m in got) and
               any(p == "XML/B.xml" and "entity reference '&q;' (1 time, first at line 4)" in m
                   for p, m in got), "findings: %s" % short(got))


def test_xml_stop_and_memory():
    big = os.path.join(TMP, "xmlbig", "XML", "Big.xml")
    size = bombs.one_line_xml(big, 10000000)
    root = os.path.dirname(os.path.dirname(big))
    with case(tap, "issue 21/1: SIGTERM stops a scan within a second while a 40 MB XML file is "
                   "decoding; nothing of the file is written, the scan says it was interrupted") as c:
        db = os.path.join(TMP, "xmlstop.db")
        p = tap_popen(ANIMIDX, ["scan", root, "--db", db], env=ax.env,
                      stdout=subprocess.PIPE, stderr=subprocess.PIPE, universal_newlines=True)
        # the scan records its root before it walks (and handles signals by then); the file
        # is read a moment later, and its decode takes seconds
        deadline = time.time() + 60 * SLOW
        while time.time() < deadline and p.poll() is None:
            try:
                if os.path.exists(db) and query(db, "SELECT count(*) FROM roots")[0][0]:
                    break
            except sqlite3.Error:
                pass
            time.sleep(0.02)
        time.sleep(0.3)
        t0 = time.time()
        # Windows has no SIGTERM: its stop is Ctrl-C (wine turns SIGINT into it)
        p.send_signal(signal.SIGINT if WINDOWS else signal.SIGTERM)
        out, err = p.communicate(timeout=300)
        secs = time.time() - t0
        c.eq(p.returncode, 130, "exit status (interrupted)")
        c.that(secs < 1.0 * SLOW, "exit %.2f s after SIGTERM (54 s before)" % secs)
        c.that("interrupted" in err, "stderr: %r" % err[-300:])
        c.eq(paths(db), [], "files indexed")

    with case(tap, "issue 21/14: a 40 MB single-line XML file is read within its size and a "
                   "little more (libxml2's tree held 1.96 GB for 200 MB)") as c:
        db = os.path.join(TMP, "xmlmem.db")
        p = tap_popen(ANIMIDX, ["scan", root, "--db", db, "--quiet"], env=ax.env,
                      stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        _, status, usage = os.wait4(p.pid, 0)
        p.returncode = os.waitstatus_to_exitcode(status)
        err = p.stderr.read().decode(errors="replace")
        p.stdout.close()
        p.stderr.close()
        c.eq(p.returncode, 0, "scan exit status (stderr %r)" % err[-300:])
        c.eq(paths(db), ["XML/Big.xml"], "files indexed")
        peak = usage.ru_maxrss * 1024
        c.note("peak memory %.0f MB for a file of %.0f MB" % (peak / 1e6, size / 1e6))
        if not SANITIZED:  # a sanitizer's shadow memory is not the reader's
            c.that(peak < 3 * size + (100 << 20), "peak memory %.0f MB" % (peak / 1e6))
    shutil.rmtree(os.path.dirname(root), ignore_errors=True)


def test_xml_messages():
    with case(tap, "issue 21/14: libxml2's messages are findings, never stderr (--quiet or not); "
                   "NUL bytes are reported as such, not as Latin-1") as c:
        root = fresh("xmlmsg")
        for name, data in bombs.XML_NOT_TEXT.items():
            write(os.path.join(root, "XML", name), data)
        for extra in (["--quiet"], []):  # each into a new index: every file is decoded
            db = os.path.join(TMP, "xmlmsg%d.db" % len(extra))
            p = must(ax.run("scan", root, "--db", db, *extra), "scan")
            c.eq(p.stderr, "", "stderr of scan %s" % " ".join(extra))
        p = ax.run("dump", os.path.join(root, "XML", "Sjis.xml"))
        c.that("encoding error" not in p.stderr and "I/O error" not in p.stderr,
               "dump's stderr: %r" % p.stderr)
        got = {i["path"]: i["message"] for i in issues(db, "--code", "XML_MALFORMED")}
        c.that("input conversion failed" in got.get("XML/Sjis.xml", ""), "Sjis: %s" % short(got))
        c.that("input conversion failed" in got.get("XML/Utf16.xml", ""), "Utf16: %s" % short(got))
        c.that(got.get("XML/Nul.xml", "").startswith("1 NUL byte (the first at byte 34)"),
               "Nul: %s" % short(got))
        all_msgs = [i["message"] for i in issues(db)]
        c.that(not any("Latin-1" in m for m in all_msgs), "no Latin-1 note: %s" % short(all_msgs))
        c.eq(query(db, "SELECT name FROM game_objects ORDER BY name"),
             [("A",), ("B",), ("a",)], "objects (what follows a NUL is read)")


# ------------------------------- issue 21, defect 11: a base layer inside the tree or holding it

def test_base_nesting():
    with case(tap, "issue 21/11: a base layer that is the tree, lies inside it or holds it is a "
                   "usage error naming both paths and the fix (--base or the config; scan, lint, "
                   "watch, animidxd); a sibling base is taken") as c:
        top = fresh("nest")
        mod = os.path.join(top, "Mod", "Data")
        inner = os.path.join(mod, "Game")
        sibling = os.path.join(top, "Game")
        for d in (inner, sibling):
            amxgen("model", os.path.join(d, "Art", "Models", "X.ALO"), "--bones", "a,b")
        real = os.path.realpath
        db = os.path.join(top, "db")
        cases = [("lies inside the tree", inner), ("holds the tree", os.path.dirname(mod)),
                 ("is the tree itself", mod)]
        for what, base in cases:
            p = ax.run("scan", mod, "--base", base, "--db", db)
            c.eq(p.returncode, 2, "scan --base %s: exit status" % what)
            c.that("base layer %s %s %s" % (real(base), what, real(mod)) in p.stderr and
                   "give --base the game's or the parent mod's own directory" in p.stderr,
                   "scan --base %s: %r" % (what, p.stderr))
            p = ax.run("lint", mod, "--base", base, "--db", db)
            c.eq(p.returncode, 2, "lint --base %s: exit status (%r)" % (what, p.stderr[-300:]))
        c.that(not os.path.exists(db) or paths(db) == [], "nothing indexed")
        cfg = os.path.join(top, "animidx.ini")
        write(cfg, "[index]\ndatabase = %s\n[root %s]\nbase = %s\n" % (db, mod, os.path.dirname(mod)))
        p = ax.run("scan", mod, "--config", cfg)
        c.eq(p.returncode, 2, "scan with the config's base: exit status")
        c.that("holds the tree" in p.stderr and "[root %s] base in %s" % (mod, cfg) in p.stderr,
               "scan with the config's base: %r" % p.stderr)
        p = ax.run("watch", mod, "--base", inner, "--db", db, timeout=60)
        c.eq(p.returncode, 2, "watch --base inside: exit status (%r)" % p.stderr[-300:])
        c.that("lies inside the tree" in p.stderr, "watch: %r" % p.stderr[-300:])
        daemon = os.path.join(os.path.dirname(ANIMIDX), "..", "daemon",
                              "animidxd.exe" if WINDOWS else "animidxd")
        if os.path.exists(daemon):
            sock = "//./pipe/animidx-test-nest-%d" % os.getpid() if WINDOWS else os.path.join(top, "d.sock")
            # in the foreground: a daemon that wrongly starts is killed at the timeout, not
            # left running in the background
            p = tap_run(daemon, [mod, "--config", cfg, "--socket", sock, "--foreground"],
                        env=ax.env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                        universal_newlines=True, timeout=60)
            c.eq(p.returncode, 2, "animidxd with the config's base: exit status (%r)" %
                 p.stderr[-300:])
            c.that("holds the tree" in p.stderr, "animidxd: %r" % p.stderr[-300:])
        must(ax.run("scan", mod, "--base", sibling, "--db", db, "--quiet"), "scan, sibling base")
        c.eq([(host_text(r),) for r, in query(db, "SELECT path FROM roots ORDER BY path")],
             sorted([(real(mod),), (real(sibling),)]), "roots")


# ------------------------- issue 21, defect 13: a scan's exit is not held by an open reader

def test_exit_with_reader():
    with case(tap, "issue 21/13: a scan that writes ends at once while another connection reads "
                   "(the closing checkpoint does not wait 10 s for it); without readers the log "
                   "is still emptied") as c:
        root = fresh("reader")
        amxgen("demo", root)
        db = os.path.join(TMP, "reader.db")
        must(ax.run("scan", root, "--db", db, "--quiet"), "first scan")
        victim = os.path.join(root, "Data", "Art", "Models", "touched.xml")
        write(victim, '<u><o Name="A"><Land_Model_Name>A.alo</Land_Model_Name></o></u>')
        con = sqlite3.connect(db, isolation_level=None)
        try:
            con.execute("BEGIN")
            con.execute("SELECT count(*) FROM files").fetchall()  # holds a read snapshot
            p, secs = timed("scan", root, "--db", db, "--quiet", timeout=120)
            must(p, "scan while a reader holds the log")
            c.that(secs < 3 * SLOW, "the scan took %.1f s (10.4 s before: the checkpoint's "
                                    "busy timeout)" % secs)
        finally:
            con.execute("COMMIT")
            con.close()
        c.that(("Data/Art/Models/touched.xml",) in query(db, "SELECT path FROM files"),
               "the scan's change is in the index")
        write(victim, '<u><o Name="B"/></u>')
        must(ax.run("scan", root, "--db", db, "--quiet"), "scan without a reader")
        wal = db + "-wal"
        c.eq(os.path.getsize(wal) if os.path.exists(wal) else 0, 0, "bytes left in the log")


# ------------------------------------------- issue 21, defect 3: output in proportion

def output_size(args, limit):
    """Bytes a command writes to stdout, read as they come; past `limit` the command is
    stopped (the size returned is then more than the limit)."""
    p = tap_popen(ANIMIDX, args, env=ax.env, cwd=TMP,
                  stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    n = 0
    head = b""
    while True:
        chunk = p.stdout.read(1 << 16)
        if not chunk:
            break
        if len(head) < 1 << 16:
            head += chunk[:(1 << 16) - len(head)]
        n += len(chunk)
        if n > limit:
            p.kill()
            break
    p.stdout.close()
    p.wait()
    return n, p.returncode, head.decode("utf-8", "replace")


def test_output_proportion():
    with case(tap, "issue 21/3: a 366 KB XML file (a 300,000-character Name, a 65 KB terrain "
                   "mapping) makes refs --missing, refs FILE and show FILE print megabytes, not "
                   "1.8 GB; the same referrer many times is one line, counted") as c:
        root = os.path.join(fresh("proportion"), "Data")
        write(os.path.join(root, "XML", "Big.xml"), bombs.proportion_doc(300000, 65000))
        amxgen("model", os.path.join(root, "Art", "Models", "Twice.alo"), "--bones", "a,b")
        write(os.path.join(root, "XML", "Twice.xml"),
              '<Units><SpaceUnit Name="T"><Land_Terrain_Model_Mapping>%s'
              "</Land_Terrain_Model_Mapping></SpaceUnit></Units>\n" % ("T,Twice.alo," * 3000))
        db = os.path.join(TMP, "proportion.db")
        must(ax.run("scan", root, "--db", db, "--quiet"), "scan")
        size = os.path.getsize(os.path.join(root, "XML", "Big.xml"))
        limit = 24 * size  # 1.65 GB each before
        for args in (["refs", "--missing"], ["refs", "XML/Big.xml"], ["show", "XML/Big.xml"]):
            for json_flag in ([], ["--json"]):
                n, rc, head = output_size(args + json_flag + ["--db", db], limit)
                what = " ".join(args + json_flag)
                c.note("%s: %d bytes for a file of %d" % (what, n, size))
                c.that(n <= limit, "%s printed %d bytes, more than %d" % (what, n, limit))
                c.eq(rc, 0, "%s: exit status" % what)
                c.that("N" * 257 not in head, "%s repeats the whole name" % what)
        _, _, text = output_size(["show", "XML/Big.xml", "--db", db], limit)
        c.that("\u2026(300000 bytes)': Land_Terrain_Model_Mapping = m0.alo" in text and
               "line 4      the same object: Land_Terrain_Model_Mapping = m1.alo" in text,
               "show: %s" % short(text[:1200]))
        _, _, text = output_size(["refs", "Art/Models/Twice.alo", "--db", db], limit)
        c.that("XML/Twice.xml: Land_Terrain_Model_Mapping of 'T', line 1 (model 'Twice.alo') "
               "(3000 times)" in text, "refs, named by: %s" % short(text[-600:]))
        _, _, text = output_size(["show", "Art/Models/Twice.alo", "--db", db], limit)
        c.that("SpaceUnit 'T' (XML/Twice.xml:1, Land_Terrain_Model_Mapping) (3000 times)" in text,
               "show, used by: %s" % short(text[-600:]))
        got = [i["message"] for i in issues(db, "--code", "LIMIT_EXCEEDED")]
        c.that(any("Name at line 3, 300000 bytes" in m for m in got), "findings: %s" % short(got))


def main():
    tests = [test_pak_bomb, test_amplification, test_findings_cap, test_symlink_ancestor,
             test_links_out_of_root, test_unreadable_dir,
             test_foreign_database, test_readonly_index, test_config_location, test_report_links,
             test_side_files,
             test_names_not_text, test_forged_lines, test_dump_fifo, test_samples_linear, test_xml_entities,
             test_xml_stop_and_memory, test_xml_messages, test_base_nesting,
             test_exit_with_reader, test_output_proportion]
    only = os.environ.get("AMX_ONLY")  # e.g. AMX_ONLY=test_side_files: those tests alone
    for t in tests:
        if not only or t.__name__ in only.split(","):
            t()
    rc = tap.finish()
    if rc == 0 and not os.environ.get("AMX_KEEP_TMP"):
        shutil.rmtree(TMP, ignore_errors=True)
    else:
        print("# kept %s" % TMP)
    return rc


if __name__ == "__main__":
    sys.exit(main())
