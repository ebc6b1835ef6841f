"""A small runner of composite GitHub Actions, for the test of action.yml (standard library and
PyYAML only).

It runs the action's steps as GitHub's runner does, with the environment GitHub sets, so that
what can be tested off GitHub is: the `${{ }}` expressions (inputs, steps.ID.outputs, github,
runner, env, status functions), step conditions, GITHUB_OUTPUT, GITHUB_PATH, GITHUB_ENV and
GITHUB_STEP_SUMMARY files, the `bash` shell (`bash --noprofile --norc -eo pipefail`), and the
action's outputs. The actions it uses are stood in for by what they do to the job:
actions/cache/restore and actions/cache/save copy a directory to and from a store kept between
jobs (exact key, then the restore-keys prefixes, newest first), and
github/codeql-action/upload-sarif reads the SARIF file and records it. Anything else is an
error, so a step this runner does not understand fails the test.
"""
import os
import re
import shutil
import subprocess

import yaml


class ActionError(Exception):
    pass


# ---- expressions ----

TOKEN = re.compile(r"\s*(?:(?P<str>'(?:[^']|'')*')|(?P<num>-?\d+(?:\.\d+)?)|"
                   r"(?P<op>==|!=|&&|\|\||!|\(|\)|,)|(?P<id>[A-Za-z_][A-Za-z0-9_.\-]*))")


def tokens(text):
    pos, out = 0, []
    text = text.strip()
    while pos < len(text):
        m = TOKEN.match(text, pos)
        if not m or m.end() == pos:
            raise ActionError("cannot read the expression %r at %d" % (text, pos))
        pos = m.end()
        kind = m.lastgroup
        out.append((kind, m.group(kind)))
    return out


class Expr:
    """Evaluates one expression: literals, context paths, == != ! && || ( ), and the functions
    always(), success(), failure(), cancelled()."""

    def __init__(self, text, lookup, status):
        self.t = tokens(text)
        self.i = 0
        self.lookup = lookup
        self.status = status

    def peek(self):
        return self.t[self.i] if self.i < len(self.t) else (None, None)

    def take(self, value=None):
        tok = self.peek()
        if value is not None and tok[1] != value:
            raise ActionError("expected %r, got %r" % (value, tok[1]))
        self.i += 1
        return tok

    def run(self):
        v = self.or_()
        if self.i != len(self.t):
            raise ActionError("trailing tokens in an expression: %r" % (self.t[self.i:],))
        return v

    def or_(self):
        v = self.and_()
        while self.peek()[1] == "||":
            self.take()
            r = self.and_()
            v = v if truthy(v) else r
        return v

    def and_(self):
        v = self.cmp()
        while self.peek()[1] == "&&":
            self.take()
            r = self.cmp()
            v = r if truthy(v) else v
        return v

    def cmp(self):
        v = self.unary()
        while self.peek()[1] in ("==", "!="):
            op = self.take()[1]
            r = self.unary()
            same = str(v).lower() == str(r).lower()  # GitHub compares strings ignoring case
            v = same if op == "==" else not same
        return v

    def unary(self):
        if self.peek()[1] == "!":
            self.take()
            return not truthy(self.unary())
        return self.primary()

    def primary(self):
        kind, val = self.take()
        if kind == "str":
            return val[1:-1].replace("''", "'")
        if kind == "num":
            return val
        if val == "(":
            v = self.or_()
            self.take(")")
            return v
        if kind == "id":
            if self.peek()[1] == "(":
                self.take("(")
                self.take(")")
                if val == "always":
                    return True
                if val == "success":
                    return self.status == "success"
                if val == "failure":
                    return self.status == "failure"
                if val == "cancelled":
                    return False
                raise ActionError("the function %s() is not known to this runner" % val)
            if val in ("true", "false"):
                return val == "true"
            return self.lookup(val)
        raise ActionError("unexpected %r in an expression" % val)


def truthy(v):
    return v not in (None, False, "", 0)


def as_text(v):
    if v is True:
        return "true"
    if v is False:
        return "false"
    return "" if v is None else str(v)


# ---- the runner ----

