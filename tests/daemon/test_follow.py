#!/usr/bin/env python3
"""Tests of `animidx watch --lint` and `animidx status --follow`: the findings that appear and go
while the daemon indexes changes.

usage: test_follow.py ANIMIDX AMXGEN

Runs the commands on temporary trees (each with its own index, socket and config), saves clips
broken and fixed the way an exporter does, waits with `animidx sync`, and reads what the
commands print (text and JSON). TAP on stdout.
"""
import json
import os
import queue
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "e2e"))
from tap import Tap, Cli, case, short, command, environment, host_text, WINDOWS  # noqa: E402

if len(sys.argv) < 3:
    sys.stderr.write("usage: test_follow.py ANIMIDX AMXGEN\n")
    sys.exit(2)

ANIMIDX = os.path.abspath(sys.argv[1])
AMXGEN = os.path.abspath(sys.argv[2])
TMP = tempfile.mkdtemp(prefix="amxf-", dir="/tmp")  # a Unix socket path holds 107 bytes at most
tap = Tap()
ax = Cli(ANIMIDX, TMP)
ax.env["XDG_RUNTIME_DIR"] = os.path.join(TMP, "run")
ax.env["XDG_CACHE_HOME"] = os.path.join(TMP, "cache")
gen = Cli(AMXGEN, TMP)
SLOW = 3  # timeouts are scaled for sanitizer builds
MODELS = "Data/Art/Models"
BONES = ["Root", "Body", "Gun", "Turret"]
RUNNING = []  # every process started, killed at the end if a test left it running


def terminated(sig, frame):
    """meson's timeout: the processes are killed all the same (the temp dir is kept)."""
    for proc in RUNNING:
        if proc.p.poll() is None:
            os.killpg(proc.p.pid, signal.SIGKILL)
    os._exit(128 + sig)  # at once: the test cases catch every exception, SystemExit too


signal.signal(signal.SIGTERM, terminated)


def amxgen(*args):
    p = gen.run(*args)
    if p.returncode != 0:
        raise AssertionError("amxgen %s: %s" % (" ".join(map(str, args)), p.stderr))


def save_clip(tree, name, bones, frames=20):
    """Saves a clip as an exporter does: written in place, in one go."""
    amxgen("clip", os.path.join(tree, MODELS, name), "--bones", ",".join(bones), "--frames", frames)


def stopped_how(proc, name):
    """What a status check shows when it fails: the command's stderr and its daemon's log."""
    try:
        with open(os.path.join(TMP, name, "daemon.log"), errors="replace") as f:
            log = f.read()[-2000:]
    except OSError as e:
        log = "(none: %s)" % e
    return "\nstderr: %s\ndaemon.log: %s" % ("\n".join(proc.err)[-2000:], log)


def mod(name, extra_config=""):
    """A mod tree (a model, two clips that fit it) with its own index, socket and config."""
    d = os.path.join(TMP, name)
    tree = os.path.join(d, "mod")
    os.makedirs(os.path.join(tree, MODELS))
    amxgen("assets", tree)
    amxgen("model", os.path.join(tree, MODELS, "X.ALO"), "--bones", ",".join(BONES))
    save_clip(tree, "X_IDLE_00.ALA", BONES)
    save_clip(tree, "X_MOVE_00.ALA", BONES)
    cfg = os.path.join(d, "animidx.ini")
    with open(cfg, "w") as f:
        f.write("[index]\ndatabase = %s\n[daemon]\nsocket = %s\nsettle_ms = 50\nlog = %s\n%s" % (
            os.path.join(d, "index.db"),
            # Windows: the daemon's endpoint is a named pipe
            "//./pipe/amxf-%d-%s" % (os.getpid(), name) if WINDOWS else os.path.join(d, "s.sock"),
            os.path.join(d, "daemon.log"),
            extra_config))
    return tree, cfg


