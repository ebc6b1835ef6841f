#!/usr/bin/env python3
"""Man pages and shell completions from the programs' own --help text (so they never drift).

usage: man.py animidx1 ANIMIDX OUT          animidx(1): the overview and every command's --help
       man.py animidxd8 ANIMIDXD OUT        animidxd(8): the daemon's --help
       man.py bash ANIMIDX OUT              bash completion: commands and each one's options
       man.py zsh ANIMIDX OUT               zsh completion

Run by meson at build time (standard library only); meson installs the results. In a cross
build (Windows), AMX_EXE_WRAPPER names the program that runs the binaries (wine).
"""
import os
import re
import subprocess
import sys


def run(*argv):
    wrapper = os.environ.get("AMX_EXE_WRAPPER")
    if wrapper:
        argv = (wrapper,) + argv
    return subprocess.run(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                          universal_newlines=True, check=True).stdout


def commands(exe):
    """[(name, summary)] from 'animidx --help'."""
    out, cmds, on = run(exe, "--help"), [], False
    for line in out.splitlines():
        if line.startswith("commands:"):
            on = True
            continue
        if on and not line.strip():
            break
        if on:
            m = re.match(r"^  (\S+)\s+(.*)$", line)
            if m:
                cmds.append((m.group(1), m.group(2)))
    return cmds


def options(help_text):
    """[(option, value or None)] of a command's --help 'options:' section."""
    opts, on = [], False
    for line in help_text.splitlines():
        if line.startswith("options:"):
            on = True
            continue
        m = re.match(r"^  (--[a-z-]+)(?: ([A-Z]+))?\s", line + " ") if on else None
        if m:
            opts.append((m.group(1), m.group(2)))
    return opts


def esc(text):
    """roff: backslashes and hyphens, and a leading dot or quote."""
    text = text.replace("\\", "\\e").replace("-", "\\-")
    return "\n".join(("\\&" + l) if l[:1] in (".", "'") else l for l in text.split("\n"))


def files_of(top):
    """('VAR, VAR', [(path, what)]) from the 'files (their folders: ...):' section of --help."""
    variables, files, on = "", [], False
    for line in top.splitlines():
        m = re.match(r"^files \(their folders: (.*)\):$", line)
        if m:
            variables = re.sub(r" when set$", "", m.group(1))
            variables = re.sub(r"[$%]", "", variables).replace(" and ", ", ")
            on = True
            continue
        if on and not line.strip():
            break
        m = re.match(r"^  (\S+)\s+(.*)$", line) if on else None
        if m:
            files.append((m.group(1), m.group(2)))
    return variables, files


def version(exe):
    return run(exe, "--version").split()[1]


