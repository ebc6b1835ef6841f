/*
 * animidx: the command line. Dispatches to the commands, parses their options (each command
 * takes only the options its row lists: anything else is a usage error), loads the config
 * (defaults < config file < flags) and maps failures to the documented exit codes.
 */
#include "cli.h"
#include "cmd_daemon.h"

#include "animidx/text.h"

#include <errno.h>
#include <stddef.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Every option of the command line: its name, the value it takes (NULL for a flag) and the
 * help line commands show unless their row gives their own. */
typedef enum { O_FLAG, O_STR, O_INT, O_BASE, O_NO_BASE } opt_kind;

typedef struct opt_def {
    const char *name;
    const char *value;          /* the value's name in help, NULL for a flag */
    const char *help;
    opt_kind kind;
    size_t field;               /* offsetof(cli_opts, ...) */
    int lo, hi;                 /* O_INT: the range */
} opt_def;

#define FLAG(f) O_FLAG, offsetof(cli_opts, f), 0, 0
#define STR(f) O_STR, offsetof(cli_opts, f), 0, 0
#define INT(f, lo, hi) O_INT, offsetof(cli_opts, f), lo, hi

static const opt_def options[] = {
    { "--db", "FILE", "the index (default: the config's [index] database)", STR(db) },
    { "--json", NULL, "print JSON (docs/json.md)", FLAG(json) },
    { "--quiet", NULL, "print nothing on success", FLAG(quiet) },
    { "--jobs", "N", "threads that decode and link files (default: one per CPU)",
      INT(jobs, 0, 256) },
    { "--base", "DIR", "a base layer: the game or parent mod the tree sits on (repeatable)", O_BASE, 0, 0, 0 },
    { "--no-base", NULL, "the tree sits on nothing (forget the recorded layers)", O_NO_BASE, 0, 0, 0 },
    { "--include-base", NULL, "also the files and findings of roots scanned only as base layers", FLAG(include_base) },
    { "--missing", NULL, "the missing names instead of one file's references", FLAG(missing) },
    { "--samples", NULL, "every channel of every clip evaluated at every frame", FLAG(samples) },
    { "--max-frames", "N", "with --samples: clips of up to N frames are sampled (default 4096; "
                           "0 = every clip)", INT(max_frames, 0, 1 << 30) },
    { "--skeleton", "NAME", "the skeleton (case-insensitive)", STR(skeleton) },
    { "--model", "NAME", "the model (case-insensitive)", STR(model) },
    { "--bone", "NAME", "only what has a bone of this name (case-insensitive)", STR(bone) },
    { "--severity", "S", "only findings at or above S (info, warning, error)", STR(severity) },
    { "--code", "C", "only findings of code C ('animidx rules' lists them)", STR(code) },
    { "--limit", "N", "show at most N findings (the summary still counts all)", INT(limit, 0, 100000000) },
    { "--fail-on", "S", "exit 1 when a finding is at or above S (default: error)", STR(fail_on) },
    { "--format", "F", "text (default), json, sarif or junit", STR(format) },
    { "--max-results", "N", "SARIF: at most N results, the most severe first (default 5000)", INT(max_results, 1, 25000) },
    { "--group-by", "WHAT", "SARIF: one result per file or per code (file|code)", STR(group_by) },
    { "--baseline", "FILE", "count only findings that are not in FILE", STR(baseline) },
    { "--write-baseline", "FILE", "record the current findings in FILE and exit 0", STR(write_baseline) },
    { "--suppressions", "FILE", "ignore findings matching {code, path glob, reason} entries", STR(suppressions) },
    { "--lint", NULL, "print each finding that appears or goes as changes are indexed "
                      "(as lint counts them)", FLAG(lint) },
    { "--follow", NULL, "keep printing each finding that appears or goes after each batch the "
                        "daemon indexes", FLAG(follow) },
    { "--dependents", NULL, "with files given: also the findings of the files that depend on "
                            "them (the clips that play on a model given, the files that name "
                            "one)", FLAG(dependents) },
    { "--out", "DIR", "where to write (default: the current directory; created if needed)", STR(out) },
    { "--previous", "FILE", "an earlier report.json: say what is new, fixed and still open", STR(previous) },
    { "--plots", "WHICH", "clip plots: findings (default: clips with findings), all, none", STR(plots) },
    { "--since", "SCAN", "the changes of every scan after SCAN (a scan id, or a date "
                         "YYYY-MM-DD[THH:MM:SS])", STR(since) },
    { "--follow-links", NULL, "follow symbolic links that lead out of the directory, one level\n"
                              "(default: [scan] follow_links; else such a link is a\n"
                              "LINK_NOT_FOLLOWED finding and is not read)",
      FLAG(follow_links) },
    { "--color", "WHEN", "colour severities: auto (on a terminal, unless NO_COLOR is set), "
                         "always, never", STR(color) },
};

