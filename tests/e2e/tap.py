"""Shared helpers for the end-to-end tests: a small TAP reporter and runners for the CLI.

Standard library only. The tests print TAP ("ok N - name" / "not ok N - name", "# detail"
lines, then the plan "1..N") and exit non-zero when any test failed.
"""
import json
import os
import subprocess
import sys
import traceback


class Tap:
    def __init__(self):
        self.n = 0
        self.failed = []

    def diag(self, text):
        for line in str(text).splitlines() or [""]:
            print("# " + line)
        sys.stdout.flush()

    def result(self, ok, name, details=(), skip=None):
        self.n += 1
        name = name.replace("#", "\\#")
        if skip is not None:
            print("ok %d - %s # SKIP %s" % (self.n, name, skip))
        elif ok:
            print("ok %d - %s" % (self.n, name))
        else:
            print("not ok %d - %s" % (self.n, name))
            self.failed.append(name)
        for d in details:
            self.diag(d)
        sys.stdout.flush()
        return ok

    def skip(self, name, why):
        return self.result(True, name, skip=why)

    def finish(self):
        print("1..%d" % self.n)
        if self.failed:
            print("# %d of %d failed:" % (len(self.failed), self.n))
            for f in self.failed:
                print("#   " + f)
        sys.stdout.flush()
        return 1 if self.failed else 0


class Check:
    """Collects the failures of one test point; `with tap.case(name) as c:` reports it."""

    def __init__(self, tap, name):
        self.tap = tap
        self.name = name
        self.problems = []
        self.notes = []
        self.skipped = None

    def that(self, cond, msg):
        if not cond:
            self.problems.append(msg)
        return bool(cond)

    def eq(self, got, want, what):
        if got != want:
            self.problems.append("%s: got %s, want %s" % (what, short(got), short(want)))
            return False
        return True

    def note(self, msg):
        self.notes.append(msg)

    def skip(self, why):
        self.skipped = why

    def __enter__(self):
        return self

    def __exit__(self, et, ev, tb):
        if et is not None:
            self.problems.append("exception: %s" % "".join(traceback.format_exception(et, ev, tb)).rstrip())
        if self.skipped is not None and not self.problems:
            self.tap.skip(self.name, self.skipped)
        else:
            self.tap.result(not self.problems, self.name, self.problems + self.notes)
        return True  # the exception is reported, the run goes on


def case(tap, name):
    return Check(tap, name)


def short(v, limit=1500):
    s = json.dumps(v, sort_keys=True) if not isinstance(v, str) else repr(v)
    return s if len(s) <= limit else s[:limit] + "...(%d chars)" % len(s)


class Cli:
    """Runs a binary with a controlled environment (no user config is picked up)."""

    def __init__(self, exe, home):
        self.exe = exe
        self.home = home
        self.env = dict(os.environ)
        self.env.update({
            "HOME": home,
            "XDG_CONFIG_HOME": os.path.join(home, "xdg-config"),
            "XDG_STATE_HOME": os.path.join(home, "xdg-state"),
            "LC_ALL": "C",
        })

    def run(self, *args, timeout=180, cwd=None, **kw):
        return subprocess.run([self.exe] + [str(a) for a in args], cwd=cwd or self.home,
                              env=self.env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                              universal_newlines=True, timeout=timeout, **kw)

    def popen(self, *args, cwd=None):
        return subprocess.Popen([self.exe] + [str(a) for a in args], cwd=cwd or self.home,
                                env=self.env, stdout=subprocess.DEVNULL,
                                stderr=subprocess.DEVNULL)

    def json(self, *args, want_rc=0, **kw):
        p = self.run(*args, **kw)
        if want_rc is not None and p.returncode != want_rc:
            raise AssertionError("%s %s: exit %d (want %d)\nstderr: %s\nstdout: %s" % (
                os.path.basename(self.exe), " ".join(map(str, args)), p.returncode, want_rc,
                p.stderr.strip()[:2000], p.stdout.strip()[:2000]))
        try:
            return json.loads(p.stdout)
        except ValueError as e:
            raise AssertionError("%s %s: output is not JSON (%s): %r" % (
                os.path.basename(self.exe), " ".join(map(str, args)), e, p.stdout[:2000]))


def strip_root(rows):
    """Drops the absolute 'root' fields (they differ between trees) from rows of a JSON array."""
    out = []
    for r in rows:
        r = dict(r)
        r.pop("root", None)
        r.pop("skeleton_root", None)
        out.append(r)
    return out


def canon(rows):
    """A list of dicts in a canonical order, for comparisons that ignore row order."""
    return sorted(strip_root(rows), key=lambda r: json.dumps(r, sort_keys=True))


def diff_rows(a, b, limit=12):
    """Human-readable difference of two canonical row lists."""
    sa = [json.dumps(r, sort_keys=True) for r in a]
    sb = [json.dumps(r, sort_keys=True) for r in b]
    only_a = [r for r in sa if r not in sb]
    only_b = [r for r in sb if r not in sa]
    lines = []
    for r in only_a[:limit]:
        lines.append("  only in first:  " + r)
    for r in only_b[:limit]:
        lines.append("  only in second: " + r)
    if len(sa) != len(sb):
        lines.append("  row counts: %d vs %d" % (len(sa), len(sb)))
    return "\n".join(lines)
