"""Shared helpers for the end-to-end tests: a small TAP reporter and runners for the CLI.

Standard library only. The tests print TAP ("ok N - name" / "not ok N - name", "# detail"
lines, then the plan "1..N") and exit non-zero when any test failed.
"""
import json
import os
import re
import subprocess
import sys
import traceback

# ---- the Windows build under wine (tests/windows/run_e2e.py) ----
# AMX_TEST_WINE names the program that runs a Windows .exe here (wine). The suites are the same;
# a program ending in .exe is started through it (command()), the arguments that are paths of
# this machine go in as Windows paths (Z:\tmp\...), as a Windows user would type them, and
# the Windows form of those paths in what it prints is read as the POSIX one (host_text). What
# cannot apply on Windows is skipped with the reason (Check.posix_only, skip_on_windows).
WINE = os.environ.get("AMX_TEST_WINE") or None
WINDOWS = WINE is not None
WIN_DRIVE = "Z:"  # wine's drive of the Unix root


def win_path(path):
    """The Windows path of a path of this machine: /tmp/x -> Z:\\tmp\\x (wine's Z: is /)."""
    return WIN_DRIVE + os.path.abspath(path).replace("/", "\\")


def shown_path(path):
    """An absolute path as the program under test prints it: as given on POSIX; on Windows the
    drive and '/' separators (the program keeps '/' inside: Z:/tmp/x)."""
    return WIN_DRIVE + path if WINDOWS and path.startswith("/") else path


def host_path(text):
    """A path the program printed, as this machine names it (Z:/tmp/x or Z:\\tmp\\x -> /tmp/x)."""
    if WINDOWS and len(text) > 2 and text[:2].upper() == WIN_DRIVE and text[2] in "/\\":
        return text[2:].replace("\\", "/")
    return text


# a Windows path of this machine in a program's output: Z: then separators ('/', '\\', or the
# '\\\\' of a JSON string) and names
_WIN_PATH = re.compile(r'(?i)\bZ:((?:(?:\\\\|\\|/)[^\s\\/"\'<>|:*?]*)+)')


def host_text(text):
    """A program's output with the Windows paths of this machine in it written as this machine
    names them (Z:\\tmp\\x and Z:/tmp/x -> /tmp/x), so the tests' expectations hold on both
    systems. Unchanged on POSIX."""
    if not WINDOWS or text is None:
        return text
    if isinstance(text, bytes):
        return host_text(text.decode("utf-8", "surrogateescape")).encode("utf-8", "surrogateescape")
    return _WIN_PATH.sub(lambda m: re.sub(r'\\\\|\\', "/", m.group(1)), text)


def _win_arg(a):
    """An argument: a path of this machine (absolute, its first directory exists) becomes a
    Windows path, also after --option=; anything else is passed as it is."""
    head, eq, tail = a.partition("=") if a.startswith("--") else ("", "", a)
    if tail.startswith("/") and len(tail) > 1 and os.path.exists("/" + tail[1:].split("/")[0]):
        return head + eq + win_path(tail)
    return a


def command(exe, args=()):
    """The argv that runs exe with args here (through wine for a .exe)."""
    args = [str(a) for a in args]
    if WINE and exe.lower().endswith(".exe"):
        return [WINE, exe] + [_win_arg(a) for a in args]
    return [exe] + args


def environment(env):
    """The environment for a program under test. (Under wine, %APPDATA%, %LOCALAPPDATA% and
    %USERPROFILE% are the wine prefix's whatever the caller sets: the tests write no
    configuration there, and cache_dir() says where lint's own index goes.)"""
    if not WINDOWS:
        return env
    return dict(env, WINEDEBUG=env.get("WINEDEBUG", "-all"))


def run(exe, args, **kw):
    """subprocess.run of a program under test (through wine for a .exe, its output with host
    paths: host_text); the keywords are subprocess.run's."""
    if "env" in kw:
        kw["env"] = environment(kw["env"])
    p = subprocess.run(command(exe, args), **kw)
    if WINDOWS and _silent_failure(exe, p, kw):
        # Under load, wine has twice ended a program with a failure status before it wrote a
        # byte (CI runs at load 8-10: `skeletons --json`, `lint --format sarif`); animidx
        # always says why it fails. Said on stderr, run once more.
        sys.stderr.write("tap: wine: %s %s exited %s with no output at all; run again\n"
                         % (os.path.basename(exe), " ".join(map(str, args))[:200], p.returncode))
        p = subprocess.run(command(exe, args), **kw)
    if WINDOWS:
        p.stdout, p.stderr = host_text(p.stdout), host_text(p.stderr)
    return p


def _silent_failure(exe, p, kw):
    captured = kw.get("capture_output") or (kw.get("stdout") == subprocess.PIPE and
                                           kw.get("stderr") == subprocess.PIPE)
    return (exe.lower().endswith(".exe") and captured and
            p.returncode != 0 and not p.stdout and not p.stderr)


def popen(exe, args, **kw):
    """subprocess.Popen of a program under test (through wine for a .exe)."""
    if "env" in kw:
        kw["env"] = environment(kw["env"])
    return subprocess.Popen(command(exe, args), **kw)


_local_app_data = []


def cache_dir(env):
    """Where the program under test keeps its caches (lint's own index): XDG_CACHE_HOME on
    POSIX; on Windows %LOCALAPPDATA%, which wine sets from its prefix (not from the caller's
    environment), as this machine names it."""
    if not WINDOWS:
        return env["XDG_CACHE_HOME"]
    if not _local_app_data:
        p = subprocess.run([WINE, "cmd", "/c", "echo %LOCALAPPDATA%"], env=environment(env),
                           stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, universal_newlines=True)
        q = subprocess.run(["winepath", "-u", p.stdout.strip()], env=environment(env),
                           stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, universal_newlines=True)
        _local_app_data.append(q.stdout.strip())
    return _local_app_data[0]


def posix_only(why):
    """The reason to skip a test that cannot apply on Windows, or None (POSIX: it runs)."""
    return ("not on Windows: " + why) if WINDOWS else None


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


class _SkipCase(Exception):
    """Ends a test point that Check.skip_on_windows skipped."""


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

    def skip_on_windows(self, why):
        """On Windows: skips the rest of this test point, saying why it cannot apply there (the
        `with` block ends here). Nothing on POSIX."""
        if WINDOWS:
            self.skip("not on Windows: " + why)
            raise _SkipCase()

    def posix_only(self, why):
        """On Windows: skips this test point, saying why it cannot apply there (the caller then
        returns from it); True then. On POSIX: False."""
        if WINDOWS:
            self.skip("not on Windows: " + why)
        return WINDOWS

    def __enter__(self):
        return self

    def __exit__(self, et, ev, tb):
        if et is not None and not issubclass(et, _SkipCase):
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
        return run(self.exe, args, cwd=cwd or self.home,
                              env=self.env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                              universal_newlines=True, timeout=timeout, **kw)

    def popen(self, *args, cwd=None):
        return subprocess.Popen(command(self.exe, args), cwd=cwd or self.home,
                                env=environment(self.env), stdout=subprocess.DEVNULL,
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