#define NOPTIONS (sizeof options / sizeof options[0])

static const cli_cmd commands[] = {
    { "scan", "scan [DIR...] [--base DIR]... [--no-base] [--include-base] [--db FILE] [--jobs N]\n"
              "              [--follow-links] [--json] [--quiet]",
      "index a directory tree (incremental: unchanged files are skipped)",
      "Recursively finds the animation, model and archive files under each DIR (the configured\n"
      "roots when none is given), decodes new and changed ones in parallel, removes rows of\n"
      "deleted files, binds clips to skeletons and prints a summary. A second scan of an\n"
      "unchanged tree only stats the files. Files that cannot be read or decoded are recorded\n"
      "with their findings; the scan goes on. Ctrl-C stops it between files: what was decoded\n"
      "is kept, nothing is removed, and the next scan completes the index (exit status 130).\n"
      "Clips bind only within their own DIR and the base layers it sits on: a mod's clips find\n"
      "the models of the game it extends when that game is given as a base layer. A DIR must\n"
      "be a directory (to check single files, use 'animidx lint FILE...').\n",
      cmd_scan,
      { { "--base", "a base layer of every DIR (the game or parent mod it extends, in lookup\n"
                    "order; repeatable). Base layers are scanned too, and their own findings\n"
                    "are left out of issues, lint and report unless --include-base. Without\n"
                    "--base, [root DIR] base = ... of the config applies, else the layers the\n"
                    "index recorded for DIR" },
        { "--no-base", "DIR sits on nothing (forget the recorded layers)" },
        { "--include-base", "the summary's findings count the base layers' too" },
        { "--db", NULL }, { "--jobs", NULL }, { "--follow-links", NULL },
        { "--json", "print the summary as JSON" },
        { "--quiet", "print nothing on success (no progress line, no summary)" } } },
    { "dump", "dump [--json] [--samples [--max-frames N]] FILE...",
      "decode files without an index and print what they hold",
      "Decodes each FILE (a member of an archive as ARCHIVE#NAME) and prints its skeletons,\n"
      "clips, model data and findings. With --json, one JSON object per file per line, as in\n"
      "docs/json.md. With --samples, every channel of every clip evaluated at every frame, for\n"
      "clips of at most 4096 frames (a clip of more says so in an info finding); --max-frames N\n"
      "raises that limit, 0 lifts it. Anything but a regular file (a FIFO, a device) is skipped.\n"
      "Exit status: 0 no error findings, 1 an error finding, 2 usage, 3 unreadable file.\n",
      cmd_dump,
      { { "--json", "one JSON object per file per line" }, { "--samples", NULL },
        { "--max-frames", NULL }, { "--color", NULL } } },
    { "clips", "clips [--skeleton] NAME | --model NAME | --bone NAME [--db FILE] [--json]",
      "list the clips that target a skeleton, that play on a model, or that animate a bone",
      "Lists every indexed clip bound to skeleton NAME (case-insensitive), with its frames, fps,\n"
      "the number of its bones that do not fit the skeleton, the skeleton's file and how the\n"
      "binding was made (the engine's naming convention, an XML animation override, the\n"
      "W3D header, an ANCS character set); then the clips that target NAME but found no such\n"
      "skeleton. A clip whose file has error findings says so. With --bone, the clips that\n"
      "animate a bone of that name (with --skeleton: only those bound to that skeleton).\n"
      "With --model, the animations the game plays on model NAME, every engine, each with how\n"
      "it was bound: an Alamo model's by the naming convention or an XML override, a W3D\n"
      "render object's hierarchy by the W3D header, and for Generals, Zero Hour and BFME the\n"
      "INI draw states that play it (the object, the state, the INI file and line).\n"
      "--skeleton may be left out ('animidx clips VSF_AUREK'), and NAME may be a model's\n"
      "path as for show ('animidx clips Art/Models/VSF_AUREK.ALO'): its skeleton.\n",
      cmd_clips,
      { { "--skeleton", "the skeleton (case-insensitive; 'animidx skeletons' lists them)" },
        { "--model", "the model: an Alamo model file's name, a W3D HLOD, an INI Model = NAME\n"
                    "(a model's file, X.ALO or x.w3d, stands for its name)" },
        { "--bone", "only the clips with a track for a bone of this name" },
        { "--db", NULL }, { "--json", NULL }, { "--color", NULL } } },
    { "skeletons", "skeletons [--bone NAME] [--db FILE] [--json]",
      "list the skeletons in the index, with their bone and clip counts",
      "Lists every skeleton with its bone count, the clips bound to it and its file.\n",
      cmd_skeletons,
      { { "--bone", "only the skeletons that have a bone of this name" },
        { "--db", NULL }, { "--json", NULL } } },
    { "issues", "issues [PATH] [--severity S] [--code C] [--limit N] [--include-base] [--db FILE] [--json]",
      "list findings in the index, grouped by file",
      "Lists findings at or above severity S (info, warning, error), of code C, under PATH (a\n"
      "file or directory, as you would type it: relative to the current directory or to the\n"
      "scanned root, absolute, with {{./}} or a trailing {{/}}). Findings are grouped by file;\n"
      "when a file has more than three of one code the rest are counted in one line. The last\n"
      "lines count the findings per code. Severity overrides from the config apply. Roots\n"
      "scanned only as base layers (scan --base) are left out unless --include-base.\n",
      cmd_issues,
      { { "--severity", NULL }, { "--code", NULL }, { "--limit", NULL },
        { "--include-base", "also the findings of roots scanned only as base layers" },
        { "--db", NULL }, { "--json", "every finding as a JSON array (not grouped or limited "
                                      "unless --limit)" },
        { "--color", NULL } } },
    { "show", "show PATH [--db FILE] [--json]",
      "everything the index knows about a file",
      "PATH is the file as you would type it: relative to the current directory or to the\n"
      "scanned root, absolute, or just the end of it (a file name); case-insensitive for Alamo\n"
      "and W3D files. A clip shows every skeleton it is checked against and why; a model, the\n"
      "game objects that use it; an XML file, its game objects and the files they name. Exit\n"
      "status 1 when nothing indexed matches (the closest indexed paths are suggested).\n",
      cmd_show,
      { { "--db", NULL }, { "--json", NULL }, { "--color", NULL } } },
    { "refs", "refs PATH | --missing [--include-base] [--db FILE] [--json]",
      "what a file names (models, textures, shaders, particles) and what names it; what is missing",
      "With PATH (as for show: relative to the current directory or the scanned root, absolute,\n"
      "or just the file name): every file the file names, where it is named and what it\n"
      "resolved to through the root's layers (loose files before archive contents), and every\n"
      "file that names it; for a file animidx does not decode (a texture, a BFME #include\n"
      "fragment; give its path), the files that name it. With --missing: the names no layer\n"
      "provides (or provides as the wrong kind), grouped by name, most referenced first, with\n"
      "the files that name them: the list to fix from. Without base layers (scan --base) most\n"
      "of a mod's references to the game's own assets are missing by design.\n",
      cmd_refs,
      { { "--missing", NULL },
        { "--include-base", "also the references of roots scanned only as base layers" },
        { "--db", NULL }, { "--json", "JSON (docs/json.md)" }, { "--color", NULL } } },
    { "rules", "rules [CODE] [--json]", "list every issue code, or explain one",
      "Without CODE, the catalogue of docs/rules.md with each code's effective severity (the\n"
      "config's [severity] overrides applied). With CODE, that rule: its severity, what it\n"
      "means, how to fix it and where it comes from.\n",
      cmd_rules,
      { { "--json", NULL }, { "--color", NULL } } },
    { "changes", "changes [--since SCAN] [--db FILE] [--json]",
      "what the last scan (or the scans since SCAN) added, changed and removed",
      "Lists the files the last scan of each root added, changed (new content) and removed,\n"
      "from what the index recorded during the scans. With --since, every change of the scans\n"
      "after SCAN (a scan id as printed here, or a date). Renames by the daemon are listed as\n"
      "a removal and an addition.\n",
      cmd_changes,
      { { "--since", NULL }, { "--db", NULL }, { "--json", NULL }, { "--color", NULL } } },
    { "watch", "watch [DIR...] [--base DIR]... [--no-base] [--db FILE] [--jobs N] [--follow-links]\n"
               "              [--lint [--fail-on S] [--baseline FILE] [--suppressions FILE]\n"
               "              [--json] [--color WHEN]]",
      "keep the index current while files change (animidxd in the foreground)",
      "Scans each DIR (the configured roots when none is given) like 'scan', then watches the\n"
      "trees and indexes every change a settle period ([daemon] settle_ms) after the file was\n"
      "written. Runs animidxd --foreground (next to this binary, else from PATH); stop it with\n"
      "Ctrl-C, or 'animidx stop' from another {{terminal|window}}. 'animidx status', 'pause',\n"
      "'resume' and 'sync' talk to it.\n"
      "With --lint, once the first scan is done, prints after each batch of changes one line\n"
      "per finding that appeared (+) or went (-), counted as lint counts them, and exits as\n"
      "lint would on Ctrl-C: 0, or 1 when findings at or above --fail-on remain. See\n"
      "docs/lint.md (\"watch --lint and status --follow\").\n",
      cmd_watch,
      { { "--base", "a base layer of every DIR, as for scan (scanned with every whole scan,\n"
                    "not watched)" },
        { "--no-base", "DIR sits on nothing" }, { "--db", NULL }, { "--jobs", NULL },
        { "--lint", "print each finding that appears (+) or goes (-) after each batch" },
        { "--fail-on", "with --lint: the exit status on Ctrl-C, and the verdict after each\n"
                       "batch (default: error)" },
        { "--baseline", "with --lint: findings in FILE (lint --write-baseline) are not shown" },
        { "--suppressions", "with --lint: findings matching {code, path glob, reason} are not\n"
                            "shown" },
        { "--json", "with --lint: one JSON object per finding that appeared or went" },
        { "--color", "with --lint: colour severities: auto (on a terminal, unless NO_COLOR is\n"
                     "set), always, never" },
        { "--follow-links", NULL } } },
    { "status", "status [--json] | status --follow [--fail-on S] [--baseline FILE]\n"
                "              [--suppressions FILE] [--json] [--color WHEN]",
      "what the watcher daemon (animidxd) is doing",
      "Prints the daemon's state (scanning, watching, paused), the files indexed, the queue,\n"
      "files/s, overflows and the last error. Exit status 3 when no daemon answers on the\n"
      "{{socket|named pipe}} ([daemon] socket), and when its index is not in sync (NOT IN SYNC, with each\n"
      "root's reason, as 'sync' says it).\n"
      "With --follow, prints what 'watch --lint' prints, for a daemon already running, until\n"
      "Ctrl-C (exit 0, or 1 when findings at or above --fail-on remain) or the daemon stops\n"
      "(exit 3).\n",
      cmd_status,
      { { "--json", "print the daemon's reply (JSON); with --follow, one JSON object per\n"
                    "finding that appeared or went" },
        { "--follow", "keep printing each finding that appears (+) or goes (-) after each\n"
                      "batch the daemon indexes" },
        { "--fail-on", "with --follow: the exit status on Ctrl-C, and the verdict after each\n"
                       "batch (default: error)" },
        { "--baseline", "with --follow: findings in FILE are not shown" },
        { "--suppressions", "with --follow: findings matching {code, path glob, reason} are\n"
                            "not shown" },
        { "--color", "with --follow: colour severities: auto (on a terminal, unless NO_COLOR\n"
                     "is set), always, never" } } },
    { "pause", "pause [--json] [--quiet]", "stop indexing changes until 'resume' (a mod install)",
      "The daemon keeps watching and queues the changes; 'resume' indexes them.\n", cmd_pause,
      { { "--json", "print the daemon's reply (JSON)" }, { "--quiet", NULL } } },
    { "resume", "resume [--json] [--quiet]", "index the changes queued since 'pause'",
      "Ends a pause: the changes queued meanwhile are indexed.\n", cmd_resume,
      { { "--json", "print the daemon's reply (JSON)" }, { "--quiet", NULL } } },
    { "sync", "sync [--json] [--quiet]", "wait until every change made so far is indexed",
      "Returns once every change made before it is in the index, so a query run after it sees\n"
      "them. Exit status 3 when the daemon is not running or paused, or when its index is not\n"
      "in sync: a scan failed, changes could not be indexed, a root is gone or a watch was lost\n"
      "(each reason printed, until a scan of the root succeeds; a sync retries such a root at\n"
      "once).\n",
      cmd_sync, { { "--json", "print the daemon's reply (JSON)" }, { "--quiet", NULL } } },
    { "stop", "stop [--json] [--quiet]", "stop the daemon and wait until it has",
      "Asks animidxd to stop, as {{SIGTERM|Ctrl-C in its window}} does: the running scan ends\n"
      "after the files being decoded (what was decoded is written), and the daemon exits 0.\n"
      "Returns once it has exited: its index is closed and another daemon may start on it.\n"
      "Exit status 3 when no daemon answers, or when it is still stopping after 60 s.\n",
      cmd_stop, { { "--json", "print the daemon's reply (JSON), once it has stopped" },
                  { "--quiet", NULL } } },
    { "lint", "lint [PATH...] [--base DIR]... [--include-base] [--db FILE] [--fail-on error|warning|info]\n"
              "              [--format text|json|sarif|junit] [--max-results N] [--group-by file|code]\n"
              "              [--baseline FILE | --write-baseline FILE] [--suppressions FILE]\n"
              "              [--dependents] [--no-base] [--jobs N] [--follow-links] [--json] [--quiet]\n"
              "              [--color WHEN]",
      "check a tree for CI: scan it and fail on findings at or above a severity",
      "Scans each PATH (the configured roots when none is given) incrementally and reports its\n"
      "findings, grouped by file, then one line per code with its counts and, last, the verdict\n"
      "with the reason it failed. A PATH (a file or a directory) is scanned in the tree the\n"
      "game looks its assets up in (the Data directory it is in; for Generals and BFME, the\n"
      "directory holding {{Data/INI}} and Art), so that clips bind to their models and references\n"
      "resolve, and only the findings under PATH are reported. Without\n"
      "--db, lint keeps its own index per set of paths in {{CACHE/animidx}}{{\n"
      "($XDG_CACHE_HOME/animidx when set), so |, so\n}}repeated runs only re-read changed files.\n"
      "Severity overrides and\n"
      "ignore globs from the config apply. See docs/lint.md.\n"
      "Exit status: 0 nothing at or above the gate, 1 something is, 2 usage or config error\n"
      "(including a malformed baseline or suppression file), 3 I/O or database error.\n",
      cmd_lint,
      { { "--fail-on", NULL },
        { "--format", "text (default), json, sarif (SARIF 2.1.0 for GitHub code\n"
                      "scanning) or junit (JUnit XML: one testcase per asset)" },
        { "--max-results", "SARIF: at most N results (default 5000, GitHub shows no more;\n"
                           "a run may hold 25000), the most severe first; what is left out is\n"
                           "said in a run notification and on stderr. N: 1 to 25000" },
        { "--group-by", "SARIF: one result per file (file) or per code (code), with the\n"
                        "count and the first locations, instead of one per finding" },
        { "--baseline", NULL }, { "--write-baseline", NULL },
        { "--suppressions", "ignore findings matching {code, path glob, reason} entries;\n"
                            "entries that match nothing are reported" },
        { "--dependents", "with files given (a pre-commit hook): also report the clips\n"
                          "that play on a model given and the files that name a file given" },
        { "--base", "the game (or parent mod) the PATHs sit on, repeatable: their\n"
                    "models resolve the mod's clips; their own findings do not count" },
        { "--no-base", "the PATHs sit on nothing" },
        { "--include-base", "report and count the base layers' findings too" },
        { "--db", "use this index instead of lint's own" }, { "--jobs", NULL },
        { "--follow-links", NULL },
        { "--json", "the same as --format json" },
        { "--quiet", "no progress line; no summary on stderr with --format json|sarif|junit" },
        { "--color", NULL } } },
    { "report", "report [--db FILE] [--out DIR] [--previous FILE] [--plots WHICH] [--include-base] [--quiet]",
      "write report.json and a self-contained report.html of the index",
      "Writes {{DIR/report.json}} (every finding, totals per format and severity, tool and decoder\n"
      "versions, the effective config, scan times; schema in docs/report.schema.json) and\n"
      "{{DIR/report.html}}, a page with no external assets: a table of contents, totals, findings\n"
      "by code and by file (with counts; long sections collapsed), each skeleton with its\n"
      "clips, their compatibility, a plot of the channels of the clips with findings and the\n"
      "bone hierarchy with the bones a clip does not match marked. Clips are decoded again\n"
      "from the scanned files for the plots.\n",
      cmd_report,
      { { "--out", NULL }, { "--previous", NULL }, { "--plots", NULL },
        { "--include-base", NULL }, { "--db", NULL },
        { "--quiet", "no line saying what was written" } } },
};

