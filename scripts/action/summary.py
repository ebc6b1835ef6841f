#!/usr/bin/env python3
"""The animidx GitHub Action's job summary (called by summary.sh; standard library only).

usage: summary.py LINT_JSON EXIT_CODE

Reads the output of `animidx lint --format json` and appends Markdown to $GITHUB_STEP_SUMMARY:
the verdict, the totals, what the scan decoded, a table of the findings per code and the first
findings that fail the job. Writes the outputs errors, warnings, info, files-decoded and passed
to $GITHUB_OUTPUT. Text from the files (paths, messages) is escaped, never Markdown.
"""
import json
import os
import sys
import urllib.parse

FIRST = 20          # findings listed
SEVERITIES = ("error", "warning", "info")


def md(text):
    """Text shown as itself in a Markdown table cell: punctuation backslash-escaped, control
    characters as \\xNN, newlines as spaces."""
    out = []
    for ch in str(text):
        if ch in "\n\r\t":
            out.append(" ")
        elif ord(ch) < 0x20 or ord(ch) == 0x7F:
            out.append("\\\\x%02X" % ord(ch))
        elif ch in "\\`*_{}[]()<>#+-.!|~&$%^=\"':;,@?/":
            out.append("\\" + ch)
        else:
            out.append(ch)
    return "".join(out)


def plural(n, word):
    return "%d %s%s" % (n, word, "" if n == 1 else "s")


def repo_path(f, workspace):
    """The finding's file as a path in the repository (its archive, for an archive member)."""
    root = f.get("root") or ""
    path = f["path"]
    rel = os.path.relpath(root, workspace) if root and workspace else root
    if rel == ".":
        full = path
    elif rel.startswith(".."):
        full = os.path.join(root, path)
    else:
        full = rel + "/" + path
    return full


def blob_url(path):
    server = os.environ.get("GITHUB_SERVER_URL", "https://github.com")
    repo, sha = os.environ.get("GITHUB_REPOSITORY"), os.environ.get("GITHUB_SHA")
    if not repo or not sha or path.startswith("/"):
        return None
    archive = path.split("#", 1)[0] if "#" in path else path
    return "%s/%s/blob/%s/%s" % (server, repo, sha, urllib.parse.quote(archive))


def main():
    if len(sys.argv) != 3:
        sys.stderr.write("usage: summary.py LINT_JSON EXIT_CODE\n")
        return 2
    path, code = sys.argv[1], None if sys.argv[2] == "none" else int(sys.argv[2])
    lines = []
    outputs = {}
    report = None
    if path and os.path.exists(path):
        try:
            with open(path, encoding="utf-8") as f:
                report = json.load(f)
        except ValueError as e:
            lines.append("animidx lint wrote output that is not JSON (%s)." % md(e))
    if report is None and code is None:
        lines[:0] = ["### animidx lint: did not run", "",
                     "An earlier step failed (installing or building animidx); the job log says why."]
        write(lines, {"passed": "false"})
        return 0
    if report is None:
        lines.insert(0, "### animidx lint: did not run (exit %d)" % code)
        lines.append("")
        lines.append("Exit %d is %s; the job log says why." % (code, {
            2: "a usage or configuration error (an input, the config, a baseline or suppression file)",
            3: "an I/O or database error (a path that cannot be read, an index that cannot be written)",
        }.get(code, "an unexpected failure")))
        write(lines, {"passed": "false"})
        return 0

    workspace = os.environ.get("GITHUB_WORKSPACE", os.getcwd())
    gate = report["gate"]
    gate_rank = SEVERITIES.index(gate)
    totals = report["totals"]
    scan = report.get("scan") or {}
    findings = report["findings"]
    failing = [f for f in findings if SEVERITIES.index(f["severity"]) <= gate_rank]
    passed = bool(report["passed"])
    lines.append("### animidx lint: %s" % ("passed" if passed else "FAILED"))
    lines.append("")
    if passed:
        lines.append("No finding at or above %s (`--fail-on %s`)." % (md(gate), md(gate)))
    else:
        lines.append("**%d finding%s at or above %s** (`--fail-on %s`)." % (
            len(failing), "" if len(failing) == 1 else "s", md(gate), md(gate)))
    lines.append("")
    extra = []
    if report.get("baselined"):
        extra.append("%d in the baseline" % report["baselined"])
    if report.get("suppressed"):
        extra.append("%d suppressed" % report["suppressed"])
    lines.append("%s, %s, %d info%s in %d files." % (
        plural(totals["error"], "error"), plural(totals["warning"], "warning"), totals["info"],
        " (not counted: %s)" % ", ".join(extra) if extra else "", scan.get("files_seen", 0)))
    if scan:
        lines.append("The index: %d files decoded, %d re-hashed (unchanged content), %d unchanged "
                     "(%.1f s)." % (scan["files_decoded"], scan["files_rehashed"],
                                    scan["files_unchanged"], scan["seconds"]))
    lines.append("")

    per_code = {}
    for f in findings:
        c = per_code.setdefault(f["code"], {"severity": f["severity"], "findings": 0, "files": set()})
        c["findings"] += 1
        c["files"].add((f.get("root"), f["path"]))
        if SEVERITIES.index(f["severity"]) < SEVERITIES.index(c["severity"]):
            c["severity"] = f["severity"]
    if per_code:
        lines.append("| code | severity | findings | files |")
        lines.append("|---|---|---:|---:|")
        order = sorted(per_code.items(), key=lambda kv: (SEVERITIES.index(kv[1]["severity"]),
                                                         -kv[1]["findings"], kv[0]))
        for name, c in order:
            lines.append("| %s | %s | %d | %d |" % (md(name), md(c["severity"]), c["findings"],
                                                   len(c["files"])))
        lines.append("")
    if failing:
        title = "First errors" if gate == "error" else "First findings at or above %s" % md(gate)
        shown = failing[:FIRST]
        lines.append("#### %s (%d of %d)" % (title, len(shown), len(failing)))
        lines.append("")
        lines.append("| file | code | where | message |")
        lines.append("|---|---|---|---|")
        for f in shown:
            p = repo_path(f, workspace)
            url = blob_url(p)
            cell = "[%s](%s)" % (md(p), url) if url else md(p)
            where = f.get("context") or ""
            if f.get("offset") is not None and f["offset"] >= 0:
                where = ("offset %d" % f["offset"]) + (", " + where if where else "")
            lines.append("| %s | %s | %s | %s |" % (cell, md(f["code"]), md(where), md(f["message"])))
        lines.append("")
    unused = report.get("unused_suppressions") or []
    if unused:
        lines.append("Unused suppressions (remove them): " + ", ".join(
            "%s %s" % (md(u["code"]), md(u["path"])) for u in unused) + ".")
        lines.append("")
    outputs.update({"errors": totals["error"], "warnings": totals["warning"],
                    "info": totals["info"], "files-decoded": scan.get("files_decoded", ""),
                    "passed": "true" if passed else "false"})
    write(lines, outputs)
    return 0


def write(lines, outputs):
    text = "\n".join(lines) + "\n"
    dest = os.environ.get("GITHUB_STEP_SUMMARY")
    if dest:
        with open(dest, "a", encoding="utf-8") as f:
            f.write(text)
    else:
        sys.stdout.write(text)
    out = os.environ.get("GITHUB_OUTPUT")
    if out:
        with open(out, "a", encoding="utf-8") as f:
            for k, v in outputs.items():
                f.write("%s=%s\n" % (k, v))


if __name__ == "__main__":
    sys.exit(main())
