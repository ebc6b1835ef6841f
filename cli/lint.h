/*
 * What `animidx lint` and `animidx report` share: a list of findings with their identity, the
 * readers of the JSON files they take (baselines, suppressions, last night's report), the
 * escaping of XML/HTML and URIs, and the index queries the library does not offer yet.
 */
#ifndef AMX_CLI_LINT_H
#define AMX_CLI_LINT_H

#include "cli.h"

#include <stdint.h>
#include <stdio.h>

/* One finding, owning its strings. */
typedef struct cli_finding {
    char *root;              /* absolute scanned root ("" when unknown, e.g. from a baseline) */
    char *path;              /* relative to the root, '/' separators, ARCHIVE#MEMBER for members */
    char *code, *message, *context, *format;
    amx_severity severity;   /* effective: the config's overrides applied */
    int64_t offset;          /* -1 when none */
    size_t archive_len;      /* an archive member: the length of its archive's path in `path`
                              * (the member's name follows its '#'); 0 for a file of its own */
    /* The identity: code + path + logical context, never the message or the offset, so a
     * finding keeps it when a file is edited elsewhere. Set by cli_findings_add. */
    char *key;
    uint32_t ordinal;        /* its rank among the findings with the same key (cli_findings_number) */
    bool suppressed;         /* lint: matched by a suppression */
    bool baselined;          /* lint: in the baseline; report: also in the previous report */
} cli_finding;

typedef struct cli_findings {
    cli_finding *v;
    size_t n, cap;
} cli_findings;

/* Appends a copy of the fields (NULL strings become ""). Returns 0, or -1 when out of memory. */
int cli_findings_add(cli_findings *l, const char *root, const char *path, const char *code,
                     amx_severity severity, const char *message, int64_t offset,
                     const char *context, const char *format);
void cli_findings_free(cli_findings *l);
/* Keeps the findings `keep` accepts, in order, and frees the others. */
void cli_findings_keep(cli_findings *l, bool (*keep)(const cli_finding *f));
/* Numbers the findings that share a key in list order (0, 1, 2, ...). */
void cli_findings_number(cli_findings *l);
/* The stable fingerprint of a finding: a 64-bit hash of its key and its ordinal, "hhhh...:N". */
void cli_finding_fingerprint(const cli_finding *f, char *buf, size_t len);
/* Pairs findings of a and b with equal keys, as many times as both have them. a_hit/b_hit
 * (a->n / b->n entries, may be NULL) are set for the paired ones. Returns 0 or -1 (memory). */
int cli_findings_match(const cli_findings *a, const cli_findings *b, bool *a_hit, bool *b_hit);
/* Marks the findings of l that base holds (cli_findings_match: by identity, as many times as
 * base has it) as baselined. Returns 0, or -1 when out of memory. */
int cli_findings_mark_baselined(cli_findings *l, const cli_findings *base);
/* Reads every finding of the index (config overrides applied, codes turned off left out);
 * with `want`, only those of files (root absolute as amx_scan stores it, path relative) it
 * accepts. */
int cli_findings_from_index(amx_db *db, const amx_config *cfg, bool include_base,
                            bool (*want)(const char *root, const char *path, void *user),
                            void *user, cli_findings *out);
/* Reads "findings": [{code, path, context, ...}] from a baseline or report JSON file.
 * Returns EXIT_OK, EXIT_IO (unreadable) or EXIT_USAGE (not such a file), with a message. */
int cli_findings_load(const char *file, cli_findings *out, char *err, size_t errlen);
/* Calls row for each object of the array `array` of a JSON file (or of the file itself when it
 * is an array), with columns json_type(value), then for each field k: its value and its type
 * (cli_json_text reads a string field). row returns EXIT_OK to go on. SQLite parses the JSON.
 * Returns EXIT_OK, EXIT_IO (unreadable), EXIT_USAGE (malformed), or what row returned. */
struct sqlite3_stmt;
int cli_json_each(const char *file, const char *array, const char *const *fields, size_t nfields,
                  int (*row)(struct sqlite3_stmt *s, size_t index, void *user), void *user,
                  char *err, size_t errlen);
/* Field k of a cli_json_each row when it is a string, else NULL. */
const char *cli_json_text(struct sqlite3_stmt *s, int k);
/* Writes one finding as a JSON object: the `issues --json` fields, format, fingerprint, and
 * "state" when state is not NULL (report: new, open, fixed). */
struct amx_json;
void cli_finding_json(struct amx_json *j, const cli_finding *f, const char *state);

/* Suppressions: {"suppressions": [{"code", "path", "reason"}]} (docs/lint.md). */
typedef struct cli_suppression {
    char *code;              /* a code name, or "*" */
    char *path;              /* fnmatch glob on the root-relative path, case-insensitive */
    char *reason;
    size_t used;             /* findings it matched */
} cli_suppression;

