/*
 * animidx: the command line. Dispatches to the commands, parses the options they share, loads
 * the config (defaults < config file < flags) and maps failures to the documented exit codes.
 */
#include "cli.h"
#include "cmd_daemon.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const cli_cmd commands[] = {
    { "scan", "scan [DIR...] [--base DIR]... [--no-base] [--db FILE] [--jobs N] [--json] [--quiet]",
      "index a directory tree (incremental: unchanged files are skipped)",
      "Recursively finds the animation, model and archive files under each DIR (the configured\n"
      "roots when none is given), decodes new and changed ones in parallel, removes rows of\n"
      "deleted files, binds clips to skeletons and prints a summary. A second scan of an\n"
      "unchanged tree only stats the files. Files that cannot be read or decoded are recorded\n"
      "with their findings; the scan goes on. Ctrl-C stops it between files: what was decoded\n"
      "is kept, nothing is removed, and the next scan completes the index (exit status 130).\n"
      "Clips bind only within their own DIR and the base layers it sits on: a mod's clips find\n"
      "the models of the game it extends when that game is given as a base layer.\n"
      "  --base DIR     a base layer of every DIR (the game or parent mod it extends, in lookup\n"
      "                 order; repeatable). Base layers are scanned too, and their own findings\n"
      "                 are left out of issues, lint and report unless --include-base. Without\n"
      "                 --base, [root DIR] base = ... of the config applies, else the layers the\n"
      "                 index recorded for DIR\n"
      "  --no-base      DIR sits on nothing (forget the recorded layers)\n"
      "  --include-base the summary's findings count the base layers' too\n"
      "  --db FILE      the index (default: the config's [index] database)\n"
      "  --jobs N       decoder threads (default: one per CPU)\n"
      "  --json         print the summary as JSON\n"
      "  --quiet        no progress line\n",
      cmd_scan },
    { "dump", "dump [--json] [--samples] FILE...",
      "decode files without an index and print what they hold",
      "Decodes each FILE (a member of an archive as ARCHIVE#NAME) and prints its skeletons,\n"
      "clips, model data and findings. With --json, one JSON object per file per line, as in\n"
      "docs/json.md. With --samples, every channel of every clip evaluated at every frame.\n"
      "Exit status: 0 no error findings, 1 an error finding, 2 usage, 3 unreadable file.\n",
      cmd_dump },
    { "clips", "clips --skeleton NAME [--db FILE] [--json]",
      "list the clips that target a skeleton",
      "Lists every indexed clip bound to skeleton NAME (case-insensitive), with its frames, fps,\n"
      "the number of its bones that do not fit the skeleton, the skeleton's file and how the\n"
      "binding was made (the engine's naming convention, an XML animation override, the\n"
      "W3D header, an ANCS character set); then the clips that target NAME but found no such\n"
      "skeleton.\n",
      cmd_clips },
    { "skeletons", "skeletons [--db FILE] [--json]",
      "list the skeletons in the index, with their bone and clip counts", "", cmd_skeletons },
    { "issues", "issues [--severity S] [--code C] [PATH] [--include-base] [--db FILE] [--json]",
      "list findings in the index",
      "Lists findings at or above severity S (info, warning, error), of code C, under PATH.\n"
      "Severity overrides from the config apply. Roots scanned only as base layers (scan\n"
      "--base) are left out unless --include-base.\n",
      cmd_issues },
    { "show", "show PATH [--db FILE] [--json]",
      "everything the index knows about a file",
      "PATH is relative to the scanned root, or just the end of it (a file name). A clip shows\n"
      "every skeleton it is checked against and why; a model, the game objects that use it;\n"
      "an XML file, its game objects and the files they name.\n", cmd_show },
    { "refs", "refs PATH | --missing [--include-base] [--db FILE] [--json]",
      "what a file names (models, textures, shaders, particles) and what names it; what is missing",
      "With PATH (relative to the scanned root, or just the file name): every file the file\n"
      "names, where it is named and what it resolved to through the root's layers (loose files\n"
      "before archive contents), and every file that names it. With --missing: the names no\n"
      "layer provides (or provides as the wrong kind), grouped by name, most referenced first,\n"
      "with the files that name them: the list to fix from. Without base layers (scan --base)\n"
      "most of a mod's references to the game's own assets are missing by design.\n"
      "  --missing        the missing names instead of one file's references\n"
      "  --include-base   also the references of roots scanned only as base layers\n"
      "  --db FILE        the index (default: the config's [index] database)\n"
      "  --json           JSON (docs/json.md)\n",
      cmd_refs },
    { "rules", "rules [--json]", "list every issue code with its severity and meaning",
      "The same catalogue as docs/rules.md.\n", cmd_rules },
    { "watch", "watch DIR... [--base DIR]... [--no-base] [--db FILE] [--jobs N]",
      "keep the index current while files change (animidxd in the foreground)",
      "Scans each DIR (the configured roots when none is given) like 'scan', then watches the\n"
      "trees and indexes every change a settle period ([daemon] settle_ms) after the file was\n"
      "written. Runs animidxd --foreground (next to this binary, else from PATH); stop it with\n"
      "Ctrl-C. 'animidx status', 'pause', 'resume' and 'sync' talk to it.\n"
      "  --base DIR   a base layer of every DIR, as for scan (scanned with every whole scan,\n"
      "               not watched)\n"
      "  --no-base    DIR sits on nothing\n"
      "  --db FILE    the index (default: the config's [index] database)\n"
      "  --jobs N     decoder threads (default: one per CPU)\n",
      cmd_watch },
    { "status", "status [--json]", "what the watcher daemon (animidxd) is doing",
      "Prints the daemon's state (scanning, watching, paused), the files indexed, the queue,\n"
      "files/s, overflows and the last error. Exit status 3 when no daemon answers on the\n"
      "socket ([daemon] socket).\n",
      cmd_status },
    { "pause", "pause [--json] [--quiet]", "stop indexing changes until 'resume' (a mod install)",
      "The daemon keeps watching and queues the changes; 'resume' indexes them.\n", cmd_pause },
    { "resume", "resume [--json] [--quiet]", "index the changes queued since 'pause'", "",
      cmd_resume },
    { "sync", "sync [--json] [--quiet]", "wait until every change made so far is indexed",
      "Returns once every change made before it is in the index, so a query run after it sees\n"
      "them. Exit status 3 when the daemon is not running, paused, or a scan failed.\n",
      cmd_sync },
    { "lint", "lint [PATH...] [--base DIR]... [--include-base] [--db FILE] [--fail-on error|warning|info]\n"
              "              [--format text|json|sarif|junit] [--baseline FILE | --write-baseline FILE]\n"
              "              [--suppressions FILE] [--quiet]",
      "check a tree for CI: scan it and fail on findings at or above a severity",
      "Scans each PATH (the configured roots when none is given) incrementally and reports its\n"
      "findings, grouped by file. A PATH that is a file: its directory is scanned (so clips bind\n"
      "to the models beside them) and only that file's findings are reported. Without --db, lint keeps its own index per set of paths in\n"
      "$XDG_CACHE_HOME/animidx (~/.cache/animidx), so repeated runs only re-read changed files.\n"
      "Severity overrides and ignore globs from the config apply. See docs/lint.md.\n"
      "  --fail-on S          exit 1 when a finding is at or above S (default: error)\n"
      "  --format F           text (default), json, sarif (SARIF 2.1.0 for GitHub code\n"
      "                       scanning) or junit (JUnit XML: one testcase per asset)\n"
      "  --baseline FILE      count only findings that are not in FILE\n"
      "  --write-baseline FILE  record the current findings in FILE and exit 0\n"
      "  --suppressions FILE  ignore findings matching {code, path glob, reason} entries;\n"
      "                       entries that match nothing are reported\n"
      "  --base DIR           the game (or parent mod) the PATHs sit on, repeatable: their\n"
      "                       models resolve the mod's clips; their own findings do not count\n"
      "  --no-base            the PATHs sit on nothing\n"
      "  --include-base       report and count the base layers' findings too\n"
      "  --db FILE            use this index instead of lint's own\n"
      "  --quiet              no progress line; no summary on stderr with --format json|sarif|junit\n"
      "Exit status: 0 nothing at or above the gate, 1 something is, 2 usage or config error\n"
      "(including a malformed baseline or suppression file), 3 I/O or database error.\n",
      cmd_lint },
    { "report", "report [--db FILE] [--out DIR] [--previous FILE] [--include-base]",
      "write report.json and a self-contained report.html of the index",
      "Writes DIR/report.json (every finding, totals per format and severity, tool and decoder\n"
      "versions, the effective config, scan times; schema in docs/report.schema.json) and\n"
      "DIR/report.html, a page with no external assets: totals, findings by severity and code,\n"
      "each skeleton with its clips, their compatibility, a plot of every clip's channels and\n"
      "the bone hierarchy with the bones a clip does not match marked. Clips are decoded again\n"
      "from the scanned files for the plots.\n"
      "  --out DIR        where to write (default: the current directory; created if needed)\n"
      "  --previous FILE  an earlier report.json: the report then says what is new, what was\n"
      "                   fixed and what is still open\n"
      "  --include-base   also the files and findings of roots scanned only as base layers\n"
      "  --db FILE        the index (default: the config's [index] database)\n",
      cmd_report },
};

