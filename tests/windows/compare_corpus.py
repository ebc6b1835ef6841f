#!/usr/bin/env python3
"""The corpus comparison of the Windows build (scripts/windows.sh): every file of the corpus is
dumped (--json) and the whole corpus scanned and queried by the Linux build and by the Windows
build under wine, and their outputs must be the same bytes, but for what names the machine: the
index's path, the scan's duration, and the roots (/x on Linux is Z:/x under wine). TAP on stdout.

  compare_corpus.py LINUX_ANIMIDX WINDOWS_ANIMIDX_EXE CORPUS_DIR [WRAPPER]
"""
import os
import re
import subprocess
import sys
import tempfile

linux, windows, corpus = (os.path.abspath(a) for a in sys.argv[1:4])
wrapper = sys.argv[4] if len(sys.argv) > 4 else "wine"
tests = failures = 0


def run(prog, args, cwd):
    argv = ([wrapper, prog] if prog.endswith(".exe") else [prog]) + args
    p = subprocess.run(argv, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                       env=dict(os.environ, WINEDEBUG="-all", NO_COLOR="1"))
    return p.returncode, p.stdout


def check(name, ok, detail=""):
    global tests, failures
    tests += 1
    print(("ok" if ok else "not ok") + " %d - %s" % (tests, name))
    if not ok:
        failures += 1
        for line in detail.splitlines()[:20]:
            print("# " + line)
    sys.stdout.flush()


def first_difference(a, b):
    la, lb = a.splitlines(), b.splitlines()
    for i, (x, y) in enumerate(zip(la, lb)):
        if x != y:
            return "line %d:\n  linux:   %s\n  windows: %s" % (i + 1, x[:300], y[:300])
    return "linux %d lines, windows %d lines" % (len(la), len(lb))


files = sorted(os.path.relpath(os.path.join(d, f), corpus)
               for d, _, fs in os.walk(corpus) for f in fs)
# dump: one run per batch of files (a Windows command line holds 32767 characters)
batch, same, differ = 60, 0, []
for i in range(0, len(files), batch):
    part = files[i:i + batch]
    rl, ol = run(linux, ["dump", "--json"] + part, corpus)
    rw, ow = run(windows, ["dump", "--json"] + part, corpus)
    if rl != rw:
        differ.append("%s..: exit %d on Linux, %d on Windows" % (part[0], rl, rw))
    ll, lw = ol.decode("utf-8", "replace").splitlines(), ow.decode("utf-8", "replace").splitlines()
    for k, name in enumerate(part):
        if k < len(ll) and k < len(lw) and ll[k] == lw[k]:
            same += 1
        else:
            differ.append("%s: %s" % (name, first_difference(ll[k] if k < len(ll) else "",
                                                               lw[k] if k < len(lw) else "")))
check("dump --json of each of the %d files of the corpus: the same bytes on both builds "
      "(%d equal)" % (len(files), same), not differ and same == len(files), "\n".join(differ))

# XML in the encodings Windows mods are written in, and bad bytes in them: libxml2 converts
# through iconv on both (glibc's on Linux, Windows' code pages on Windows), so what is read up to
# the bad bytes, the findings and their offsets must be the same
ENCODINGS = {
    "sjis.xml": '<?xml version="1.0" encoding="Shift_JIS"?>\n<Units>\n<U Name="\u6226\u95d8\u6a5f">'
                '<Text>\u30c6\u30b9\u30c8</Text></U>\n</Units>\n'.encode("shift_jis"),
    "sjis-bad.xml": b'<?xml version="1.0" encoding="Shift_JIS"?>\n<Units>\n<U Name="ok"/>\n'
                    b'<U Name="\x93\xfa\x96\x7b\x81\xff"/>\n<U Name="after"/>\n</Units>\n',
    "cp1252.xml": '<?xml version="1.0" encoding="windows-1252"?>\n<Units><U Name="Caf\u00e9 \u20ac'
                  '\u2019"/></Units>\n'.encode("cp1252"),
    "latin1.xml": '<?xml version="1.0" encoding="ISO-8859-1"?>\n<Units><U Name="\u00e9\u00df"/>'
                  '</Units>\n'.encode("latin-1"),
    "utf16-bad.xml": b"\xff\xfe" + '<?xml version="1.0" encoding="UTF-16"?>\n<Units><U Name="'
                     .encode("utf-16-le") + b"\x00\xd8" + '"/></Units>\n'.encode("utf-16-le"),
    "unknown.xml": b'<?xml version="1.0" encoding="x-no-such-charset"?>\n<Units><U Name="a"/></Units>\n',
}
with tempfile.TemporaryDirectory(prefix="animidx-windows-encodings-") as tmp:
    for name, data in ENCODINGS.items():
        with open(os.path.join(tmp, name), "wb") as f:
            f.write(data)
    names = sorted(ENCODINGS)
    rl, ol = run(linux, ["dump", "--json"] + names, tmp)
    rw, ow = run(windows, ["dump", "--json"] + names, tmp)
    ol, ow = ol.decode("utf-8", "replace"), ow.decode("utf-8", "replace")
    check("dump --json of XML in Shift_JIS, windows-1252, Latin-1 and UTF-16, with bad bytes: "
          "the same bytes on both builds (exit %d)" % rl, rl == rw and ol == ow and
          ol.count("\n") == len(names), "exit %d / %d\n" % (rl, rw) + first_difference(ol, ow))

with tempfile.TemporaryDirectory(prefix="animidx-windows-corpus-") as tmp:
    dbs = {"linux": os.path.join(tmp, "linux.db"), "windows": os.path.join(tmp, "windows.db")}
    out = {}
    for build, prog in (("linux", linux), ("windows", windows)):
        res = []
        rc, o = run(prog, ["scan", "--db", dbs[build], "--json", "."], corpus)
        res.append(("scan", rc, o))
        for q in (["issues", "--json"], ["skeletons", "--json"], ["refs", "--missing", "--json"],
                  ["changes", "--json"], ["clips", "--skeleton", "AUELLADAN_SKL", "--json"]):
            rc, o = run(prog, q + ["--db", dbs[build]], corpus)
            res.append((" ".join(q[:-1]), rc, o))
        # lint: JSON, SARIF (file:///C:/... URIs for its roots: the same form on both) and JUnit
        for fmt in ("json", "sarif", "junit"):
            rc, o = run(prog, ["lint", "--db", os.path.join(tmp, build + "-lint.db"), "--format",
                               fmt, "."], corpus)
            res.append(("lint --format " + fmt, rc, o))
        out[build] = res
    root = os.path.realpath(corpus)
    for (name, rl, ol), (_, rw, ow) in zip(out["linux"], out["windows"]):
        def norm(text, db):
            text = text.decode("utf-8", "replace")
            text = text.replace(db, "DB").replace("Z:" + root, root)
            text = text.replace("file:///Z:" + root, "file://" + root)  # SARIF's roots
            text = re.sub(r'timestamp="[^"]*"', 'timestamp="T"', text)  # JUnit
            text = re.sub(r'"(seconds|at|started_at|finished_at|scan)": [0-9.e+-]+', r'"\1": N', text)
            return text
        a, b = norm(ol, dbs["linux"]), norm(ow, dbs["windows"])
        check("%s of the scanned corpus: the same on both builds (exit %d)" % (name, rl),
              rl == rw and a == b, "exit %d / %d\n" % (rl, rw) + first_difference(a, b))

print("1..%d" % tests)
sys.exit(1 if failures else 0)