typedef struct cli_suppressions {
    cli_suppression *v;
    size_t n;
} cli_suppressions;

int cli_suppressions_load(const char *file, cli_suppressions *out, char *err, size_t errlen);
/* Marks the findings a suppression matches and counts each suppression's uses. */
void cli_suppressions_apply(cli_suppressions *s, cli_findings *l);
void cli_suppressions_free(cli_suppressions *s);
/* Writes the baseline file of the findings not suppressed. Returns EXIT_OK or EXIT_IO. */
int cli_baseline_write(const char *file, const cli_findings *l, char *err, size_t errlen);

/* Escapes text for XML and HTML (elements and attribute values): & < > " ', characters XML
 * does not allow and invalid UTF-8 become U+FFFD. The only escaping of XML/HTML output. */
void cli_xml_escape(FILE *out, const char *s);
void cli_xml_escape_buf(amx_strbuf *b, const char *s);
/* Percent-encodes a relative path for a URI ('/' kept). */
void cli_uri_escape(amx_strbuf *out, const char *s);
/* The file: URI of an absolute path as the program spells it: file:///x, file:///C:/x (the
 * same form on every system: SARIF viewers and GitHub read it), file://server/share/x. */
void cli_file_uri(amx_strbuf *out, const char *abs);
/* "2024-05-01T12:00:00Z" */
void cli_iso_time(int64_t unix_seconds, char *buf, size_t len);
/* The severity as a word a reader expects in SARIF ("error", "warning", "note", "none"). */
const char *cli_sarif_level(amx_severity sev);
/* The number of findings at each severity (info, warning, error) among those that count. */
void cli_findings_totals(const cli_findings *l, uint64_t totals[3]);

/* ---- one lint run, as the output writers see it ---- */

typedef struct lint_run {
    amx_severity gate;            /* --fail-on */
    size_t nroots;
    char **roots;                 /* absolute, as the index stores them */
    char ***files;                /* per root: NULL for every file under it, else the files
                                   * given on the command line in it (names, NULL-ended; an
                                   * archive also as "NAME#", which matches its members) */
    char **uri_prefix;            /* per root: its path relative to the working directory with a
                                   * trailing '/' ("" for the directory itself), or NULL when the
                                   * root lies outside it (SARIF then uses a uriBaseId) */
    cli_findings findings;        /* every finding under the roots, in index order */
    cli_suppressions supp;
    bool have_baseline;
    amx_scan_stats scanned;       /* what the scans of the roots read and decoded, together */
    amx_db *db;
} lint_run;

/* The effective severity of a code: the config's override, else its default. */
amx_severity cli_effective_severity(const amx_config *cfg, amx_code code);
/* The root's path relative to the working directory with a trailing '/' ("" for the directory
 * itself), or NULL when the root lies outside it: repository-relative SARIF URIs, and the
 * paths watch --lint prints. malloc'd. */
char *lint_uri_prefix(const char *root);
/* True when the finding counts: neither suppressed nor in the baseline. */
bool lint_counts(const cli_finding *f);
/* True when a file (path relative to roots[root]) is one lint was asked about: any under a
 * directory given, else one of the files given or a member of one. */
bool lint_path_given(const lint_run *r, size_t root, const char *path);
/* The index of the root a finding lies under (0 when unknown). */
size_t lint_root_of(const lint_run *r, const cli_finding *f);
/* SARIF: the cap on results and their grouping (--max-results, --group-by), and what was
 * written (for the stderr line). */
typedef enum { SARIF_EACH, SARIF_BY_FILE, SARIF_BY_CODE } sarif_grouping;

enum { SARIF_DEFAULT_MAX = 5000, SARIF_RUN_MAX = 25000 };

typedef struct sarif_opts {
    int max_results;              /* at most this many results (1..SARIF_RUN_MAX) */
    sarif_grouping group;
    size_t results, written;      /* out: the results there were, and those written */
    size_t left[3];               /* out: left out, by level (info/note, warning, error) */
} sarif_opts;

void lint_write_sarif(FILE *out, const lint_run *r, const amx_config *cfg, sarif_opts *so);
/* The rule name of a code in SARIF: "BONE_NOT_IN_SKELETON" -> "BoneNotInSkeleton". */
void cli_rule_name(const char *code, char *buf, size_t len);
/* The URL of the documentation (README.md, docs/) the SARIF rules link to: the build's
 * docs_url option, else the installed documentation (file://PREFIX/share/doc/animidx). */
const char *cli_docs_url(void);
/* Returns EXIT_OK or EXIT_IO (the index could not be read). */
int lint_write_junit(FILE *out, const lint_run *r);

#endif