class Proc:
    """A long-running command whose stdout and stderr lines are read as they come."""

    def __init__(self, args, cwd):
        self.p = subprocess.Popen(command(ANIMIDX, args), cwd=cwd, env=environment(ax.env),
                                  stdout=subprocess.PIPE,
                                  stderr=subprocess.PIPE, universal_newlines=True,
                                  start_new_session=True)
        RUNNING.append(self)
        self.out, self.err = [], []
        self.q = queue.Queue()
        for stream, into in ((self.p.stdout, self.out), (self.p.stderr, self.err)):
            threading.Thread(target=self.pump, args=(stream, into), daemon=True).start()

    def pump(self, stream, into):
        for line in stream:
            line = host_text(line)  # Windows: its paths as this machine names them
            into.append(line.rstrip("\n"))
            self.q.put(line)

    def wait_for(self, cond, what, timeout=20):
        """Waits until cond(stdout lines, stderr lines) holds."""
        end = time.time() + timeout * SLOW
        while not cond(self.out, self.err):
            if time.time() > end or self.p.poll() is not None and self.q.empty():
                raise AssertionError("%s: not seen in %d s (exit %s)\nstdout: %s\nstderr: %s" % (
                    what, timeout * SLOW, self.p.poll(), "\n".join(self.out)[-3000:],
                    "\n".join(self.err)[-3000:]))
            try:
                self.q.get(timeout=0.1)
            except queue.Empty:
                pass

    def ctrl_c(self):
        """Ctrl-C on a terminal: SIGINT to the whole process group (the daemon too)."""
        os.killpg(self.p.pid, signal.SIGINT)
        return self.finish()

    def finish(self, timeout=30):
        try:
            rc = self.p.wait(timeout * SLOW)
        except subprocess.TimeoutExpired:
            os.killpg(self.p.pid, signal.SIGKILL)
            self.p.wait()
            raise AssertionError("did not end within %d s" % (timeout * SLOW))
        time.sleep(0.2)  # the reader threads take the last lines
        return rc


def sync(cfg):
    p = ax.run("sync", "--quiet", "--config", cfg, timeout=120 * SLOW)
    if p.returncode != 0:
        raise AssertionError("sync: %s" % p.stderr)


def started(prefix, stream=0):
    return lambda out, err: any(l.startswith(prefix) for l in (out, err)[stream])


def changes(lines):
    return [l for l in lines if l.startswith("+ ") or l.startswith("- ")]


