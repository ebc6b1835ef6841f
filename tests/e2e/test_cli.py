#!/usr/bin/env python3
"""The command line at mod scale (issue 15): strict options, paths as people type them, '#' in
file names, messages that tell the truth, issues grouped and limited, `changes`, `--bone`,
colours, and the man pages and completions meson builds and installs. TAP on stdout; standard
library only.

usage: test_cli.py ANIMIDX AMXGEN BUILD_ROOT
"""
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from tap import Tap, Cli, case, short, WINDOWS  # noqa: E402

if len(sys.argv) < 4:
    sys.stderr.write("usage: test_cli.py ANIMIDX AMXGEN BUILD_ROOT\n")
    sys.exit(2)

ANIMIDX = os.path.abspath(sys.argv[1])
AMXGEN = os.path.abspath(sys.argv[2])
BUILD = os.path.abspath(sys.argv[3])
TMP = os.path.realpath(tempfile.mkdtemp(prefix="animidx-cli-"))
tap = Tap()
ax = Cli(ANIMIDX, TMP)
gen = Cli(AMXGEN, TMP)
ax.env["XDG_CACHE_HOME"] = os.path.join(TMP, "xdg-cache")
ax.env.pop("NO_COLOR", None)


def must(p, what, rc=0):
    if p.returncode != rc:
        raise AssertionError("%s: exit %d (want %d)\nstderr: %s\nstdout: %s" % (
            what, p.returncode, rc, p.stderr.strip()[:2000], p.stdout.strip()[:2000]))
    return p


def amxgen(*args):
    must(gen.run(*args), "amxgen " + " ".join(map(str, args)))