def page_animidx(exe):
    top = run(exe, "--help")
    first = top.splitlines()[0]
    desc = first.split(": ", 1)[1] + " " + top.splitlines()[1].strip()
    out = ['.TH ANIMIDX 1 "" "animidx %s" "User Commands"' % version(exe),
           ".SH NAME", "animidx \\- " + esc(desc.strip()),
           ".SH SYNOPSIS", ".B animidx", ".I COMMAND", "[\\fIOPTIONS\\fR]",
           ".SH DESCRIPTION",
           esc("animidx indexes and validates the animation, skeleton, model and archive files of "
               "Petroglyph Alamo, MechWarrior 3, Metroid Prime and Westwood W3D games and mods into a "
               "SQLite index, and queries and lints it. Every command takes --config FILE and --help; "
               "an option a command does not take is a usage error (exit status 2)."),
           ".SH COMMANDS"]
    for name, summary in commands(exe):
        text = run(exe, name, "--help")
        lines = text.splitlines()
        usage = lines[0][len("usage: animidx "):] if lines[0].startswith("usage: ") else name
        out += [".SS " + esc(usage.split()[0]), ".B animidx " + esc(" ".join(usage.split()[0:1])),
                esc(" ".join(usage.split()[1:])), ".PP", esc(summary) + "."]
        body, opts = [], []
        section = "body"
        for line in lines[2:]:
            if line.startswith("options:"):
                section = "opts"
                continue
            if section == "body":
                if line.strip() and line.strip() != summary + ".":
                    body.append(line.strip())
            else:
                opts.append(line)
        if body:
            out += [".PP", esc(" ".join(body))]
        item = None
        for line in opts:
            m = re.match(r"^  (--[a-z-]+(?: [A-Z]+)?)\s+(.*)$", line)
            if m:
                out += [".TP", "\\fB%s\\fR" % esc(m.group(1)), esc(m.group(2))]
                item = True
            elif item and line.strip():
                out.append(esc(line.strip()))
    out += [".SH EXIT STATUS",
            ".TP", "0", "success (dump, lint: nothing at or above the gate)",
            ".TP", "1", "a finding at or above the gate; show, issues, refs: nothing indexed at the path, or "
            "several files match it",
            ".TP", "2", "usage or configuration error",
            ".TP", "3", "I/O or database error (also: a database that is not an animidx index; scan: "
            "the scan is incomplete); status, pause, resume, sync, stop: no daemon answers; "
            "status, sync: the daemon's index is not in sync",
            ".TP", "130", "scan stopped by Ctrl\\-C or SIGTERM",
            ".SH ENVIRONMENT",
            ".TP", "NO_COLOR", esc("when set and not empty, no colours (as --color=never)")]
    # the files and the variables that move them, as this system says them (animidx --help)
    variables, files = files_of(top)
    out += [".TP", esc(variables),
            esc("where the config, the index and lint's own indexes are (FILES)"),
            ".SH FILES"]
    for path, what in files:
        out += [".TP", esc(path), esc(what)]
    windows = "APPDATA" in variables  # the Windows build: the zip holds the docs
    out += [".SH SEE ALSO", "\\fBanimidxd\\fR(8); README.md, docs/lint.md, docs/json.md and docs/rules.md " +
            ("(in the zip, beside animidx.exe)" if windows else "(installed under share/doc/animidx)")]
    return "\n".join(out) + "\n"


def page_animidxd(exe):
    text = run(exe, "--help")
    lines = text.splitlines()
    out = ['.TH ANIMIDXD 8 "" "animidx %s" "System Administration"' % version(exe),
           ".SH NAME", "animidxd \\- keep the animidx index current while files change",
           ".SH SYNOPSIS", ".B animidxd", esc(lines[0][len("usage: animidxd "):]),
           ".SH DESCRIPTION"]
    para, opts, tail, signals, section = [], [], [], [], "para"
    for line in lines[2:]:
        if re.match(r"^  --", line):
            section = "opts"
        elif line.startswith("stopping and reloading:"):
            section = "signals"
            continue
        elif section in ("opts", "signals") and line and not line.startswith(" "):
            section = "tail"
        if section == "para":
            para.append(line.strip())
        elif section == "opts":
            opts.append(line)
        elif section == "signals":
            signals.append(line)
        else:
            tail.append(line.strip())
    out.append(esc(" ".join(l for l in para if l)))
    out.append(".SH OPTIONS")
    for line in opts:
        m = re.match(r"^  (--\S+(?: [A-Z]+)?(?:, --\S+)?)\s+(.*)$", line)
        if m:
            out += [".TP", "\\fB%s\\fR" % esc(m.group(1)), esc(m.group(2))]
        elif line.strip():
            out.append(esc(line.strip()))
    out += [".SH EXIT STATUS", esc(" ".join(l for l in tail if l).replace("exit status: ", "")),
            ".SH STOPPING AND RELOADING"]
    # "  SIGTERM, SIGINT   stop ..." (POSIX) or "  Ctrl-C, Ctrl-Break  stop ..." (Windows)
    for line in signals:
        m = re.match(r"^  (\S.*?)\s{2,}(.*)$", line)
        if m:
            out += [".TP", esc(m.group(1)), esc(m.group(2))]
        elif line.strip():
            out.append(esc(line.strip()))
    windows = any("Ctrl-Break" in line for line in signals)
    out += [".SH SEE ALSO", "\\fBanimidx\\fR(1)" + ("" if windows else
                                                 "; config/animidxd.service (a systemd user unit)")]
    return "\n".join(out) + "\n"