try:
    with case(tap, "watch --lint: a clip saved broken then fixed prints one + and one - line") as c:
        tree, cfg = mod("text")
        w = Proc(["watch", "Data", "--lint", "--config", cfg], cwd=tree)
        w.wait_for(started("lint: "), "the start line")
        c.eq(w.out[0], "lint: 0 errors, 0 warnings, 0 info; --fail-on error: passing; the findings "
                       "that appear (+) and go (-) follow", "the start line")
        save_clip(tree, "X_IDLE_00.ALA", ["Root", "Body", "Turret"])  # Turret at Gun's index
        sync(cfg)
        w.wait_for(lambda out, err: changes(out), "the + line")
        save_clip(tree, "X_ATTACK_00.ALA", BONES)  # a new clean clip: nothing appears or goes
        save_clip(tree, "X_MOVE_00.ALA", BONES, frames=25)  # re-exported, still clean
        before = list(w.out)
        sync(cfg)
        time.sleep(0.5 * SLOW)
        c.eq(w.out, before, "quiet when nothing changed")
        save_clip(tree, "X_IDLE_00.ALA", BONES)
        sync(cfg)
        w.wait_for(lambda out, err: len(changes(out)) == 2, "the - line")
        rc = w.ctrl_c()
        c.eq(rc, 0, "exit status after Ctrl-C (nothing at or above error)" + (
            stopped_how(w, "text") if rc != 0 else ""))
        got = changes(w.out)
        c.eq(len(got), 2, "change lines: %s" % got)
        c.that(got[0].startswith("+ error   BONE_INDEX_MISMATCH Data/Art/Models/X_IDLE_00.ALA ("
                                 "offset ") and "bone 2 'Turret'" in got[0],
               "the + line: %r" % got[0])
        c.that(got[1].startswith("- fixed   BONE_INDEX_MISMATCH Data/Art/Models/X_IDLE_00.ALA "
                                 "(bone 2): bone 2 'Turret'"), "the - line: %r" % got[1])
        c.eq([l for l in w.out if l.startswith("= ")],
             ["= 1 error, 0 warnings, 0 info; --fail-on error: failing",
              "= 0 errors, 0 warnings, 0 info; --fail-on error: passing"], "the tallies")
        c.that(not any("\033" in l for l in w.out), "no colour in a pipe")
        c.that("stopped: every handle closed" in open(os.path.join(TMP, "text", "daemon.log")).read(),
               "the daemon stopped cleanly")

    with case(tap, "status --follow --json: one object per change, for a daemon already running; "
                   "Ctrl-C exits as lint would") as c:
        tree, cfg = mod("json")
        d = Proc(["watch", "Data", "--config", cfg], cwd=tree)
        end = time.time() + 30 * SLOW
        while ax.run("status", "--config", cfg).returncode != 0 and time.time() < end:
            time.sleep(0.1)
        sync(cfg)
        f = Proc(["status", "--follow", "--json", "--config", cfg], cwd=tree)
        f.wait_for(started("lint: ", 1), "the start line on stderr")
        save_clip(tree, "X_IDLE_00.ALA", ["Root", "Body", "Turret"])
        sync(cfg)
        f.wait_for(lambda out, err: len(out) == 1, "the first object")
        save_clip(tree, "X_IDLE_00.ALA", BONES)
        sync(cfg)
        f.wait_for(lambda out, err: len(out) == 2, "the second object")
        save_clip(tree, "X_IDLE_00.ALA", ["Root", "Body", "Turret"])  # broken again
        sync(cfg)
        f.wait_for(lambda out, err: len(out) == 3, "the third object")
        rc = f.ctrl_c()
        c.eq(rc, 1, "exit status after Ctrl-C with an error left (--fail-on error)" + (
            stopped_how(f, "json") if rc != 1 else ""))
        objs = [json.loads(l) for l in f.out]
        c.eq([(o["state"], o["code"], o["path"], o["severity"]) for o in objs],
             [("new", "BONE_INDEX_MISMATCH", "Art/Models/X_IDLE_00.ALA", "error"),
              ("fixed", "BONE_INDEX_MISMATCH", "Art/Models/X_IDLE_00.ALA", "error"),
              ("new", "BONE_INDEX_MISMATCH", "Art/Models/X_IDLE_00.ALA", "error")],
             "state, code, path, severity")
        for o in objs:
            for k in ("message", "offset", "context", "format", "root", "fingerprint"):
                c.that(k in o, "%s in %s" % (k, short(o)))
        c.eq(len(set(o["fingerprint"] for o in objs)), 1, "one identity throughout")
        lint = json.loads(ax.run("lint", "Data", "--format", "json", cwd=tree).stdout)
        c.eq([x["fingerprint"] for x in lint["findings"]], [objs[0]["fingerprint"]],
             "lint gives the finding the same fingerprint")
        # a follower of a daemon that stops: exit 3, saying so
        g = Proc(["status", "--follow", "--config", cfg], cwd=tree)
        g.wait_for(started("lint: "), "the second follower's start line")
        c.eq(g.out[0], "lint: 1 error, 0 warnings, 0 info; --fail-on error: failing; the findings "
                       "that appear (+) and go (-) follow", "what is there when it starts")
        rc = d.ctrl_c()
        c.eq(rc, 0, "the daemon's watch stops" + (stopped_how(d, "json") if rc != 0 else ""))
        c.eq(g.finish(), 3, "the follower's exit status when the daemon goes")
        c.that(any("animidxd stopped" in l for l in g.err), "says so: %s" % g.err)

    with case(tap, "watch --lint counts as lint does: severity overrides, --fail-on, suppressions "
                   "and the baseline") as c:
        tree, cfg = mod("gate", "[severity]\nBONE_NOT_IN_SKELETON = warning\n")
        save_clip(tree, "X_DIE_00.ALA", ["Root", "Body", "Tail"])   # broken before: in the baseline
        base = os.path.join(TMP, "gate", "baseline.json")
        p = ax.run("lint", "Data", "--write-baseline", base, "--config", cfg, cwd=tree)
        c.eq(p.returncode, 0, "write the baseline: " + p.stderr)
        supp = os.path.join(TMP, "gate", "suppressions.json")
        with open(supp, "w") as fh:
            json.dump({"suppressions": [{"code": "*", "path": "Art/Models/X_MOVE_*",
                                         "reason": "re-exported in ticket 7"}]}, fh)
        w = Proc(["watch", "Data", "--lint", "--fail-on", "warning", "--baseline", base,
                  "--suppressions", supp, "--config", cfg, "--color", "always"], cwd=tree)
        w.wait_for(started("lint: "), "the start line")
        c.eq(w.out[0], "lint: 0 errors, 0 warnings, 0 info; --fail-on warning: passing; the "
                       "findings that appear (+) and go (-) follow", "the baseline holds X_DIE")
        save_clip(tree, "X_MOVE_00.ALA", ["Root", "Body", "Turret"])   # suppressed
        save_clip(tree, "X_IDLE_00.ALA", ["Root", "Body", "Gun", "Horn"])  # a warning here
        sync(cfg)
        w.wait_for(lambda out, err: changes(out), "the + line")
        rc = w.ctrl_c()
        c.eq(rc, 1, "exit status: a warning at --fail-on warning" + (
            stopped_how(w, "gate") if rc != 1 else ""))
        got = changes(w.out)
        c.eq(len(got), 1, "one change (the suppressed clip says nothing): %s" % got)
        c.that(got and got[0].startswith("+ \033[33mwarning\033[0m BONE_NOT_IN_SKELETON "
                                         "Data/Art/Models/X_IDLE_00.ALA"),
               "the overridden severity, coloured: %r" % got[:1])
        c.that("= 0 errors, 1 warning, 0 info; --fail-on warning: failing" in w.out,
               "the tally: %s" % w.out)

    with case(tap, "a name with control characters is one line, escaped") as c:
        c.skip_on_windows("Windows file names cannot hold control characters (ESC, LF)")
        tree, cfg = mod("names")
        w = Proc(["watch", "Data", "--lint", "--config", cfg], cwd=tree)
        w.wait_for(started("lint: "), "the start line")
        save_clip(tree, "Z\033[2K\nlint: 0 errors_IDLE_00.ALA", ["Root"])  # no model Z...: a warning
        sync(cfg)
        w.wait_for(lambda out, err: changes(out), "the + line")
        rc = w.ctrl_c()
        c.eq(rc, 0, "exit status (a warning, --fail-on error)" + (
            stopped_how(w, "names") if rc != 0 else ""))
        got = changes(w.out)
        c.eq(len(got), 1, "one change line: %s" % w.out)
        c.that(got and "Data/Art/Models/Z\\x1B[2K\\x0Alint: 0 errors_IDLE_00.ALA" in got[0],
               "the name escaped: %r" % got[:1])
        c.that(not any("\033" in l for l in w.out), "no raw escape: %r" % w.out)
        c.eq(len([l for l in w.out if l.startswith("lint: ")]), 1, "no forged start line")

    with case(tap, "watch and status: the lint options go with --lint / --follow") as c:
        tree, cfg = mod("usage")
        for args, msg in ((["watch", "Data", "--fail-on", "warning"], "--fail-on goes with --lint"),
                          (["watch", "Data", "--json"], "--json goes with --lint"),
                          (["status", "--baseline", "b.json"], "--baseline goes with --follow"),
                          (["watch", "Data", "--color", "always"], "--color goes with --lint"),
                          (["status", "--color", "never"], "--color goes with --follow"),
                          (["watch", "Data", "--lint", "--fail-on", "fatal"], "--fail-on: expected")):
            p = ax.run(*args, "--config", cfg, cwd=tree, timeout=60 * SLOW)
            c.eq(p.returncode, 2, "%s: exit status" % " ".join(args))
            c.that(msg in p.stderr, "%s: says %r: %r" % (" ".join(args), msg, p.stderr))
        p = ax.run("status", "--follow", "--config", cfg, cwd=tree)
        c.eq(p.returncode, 3, "status --follow without a daemon")
        c.that("no animidxd is running" in p.stderr, "says so: %r" % p.stderr)
finally:
    for proc in RUNNING:
        if proc.p.poll() is None:
            os.killpg(proc.p.pid, signal.SIGKILL)
            proc.p.wait()

rc = tap.finish()
if rc == 0:
    shutil.rmtree(TMP, ignore_errors=True)
else:
    print("# kept %s" % TMP)
sys.exit(rc)