#define NCOMMANDS (sizeof commands / sizeof commands[0])

void cli_error(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fputs("animidx: ", stderr);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
}

static void usage(FILE *out)
{
    fputs("animidx " AMX_VERSION_STRING
          ": index and validate game animation and model files (Petroglyph Alamo,\n"
          "MechWarrior 3, Metroid Prime, Westwood W3D)\n\n"
          "usage: animidx COMMAND [OPTIONS]\n\ncommands:\n",
          out);
    for (size_t i = 0; i < NCOMMANDS; i++)
        fprintf(out, "  %-10s %s\n", commands[i].name, commands[i].summary);
    fputs("\ncommon options:\n"
          "  --config FILE  config file (default: ./animidx.ini, else ~/.config/animidx/animidx.ini)\n"
          "  --db FILE      index database\n"
          "  --help         help for a command: animidx COMMAND --help\n"
          "  --version      print the version\n"
          "\nexit status: 0 ok, 1 findings at or above the gate, 2 usage or config error,\n"
          "3 I/O or database error\n",
          out);
}

static void command_help(const cli_cmd *c)
{
    printf("usage: animidx %s\n\n%s.\n\n%s", c->usage, c->summary, c->help);
    printf("  --config FILE  config file\n  --help         this help\n");
}

static bool parse_int(const char *s, int lo, int hi, int *out)
{
    char *end;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (errno || end == s || *end || v < lo || v > hi)
        return false;
    *out = (int)v;
    return true;
}

