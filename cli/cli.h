/* The animidx command line: shared option parsing, config loading and exit codes. */
#ifndef AMX_CLI_H
#define AMX_CLI_H

#include "animidx/animidx.h"
#include "animidx/config.h"
#include "animidx/index.h"

#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>

/* Exit codes (README "Exit codes"). */
enum {
    EXIT_OK = 0,        /* success; no error-severity finding where that matters */
    EXIT_FINDINGS = 1,  /* a finding at or above the gate (dump: an error finding) */
    EXIT_USAGE = 2,     /* bad arguments or config */
    EXIT_IO = 3,        /* unreadable input, database failure */
    EXIT_INTERRUPTED = 130, /* scan stopped by Ctrl-C / SIGTERM; what was decoded is indexed */
};

typedef struct cli_opts {
    const char *config_path;  /* --config */
    const char *db;           /* --db */
    int jobs;                 /* --jobs, -1 = not given */
    bool json;
    bool samples;
    int max_frames;           /* dump --max-frames: -1 = not given, 0 = no limit */
    bool quiet;
    const char *skeleton;     /* clips --skeleton */
    const char *model;        /* clips --model */
    const char *severity;     /* issues --severity */
    const char *code;         /* issues --code */
    const char *fail_on;      /* lint --fail-on */
    const char *format;       /* lint --format */
    const char *baseline;     /* lint --baseline */
    const char *write_baseline; /* lint --write-baseline */
    const char *suppressions; /* lint --suppressions */
    const char *out;          /* report --out */
    const char *previous;     /* report --previous */
    const char **bases;       /* scan/lint/watch --base DIR (repeatable) */
    int nbases;
    bool set_bases;           /* --base or --no-base given */
    bool include_base;        /* --include-base: findings of base layers too */
    bool dependents;          /* lint --dependents: also the files that depend on those given */
    bool lint;                /* watch --lint: print the findings that appear and go */
    bool follow;              /* status --follow: the same, for a running daemon */
    bool missing;             /* refs --missing */
    int max_results;          /* lint --max-results, -1 = not given */
    const char *group_by;     /* lint --group-by file|code */
    int limit;                /* issues --limit, -1 = not given */
    const char *bone;         /* clips/skeletons --bone */
    const char *since;        /* changes --since */
    const char *plots;        /* report --plots findings|all|none */
    const char *color;        /* --color auto|always|never */
    bool follow_links;        /* scan/lint/watch --follow-links */
    const char **args;        /* positional arguments */
    int nargs;
} cli_opts;

/* An option a command takes, with its help line for that command (NULL: the option's usual
 * text from the option table in main.c). */
typedef struct cli_opt {
    const char *name;         /* "--db" */
    const char *help;
} cli_opt;

enum { CLI_MAX_OPTS = 20 };

/* One command: a row of the table in main.c. Adding a command is one row: its name, usage,
 * summary, help text, function and the options it takes (--config and --help are implied;
 * any other option is a usage error naming the commands that take it). */
typedef struct cli_cmd {
    const char *name;
    const char *usage;        /* "scan DIR... [--db FILE] [--jobs N]" */
    const char *summary;      /* one line */
    const char *help;         /* the description in --help; the options are listed after it */
    int (*run)(cli_opts *o, amx_config *cfg);
    cli_opt opts[CLI_MAX_OPTS]; /* ends at the first { NULL } */
} cli_cmd;

int cmd_scan(cli_opts *o, amx_config *cfg);
int cmd_dump(cli_opts *o, amx_config *cfg);
int cmd_clips(cli_opts *o, amx_config *cfg);
int cmd_skeletons(cli_opts *o, amx_config *cfg);
int cmd_issues(cli_opts *o, amx_config *cfg);
int cmd_show(cli_opts *o, amx_config *cfg);
int cmd_rules(cli_opts *o, amx_config *cfg);
int cmd_refs(cli_opts *o, amx_config *cfg);
int cmd_lint(cli_opts *o, amx_config *cfg);
int cmd_report(cli_opts *o, amx_config *cfg);

/* Opens the index read-only for a query; prints the error and returns NULL on failure. */
amx_db *cli_open_db_readonly(const amx_config *cfg);
/* The effective severity of a code: the config's override, else its default. */
amx_severity cli_effective_severity_of(const amx_config *cfg, amx_code code);
/* Colours on a terminal (--color, NO_COLOR): set by main before the command runs. */
extern bool cli_use_color;
/* The escape sequence that starts the colour of a severity, and the one that ends it ("" when
 * colours are off). */