#define NCOMMANDS (sizeof commands / sizeof commands[0])

/* --color WHEN: always, never, or auto (standard output is a terminal and NO_COLOR is unset
 * or empty, https://no-color.org). */
static bool choose_color(const char *when, bool *on)
{
    const char *no = amx_os_getenv("NO_COLOR");
    if (!when || strcmp(when, "auto") == 0)
        *on = !(no && no[0]) && amx_os_console_colour(stdout);
    else if (strcmp(when, "always") == 0)
        *on = true;
    else if (strcmp(when, "never") == 0)
        *on = false;
    else
        return false;
    return true;
}

/* ---- help ---- */

static void usage(FILE *out)
{
    fputs("animidx " AMX_VERSION_STRING
          ": index and validate game animation and model files (Petroglyph Alamo,\n"
          "MechWarrior 3, Metroid Prime, Westwood W3D)\n\n"
          "usage: animidx COMMAND [OPTIONS]\n\ncommands:\n",
          out);
    for (size_t i = 0; i < NCOMMANDS; i++)
        fprintf(out, "  %-10s %s\n", commands[i].name, commands[i].summary);
    amx_text_put_for_system(out,
          "\nevery command takes:\n"
          "  --config FILE  config file (default: {{CONFIG/animidx/animidx.ini}}; a project's\n"
          "                 {{./animidx.ini}} is read only when given: --config {{./animidx.ini}})\n"
          "  --help         the command's usage and every option it takes: animidx COMMAND --help\n"
          "\nanimidx --version  prints the version (a command takes no --version)\n"
          "\nexit status: 0 ok, 1 findings at or above the gate, 2 usage or config error,\n"
          "3 I/O or database error\n"
          "\nfiles (their folders: {{$XDG_CONFIG_HOME, $XDG_STATE_HOME, $XDG_CACHE_HOME when set|"
          "%APPDATA% and %LOCALAPPDATA%}}):\n"
          "  {{CONFIG/animidx/animidx.ini}}    the configuration\n"
          "  {{STATE/animidx/index.db}}  the index, unless the config or --db names another\n"
          "  {{CACHE/animidx/lint-*.db}}{{       | }}lint's own indexes (without --db)\n"
          "\nmanual: {{man animidx|animidx.1.txt beside animidx.exe}} (docs: README.md, "
          "{{docs/lint.md}}, {{docs/json.md}},\n{{docs/rules.md}})\n", 0);
}