int main(int argc, char **argv)
{
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
    cli_opts o = { .jobs = -1 };
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
    bool only_args = false;
    for (int i = 2; i < argc; i++) {
        const char *a = argv[i];
        if (only_args || a[0] != '-' || strcmp(a, "-") == 0) {
            args[o.nargs++] = a;
            continue;
        }
        if (strcmp(a, "--") == 0) {
            only_args = true;
            continue;
        }
        if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
            command_help(cmd);
            rc = EXIT_OK;
            goto out;
        }
        /* --name=value or --name value */
        char name[32];
        const char *value = NULL;
        const char *eq = strchr(a, '=');
        size_t nlen = eq ? (size_t)(eq - a) : strlen(a);
        if (nlen >= sizeof name)
            nlen = sizeof name - 1;
        memcpy(name, a, nlen);
        name[nlen] = '\0';
        static const char *const valued[] = { "--config", "--db", "--jobs", "--skeleton",
                                              "--severity", "--code", "--fail-on", "--format",
                                              "--baseline", "--write-baseline", "--suppressions",
                                              "--out", "--previous", "--base" };
        bool takes_value = false;
        for (size_t k = 0; k < sizeof valued / sizeof valued[0]; k++)
            if (strcmp(name, valued[k]) == 0)
                takes_value = true;
        if (takes_value) {
            if (eq)
                value = eq + 1;
            else if (i + 1 < argc)
                value = argv[++i];
            else {
                cli_error("%s needs a value; see 'animidx %s --help'", name, cmd->name);
                rc = EXIT_USAGE;
                goto out;
            }
        } else if (eq) {
            cli_error("%s takes no value", name);
            rc = EXIT_USAGE;
            goto out;
        }
        if (strcmp(name, "--config") == 0)
            o.config_path = value;
        else if (strcmp(name, "--db") == 0)
            o.db = value;
        else if (strcmp(name, "--skeleton") == 0)
            o.skeleton = value;
        else if (strcmp(name, "--severity") == 0)
            o.severity = value;
        else if (strcmp(name, "--code") == 0)
            o.code = value;
        else if (strcmp(name, "--fail-on") == 0)
            o.fail_on = value;
        else if (strcmp(name, "--format") == 0)
            o.format = value;
        else if (strcmp(name, "--baseline") == 0)
            o.baseline = value;
        else if (strcmp(name, "--write-baseline") == 0)
            o.write_baseline = value;
        else if (strcmp(name, "--suppressions") == 0)
            o.suppressions = value;
        else if (strcmp(name, "--out") == 0)
            o.out = value;
        else if (strcmp(name, "--previous") == 0)
            o.previous = value;
        else if (strcmp(name, "--base") == 0) {
            bases[o.nbases++] = value;
            o.set_bases = true;
        } else if (strcmp(name, "--no-base") == 0)
            o.set_bases = true;
        else if (strcmp(name, "--include-base") == 0)
            o.include_base = true;
        else if (strcmp(name, "--missing") == 0)
            o.missing = true;
        else if (strcmp(name, "--jobs") == 0) {
            if (!parse_int(value, 0, 256, &o.jobs)) {
                cli_error("--jobs: expected a whole number from 0 to 256, got '%s'", value);
                rc = EXIT_USAGE;
                goto out;
            }
        } else if (strcmp(name, "--json") == 0)
            o.json = true;
        else if (strcmp(name, "--samples") == 0)
            o.samples = true;
        else if (strcmp(name, "--quiet") == 0 || strcmp(name, "-q") == 0)
            o.quiet = true;
        else {
            cli_error("unknown option '%s'; see 'animidx %s --help'", a, cmd->name);
            rc = EXIT_USAGE;
            goto out;
        }
    }

    if (amx_config_init(&cfg) != 0) {
        cli_error("out of memory");
        rc = EXIT_IO;
        goto out;
    }
    char located[4096], err[1024];
    const char *cfg_file = amx_config_locate(o.config_path, located, sizeof located);
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