const char *cli_sev_on(amx_severity sev);
const char *cli_color_off(void);
/* Text lists show a few findings of each code and severity per file and count the rest; the
 * severity's slot (0 info .. 2 error) and the "... and N more CODE" lines of one code whose
 * findings by severity are shown[3], `shown_max` of each listed: the most severe first, with
 * its severity said when the code has findings of two severities in the file. */
size_t cli_sev_slot(amx_severity sev);
void cli_collapsed(const size_t seen[3], size_t shown_max, const char *code);
/* The colour of something fixed (watch --lint's "- fixed" lines): green, "" when off. */
const char *cli_fixed_on(void);
/* "s" after a count that is not 1, "": "%llu file%s", n, cli_s(n). */
const char *cli_s(unsigned long long n);
int cmd_changes(cli_opts *o, amx_config *cfg);
/* An indexed file (or directory of files) a path typed on the command line names. */
typedef struct cli_path {
    char *root;               /* absolute, as the index has it */
    char *path;               /* relative to the root ("" for the root itself) */
    bool dir;                 /* a directory: every file under it */
} cli_path;

typedef struct cli_paths {
    cli_path *v;
    size_t n;
} cli_paths;

/* What a path may resolve to besides an indexed file (cli_resolve_path's `allow`). */
enum {
    CLI_PATH_DIR = 1,         /* a directory: every file under it */
    CLI_PATH_SKIPPED = 2      /* a file of a kind animidx does not read (a texture, a BFME
                               * #include fragment), typed as its path: what names it */
};
/* Resolves a path as typed (relative to the current directory or to a root, absolute, "./",
 * a trailing slash for a directory, or the end of a path; case-insensitive for Alamo and W3D
 * files) to what is indexed, and what `allow` adds. Returns EXIT_OK with one match in out;
 * EXIT_FINDINGS (printed) when nothing matches (the closest indexed paths are suggested) or
 * several do (they are listed, out keeps them); EXIT_IO. `cmd` prefixes the messages. */
int cli_resolve_path(amx_db *db, const char *cmd, const char *typed, unsigned allow,
                     cli_paths *out);
void cli_paths_free(cli_paths *p);

/* The nearest directory at or above `real` (canonical: amx_os_canonical) that is a SAGE game's
 * directory, reached from it through its Data or Art directory (so that a tree that merely lies
 * below such a directory is not taken for it): the length of its path in `real`, or 0 when
 * there is none. */
size_t cli_sage_game_root(const char *real, bool is_dir);
/* Makes room for element `count` of the array *items (*cap elements of `elem` bytes), doubling
 * it when full (64 to start), as lib/common/grow.h does for the library. False when out of
 * memory (the array is left as it was). */
static inline bool cli_grow(void **items, size_t *cap, size_t count, size_t elem)
{
    if (count < *cap)
        return true;
    size_t c = *cap ? *cap * 2 : 64;
    void *g = realloc(*items, c * elem);
    if (!g)
        return false;
    *items = g;
    *cap = c;
    return true;
}

/* Levenshtein distance of two names, case-insensitive; (size_t)-1 past 255 bytes (closest-name
 * suggestions). */
size_t cli_name_distance(const char *a, const char *b);
/* Every text the command prints (term.c): printf, with the control characters of every %s
 * argument escaped as \xNN (animidx/text.h), on a terminal and in a pipe alike, so that a
 * record is one line whatever the names in it hold; the format's own text, and the colours of
 * cli_sev_on/cli_color_off, are written as they are. */
int cli_printf(const char *fmt, ...) AMX_PRINTF(1, 2);
int cli_fprintf(FILE *out, const char *fmt, ...) AMX_PRINTF(2, 3);
int cli_vfprintf(FILE *out, const char *fmt, va_list ap) AMX_PRINTF(2, 0);
/* Prints "animidx: <msg>" to stderr, as cli_fprintf does. */
void cli_error(const char *fmt, ...) AMX_PRINTF(1, 2);
/* The progress line of a scan on a terminal (scan and lint): an amx_scan_opts.progress. */
void cli_scan_progress(const amx_scan_progress *p, void *user);
/* Writes "scan": {files_seen, files_decoded, ...} (docs/json.md, `scan --json`; lint --format
 * json has the same object). */
struct amx_json;
void cli_scan_stats_json(struct amx_json *j, const amx_scan_stats *st);
/* The base layers of each root (--base, else the config's): one that is a root, holds it or
 * lies inside it is a usage error, said with both paths and the fix (amx_config_check_bases).
 * Returns EXIT_OK or EXIT_USAGE. */
int cli_check_bases(const char *const *roots, size_t n, const cli_opts *o, const amx_config *cfg);
/* Prints the summary of the index (shared by scan and the demo). */
int cli_print_summary(amx_db *db, const amx_config *cfg, bool json, bool include_base,
                      const amx_scan_stats *stats);

#endif