static const opt_def *find_option(const char *name)
{
    for (size_t i = 0; i < NOPTIONS; i++)
        if (strcmp(options[i].name, name) == 0)
            return &options[i];
    return NULL;
}

static const cli_opt *command_option(const cli_cmd *c, const char *name)
{
    for (size_t k = 0; k < CLI_MAX_OPTS && c->opts[k].name; k++)
        if (strcmp(c->opts[k].name, name) == 0)
            return &c->opts[k];
    return NULL;
}

/* One option line of --help: "  --name VALUE   help", the help's further lines indented. */
static void option_line(const char *name, const char *value, const char *help)
{
    char left[40];
    snprintf(left, sizeof left, "%s%s%s", name, value ? " " : "", value ? value : "");
    printf("  %-22s ", left);
    amx_text_put_for_system(stdout, help, 25); /* the help's further lines under its first */
    putchar('\n');
}

static void command_help(const cli_cmd *c)
{
    printf("usage: animidx %s\n\n%s.\n\n", c->usage, c->summary);
    amx_text_put_for_system(stdout, c->help, 0);
    printf("\noptions:\n");
    for (size_t k = 0; k < CLI_MAX_OPTS && c->opts[k].name; k++) {
        const opt_def *d = find_option(c->opts[k].name);
        if (d)
            option_line(d->name, d->value, c->opts[k].help ? c->opts[k].help : d->help);
    }
    option_line("--config", "FILE", "config file (default: {{CONFIG/animidx/animidx.ini}}; a "
                                     "project's {{./animidx.ini}} only when given)");
    option_line("--help", NULL, "this help");
}

