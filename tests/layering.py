#!/usr/bin/env python3
"""The rooms of lib/ call one way (docs/architecture.md): a check of the includes and of the
library-internal functions (amx__*) each room uses. TAP on stdout.

  common/   <- format/, resolve/   <- index/   <- cli/, daemon/ (public headers only)

A room may include its own headers, the public headers (animidx/...) and system headers, and
may use the amx__ functions of the rooms ALLOWED lists (the index reaches the formats through
the public registry, never through their internals). Also: no machine path in
the repository (the files speak of the project only)."""
import os
import re
import subprocess
import sys

ROOT = os.environ.get("AMX_SOURCE_ROOT") or os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
LIB = os.path.join(ROOT, "lib")
ORDER = ["common", "format", "resolve", "index"]
# The library-internal (amx__) functions each room may call: its own and those listed. The
# formats' internals stay in format/: the index reaches decoders through the public registry.
ALLOWED = {
    "common": ["common"],
    "format": ["common", "format"],
    "resolve": ["common", "resolve"],
    "index": ["common", "resolve", "index"],
}
INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)
INTERNAL = re.compile(r"\bamx__[a-z0-9_]+\b")
DECL = re.compile(r"^[A-Za-z_][\w \*]*?\b(amx__[a-z0-9_]+)\s*\(", re.M)

failures = []
tests = 0


def check(name, problems):
    global tests
    tests += 1
    if problems:
        failures.append(name)
        print(f"not ok {tests} - {name}")
        for p in problems:
            print(f"# {p}")
    else:
        print(f"ok {tests} - {name}")


def sources(room):
    d = os.path.join(LIB, room)
    if not os.path.isdir(d):
        return []
    return sorted(os.path.join(d, f) for f in os.listdir(d) if f.endswith((".c", ".h")))


def strip_comments(text):
    text = re.sub(r"/\*.*?\*/", "", text, flags=re.S)
    return re.sub(r"//[^\n]*", "", text)


declared = {}   # amx__ name -> room that declares or defines it
for room in ORDER:
    for path in sources(room):
        for m in DECL.finditer(strip_comments(open(path, encoding="utf-8").read())):
            declared.setdefault(m.group(1), room)
    for path in sources(room):   # macros, types and extern data named amx__ (amx__migrations)
        for m in re.finditer(r"(?:#define|typedef struct|struct|}\s*|extern [\w ]+?)\s*(amx__[a-z0-9_]+)",
                             open(path, encoding="utf-8").read()):
            declared.setdefault(m.group(1), room)
        for line in open(path, encoding="utf-8"):
            if line.startswith("extern "):
                names = INTERNAL.findall(line)
                if names:
                    declared.setdefault(names[-1], room)

for room in ORDER:
    allowed = ALLOWED[room]
    own = {os.path.basename(p) for p in sources(room)}
    problems = []
    for path in sources(room):
        text = open(path, encoding="utf-8").read()
        rel = os.path.relpath(path, ROOT)
        for inc in INCLUDE.findall(text):
            if inc.startswith("animidx/") or inc in own:
                continue
            if "/" in inc and inc.split("/")[0] in allowed and \
                    os.path.exists(os.path.join(LIB, inc)):
                continue   # "resolve/resolve.h": a room this one may use
            if rel.startswith("lib/index/") and inc == "sql_embed.h":
                continue
            problems.append(f"{rel} includes \"{inc}\" from outside its room")
        for name in sorted(set(INTERNAL.findall(strip_comments(text)))):
            where = declared.get(name)
            if where is None:
                problems.append(f"{rel} uses {name}, declared in no room")
            elif where not in allowed:
                problems.append(f"{rel} uses {name} of lib/{where}/ (lib/{room}/ may use the "
                                f"internals of {', '.join(allowed)})")
    check(f"lib/{room}/ uses only its own and lower rooms", problems)

# The public headers include only public headers.
problems = []
pub = os.path.join(LIB, "include", "animidx")
for f in sorted(os.listdir(pub)):
    for inc in INCLUDE.findall(open(os.path.join(pub, f), encoding="utf-8").read()):
        if not (inc.startswith("animidx/") or os.path.exists(os.path.join(pub, inc))):
            problems.append(f"lib/include/animidx/{f} includes \"{inc}\"")
check("the public headers include only public headers", problems)

# cli/ and daemon/ call only the public API.
problems = []
for top in ("cli", "daemon"):
    d = os.path.join(ROOT, top)
    own = set(os.listdir(d))
    for f in sorted(os.listdir(d)):
        if not f.endswith((".c", ".h")):
            continue
        text = open(os.path.join(d, f), encoding="utf-8").read()
        for inc in INCLUDE.findall(text):
            if not (inc.startswith("animidx/") or inc in own):
                problems.append(f"{top}/{f} includes \"{inc}\"")
        for name in sorted(set(INTERNAL.findall(strip_comments(text)))):
            problems.append(f"{top}/{f} uses the library-internal {name}")
check("cli/ and daemon/ use only the public headers", problems)

# No path of a particular machine in the repository.
try:
    out = subprocess.run(["git", "-C", ROOT, "grep", "-n", "-e", "/work/", "-e", "/home/", "--",
                          ".", ":!tests/layering.py"], capture_output=True, text=True)
    hits = out.stdout.splitlines() if out.returncode == 0 else []
except OSError:
    hits = []
check("no machine path in the repository (git grep /work/ /home/)", hits)

print(f"1..{tests}")
sys.exit(1 if failures else 0)
