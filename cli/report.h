/* `animidx report`: what cmd_report.c gathers from the index and html.c renders. */
#ifndef AMX_CLI_REPORT_H
#define AMX_CLI_REPORT_H

#include "lint.h"

#include <string.h>

typedef struct rep_clip {
    char *root, *path, *clip, *skeleton, *format;
    int64_t frames, bones_missing, tracks;
    double fps, duration;
    bool bound;
    char *skel_root, *skel_path;   /* the file of the skeleton it is bound to; NULL if unbound */
    char *how, *via;               /* how it was bound (amx_clip_row); NULL if unbound */
} rep_clip;

typedef struct rep_skeleton {
    char *root, *path, *name, *format;
    int64_t bones, clips;
} rep_skeleton;

/* Whether clip row c is a binding to skeleton s (the report lists it under s). */
static inline bool rep_same_skeleton(const rep_clip *c, const rep_skeleton *s)
{
    return c->skel_path && strcmp(c->skel_path, s->path) == 0 && strcmp(c->skel_root, s->root) == 0;
}

/* A name no layer provides (amx_missing_row), with its first referrers. */
typedef struct rep_spelling {
    char *kind, *name;
    int64_t references;
} rep_spelling;

typedef struct rep_missing {
    char *kind, *name, *resolution;
    char *file;                    /* the file looked for: DATA/ART/TEXTURES/X.DDS */
    rep_spelling *spellings;       /* every spelling that names it */
    size_t nspellings;
    amx_severity severity;
    int64_t references, files;
    char **paths, **places;        /* the first referrers: file and where in it */
    size_t nreferrers;
} rep_missing;

typedef struct rep_scan {
    char *root;
    int64_t finished_at, files_seen;
} rep_scan;

typedef struct report {
    const amx_config *cfg;
    bool include_base;             /* --include-base: the base layers' files and findings too */
    enum { PLOTS_FINDINGS, PLOTS_ALL, PLOTS_NONE } plots; /* --plots: which clips get plots */
    char **base_roots;             /* roots scanned only as base layers (left out unless asked) */
    size_t nbase_roots;
    amx_db *db;
    char generated_at[32];
    char scanned_at[32];           /* the latest finished scan, "" when none */
    amx_summary sum;
    cli_findings findings;         /* every finding of the index, overrides applied */
    bool have_previous;
    char *previous_at;             /* generated_at of the previous report (may be NULL) */
    cli_findings previous;
    bool *open;                    /* per finding: also in the previous report */
    bool *still;                   /* per previous finding: still there (else fixed) */
    size_t n_new, n_fixed, n_open;
    rep_clip *clips;
    size_t nclips;
    rep_skeleton *skels;
    size_t nskels;
    rep_scan *scans;
    size_t nscans;
    rep_missing *missing;
    size_t nmissing;
} report;

/* Writes the HTML page. Returns EXIT_OK, or EXIT_IO when the index cannot be read. */
int report_write_html(FILE *out, const report *r);

#endif