def bash(exe):
    cmds = commands(exe)
    cases = []
    for name, _ in cmds:
        opts = options(run(exe, name, "--help"))
        cases.append("        %s) opts='%s' ;;" % (name, " ".join(o for o, _ in opts)))
    valued = sorted({o for name, _ in cmds for o, v in options(run(exe, name, "--help")) if v} |
                    {"--config"})
    return """# bash completion for animidx (generated by scripts/man.py from animidx --help)
_animidx() {
    local cur prev cmd opts
    cur=${COMP_WORDS[COMP_CWORD]}
    prev=${COMP_WORDS[COMP_CWORD-1]}
    if [ "$COMP_CWORD" -eq 1 ]; then
        COMPREPLY=($(compgen -W '%s --help --version' -- "$cur"))
        return
    fi
    cmd=${COMP_WORDS[1]}
    case $prev in
        --severity|--fail-on) COMPREPLY=($(compgen -W 'error warning info' -- "$cur")); return ;;
        --format) COMPREPLY=($(compgen -W 'text json sarif junit' -- "$cur")); return ;;
        --group-by) COMPREPLY=($(compgen -W 'file code' -- "$cur")); return ;;
        --plots) COMPREPLY=($(compgen -W 'findings all none' -- "$cur")); return ;;
        --color) COMPREPLY=($(compgen -W 'auto always never' -- "$cur")); return ;;
        --code) COMPREPLY=($(compgen -W "$(animidx rules 2>/dev/null | cut -d' ' -f1)" -- "$cur")); return ;;
        %s) COMPREPLY=($(compgen -f -- "$cur")); return ;;
    esac
    case $cmd in
%s
        *) opts='' ;;
    esac
    if [[ $cur == -* ]]; then
        COMPREPLY=($(compgen -W "$opts --config --help" -- "$cur"))
    else
        COMPREPLY=($(compgen -f -- "$cur"))
    fi
}
complete -o filenames -F _animidx animidx
""" % (" ".join(n for n, _ in cmds), "|".join(valued), "\n".join(cases))


def zsh(exe):
    cmds = commands(exe)
    lines = ["#compdef animidx", "# zsh completion for animidx (generated by scripts/man.py from animidx --help)",
             "_animidx() {", "  local -a commands", "  commands=("]
    for name, summary in cmds:
        lines.append("    '%s:%s'" % (name, summary.replace("'", "'\\''").replace(":", "\\:")))
    lines += ["  )", "  if (( CURRENT == 2 )); then", "    _describe 'command' commands", "    return",
              "  fi", "  case ${words[2]} in"]
    for name, _ in cmds:
        specs = []
        for o, v in options(run(exe, name, "--help")):
            specs.append("'%s%s'" % (o, ("=[" + v + "]:" + v.lower() + ":_files") if v else ""))
        specs += ["'--config=[FILE]:file:_files'", "'--help'", "'*:file:_files'"]
        lines.append("    %s) _arguments %s ;;" % (name, " ".join(specs)))
    lines += ["  esac", "}", '_animidx "$@"']
    return "\n".join(lines) + "\n"


def main():
    if len(sys.argv) != 4:
        sys.exit(__doc__)
    what, exe, out = sys.argv[1:]
    text = {"animidx1": page_animidx, "animidxd8": page_animidxd, "bash": bash, "zsh": zsh}[what](exe)
    with open(out, "w", encoding="utf-8") as f:
        f.write(text)


if __name__ == "__main__":
    main()