class Job:
    """One job on a fresh runner: RUNNER_TEMP and the tool cache are new, the workspace is
    what the caller checked out; caches (a dict: key -> directory) outlive jobs."""

    def __init__(self, root, action_path, workspace, caches, env=None, sha="0" * 40,
                 ref="refs/heads/main", repository="example/mod"):
        self.root = root
        self.action_path = action_path
        self.workspace = workspace
        self.caches = caches
        self.sha = sha
        self.ref = ref
        self.repository = repository
        self.temp = os.path.join(root, "runner-temp")
        self.tool_cache = os.path.join(root, "tool-cache")
        for d in (self.temp, self.tool_cache):
            shutil.rmtree(d, ignore_errors=True)
            os.makedirs(d)
        self.files = os.path.join(self.temp, "_runner_file_commands")
        os.makedirs(self.files)
        self.summary = os.path.join(self.files, "step_summary")
        self.path_file = os.path.join(self.files, "add_path")
        self.env_file = os.path.join(self.files, "set_env")
        for f in (self.summary, self.path_file, self.env_file):
            open(f, "w").close()
        self.base_env = dict(env if env is not None else os.environ)
        self.added_env = {}
        self.log = []          # (step name, outcome, stdout+stderr)
        self.uploads = []      # SARIF uploads: (file, category, parsed document)
        self.cache_events = []  # ("restore", key, matched or None) / ("save", key)

    def github_env(self, step_out):
        env = dict(self.base_env)
        env.update(self.added_env)
        extra = [l for l in open(self.path_file).read().splitlines() if l]
        if extra:
            env["PATH"] = os.pathsep.join(list(reversed(extra)) + [env.get("PATH", "")])
        env.update({
            "CI": "true", "GITHUB_ACTIONS": "true",
            "GITHUB_WORKSPACE": self.workspace, "GITHUB_ACTION_PATH": self.action_path,
            "GITHUB_REPOSITORY": self.repository, "GITHUB_SHA": self.sha, "GITHUB_REF": self.ref,
            "GITHUB_SERVER_URL": "https://github.com", "GITHUB_RUN_ATTEMPT": "1",
            "RUNNER_TEMP": self.temp, "RUNNER_TOOL_CACHE": self.tool_cache, "RUNNER_OS": "Linux",
            "GITHUB_OUTPUT": step_out, "GITHUB_STEP_SUMMARY": self.summary,
            "GITHUB_PATH": self.path_file, "GITHUB_ENV": self.env_file,
        })
        return env

    def run(self, action_file, inputs):
        with open(action_file) as f:
            action = yaml.safe_load(f)
        if action.get("runs", {}).get("using") != "composite":
            raise ActionError("not a composite action")
        declared = action.get("inputs") or {}
        for k in inputs:
            if k not in declared:
                raise ActionError("input %r is not declared in action.yml" % k)
        self.inputs = {k: as_text(v.get("default", "")) for k, v in declared.items()}
        self.inputs.update({k: as_text(v) for k, v in inputs.items()})
        self.steps = {}
        status = "success"
        for n, step in enumerate(action["runs"]["steps"]):
            name = step.get("name") or step.get("id") or "step %d" % n
            cond = step.get("if", "success()")
            cond = cond.strip()
            if cond.startswith("${{") and cond.endswith("}}"):
                cond = cond[3:-2]
            if not re.search(r"\b(always|success|failure|cancelled)\(", cond):
                cond = "success() && (%s)" % cond
            if not truthy(self.evaluate(cond, status)):
                self.log.append((name, "skipped", ""))
                continue
            outputs, ok, text = self.run_step(step, status)
            if step.get("id"):
                self.steps[step["id"]] = {"outputs": outputs,
                                          "outcome": "success" if ok else "failure"}
            self.log.append((name, "success" if ok else "failure", text))
            if not ok:
                status = "failure"
        self.status = status
        self.outputs = {k: as_text(self.substitute(v.get("value", ""), status))
                        for k, v in (action.get("outputs") or {}).items()}
        return self

    # -- expressions --

    def lookup(self, path):
        parts = path.split(".")
        ctx = {
            "inputs": self.inputs,
            "steps": self.steps,
            "github": {"action_path": self.action_path, "workspace": self.workspace,
                       "sha": self.sha, "ref": self.ref, "repository": self.repository,
                       "run_attempt": "1", "server_url": "https://github.com"},
            "runner": {"temp": self.temp, "tool_cache": self.tool_cache, "os": "Linux"},
            "env": self.added_env,
        }
        v = ctx.get(parts[0])
        if v is None:
            raise ActionError("unknown context %r" % parts[0])
        for p in parts[1:]:
            v = v.get(p) if isinstance(v, dict) else None
        return v

    def evaluate(self, text, status):
        return Expr(text, self.lookup, status).run()

    def substitute(self, text, status):
        if not isinstance(text, str):
            return text
        return re.sub(r"\$\{\{(.*?)\}\}", lambda m: as_text(self.evaluate(m.group(1), status)),
                      text)

    # -- steps --

    def run_step(self, step, status):
        out = os.path.join(self.files, "output_%d" % len(self.log))
        open(out, "w").close()
        env = self.github_env(out)
        for k, v in (step.get("env") or {}).items():
            env[k] = as_text(self.substitute(v, status))
        if "run" in step:
            if step.get("shell") != "bash":
                raise ActionError("a run step needs shell: bash (composite actions name it)")
            script = os.path.join(self.files, "step_%d.sh" % len(self.log))
            with open(script, "w") as f:
                f.write(self.substitute(step["run"], status))
            cwd = self.substitute(step.get("working-directory", ""), status) or self.workspace
            p = subprocess.run(["bash", "--noprofile", "--norc", "-eo", "pipefail", script],
                               cwd=os.path.join(self.workspace, cwd), env=env,
                               stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                               universal_newlines=True, timeout=900)
            self.read_env_file()
            return read_outputs(out), p.returncode == 0, p.stdout
        uses = step.get("uses", "")
        given = {k: as_text(self.substitute(v, status)) for k, v in (step.get("with") or {}).items()}
        if uses.startswith("actions/cache/restore@"):
            return self.cache_restore(given)
        if uses.startswith("actions/cache/save@"):
            return self.cache_save(given)
        if uses.startswith("github/codeql-action/upload-sarif@"):
            return self.upload_sarif(given)
        raise ActionError("this runner does not stand in for %r" % uses)

    def read_env_file(self):
        for k, v in read_outputs(self.env_file).items():
            self.added_env[k] = v
        open(self.env_file, "w").close()

    def cache_restore(self, w):
        key, path = w["key"], w["path"]
        if not key or not path or "," in key:
            return {}, False, "actions/cache/restore: bad key %r or path %r" % (key, path)
        matched = key if key in self.caches else None
        if not matched:
            for prefix in [l.strip() for l in w.get("restore-keys", "").splitlines() if l.strip()]:
                hits = [k for k in self.caches if k.startswith(prefix)]
                if hits:
                    matched = max(hits, key=lambda k: self.caches[k][0])
                    break
        self.cache_events.append(("restore", key, matched))
        if matched:
            shutil.rmtree(path, ignore_errors=True)
            shutil.copytree(self.caches[matched][1], path, symlinks=True)
        return ({"cache-hit": as_text(matched == key), "cache-primary-key": key,
                 "cache-matched-key": matched or ""}, True, "restored %s" % matched)

    def cache_save(self, w):
        key, path = w["key"], w["path"]
        if not key or "," in key:
            return {}, False, "actions/cache/save: bad key %r" % key
        if key in self.caches:  # GitHub: a warning, the cache stays as it was
            return {}, True, "cache %s exists already" % key
        if not os.path.isdir(path):
            return {}, False, "actions/cache/save: %s does not exist" % path
        store = os.path.join(self.root, "cache-store", "%d" % len(self.caches))
        shutil.rmtree(store, ignore_errors=True)
        shutil.copytree(path, store, symlinks=True)
        self.caches[key] = (len(self.caches), store)
        self.cache_events.append(("save", key))
        return {}, True, "saved %s" % key

    def upload_sarif(self, w):
        import json
        f = w.get("sarif_file", "")
        try:
            with open(f if os.path.isabs(f) else os.path.join(self.workspace, f)) as fh:
                doc = json.load(fh)
        except (OSError, ValueError) as e:
            return {}, False, "upload-sarif: %s" % e
        if doc.get("version") != "2.1.0":
            return {}, False, "upload-sarif: not SARIF 2.1.0"
        self.uploads.append((f, w.get("category", ""), doc))
        return {}, True, "uploaded %s" % f


def read_outputs(path):
    """name=value lines and name<<DELIMITER ... DELIMITER blocks, as GitHub reads them."""
    out = {}
    lines = open(path).read().split("\n")
    i = 0
    while i < len(lines):
        line = lines[i]
        i += 1
        if not line:
            continue
        m = re.match(r"^([^=<]+)<<(.+)$", line)
        if m:
            value = []
            while i < len(lines) and lines[i] != m.group(2):
                value.append(lines[i])
                i += 1
            i += 1
            out[m.group(1)] = "\n".join(value)
        elif "=" in line:
            k, v = line.split("=", 1)
            out[k] = v
        else:
            raise ActionError("a line of %s is neither name=value nor name<<EOF: %r" % (path, line))
    return out