/* "lint" / "scan and lint" / "scan, lint and report": the commands that take an option. */
static void commands_taking(const char *name, char *buf, size_t len)
{
    const char *names[NCOMMANDS];
    size_t n = 0;
    for (size_t i = 0; i < NCOMMANDS; i++)
        if (command_option(&commands[i], name))
            names[n++] = commands[i].name;
    buf[0] = '\0';
    size_t used = 0;
    for (size_t i = 0; i < n && used < len; i++) {
        const char *sep = i == 0 ? "" : i + 1 == n ? " and " : ", ";
        int w = snprintf(buf + used, len - used, "%s%s", sep, names[i]);
        if (w < 0)
            break;
        used += (size_t)w;
    }
}

/* Parses the arguments after the command into o; returns EXIT_OK, or a usage error (printed),
 * or -1 when --help was given (and printed). */
static int parse_args(const cli_cmd *cmd, int argc, char **argv, cli_opts *o)
{
    bool only_args = false;
    for (int i = 2; i < argc; i++) {
        const char *a = argv[i];
        if (only_args || a[0] != '-' || strcmp(a, "-") == 0) {
            o->args[o->nargs++] = a;
            continue;
        }
        if (strcmp(a, "--") == 0) {
            only_args = true;
            continue;
        }
        if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
            command_help(cmd);
            return -1;
        }
        /* --name=value or --name value */
        char name[32];
        const char *eq = strchr(a, '=');
        size_t nlen = eq ? (size_t)(eq - a) : strlen(a);
        if (nlen >= sizeof name)
            nlen = sizeof name - 1;
        memcpy(name, a, nlen);
        name[nlen] = '\0';
        if (strcmp(name, "-q") == 0)
            snprintf(name, sizeof name, "--quiet");
        const opt_def *d = find_option(name);
        bool is_config = strcmp(name, "--config") == 0;
        if (!d && !is_config) {
            cli_error("unknown option '%s'; see 'animidx %s --help'", a, cmd->name);
            return EXIT_USAGE;
        }
        if (d && !command_option(cmd, name)) {
            char who[256];
            commands_taking(name, who, sizeof who);
            cli_error("%s does not take %s (%s %s it); see 'animidx %s --help'", cmd->name, name,
                      who, strchr(who, ' ') ? "take" : "takes", cmd->name);
            return EXIT_USAGE;
        }
        bool takes_value = is_config || d->value;
        const char *value = NULL;
        if (takes_value) {
            if (eq)
                value = eq + 1;
            else if (i + 1 < argc && strncmp(argv[i + 1], "--", 2) == 0 &&
                     (find_option(argv[i + 1]) || strcmp(argv[i + 1], "--config") == 0 ||
                      strcmp(argv[i + 1], "--help") == 0)) {
                /* 'changes --since --db x.db': the value was left out, not '--db' meant */
                cli_error("%s needs a value, and %s is an option; see 'animidx %s --help' (a "
                          "value that starts with '--': %s=VALUE)", name, argv[i + 1], cmd->name,
                          name);
                return EXIT_USAGE;
            } else if (i + 1 < argc)
                value = argv[++i];
            else {
                cli_error("%s needs a value; see 'animidx %s --help'", name, cmd->name);
                return EXIT_USAGE;
            }
        } else if (eq) {
            cli_error("%s takes no value", name);
            return EXIT_USAGE;
        }
        if (is_config) {
            o->config_path = value;
            continue;
        }
        char *field = (char *)o + d->field;
        switch (d->kind) {
        case O_FLAG: *(bool *)(void *)field = true; break;
        case O_STR: *(const char **)(void *)field = value; break;
        case O_INT: {
            char *end;
            errno = 0;
            long v = strtol(value, &end, 10);
            if (errno || end == value || *end || v < d->lo || v > d->hi) {
                cli_error("%s: expected a whole number from %d to %d, got '%s'", name, d->lo,
                          d->hi, value);
                return EXIT_USAGE;
            }
            *(int *)(void *)field = (int)v;
            break;
        }
        case O_BASE:
            o->bases[o->nbases++] = value;
            o->set_bases = true;
            break;
        case O_NO_BASE: o->set_bases = true; break;
        }
    }
    return EXIT_OK;
}