# A game tree: Data/Art/Models with a model, clips (one truncated), a clip in another
# directory with the same file name, files with '#' in their names, and an archive.
GAME = os.path.join(TMP, "game")
DATA = os.path.join(GAME, "Data")
MODELS = os.path.join(DATA, "Art", "Models")
OTHER = os.path.join(DATA, "Art", "Other")
DB = os.path.join(TMP, "index.db")
os.makedirs(MODELS)
os.makedirs(OTHER)
amxgen("model", os.path.join(MODELS, "X_SHIP.ALO"), "--bones", "Root,Body,Gun")
amxgen("clip", os.path.join(MODELS, "X_SHIP_IDLE_00.ALA"), "--bones", "Root,Body,Gun")
amxgen("clip", os.path.join(MODELS, "X_SHIP_MOVE_00.ALA"), "--bones", "Root,Body,Gun", "--frames", "40")
with open(os.path.join(MODELS, "X_SHIP_MOVE_00.ALA"), "r+b") as f:
    f.truncate(os.path.getsize(os.path.join(MODELS, "X_SHIP_MOVE_00.ALA")) * 2 // 3)
amxgen("clip", os.path.join(MODELS, "X_SHIP_DIE_00.ALA"), "--bones", "Root,Wing,Gun,A,B,C,D,E")
amxgen("clip", os.path.join(OTHER, "X_SHIP_IDLE_00.ALA"), "--bones", "Root,Body,Gun")
# '#': a loose old copy of a clip, a model, and a file named like a member of the archive
amxgen("clip", os.path.join(MODELS, "X_SHIP_IDLE_00#old.ALA"), "--bones", "Root,Hull")
amxgen("model", os.path.join(TMP, "w.alo"), "--bones", "Root,Leg")
amxgen("clip", os.path.join(TMP, "w.ala"), "--bones", "Root,Leg")
amxgen("meg", os.path.join(DATA, "Units.meg"), "W.ALO=" + os.path.join(TMP, "w.alo"),
       "W_WALK_00.ALA=" + os.path.join(TMP, "w.ala"))
amxgen("clip", os.path.join(DATA, "Units.meg#W_WALK_00.ALA"), "--bones", "Root,Tail")
must(ax.run("scan", DATA, "--db", DB, "--quiet"), "scan")


def helps():
    """{command: {option: value or None}} from every command's --help."""
    top = must(ax.run("--help"), "--help").stdout
    cmds = re.findall(r"^  (\S+)\s", top.split("commands:")[1].split("\n\n")[0], re.M)
    out = {}
    for cmd in cmds:
        text = must(ax.run(cmd, "--help"), cmd + " --help").stdout
        opts = {}
        for m in re.finditer(r"^  (--[a-z-]+)(?: ([A-Z]+))?\s", text.split("options:")[1], re.M):
            opts[m.group(1)] = m.group(2)
        out[cmd] = opts
    return out


HELP = helps()

# ---------------------------------------------------------------- 2. no ignored options

with case(tap, "every command's --help lists every option it takes, --db and --json included") as c:
    reads_index = {"scan", "clips", "skeletons", "issues", "show", "changes", "watch", "lint", "report"}
    json_out = {"scan", "dump", "clips", "skeletons", "issues", "show", "rules", "changes", "status",
                "pause", "resume", "sync", "lint"}
    for cmd, opts in HELP.items():
        c.that("--config" in opts and "--help" in opts, "%s --help lists --config and --help" % cmd)
        if cmd in reads_index:
            c.that("--db" in opts, "%s --help lists --db" % cmd)
        if cmd in json_out:
            c.that("--json" in opts, "%s --help lists --json" % cmd)
    c.that(len(HELP) >= 15, "commands: %s" % sorted(HELP))
    top = ax.run("--help").stdout
    c.that(all(e in top for e in ("Alamo", "MechWarrior 3", "Metroid Prime", "W3D")), "--help names the four engines")

with case(tap, "every option a command does not take is a usage error naming the commands that take it") as c:
    every = {}
    for cmd, opts in HELP.items():
        for o, v in opts.items():
            if o not in ("--config", "--help"):
                every.setdefault(o, (v, set()))[1].add(cmd)
    tried = 0
    for cmd in HELP:
        for o, (v, takers) in sorted(every.items()):
            if cmd in takers:
                continue
            args = [cmd, o] + (["x"] if v else [])
            p = ax.run(*args, "--db", DB) if o != "--db" else ax.run(*args)
            tried += 1
            ok = p.returncode == 2 and ("%s does not take %s" % (cmd, o)) in p.stderr
            names = all(t in p.stderr.split("(")[1] for t in takers) if "(" in p.stderr else False
            if not c.that(ok and names, "animidx %s: exit %d, %r" % (" ".join(args), p.returncode, p.stderr[:300])):
                break
    c.that(tried > 150, "tried %d rejected options" % tried)
    p = ax.run("issues", "--format", "sarif", "--db", DB)
    c.eq(p.returncode, 2, "issues --format sarif")
    c.that("issues does not take --format (lint takes it)" in p.stderr, "names lint: %r" % p.stderr)
    p = ax.run("scan", DATA, "--fail-on", "warning", "--db", DB)
    c.eq(p.returncode, 2, "scan --fail-on warning")
    c.that("(watch, status and lint take it)" in p.stderr, "names lint: %r" % p.stderr)
    p = ax.run("skeletons", "--include-base", "--db", DB)
    c.that(p.returncode == 2 and "scan, issues, refs, lint and report take it" in p.stderr, "several takers: %r" % p.stderr)
    c.eq(ax.run("issues", "--no-such-option", "--db", DB).returncode, 2, "an unknown option")
    p = ax.run("changes", "--since", "--db", DB)
    c.that(p.returncode == 2 and "--since needs a value" in p.stderr and "--db" in p.stderr,
           "an option where a value goes is named as such: %r" % p.stderr)
    p = ax.run("dump", "--max-frames", "10", os.path.join(MODELS, "X_SHIP_IDLE_00.ALA"))
    c.that(p.returncode == 2 and "--samples" in p.stderr,
           "dump --max-frames without --samples (it shapes the samples): %d %r" % (p.returncode, p.stderr))
    p = ax.run("refs", "X_SHIP.ALO", "--include-base", "--db", DB)
    c.that(p.returncode == 2 and "--missing" in p.stderr,
           "refs PATH --include-base (it shapes --missing): %d %r" % (p.returncode, p.stderr))
    p = ax.run("lint", DATA, "--db", DB, "--format", "sarif", "--json")
    c.that(p.returncode == 2 and "--json" in p.stderr and "--format sarif" in p.stderr,
           "lint --format sarif --json: which one? %r" % p.stderr)
    p = ax.run("lint", DATA, "--db", DB, "--format", "json", "--json", "--quiet")
    c.eq(p.returncode, 1 if '"passed": false' in p.stdout else 0, "lint --format json --json agree")
    p = ax.run("lint", DATA, "--db", DB, "--fail-on", "--quiet")
    c.that(p.returncode == 2 and "--fail-on needs a value" in p.stderr, "lint --fail-on --quiet: %r"
           % p.stderr)

with case(tap, "the daemon's commands take no argument: one is a usage error, before any daemon "
               "is asked") as c:
    # a socket no daemon listens on: an argument that were ignored would reach no real daemon
    cfg = os.path.join(TMP, "nodaemon.ini")
    with open(cfg, "w") as fh:
        fh.write("[daemon]\nsocket = %s\n" % os.path.join(TMP, "nodaemon.sock").replace("\\", "/"))
    for cmd in ("status", "pause", "resume", "sync", "stop"):
        p = ax.run(cmd, "Data", "--config", cfg)
        c.eq(p.returncode, 2, "animidx %s Data: exit status (stderr %r)" % (cmd, p.stderr[:300]))
        c.that("unexpected argument 'Data'" in p.stderr, "%s: says so: %r" % (cmd, p.stderr[:300]))
    c.eq(ax.run("status", "--config", cfg).returncode, 3, "status without a daemon: exit 3")


with case(tap, "scan FILE is a usage error; scan --quiet prints nothing") as c:
    p = ax.run("scan", os.path.join(MODELS, "X_SHIP.ALO"), "--db", DB)
    c.eq(p.returncode, 2, "scan of a file")
    c.that("is not a directory" in p.stderr and "animidx lint" in p.stderr, "says what to do: %r" % p.stderr)
    p = ax.run("scan", DATA, "--db", DB, "--quiet")
    c.eq((p.returncode, p.stdout, p.stderr), (0, "", ""), "scan --quiet")
    p = ax.run("scan", DATA, "--db", DB)
    c.that(p.returncode == 0 and "scanned" in p.stdout, "without --quiet, the summary")

# ---------------------------------------------------------------- 3. paths as people type them


def shown(*args, cwd=None):
    p = ax.run("show", *args, "--db", DB, "--json", cwd=cwd)
    try:
        rows = json.loads(p.stdout) if p.stdout.strip() else []
    except ValueError:
        rows = None
    return p, [r["path"] for r in rows or []]


with case(tap, "show: every form of a path finds the file") as c:
    want = ["Art/Models/X_SHIP.ALO"]
    forms = [
        ("relative to the root", "Art/Models/X_SHIP.ALO", None),
        ("./ and relative to the root", "./Art/Models/X_SHIP.ALO", None),
        ("relative to the current directory", "X_SHIP.ALO", MODELS),
        ("relative to the current directory, ./", "./Models/X_SHIP.ALO", os.path.join(DATA, "Art")),
        ("relative to the current directory, ..", "../Models/X_SHIP.ALO", OTHER),
        ("from the game directory", "Data/Art/Models/X_SHIP.ALO", GAME),
        ("absolute", os.path.join(MODELS, "X_SHIP.ALO"), None),
        ("the file name", "X_SHIP.ALO", None),
        ("case-insensitive (Alamo)", "art/models/x_ship.alo", None),
        ("the file name, any case", "x_ship.alo", None),
    ]
    for what, arg, cwd in forms:
        p, paths = shown(arg, cwd=cwd)
        c.eq((p.returncode, paths), (0, want), "%s: %s (%s)" % (what, arg, p.stderr.strip()[:200]))
    p, paths = shown("Units.meg#W.ALO")
    c.eq((p.returncode, paths), (0, ["Units.meg#W.ALO"]), "an archive member")
    p, paths = shown("W.ALO")
    c.eq((p.returncode, paths), (0, ["Units.meg#W.ALO"]), "an archive member by its name")

with case(tap, "show: an ambiguous name lists the candidates; no match suggests the closest paths") as c:
    p, paths = shown("X_SHIP_IDLE_00.ALA")
    c.eq(p.returncode, 1, "ambiguous: exit 1")
    c.that("matches 2 indexed files" in p.stderr and "Art/Models/X_SHIP_IDLE_00.ALA" in p.stderr and
           "Art/Other/X_SHIP_IDLE_00.ALA" in p.stderr, "lists both: %r" % p.stderr)
    p, paths = shown("Other/X_SHIP_IDLE_00.ALA")
    c.eq((p.returncode, paths), (0, ["Art/Other/X_SHIP_IDLE_00.ALA"]), "more of the path decides")
    p, paths = shown("X_SHIP_IDEL_00.ALA")
    c.eq(p.returncode, 1, "no match: exit 1")
    c.that("nothing indexed at 'X_SHIP_IDEL_00.ALA'" in p.stderr and "closest indexed paths" in p.stderr and
           "Art/Models/X_SHIP_IDLE_00.ALA" in p.stderr, "suggests: %r" % p.stderr)
    p = ax.run("show", "Art/Models/X_SHIP.ALO/", "--db", DB)
    c.eq(p.returncode, 1, "a file with a trailing slash is not a directory")
    p = ax.run("show", "Art/Models/", "--db", DB)
    c.that(p.returncode == 1 and "'Art/Models/' is a directory; show takes a file" in p.stderr,
           "a directory given to show: %r" % p.stderr)

with case(tap, "issues PATH: a directory with or without a trailing slash, relative, absolute, any case") as c:
    every = json.loads(must(ax.run("issues", "--db", DB, "--json"), "issues").stdout)
    models = sorted({i["path"] for i in every if i["path"].startswith("Art/Models/")})
    for arg, cwd in (("Art/Models/", None), ("Art/Models", None), ("./Art/Models/", None), (MODELS, None),
                     (".", MODELS), ("./", MODELS), ("Models/", os.path.join(DATA, "Art")), ("art/models/", None)):
        p = ax.run("issues", arg, "--db", DB, "--json", cwd=cwd)
        got = sorted({i["path"] for i in json.loads(p.stdout or "[]")})
        c.eq((p.returncode, got), (0, models), "issues %s (cwd %s)" % (arg, cwd))
    p = ax.run("issues", "X_SHIP_DIE_00.ALA", "--db", DB, "--json")
    c.eq(sorted({i["path"] for i in json.loads(p.stdout)}), ["Art/Models/X_SHIP_DIE_00.ALA"], "a file by its name")
    p = ax.run("issues", "Art/Modles/", "--db", DB)
    c.that(p.returncode == 1 and "nothing indexed at" in p.stderr, "no match: %r" % p.stderr)
    c.that("closest indexed paths" in p.stderr and "\n  Art/Models/\n" in p.stderr,
           "a directory that matches nothing: the closest indexed directories: %r" % p.stderr)
    p = ax.run("issues", "Models/", "--db", DB)
    c.that(p.returncode == 1 and "\n  Art/Models/\n" in p.stderr,
           "the end of an indexed directory: that directory suggested: %r" % p.stderr)

with case(tap, "refs PATH: the same forms; a path that matches nothing suggests the closest") as c:
    for arg, cwd in (("Art/Models/X_SHIP.ALO", None), ("x_ship.alo", None), ("./X_SHIP.ALO", MODELS),
                     (os.path.join(MODELS, "X_SHIP.ALO"), None)):
        p = ax.run("refs", arg, "--db", DB, "--json", cwd=cwd)
        rows = json.loads(p.stdout or "[]")
        c.eq((p.returncode, [r.get("path") for r in rows]), (0, ["Art/Models/X_SHIP.ALO"]), "refs %s" % arg)
    p = ax.run("refs", "X_SHIP_IDLE_00.ALA", "--db", DB)
    c.that(p.returncode == 1 and "matches 2 indexed files" in p.stderr, "ambiguous: %r" % p.stderr)
    p = ax.run("refs", "X_SHP.ALO", "--db", DB)
    c.that(p.returncode == 1 and "Art/Models/X_SHIP.ALO" in p.stderr, "no match: %r" % p.stderr)

with case(tap, "clips: a model's path stands for its skeleton") as c:
    a = json.loads(must(ax.run("clips", "--skeleton", "X_SHIP", "--db", DB, "--json"), "clips").stdout)
    b = json.loads(must(ax.run("clips", "art/models/x_ship.alo", "--db", DB, "--json"), "clips by path").stdout)
    c.that(a and a == b, "same clips: %s vs %s" % (short(a), short(b)))
    a = json.loads(must(ax.run("clips", "--model", "X_SHIP", "--db", DB, "--json"), "clips --model").stdout)
    for typed in ("X_SHIP.ALO", "Art/Models/X_SHIP.ALO", "x_ship.alo"):
        b = json.loads(must(ax.run("clips", "--model", typed, "--db", DB, "--json"),
                            "clips --model " + typed).stdout)
        c.that(a and a == b, "--model %s: the model's clips: %s vs %s" % (typed, short(a), short(b)))
    p = ax.run("clips", "--model", "NO_SUCH_MODEL", "--db", DB)
    c.that(p.returncode == 0 and "the model's name" in p.stderr, "nothing plays: what --model takes: %r"
           % p.stderr)

# ---------------------------------------------------------------- 4. '#' in file names

with case(tap, "'#' in a loose file's name: a file of its own, not an archive member") as c:
    p, paths = shown("Art/Models/X_SHIP_IDLE_00#old.ALA")
    c.eq((p.returncode, paths), (0, ["Art/Models/X_SHIP_IDLE_00#old.ALA"]), "show")
    row = json.loads(ax.run("show", "X_SHIP_IDLE_00#old.ALA", "--db", DB, "--json").stdout)[0]
    c.eq(row["container"], None, "not inside an archive")
    c.eq([k["clip"] for k in row["clips"]], ["X_SHIP_IDLE_00#old"], "the clip is named after the whole name")
    x = json.loads(ax.run("show", "X_SHIP_IDLE_00.ALA", "--db", DB, "--json", cwd=MODELS).stdout)
    c.eq([r["path"] for r in x], ["Art/Models/X_SHIP_IDLE_00.ALA"], "X_SHIP_IDLE_00.ALA is still itself")
    p = ax.run("issues", "X_SHIP_IDLE_00#old.ALA", "--db", DB, "--json")
    c.that(p.returncode == 0 and {i["path"] for i in json.loads(p.stdout)} <= {"Art/Models/X_SHIP_IDLE_00#old.ALA"},
           "issues of it: %s" % p.stdout[:300])
    p = ax.run("dump", os.path.join(MODELS, "X_SHIP_IDLE_00#old.ALA"), "--json")
    c.that(p.returncode in (0, 1) and json.loads(p.stdout)["clips"][0]["name"] == "X_SHIP_IDLE_00#old",
           "dump reads it: %r" % p.stdout[:200])

with case(tap, "'#' in SARIF URIs is percent-encoded; the member and the loose file are told apart") as c:
    p = ax.run("lint", "Data", "--format", "sarif", "--fail-on", "info", "--db", DB, cwd=GAME)
    res = json.loads(p.stdout)["runs"][0]["results"]
    uris = {r["properties"]["path"]: r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] for r in res}
    c.eq(uris.get("Units.meg#W_WALK_00.ALA"), "Data/Units.meg%23W_WALK_00.ALA", "the loose 'Units.meg#...' file")
    old = [u for pth, u in uris.items() if pth == "Art/Models/X_SHIP_IDLE_00#old.ALA"]
    c.that(not old or old == ["Data/Art/Models/X_SHIP_IDLE_00%23old.ALA"], "a loose '#' file: %s" % old)
    shadow = [r for r in res if r["ruleId"] == "MEMBER_SHADOWED"]
    c.eq([(r["properties"]["path"], r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"]) for r in shadow],
         [("Units.meg", "Data/Units.meg")], "the archive says its member is shadowed")
    c.that(all("#" not in u for u in uris.values()), "no raw '#' in a URI: %s" % sorted(uris.values()))
    p = ax.run("lint", "Data", "--format", "junit", "--fail-on", "info", "--db", DB, cwd=GAME)
    c.that('name="Art/Models/X_SHIP_IDLE_00#old.ALA"' in p.stdout, "JUnit names it as it is")

with case(tap, "'#' in names: the report plots a loose '#' clip from its file") as c:
    out = os.path.join(TMP, "report")
    must(ax.run("report", "--db", DB, "--out", out, "--plots", "all", "--quiet"), "report")
    html = open(os.path.join(out, "report.html"), encoding="utf-8").read()
    row = html[html.index("<b>X_SHIP_IDLE_00#old</b>"):]
    row = row[:row.index("</tr>")]
    c.that('<svg class="plot"' in row, "plotted: %s" % row[:400])

# ---------------------------------------------------------------- 5. messages that tell the truth

with case(tap, "show and clips do not call a file with errors ok, or its bones matching") as c:
    p = must(ax.run("show", "X_SHIP_MOVE_00.ALA", "--db", DB), "show")
    head = p.stdout.splitlines()[1]
    c.that(re.search(r", \d+ errors? \(", head) and ", ok;" not in head, "show: %r" % head)
    sh = json.loads(ax.run("show", "X_SHIP_MOVE_00.ALA", "--db", DB, "--json").stdout)[0]
    c.that(sh["findings"]["error"] >= 1, "show --json counts its findings: %s" % sh.get("findings"))
    clean = must(ax.run("show", "X_SHIP.ALO", "--db", DB), "show clean").stdout.splitlines()[1]
    c.that(", ok;" in clean, "a clean file is ok: %r" % clean)
    p = must(ax.run("clips", "--skeleton", "X_SHIP", "--db", DB), "clips")
    line = [l for l in p.stdout.splitlines() if "X_SHIP_MOVE_00.ALA" in l]
    c.that(line and "all bones match" not in line[0] and "error finding" in line[0], "clips: %s" % line)
    idle = [l for l in p.stdout.splitlines() if "Models/X_SHIP_IDLE_00.ALA" in l]
    c.that(idle and "all bones match" in idle[0], "a clean clip: %s" % idle)

with case(tap, "clips --skeleton of an unknown skeleton says so and suggests close names") as c:
    p = ax.run("clips", "--skeleton", "X_SHIPP", "--db", DB)
    c.eq(p.returncode, 0, "exit status (the empty list)")
    c.that("no skeleton 'X_SHIPP' in the index" in p.stderr and "X_SHIP" in p.stderr.split("close names:")[-1],
           "stderr: %r" % p.stderr)
    c.that(p.stdout.strip().endswith("0 clips"), "stdout: %r" % p.stdout)
    p = ax.run("clips", "--skeleton", "X_SHIPP", "--db", DB, "--json")
    c.eq(json.loads(p.stdout), [], "--json: an empty array")

with case(tap, "the effective severity everywhere: rules, rules CODE, SARIF rules, issues, report") as c:
    cfg = os.path.join(TMP, "sev.ini")
    with open(cfg, "w") as f:
        f.write("[severity]\nTRUNCATED = warning\n")
    rules = ax.run("rules", "--config", cfg).stdout
    c.that(re.search(r"^TRUNCATED\s+warning\s.*set by the config", rules, re.M), "rules table")
    one = ax.run("rules", "truncated", "--config", cfg)
    c.that(one.returncode == 0 and "severity  warning (set by the config" in one.stdout and
           "fix" in one.stdout and "docs/rules.md#truncated" in one.stdout, "rules CODE: %r" % one.stdout)
    c.that(ax.run("rules", "NOPE").returncode == 2, "rules of an unknown code")
    s = json.loads(ax.run("lint", "Data", "--format", "sarif", "--db", DB, "--config", cfg, cwd=GAME).stdout)
    rule = [r for r in s["runs"][0]["tool"]["driver"]["rules"] if r["id"] == "TRUNCATED"][0]
    c.eq(rule["defaultConfiguration"]["level"], "warning", "SARIF rule default")
    issues = ax.run("issues", "--db", DB, "--config", cfg).stdout
    c.that(re.search(r"^  TRUNCATED\s+warning\s", issues, re.M), "issues by code: %s" % issues[-600:])
    out = os.path.join(TMP, "report-sev")
    must(ax.run("report", "--db", DB, "--out", out, "--config", cfg, "--quiet"), "report")
    html = open(os.path.join(out, "report.html"), encoding="utf-8").read()
    codes = html[html.index('<h2 id="codes">'):html.index('<h2 id="files">')]
    row = codes[codes.index("<code>TRUNCATED</code>"):]
    c.that(">warning</span>" in row[:200], "report by code: %s" % row[:200])
    j = json.load(open(os.path.join(out, "report.json")))
    cards = re.search(r'<div class="num" style="color:#b9770e">(\d+)</div>warnings', html)
    c.eq(int(cards.group(1)) if cards else None, j["totals"]["by_severity"]["warning"], "the warnings card")

# ---------------------------------------------------------------- 6. issues at scale

with case(tap, "issues: grouped by file, repeats collapsed, a line per code, --limit") as c:
    p = must(ax.run("issues", "X_SHIP_DIE_00.ALA", "--db", DB), "issues")
    lines = p.stdout.splitlines()
    c.eq(lines[0], "Art/Models/X_SHIP_DIE_00.ALA", "the file heads its findings")
    bnis = [l for l in lines if l.startswith("  error   BONE_NOT_IN_SKELETON")]
    c.eq(len(bnis), 3, "three of a code are shown")
    c.that(any(re.match(r"^  \.\.\. and \d+ more BONE_NOT_IN_SKELETON$", l) for l in lines), "the rest counted: %s" % lines)
    c.that("by code:" in lines and re.search(r"^  BONE_NOT_IN_SKELETON\s+error\s+\d+ in 1 file$", p.stdout, re.M),
           "a line per code: %s" % lines)
    c.that(re.match(r"^\d+ findings? \(\d+ errors?, \d+ warnings?, \d+ info\) in 1 file$", lines[-1]), "the count: %r" % lines[-1])
    p = must(ax.run("issues", "--limit", "2", "--db", DB), "issues --limit")
    shown_lines = [l for l in p.stdout.splitlines() if re.match(r"^  (error|warning|info) ", l)]
    c.eq(len(shown_lines), 2, "--limit 2 shows two findings")
    c.that(re.search(r"^\.\.\. \d+ more findings not listed \(--limit 2\)$", p.stdout, re.M), "says how many more")
    j = json.loads(must(ax.run("issues", "--limit", "2", "--json", "--db", DB), "issues --json").stdout)
    c.eq(len(j), 2, "--json --limit 2")
    c.eq(ax.run("issues", "--limit", "x", "--db", DB).returncode, 2, "--limit x")

with case(tap, "a code at two severities in one file: the error is never collapsed behind its infos") as c:
    # four models missing without a base layer (info), then an #include that climbs out of the
    # tree (error): one code, REFERENCE_NOT_FOUND, at two severities in one file
    mix = os.path.join(TMP, "mixed")
    os.makedirs(os.path.join(mix, "Data", "INI", "Object"))
    with open(os.path.join(mix, "Data", "INI", "Object", "units.ini"), "w") as f:
        for u in "ABCD":
            f.write("Object Unit%s\n  Draw = W3DModelDraw ModuleTag_01\n    DefaultConditionState\n"
                    "      Model = NOPE%s\n    End\n  End\nEnd\n" % (u, u))
        f.write('#include "../../../../../outside.inc"\n')
    mdb = os.path.join(TMP, "mixed.db")
    must(ax.run("scan", mix, "--db", mdb, "--quiet"), "scan")
    out = must(ax.run("issues", "--db", mdb), "issues").stdout
    lines = out.splitlines()
    c.eq(len([l for l in lines if l.startswith("  error   REFERENCE_NOT_FOUND (#include, line 29)")]), 1,
         "the error is listed after three infos of its code: %s" % out)
    c.eq(len([l for l in lines if l.startswith("  info    REFERENCE_NOT_FOUND")]), 3, "three infos")
    c.that("  ... and 1 more REFERENCE_NOT_FOUND (info)" in lines, "the rest counted, with its severity")
    c.that(re.search(r"^  REFERENCE_NOT_FOUND\s+error\s+5 in 1 file$", out, re.M),
           "by code: one file, not one per severity: %s" % out)
    c.eq(lines[-1], "5 findings (1 error, 0 warnings, 4 info) in 1 file", "the count")
    out = must(ax.run("issues", "--db", mdb, "--severity", "error"), "issues --severity error").stdout
    c.eq(out.splitlines()[-1], "1 finding (1 error, 0 warnings, 0 info) in 1 file", "--severity error counts the error only")
    c.that(re.search(r"^  REFERENCE_NOT_FOUND\s+error\s+1 in 1 file$", out, re.M), "by code, the error only: %s" % out)
    p = ax.run("lint", mix, "--db", os.path.join(TMP, "mixed-lint.db"))
    c.eq(p.returncode, 1, "lint fails on the one error")
    c.that(re.search(r"^REFERENCE_NOT_FOUND\s+error\s+1 finding  in 1 file  \(fails --fail-on\)$", p.stdout, re.M) and
           re.search(r"^REFERENCE_NOT_FOUND\s+info\s+4 findings in 1 file$", p.stdout, re.M),
           "lint's summary, a line per severity: %s" % p.stdout)
    c.that("FAILED: 1 finding at or above error (1 REFERENCE_NOT_FOUND)" in p.stdout,
           "the infos do not fail the gate: %s" % p.stdout)
    c.that("  ... and 1 more REFERENCE_NOT_FOUND (info)" in p.stdout, "lint's list: %s" % p.stdout)
    rep = os.path.join(TMP, "report-mixed")
    must(ax.run("report", "--db", mdb, "--out", rep, "--quiet"), "report")
    html = open(os.path.join(rep, "report.html"), encoding="utf-8").read()
    codes = html[html.index('<h2 id="codes">'):html.index('<h2 id="files">')]
    row = codes[codes.index("<code>REFERENCE_NOT_FOUND</code>"):]
    c.that(re.match(r'<code>REFERENCE_NOT_FOUND</code></td><td><span[^>]*>error</span> 1 <span[^>]*>info</span> 4 </td>', row),
           "report by code counts each severity: %s" % row[:300])
    files = html[html.index('<h2 id="files">'):]
    c.that("... and 1 more REFERENCE_NOT_FOUND (info)</li>" in files and "outside.inc" in files,
           "report by file lists the error")

# ---------------------------------------------------------------- 7. changes, --bone, colours

with case(tap, "changes: what the last scan (or the scans since one) added, changed and removed") as c:
    db = os.path.join(TMP, "changes.db")
    tree = os.path.join(TMP, "ch")
    amxgen("demo", tree)
    must(ax.run("scan", os.path.join(tree, "Data"), "--db", db, "--quiet"), "scan 1")
    first = json.loads(must(ax.run("changes", "--db", db, "--json"), "changes").stdout)
    on_disk = sum(len(f) for _, _, f in os.walk(os.path.join(tree, "Data")))
    c.that(first and all(r["change"] == "added" for r in first) and len(first) >= 12 and len(first) <= on_disk,
           "first scan: every file of a known kind added (%d of %d files)" % (len(first), on_disk))
    scan1 = first[0]["scan"]
    m = os.path.join(tree, "Data", "Art", "Models")
    os.remove(os.path.join(m, "P_DEMO_FIRE.ALO"))
    amxgen("clip", os.path.join(m, "NEW_IDLE_00.ALA"), "--bones", "Root")
    amxgen("clip", os.path.join(m, "EV_DEMO_TIE_DIE_00.ALA"), "--bones", "Root,X", "--frames", "12")
    os.utime(os.path.join(m, "VSF_DEMO_XWING.ALO"))  # touched, same content: not a change
    must(ax.run("scan", os.path.join(tree, "Data"), "--db", db, "--quiet"), "scan 2")
    rows = json.loads(must(ax.run("changes", "--db", db, "--json"), "changes").stdout)
    c.eq(sorted((r["change"], r["path"]) for r in rows),
         [("added", "Art/Models/NEW_IDLE_00.ALA"), ("changed", "Art/Models/EV_DEMO_TIE_DIE_00.ALA"),
          ("removed", "Art/Models/P_DEMO_FIRE.ALO")], "the last scan's changes")
    c.that(all(r["scan"] > scan1 for r in rows), "of the second scan")
    p = must(ax.run("changes", "--db", db), "changes text")
    c.that(p.stdout.strip().splitlines()[-1] == "1 added, 1 changed, 1 removed", "text: %r" % p.stdout)
    c.that("- removed  Art/Models/P_DEMO_FIRE.ALO" in p.stdout, "text lists the removal: %r" % p.stdout)
    since = json.loads(must(ax.run("changes", "--since", str(scan1 - 1), "--db", db, "--json"), "since").stdout)
    c.eq(len(since), len(first) + 3, "--since the scan before the first: both scans")
    c.eq(len(json.loads(ax.run("changes", "--since", "2000-01-01", "--db", db, "--json").stdout)), len(first) + 3,
         "--since a date")
    c.eq(ax.run("changes", "--since", "yesterday", "--db", db).returncode, 2, "--since yesterday")
    must(ax.run("scan", os.path.join(tree, "Data"), "--db", db, "--quiet"), "scan 3")
    c.eq(json.loads(ax.run("changes", "--db", db, "--json").stdout), [], "an unchanged scan changed nothing")
    for _ in range(18):
        must(ax.run("scan", os.path.join(tree, "Data"), "--db", db, "--quiet"), "another scan")
    c.eq(len(json.loads(ax.run("changes", "--since", "0", "--db", db, "--json").stdout)), 3,
         "21 scans: the first scan's changes are gone (the last 20 scans are kept)")
    must(ax.run("scan", os.path.join(tree, "Data"), "--db", db, "--quiet"), "another scan")
    c.eq(json.loads(ax.run("changes", "--since", "0", "--db", db, "--json").stdout), [],
         "and then the second's")

with case(tap, "clips --bone and skeletons --bone") as c:
    rows = json.loads(must(ax.run("clips", "--bone", "gun", "--db", DB, "--json"), "clips --bone").stdout)
    c.eq(sorted(r["path"] for r in rows), ["Art/Models/X_SHIP_DIE_00.ALA", "Art/Models/X_SHIP_IDLE_00.ALA",
         "Art/Models/X_SHIP_MOVE_00.ALA", "Art/Other/X_SHIP_IDLE_00.ALA"], "clips animating Gun")
    rows = json.loads(must(ax.run("clips", "--bone", "Tail", "--db", DB, "--json"), "clips --bone").stdout)
    c.eq([r["path"] for r in rows], ["Units.meg#W_WALK_00.ALA"], "clips animating Tail")
    rows = json.loads(ax.run("clips", "--bone", "Gun", "--skeleton", "x_ship", "--db", DB, "--json").stdout)
    c.eq(sorted(r["path"] for r in rows), ["Art/Models/X_SHIP_DIE_00.ALA", "Art/Models/X_SHIP_IDLE_00.ALA",
         "Art/Models/X_SHIP_MOVE_00.ALA"], "--bone with --skeleton: the clips bound to it")
    sk = json.loads(must(ax.run("skeletons", "--bone", "LEG", "--db", DB, "--json"), "skeletons --bone").stdout)
    c.eq([s["skeleton"] for s in sk], ["W"], "skeletons with a bone Leg")
    c.eq(json.loads(ax.run("skeletons", "--bone", "nope", "--db", DB, "--json").stdout), [], "no such bone")

with case(tap, "colours: on a terminal, off with NO_COLOR or --color=never; --color=always") as c:
    red = "\033[1;31m"
    c.that(red in ax.run("issues", "--db", DB, "--color=always").stdout, "--color=always")
    c.that("\033[" not in ax.run("issues", "--db", DB).stdout, "not a terminal: none")
    c.eq(ax.run("issues", "--db", DB, "--color", "sometimes").returncode, 2, "--color sometimes")
    p = ax.run("refs", "--missing", "--db", DB, "--color=always")
    c.that(p.returncode == 0 and "\033[" in p.stdout, "refs --missing: severities coloured with "
           "--color=always (%d, %r)" % (p.returncode, (p.stderr or p.stdout)[:200]))
    c.that("\033[" not in ax.run("refs", "--missing", "--db", DB).stdout, "refs --missing in a pipe: none")

with case(tap, "refs --missing: a code turned off in the config disappears from it") as c:
    every = json.loads(must(ax.run("refs", "--missing", "--db", DB, "--json"), "refs --missing").stdout)
    off = os.path.join(TMP, "refs-off.ini")
    with open(off, "w") as fh:
        fh.write("[severity]\nREFERENCE_NOT_FOUND = off\n")
    rest = json.loads(must(ax.run("refs", "--missing", "--db", DB, "--json", "--config", off),
                           "refs --missing, REFERENCE_NOT_FOUND off").stdout)
    c.that(any(m["resolution"] == "missing" for m in every), "the tree misses files: %s" % short(every))
    c.eq(rest, [m for m in every if m["resolution"] != "missing"], "without the missing files")
    script = shutil.which("script")
    if WINDOWS:  # --color=always and a pipe are checked above
        c.note("on a terminal: not on Windows: script(1)'s pty is not a Windows console, and "
               "under wine the program is given none")
    elif c.that(script, "script(1) runs a command on a terminal (bsdutils)"):
        cmd = "%s issues --db %s" % (ANIMIDX, DB)
        tty = subprocess.run([script, "-qc", cmd, "/dev/null"], stdout=subprocess.PIPE, env=ax.env,
                             universal_newlines=True, timeout=60).stdout
        c.that(red in tty, "a terminal: colours")
        env = dict(ax.env, NO_COLOR="1")
        tty = subprocess.run([script, "-qc", cmd, "/dev/null"], stdout=subprocess.PIPE, env=env,
                             universal_newlines=True, timeout=60).stdout
        c.that("\033[1;31m" not in tty, "a terminal with NO_COLOR: none")
        tty = subprocess.run([script, "-qc", cmd + " --color=never", "/dev/null"], stdout=subprocess.PIPE,
                             env=ax.env, universal_newlines=True, timeout=60).stdout
        c.that("\033[1;31m" not in tty, "a terminal with --color=never: none")

with case(tap, "paths as a Windows user types them: '\\', any case for every format (Windows' "
               "file names; POSIX: for the case-blind engines only), dump and report spell them so, "
               "ignore globs with '\\'") as c:
    # MechWarrior 3 and Metroid Prime are no case-blind engine: on POSIX their files are found in
    # their own case only; on Windows a path in any case opens the file, so it names it too
    win = os.path.join(TMP, "win")
    amxgen("demo", win)
    amxgen("mp-pak", os.path.join(win, "Metroid2.pak"))
    wdb = os.path.join(TMP, "win.db")
    must(ax.run("scan", win, "--db", wdb, "--quiet"), "scan")
    sep = "\\" if WINDOWS else "/"
    for typed, want in (("Data/MW3/anim.zbd", "Data/MW3/anim.zbd"), ("data/mw3/ANIM.ZBD", "Data/MW3/anim.zbd"),
                        ("METROID2.pak", "Metroid2.pak"), ("data/art/models/ev_demo_tie.alo",
                                                           "Data/Art/Models/EV_DEMO_TIE.ALO")):
        arg = typed.replace("/", sep)
        p = ax.run("show", arg, "--db", wdb, "--json", cwd=win)
        rows = json.loads(p.stdout) if p.returncode == 0 else []
        found = typed == want or WINDOWS or want.endswith(".ALO")
        c.eq((p.returncode, [r["path"] for r in rows]), (0, [want]) if found else (1, []),
             "show %s (%s)" % (arg, p.stderr.strip()[:300]))
    p = ax.run("issues", sep.join(("data", "mw3", "")), "--db", wdb, cwd=win)
    c.eq(p.returncode, 0 if WINDOWS else 1, "issues data%smw3%s: the directory (%s)" % (sep, sep, p.stderr[:300]))
    # dump: the path in its output with '/', as every other output spells it
    arg = sep.join(("Data", "MW3", "anim.zbd"))
    p = must(ax.run("dump", "--json", arg, cwd=win), "dump --json " + arg)
    c.eq(json.loads(p.stdout)["path"], "Data/MW3/anim.zbd", "dump --json %s: its path" % arg)
    p = must(ax.run("dump", arg, cwd=win), "dump " + arg)
    c.that(p.stdout.startswith("Data/MW3/anim.zbd: mw3-anim"), "dump %s: %r" % (arg, p.stdout[:100]))
    # report: the files it wrote, named with the system's separator
    out = sep.join(("rep", "sub"))
    p = must(ax.run("report", "--db", wdb, "--out", out, cwd=TMP), "report --out " + out)
    c.that(p.stdout.startswith("wrote %s%sreport.json and %s%sreport.html: " % (out, sep, out, sep)),
           "report --out %s: %r" % (out, p.stdout))
    # [scan] ignore: on Windows '\' separates a glob's directories as it does a path's (a mod's
    # folders typed as Explorer shows them); on POSIX it escapes the next character
    ini = os.path.join(TMP, "win-ignore.ini")
    with open(ini, "w") as fh:
        fh.write("[scan]\nignore = Data\\MW3\\, data\\art\\models\\EV_DEMO_TIE.ALO\n")
    idb = os.path.join(TMP, "win-ignore.db")
    must(ax.run("scan", win, "--db", idb, "--config", ini, "--quiet"), "scan with ignore")
    got = sorted(r["path"] for r in json.loads(must(ax.run("skeletons", "--db", idb, "--json"), "skeletons").stdout))
    p = ax.run("show", "Data/MW3/anim.zbd", "--db", idb, cwd=win)
    c.eq(p.returncode, 1 if WINDOWS else 0, "Data/MW3/anim.zbd indexed: only where ignore's '\\' separates")
    c.eq("Data/Art/Models/EV_DEMO_TIE.ALO" in got, not WINDOWS, "EV_DEMO_TIE.ALO indexed: %s" % short(got))
    # lint --help: the cache folder's sentence reads on (Windows: no line starting with ',')
    p = must(ax.run("lint", "--help"), "lint --help")
    c.that(not re.search(r"(?m)^,", p.stdout), "lint --help: a line starts with ',': %r" % p.stdout[:3000])

with case(tap, "man pages and completions: generated from --help, installed by meson") as c:
    man1 = os.path.join(BUILD, "animidx.1")
    man8 = os.path.join(BUILD, "animidxd.8")
    text = open(man1, encoding="utf-8").read()
    c.that(text.startswith(".TH ANIMIDX 1"), "animidx(1)")
    for cmd, opts in HELP.items():
        c.that((".SS %s\n" % cmd) in text, "animidx(1) has %s" % cmd)
    c.that("\\-\\-max\\-results" in text and "\\-\\-group\\-by" in text, "animidx(1) has lint's options")
    c.that(open(man8, encoding="utf-8").read().startswith(".TH ANIMIDXD 8"), "animidxd(8)")
    groff = shutil.which("groff")
    if c.that(groff, "groff (groff-base) checks the pages"):
        for page in (man1, man8):
            p = subprocess.run([groff, "-man", "-Tutf8", "-ww", "-z", page], stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, universal_newlines=True)
            c.eq((p.returncode, p.stderr), (0, ""), "groff -ww %s" % os.path.basename(page))
    comp = os.path.join(BUILD, "completion", "animidx")
    probe = ("source %s; COMP_WORDS=(animidx lint --gr); COMP_CWORD=2; _animidx; echo ${COMPREPLY[@]}; "
             "COMP_WORDS=(animidx iss); COMP_CWORD=1; _animidx; echo ${COMPREPLY[@]}; "
             "COMP_WORDS=(animidx lint --format ''); COMP_CWORD=3; _animidx; echo ${COMPREPLY[@]}" % comp)
    p = subprocess.run(["bash", "-c", probe], stdout=subprocess.PIPE, stderr=subprocess.PIPE, universal_newlines=True)
    c.eq(p.stdout.splitlines(), ["--group-by", "issues", "text json sarif junit"], "bash completion (%s)" % p.stderr)
    z = open(os.path.join(BUILD, "completion", "_animidx"), encoding="utf-8").read()
    c.that(z.startswith("#compdef animidx") and all(("    %s) _arguments" % cmd) in z for cmd in HELP),
           "zsh completion has every command")
    dest = os.path.join(TMP, "destdir")
    p = subprocess.run(["meson", "install", "-C", BUILD, "--destdir", dest, "--no-rebuild", "--quiet"],
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE, universal_newlines=True, timeout=300)
    if c.eq(p.returncode, 0, "meson install --destdir (%s)" % p.stderr[-500:]):
        files = {os.path.relpath(os.path.join(d, f), dest) for d, _, fs in os.walk(dest) for f in fs}
        exe = ".exe" if WINDOWS else ""
        for want in ("bin/animidx" + exe, "bin/animidxd" + exe, "share/man/man1/animidx.1", "share/man/man8/animidxd.8",
                     "share/bash-completion/completions/animidx", "share/zsh/site-functions/_animidx",
                     "share/doc/animidx/README.md", "share/doc/animidx/docs/rules.md",
                     "share/doc/animidx/docs/formats/sage-ini.md", "share/doc/animidx/docs/formats/alamo.md"):
            c.that(any(f.endswith(want) for f in files), "installed: %s" % want)

with case(tap, "dump of a BFME INI reads its #include fragments in place, as a scan does") as c:
    game = os.path.join(TMP, "bfme")
    os.makedirs(os.path.join(game, "data", "ini", "object"))
    os.makedirs(os.path.join(game, "data", "ini", "includes"))
    os.makedirs(os.path.join(game, "Art", "W3D"))
    ranger = os.path.join(game, "data", "ini", "object", "ranger.ini")
    with open(ranger, "w") as fh:
        fh.write("Object Ranger\n  Draw = W3DScriptedModelDraw ModuleTag_Draw\n"
                 "    DefaultModelConditionState\n      Model = GURanger\n    End\n"
                 "    #include \"..\\Includes\\RangerAnims.INC\"\n"      # any case, as Windows finds it
                 "    #include \"..\\..\\..\\..\\outside.inc\"\n  End\nEnd\n")
    with open(os.path.join(game, "data", "ini", "includes", "rangeranims.inc"), "w") as fh:
        fh.write("; the ranger's\nIdleAnimationState\n  Animation = Idle\n"
                 "    AnimationName = GURanger_SKL.GURanger_IDLA\n  End\nEnd\n")
    with open(os.path.join(TMP, "outside.inc"), "w") as fh:  # out of the game's directory
        fh.write("AnimationState = DYING\n  Animation = Die\n    AnimationName = X.Y\n  End\nEnd\n")
    j = json.loads(must(ax.run("dump", "--json", ranger), "dump --json").stdout)
    c.eq(j.get("includes_read"), ["data/ini/includes/rangeranims.inc"], "the fragment read")
    c.eq([(r["tag"], r["name"], r["line"]) for r in j["references"] if r["tag"].startswith("Anim")],
         [("AnimationName (rangeranims.inc line 4)", "GURanger_SKL.GURanger_IDLA", 6)],
         "its animation, at the #include line, naming the fragment's line; not the outside one")
    c.eq([s_["kind"] for s_ in j["states"]], ["DefaultModelConditionState", "IdleAnimationState"],
         "its state")
    p = must(ax.run("dump", ranger), "dump")
    c.that("#include read in place: data/ini/includes/rangeranims.inc" in p.stdout, p.stdout)
    # from the object directory (no game directory around it) a climbing path is not read
    alone = os.path.join(TMP, "alone")
    os.makedirs(alone)
    shutil.copy(ranger, alone)
    j = json.loads(must(ax.run("dump", "--json", os.path.join(alone, "ranger.ini")), "dump").stdout)
    c.eq(j.get("includes_read"), None, "nothing read out of the file's directory")


with case(tap, "refs of a file animidx does not decode (a BFME fragment): what names it") as c:
    game = os.path.join(TMP, "bfme")  # the tree of the case above
    amxgen("w3d-model", os.path.join(game, "Art", "W3D", "GURANGER.W3D"), "--name", "GURANGER")
    bdb = os.path.join(TMP, "bfme.db")
    must(ax.run("scan", game, "--db", bdb, "--quiet"), "scan")
    p = must(ax.run("refs", "--db", bdb, "--json", os.path.join(game, "DATA", "INI", "Includes",
                                                               "RANGERANIMS.INC")), "refs of a fragment")
    j = json.loads(p.stdout)
    c.eq([(f["path"], f["references"], [(r["path"], r["kind"], r["line"]) for r in f["referenced_by"]])
          for f in j],
         [("data/ini/includes/rangeranims.inc", [], [("data/ini/object/ranger.ini", "include", 6)])],
         "the fragment, any case: named by the ranger's #include")
    p = ax.run("show", "--db", bdb, os.path.join(game, "data", "ini", "includes", "rangeranims.inc"))
    c.eq(p.returncode, 1, "show has nothing to show")
    c.that("what names it ('animidx refs " in p.stderr, "and says where to look: %r" % p.stderr)
    p = ax.run("refs", "--db", bdb, os.path.join(game, "data", "ini", "includes", "nothing.inc"))
    c.eq(p.returncode, 1, "a file that is not there is still not found")


shutil.rmtree(TMP, ignore_errors=True)
sys.exit(tap.finish())