int main(int argc, char **argv)
{
    amx_os_args_utf8(&argc, &argv); /* Windows: the UTF-16 command line, binary stdout */
    if (argc < 2) {
        usage(stderr);
        return EXIT_USAGE;
    }
    if (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0 || strcmp(argv[1], "help") == 0) {
        if (argc > 2)
            for (size_t i = 0; i < NCOMMANDS; i++)
                if (strcmp(argv[2], commands[i].name) == 0) {
                    command_help(&commands[i]);
                    return EXIT_OK;
                }
        usage(stdout);
        return EXIT_OK;
    }
    if (strcmp(argv[1], "--version") == 0) {
        printf("animidx %s (index schema %d, JSON schema %d)\n", AMX_VERSION_STRING, 1, AMX_JSON_SCHEMA);
        return EXIT_OK;
    }
    const cli_cmd *cmd = NULL;
    for (size_t i = 0; i < NCOMMANDS; i++)
        if (strcmp(argv[1], commands[i].name) == 0)
            cmd = &commands[i];
    if (!cmd) {
        cli_error("unknown command '%s'; run 'animidx --help' for the list", argv[1]);
        return EXIT_USAGE;
    }
    cli_opts o = { .jobs = -1, .max_results = -1, .limit = -1, .max_frames = -1 };
    amx_config cfg = { 0 }; /* amx_config_finish of a zeroed config is a no-op */
    const char **args = calloc((size_t)argc, sizeof *args);
    const char **bases = calloc((size_t)argc, sizeof *bases);
    int rc = EXIT_OK;
    if (!args || !bases) {
        rc = EXIT_IO;
        goto out;
    }
    o.args = args;
    o.bases = bases;
    rc = parse_args(cmd, argc, argv, &o);
    if (rc != EXIT_OK) {
        rc = rc < 0 ? EXIT_OK : rc;
        goto out;
    }
    if (!choose_color(o.color, &cli_use_color)) {
        cli_error("--color: expected auto, always or never, got '%s'", o.color);
        rc = EXIT_USAGE;
        goto out;
    }

    if (amx_config_init(&cfg) != 0) {
        cli_error("out of memory");
        rc = EXIT_IO;
        goto out;
    }
    char located[4096], err[1024];
    const char *cfg_file = amx_config_locate(o.config_path, located, sizeof located);
    if (!o.config_path && !o.quiet && amx_os_exists("animidx.ini"))
        cli_error("note: %s is not read unless given with --config %s (using %s)",
                  amx_os_pick("./animidx.ini", ".\\animidx.ini"),
                  amx_os_pick("./animidx.ini", ".\\animidx.ini"),
                  cfg_file ? cfg_file : "the built-in defaults");
    if (cfg_file && amx_config_load_file(&cfg, cfg_file, err, sizeof err) != 0) {
        cli_error("%s", err);
        rc = EXIT_USAGE;
        goto out;
    }
    if (o.db && amx_config_set_db(&cfg, o.db) != 0) {
        rc = EXIT_IO;
        goto out;
    }
    if (o.jobs >= 0)
        cfg.jobs = o.jobs;
    if (o.follow_links)
        cfg.follow_links = true;
    rc = cmd->run(&o, &cfg);
out:
    amx_config_finish(&cfg);
    free(args);
    free(bases);
    return rc;
}

amx_db *cli_open_db_readonly(const amx_config *cfg)
{
    amx_db *db = NULL;
    char err[1024];
    if (amx_db_open(cfg->db_path, AMX_DB_READONLY, &db, err, sizeof err) != AMX_OK) {
        cli_error("%s", err);
        return NULL;
    }
    return db;
}
