/* report.html: one self-contained page (inline CSS and SVG, no script, no external asset).
 *
 * Totals first; then what changed since the previous report; findings by severity and by
 * code; every skeleton with its clips, their compatibility and a plot of each clip's channels
 * over time (the clip is decoded again from the scanned file, with samples); and the bone
 * hierarchy of a skeleton with the bones a clip does not match, or does not animate, marked.
 * All text goes through cli_xml_escape. */
#include "report.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

static const char *const sev_color[] = { "#2874a6", "#b9770e", "#c0392b" };

static void esc(FILE *out, const char *s)
{
    cli_xml_escape(out, s ? s : "");
}

/* What the page has drawn so far (for the budgets on plots and open sections). */
typedef struct render {
    size_t plots, trees;       /* clip plots and marked hierarchies drawn */
    size_t tree_rows;          /* bones drawn in those hierarchies (TREE_ROW_BUDGET) */
    size_t nskels;             /* skeletons with clips */
    size_t open_skels;         /* skeleton sections left open */
} render;

/* Up to this many skeletons the sections are open; beyond, collapsed (but the first this many
 * with incompatible clips). */
enum { SKELETONS_OPEN = 12 };

/* ---- clips decoded again for their samples (the last archive read is kept) ---- */

typedef struct decoder {
    char *archive_path;
    unsigned char *archive_data;
    size_t archive_len;
    amx_asset *archive;
} decoder;

static void decoder_drop(decoder *d)
{
    free(d->archive_path);
    free(d->archive_data);
    amx_asset_free(d->archive);
    *d = (decoder){ 0 };
}

/* ROOT/ + the first n bytes of an index path, as the file system spells them (the index escapes
 * the bytes of a name that are not UTF-8: amx_path_decode). False when it does not fit. */
static bool loose_file(char *buf, size_t size, const char *root, const char *path, size_t n)
{
    char *loose = amx_strndup(path, n);
    char *raw = loose ? amx_path_decode(loose) : NULL;
    int w = raw ? snprintf(buf, size, "%s/%s", root, raw) : -1;
    free(loose);
    free(raw);
    return w >= 0 && (size_t)w < size;
}

/* Decodes ROOT/PATH, or the member of ROOT/ARCHIVE#MEMBER, with samples. NULL when the file
 * cannot be read or decoded any more (it changed since the scan). */
static amx_asset *decode_clip(decoder *d, const char *root, const char *path)
{
    /* A file of its own (its name may hold a '#'), else the member of the archive whose path
     * is the part before a '#' */
    char file[8192];
    size_t flen = strlen(path);
    amx_os_stat st;
    if (!loose_file(file, sizeof file, root, path, flen))
        return NULL;
    if (amx_os_path_stat(file, &st) != 0 || st.kind != AMX_OS_FILE)
        for (const char *h = strchr(path, '#'); h; h = strchr(h + 1, '#')) {
            flen = (size_t)(h - path);
            if (loose_file(file, sizeof file, root, path, flen) &&
                amx_os_path_stat(file, &st) == 0 && st.kind == AMX_OS_FILE)
                break;
            flen = strlen(path);
        }
    if (!path[flen] && !loose_file(file, sizeof file, root, path, flen))
        return NULL;
    char err[1024];
    amx_asset *a = NULL;
    if (!path[flen]) {
        size_t len;
        unsigned char *data = amx_read_file(file, &len, err, sizeof err);
        if (!data)
            return NULL;
        if (amx_decode(data, len, &(amx_decode_opts){ .samples = true, .file_name = file }, &a) != AMX_OK)
            a = NULL;
        free(data);
        return a;
    }
    if (!d->archive_path || strcmp(d->archive_path, file) != 0) {
        decoder_drop(d);
        d->archive_path = strdup(file);
        d->archive_data = amx_read_file(file, &d->archive_len, err, sizeof err);
        if (!d->archive_path || !d->archive_data ||
            amx_decode(d->archive_data, d->archive_len,
                       &(amx_decode_opts){ .file_name = file, .unpack_later = true },
                       &d->archive) != AMX_OK)
            d->archive = NULL;
    }
    int64_t i = amx_archive_find(d->archive, path + flen + 1);
    const uint8_t *bytes;
    size_t n;
    void *owned = NULL;
    if (i < 0 || amx_archive_member(d->archive, d->archive_data, d->archive_len, (uint32_t)i,
                                    &bytes, &n, &owned, err, sizeof err) != AMX_OK)
        return NULL;
    amx_decode_opts opts = { .samples = true,
                             .file_name = d->archive->archive->entries[i].name };
    if (amx_decode(bytes, n, &opts, &a) != AMX_OK)
        a = NULL;
    free(owned);
    return a;
}

/* ---- the channel plot of a clip ---- */

enum { PLOT_W = 360, PLOT_LEFT = 74, BAND_H = 46, BAND_GAP = 8, MAX_SERIES = 12, MAX_POINTS = 60 };

static const char *const comp_color[] = { "#c0392b", "#229954", "#2e86c1", "#7f8c8d" };
static const char *const comp_name[] = { "x", "y", "z", "w" };

typedef struct band {
    const char *name;
    uint32_t bit;
    int width;                 /* components per frame */
    bool fixed;                /* fixed range (rotation -1..1, visibility 0..1) */
    float lo, hi;
} band;

static const float *channel_data(const amx_track *t, uint32_t bit)
{
    switch (bit) {
    case AMX_CH_TRANSLATION: return t->translation;
    case AMX_CH_ROTATION: return t->rotation;
    case AMX_CH_SCALE: return t->scale;
    default: return NULL;
    }
}

static float sample(const amx_track *t, uint32_t bit, int width, uint32_t frame, int comp)
{
    if (bit == AMX_CH_VISIBILITY)
        return t->visibility ? (float)t->visibility[frame] : 1.0f;
    const float *v = channel_data(t, bit);
    return v ? v[(size_t)frame * (size_t)width + (size_t)comp] : 0.0f;
}

/* True when component comp of track t changes over the clip. */
static bool varies(const amx_track *t, const band *b, uint32_t frames, int comp)
{
    float first = sample(t, b->bit, b->width, 0, comp);
    for (uint32_t f = 1; f < frames; f++)
        if (fabsf(sample(t, b->bit, b->width, f, comp) - first) > 1e-6f)
            return true;
    return false;
}

static void plot_clip(FILE *out, const amx_clip *c)
{
    if (!c->has_samples || !c->has_frames || c->frames < 2) {
        fputs("<span class=\"dim\">no per-frame samples</span>", out);
        return;
    }
    band bands[] = {
        { "rotation", AMX_CH_ROTATION, 4, true, -1.0f, 1.0f },
        { "translation", AMX_CH_TRANSLATION, 3, false, 0, 0 },
        { "scale", AMX_CH_SCALE, 3, false, 0, 0 },
        { "visibility", AMX_CH_VISIBILITY, 1, true, 0.0f, 1.0f },
    };
    enum { NBANDS = sizeof bands / sizeof bands[0] };
    int series[NBANDS] = { 0 };
    int shown_bands = 0;
    for (int b = 0; b < NBANDS; b++) {
        bool any = false;
        for (uint32_t t = 0; t < c->track_count; t++) {
            const amx_track *tr = &c->tracks[t];
            if (!(tr->channels & bands[b].bit))
                continue;
            for (int k = 0; k < bands[b].width; k++) {
                if (!varies(tr, &bands[b], c->frames, k))
                    continue;
                series[b]++;
                for (uint32_t f = 0; f < c->frames && !bands[b].fixed; f++) {
                    float v = sample(tr, bands[b].bit, bands[b].width, f, k);
                    if (!isfinite(v))
                        continue;
                    if (!any || v < bands[b].lo)
                        bands[b].lo = v;
                    if (!any || v > bands[b].hi)
                        bands[b].hi = v;
                    any = true;
                }
            }
        }
        shown_bands += series[b] > 0;
    }
    if (!shown_bands) {
        fputs("<span class=\"dim\">no channel changes over time</span>", out);
        return;
    }
    int height = shown_bands * (BAND_H + BAND_GAP) + 14;
    fprintf(out, "<svg class=\"plot\" xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" "
                 "viewBox=\"0 0 %d %d\" role=\"img\"><title>",
            PLOT_W, height, PLOT_W, height);
    esc(out, c->name);
    fputs(": animated channels over time</title>", out);
    uint32_t step = (c->frames + MAX_POINTS - 1) / MAX_POINTS;
    if (step < 1)
        step = 1;
    double plot_w = PLOT_W - PLOT_LEFT - 6;
    int y0 = 2;
    for (int b = 0; b < NBANDS; b++) {
        if (!series[b])
            continue;
        const band *bd = &bands[b];
        double lo = bd->lo, hi = bd->hi;
        if (hi - lo < 1e-6) {
            lo -= 1;
            hi += 1;
        }
        fprintf(out, "<rect x=\"%d\" y=\"%d\" width=\"%.1f\" height=\"%d\" class=\"band\"/>", PLOT_LEFT,
                y0, plot_w, BAND_H);
        fprintf(out, "<text x=\"2\" y=\"%d\" class=\"bl\">%s</text>", y0 + 12, bd->name);
        fprintf(out, "<text x=\"2\" y=\"%d\" class=\"ax\">%.3g</text>", y0 + 24, hi);
        fprintf(out, "<text x=\"2\" y=\"%d\" class=\"ax\">%.3g</text>", y0 + BAND_H - 2, lo);
        int drawn = 0;
        for (uint32_t t = 0; t < c->track_count && drawn < MAX_SERIES; t++) {
            const amx_track *tr = &c->tracks[t];
            if (!(tr->channels & bd->bit))
                continue;
            for (int k = 0; k < bd->width && drawn < MAX_SERIES; k++) {
                if (!varies(tr, bd, c->frames, k))
                    continue;
                drawn++;
                fprintf(out, "<polyline fill=\"none\" stroke=\"%s\" stroke-width=\"1\" points=\"",
                        comp_color[bd->width == 1 ? 3 : k]);
                for (uint32_t f = 0; f < c->frames; f += step) {
                    double v = sample(tr, bd->bit, bd->width, f, k);
                    if (!isfinite(v))
                        continue;
                    double x = PLOT_LEFT + plot_w * f / (c->frames - 1);
                    double y = y0 + BAND_H - (v - lo) / (hi - lo) * (BAND_H - 2) - 1;
                    fprintf(out, "%.0f,%.0f ", x, y); /* whole pixels: a plot is not a chart */
                }
                fputs("\"><title>", out);
                esc(out, tr->bone ? tr->bone : "");
                fprintf(out, " (bone %d) %s", tr->bone_index, bd->name);
                if (bd->width > 1)
                    fprintf(out, ".%s", comp_name[k]);
                fputs("</title></polyline>", out);
            }
        }
        if (series[b] > drawn)
            fprintf(out, "<text x=\"%d\" y=\"%d\" class=\"ax more\">+%d more</text>", PLOT_W - 60,
                    y0 + 10, series[b] - drawn);
        y0 += BAND_H + BAND_GAP;
    }
    fprintf(out, "<text x=\"%d\" y=\"%d\" class=\"ax\">frame 0</text>", PLOT_LEFT, height - 2);
    fprintf(out, "<text x=\"%d\" y=\"%d\" class=\"ax\" text-anchor=\"end\">frame %u (%.3g s)</text>",
            PLOT_W - 6, height - 2, c->frames - 1, c->duration);
    fputs("</svg>", out);
}

/* ---- bones and tracks from the index ---- */

typedef struct bone_row { char *name; int64_t parent; } bone_row;
typedef struct track_row { char *bone; int64_t index; } track_row;

typedef struct loaded {
    const char *root, *path;
    bool active, oom;
    bone_row *bones;
    size_t nbones, bones_cap;
    track_row *tracks;
    size_t ntracks, tracks_cap;
} loaded;

static void on_file(const amx_show_file *f, void *user)
{
    loaded *l = user;
    l->active = strcmp(f->root, l->root) == 0 && strcmp(f->path, l->path) == 0;
}

static void on_bone(int64_t idx, const char *name, int64_t parent, void *user)
{
    loaded *l = user;
    (void)idx;
    if (!l->active)
        return;
    /* doubling: a skeleton of any size loads in linear time */
    if (!cli_grow((void **)&l->bones, &l->bones_cap, l->nbones, sizeof *l->bones)) {
        l->oom = true;
        return;
    }
    l->bones[l->nbones++] = (bone_row){ strdup(name ? name : ""), parent };
}

static void on_track(int64_t idx, const char *bone, int64_t bone_index, const char *channels,
                     void *user)
{
    loaded *l = user;
    (void)idx, (void)channels;
    if (!l->active)
        return;
    if (!cli_grow((void **)&l->tracks, &l->tracks_cap, l->ntracks, sizeof *l->tracks)) {
        l->oom = true;
        return;
    }
    l->tracks[l->ntracks++] = (track_row){ bone ? strdup(bone) : NULL, bone_index };
}

static int load(const report *r, const char *root, const char *path, loaded *l)
{
    *l = (loaded){ .root = root, .path = path };
    amx_show_callbacks cb = { .file = on_file, .bone = on_bone, .track = on_track };
    char err[1024];
    int found = 0;
    if (amx_query_show_file(r->db, r->cfg, root, path, &cb, l, &found, err, sizeof err) != AMX_OK) {
        cli_error("%s", err);
        return EXIT_IO;
    }
    return l->oom ? EXIT_IO : EXIT_OK;
}

static void loaded_free(loaded *l)
{
    for (size_t i = 0; i < l->nbones; i++)
        free(l->bones[i].name);
    for (size_t i = 0; i < l->ntracks; i++)
        free(l->tracks[i].bone);
    free(l->bones);
    free(l->tracks);
}

/* ---- the bone hierarchy ---- */

enum { MARK_NONE, MARK_OK, MARK_BAD };

/* Bone indices sorted by name (case-blind), then index: a clip's name for a bone is found by
 * binary search, so marking a clip's tracks stays O((bones + tracks) log bones). */
static const loaded *sort_skel;

static int cmp_bone_name(const void *a, const void *b)
{
    size_t x = *(const size_t *)a, y = *(const size_t *)b;
    int c = strcasecmp(sort_skel->bones[x].name, sort_skel->bones[y].name);
    return c ? c : (x > y) - (x < y);
}

/* The lowest index of a bone named `name` (case-blind), or n. */
static size_t find_bone(const loaded *skel, const size_t *by_name, size_t n, const char *name)
{
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (strcasecmp(skel->bones[by_name[mid]].name, name) < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < n && strcasecmp(skel->bones[by_name[lo]].name, name) == 0 ? by_name[lo] : n;
}

/* Draws the skeleton as an indented tree, parents before children. With a clip (tracks), each
 * bone is marked: animated and matching (green), not animated by the clip (grey), or named
 * differently by the clip's track at its index (red, with the clip's name for it); tracks
 * whose index is outside the skeleton are listed under the tree. Linear in bones and tracks
 * (children lists, a sorted name index): a skeleton of any size draws in proportion. */
static void hierarchy(FILE *out, const loaded *skel, const loaded *clip)
{
    size_t n = skel->nbones;
    int *mark = calloc(n + 1, sizeof *mark);
    char **note = calloc(n + 1, sizeof *note);
    size_t *order = malloc((n + 1) * sizeof *order), *stack = malloc((n + 1) * sizeof *stack);
    int *depth = calloc(n + 1, sizeof *depth);
    bool *seen = calloc(n + 1, sizeof *seen);
    size_t *first = calloc(n + 2, sizeof *first), *kids = malloc((n + 1) * sizeof *kids);
    size_t *by_name = malloc((n + 1) * sizeof *by_name);
    if (!mark || !note || !order || !stack || !depth || !seen || !first || !kids || !by_name)
        goto out;
    for (size_t i = 0; i < n; i++)
        by_name[i] = i;
    sort_skel = skel;
    qsort(by_name, n, sizeof *by_name, cmp_bone_name);
    size_t ghosts = 0;
    for (size_t t = 0; clip && t < clip->ntracks; t++) {
        const track_row *tr = &clip->tracks[t];
        if (tr->index < 0 || (size_t)tr->index >= n) {
            ghosts++;
            continue;
        }
        size_t i = (size_t)tr->index;
        if (!tr->bone || strcasecmp(tr->bone, skel->bones[i].name) == 0) {
            if (mark[i] != MARK_BAD)
                mark[i] = MARK_OK;
            continue;
        }
        mark[i] = MARK_BAD;
        size_t other = find_bone(skel, by_name, n, tr->bone);
        char buf[512];
        if (other < n)
            snprintf(buf, sizeof buf, "clip names '%s' here, which is bone %zu", tr->bone, other);
        else
            snprintf(buf, sizeof buf, "clip names '%s' here, which the skeleton does not have",
                     tr->bone);
        free(note[i]);
        note[i] = strdup(buf);
    }
    /* Each bone's children, in index order (a counting sort by parent). */
    for (size_t k = 0; k < n; k++) {
        int64_t p = skel->bones[k].parent;
        if (p >= 0 && (size_t)p < n && (size_t)p != k)
            first[p + 1]++;
    }
    for (size_t k = 0; k < n; k++)
        first[k + 1] += first[k];
    {
        size_t *fill = calloc(n + 1, sizeof *fill);
        if (!fill)
            goto out;
        for (size_t k = 0; k < n; k++) {
            int64_t p = skel->bones[k].parent;
            if (p >= 0 && (size_t)p < n && (size_t)p != k)
                kids[first[p] + fill[p]++] = k;
        }
        free(fill);
    }
    /* Depth-first order from the roots; a bone whose parent is invalid or part of a cycle is
     * drawn as a root. */
    size_t norder = 0;
    for (size_t pass = 0; pass < 2; pass++)
        for (size_t r0 = 0; r0 < n; r0++) {
            int64_t p = skel->bones[r0].parent;
            bool is_root = p < 0 || (size_t)p >= n || (size_t)p == r0;
            if (seen[r0] || (pass == 0 && !is_root))
                continue;
            size_t sp = 0;
            stack[sp++] = r0;
            seen[r0] = true;
            depth[r0] = 0;
            while (sp) {
                size_t b = stack[--sp];
                order[norder++] = b;
                /* push children in reverse so they come out in index order */
                for (size_t c = first[b + 1]; c-- > first[b];) {
                    size_t k = kids[c];
                    if (seen[k])
                        continue;
                    seen[k] = true;
                    depth[k] = depth[b] + 1;
                    stack[sp++] = k;
                }
            }
        }
    int maxdepth = 0;
    size_t maxlabel = 0;
    for (size_t i = 0; i < n; i++) {
        if (depth[i] > maxdepth)
            maxdepth = depth[i];
        size_t len = strlen(skel->bones[i].name) + (note[i] ? strlen(note[i]) + 4 : 0) + 6;
        if (len > maxlabel)
            maxlabel = len;
    }
    enum { ROW = 17, INDENT = 16 };
    int width = 24 + maxdepth * INDENT + (int)maxlabel * 7;
    if (width < 240)
        width = 240;
    int height = (int)(n + ghosts) * ROW + 10;
    fprintf(out, "<svg class=\"tree\" xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" "
                 "viewBox=\"0 0 %d %d\" role=\"img\"><title>bone hierarchy</title>",
            width, height, width, height);
    int *row_of = calloc(n + 1, sizeof *row_of);
    for (size_t k = 0; row_of && k < norder; k++)
        row_of[order[k]] = (int)k;
    for (size_t k = 0; k < norder; k++) {
        size_t b = order[k];
        int x = 10 + depth[b] * INDENT, y = (int)k * ROW + 12;
        int64_t p = skel->bones[b].parent;
        if (row_of && depth[b] > 0 && p >= 0 && (size_t)p < n) {
            int px = 10 + depth[p] * INDENT, py = row_of[p] * ROW + 12;
            fprintf(out, "<path d=\"M%d %dV%dH%d\" class=\"edge\"/>", px, py + 4, y, x - 4);
        }
        const char *cls = !clip ? "bone" : mark[b] == MARK_OK ? "ok" : mark[b] == MARK_BAD ? "bad" : "idle";
        fprintf(out, "<circle cx=\"%d\" cy=\"%d\" r=\"4\" class=\"%s\"/>", x, y, cls);
        fprintf(out, "<text x=\"%d\" y=\"%d\" class=\"t-%s\">%zu ", x + 8, y + 4, cls, b);
        esc(out, skel->bones[b].name);
        if (note[b]) {
            fputs(" \xe2\x80\x94 ", out);
            esc(out, note[b]);
        }
        fputs("</text>", out);
    }
    size_t g = 0;
    for (size_t t = 0; clip && t < clip->ntracks; t++) {
        const track_row *tr = &clip->tracks[t];
        if (tr->index >= 0 && (size_t)tr->index < n)
            continue;
        int y = (int)(norder + g++) * ROW + 12;
        fprintf(out, "<circle cx=\"10\" cy=\"%d\" r=\"4\" class=\"bad\"/>", y);
        fprintf(out, "<text x=\"18\" y=\"%d\" class=\"t-bad\">track for bone %lld ", y + 4,
                (long long)tr->index);
        esc(out, tr->bone ? tr->bone : "");
        fputs(": outside the skeleton</text>", out);
    }
    fputs("</svg>", out);
    free(row_of);
out:
    for (size_t i = 0; note && i < n; i++)
        free(note[i]);
    free(mark), free(note), free(order), free(stack), free(depth), free(seen);
    free(first), free(kids), free(by_name);
}

/* ---- page parts ---- */

static void card(FILE *out, const char *label, uint64_t n, const char *color)
{
    fprintf(out, "<div class=\"card\"><div class=\"num\" style=\"color:%s\">%llu</div>", color,
            (unsigned long long)n);
    esc(out, label);
    fputs("</div>", out);
}

/* Rows of findings, at most ROWS_MAX (report.json has every one). */
enum { ROWS_MAX = 200 };

static void finding_rows(FILE *out, const cli_findings *l, const bool *pick, bool want)
{
    fputs("<table><tr><th>severity</th><th>file</th><th>code</th><th>where</th><th>message</th></tr>\n", out);
    size_t rows = 0, more = 0;
    for (size_t i = 0; i < l->n; i++) {
        const cli_finding *f = &l->v[i];
        if (pick && pick[i] != want)
            continue;
        if (rows++ >= ROWS_MAX) {
            more++;
            continue;
        }
        int s = f->severity <= AMX_SEV_ERROR ? (int)f->severity : 0;
        fprintf(out, "<tr><td><span class=\"sev\" style=\"background:%s\">%s</span></td><td>",
                sev_color[s], amx_severity_name(f->severity));
        esc(out, f->path);
        fputs("</td><td><code>", out);
        esc(out, f->code);
        fputs("</code></td><td>", out);
        if (f->offset >= 0)
            fprintf(out, "offset %lld%s", (long long)f->offset, f->context[0] ? ", " : "");
        esc(out, f->context);
        fputs("</td><td>", out);
        esc(out, f->message);
        fputs("</td></tr>\n", out);
    }
    fputs("</table>\n", out);
    if (more)
        fprintf(out, "<p class=\"dim\">... and %zu more (every finding is in report.json)</p>\n",
                more);
}

static void section_diff(FILE *out, const report *r)
{
    fputs("<h2 id=\"diff\">Since the previous report", out);
    if (r->previous_at) {
        fputs(" (", out);
        esc(out, r->previous_at);
        fputs(")", out);
    }
    fputs("</h2>\n<div class=\"cards\">", out);
    card(out, "new", r->n_new, r->n_new ? sev_color[AMX_SEV_ERROR] : "#555");
    card(out, "fixed", r->n_fixed, "#229954");
    card(out, "still open", r->n_open, "#555");
    fputs("</div>\n", out);
    if (r->n_new) {
        fputs("<h3>New</h3>\n", out);
        finding_rows(out, &r->findings, r->open, false);
    }
    if (r->n_fixed) {
        fputs("<h3>Fixed</h3>\n", out);
        finding_rows(out, &r->previous, r->still, false);
    }
    if (r->n_open) {
        fprintf(out, "<details><summary>Still open (%zu)</summary>\n", r->n_open);
        finding_rows(out, &r->findings, r->open, true);
        fputs("</details>\n", out);
    }
}

/* The slot of a finding's code (AMX_CODE_COUNT: a code this animidx does not know). */
static size_t code_slot(const cli_finding *f)
{
    amx_code c;
    return amx_code_parse(f->code, &c) ? (size_t)c : AMX_CODE_COUNT;
}

/* Findings by code: the code, its effective severity (the config's overrides applied), the
 * findings and the files they are in. A code may have findings of several severities
 * (REFERENCE_NOT_FOUND in and out of a base layer): the severity column then counts each. */
static int section_codes(FILE *out, const report *r, render *rd)
{
    (void)rd;
    uint64_t code[AMX_CODE_COUNT] = { 0 }, files[AMX_CODE_COUNT] = { 0 }, most = 1;
    uint64_t by_sev[AMX_CODE_COUNT][3] = { { 0 } };
    for (size_t i = 0; i < r->findings.n; i++) {
        const cli_finding *f = &r->findings.v[i];
        amx_code c;
        if (!amx_code_parse(f->code, &c))
            continue;
        by_sev[c][cli_sev_slot(f->severity)]++;
        if (++code[c] > most)
            most = code[c];
        bool seen = false; /* findings come grouped by file */
        for (size_t p = i; p-- > 0 && !seen;) {
            const cli_finding *g = &r->findings.v[p];
            if (strcmp(g->path, f->path) || strcmp(g->root, f->root))
                break;
            seen = strcmp(g->code, f->code) == 0;
        }
        files[c] += !seen;
    }
    fputs("<table><tr><th>code</th><th>severity</th><th>findings</th><th>files</th><th></th>"
          "<th>meaning</th></tr>\n", out);
    for (int c = 0; c < AMX_CODE_COUNT; c++) {
        if (!code[c])
            continue;
        const amx_code_info *ci = amx_code_get((amx_code)c);
        int kinds = (by_sev[c][0] > 0) + (by_sev[c][1] > 0) + (by_sev[c][2] > 0), worst = -1;
        fputs("<tr><td><code>", out);
        esc(out, ci->name);
        fputs("</code></td><td>", out);
        for (int s = AMX_SEV_ERROR; s >= AMX_SEV_INFO; s--) {
            if (!by_sev[c][s])
                continue;
            if (worst < 0)
                worst = s;
            fprintf(out, "<span class=\"sev\" style=\"background:%s\">%s</span> ", sev_color[s],
                    amx_severity_name((amx_severity)s));
            if (kinds > 1)
                fprintf(out, "%llu ", (unsigned long long)by_sev[c][s]);
        }
        fprintf(out, "</td><td class=\"n\">%llu</td><td class=\"n\">%llu</td><td>"
                     "<svg width=\"120\" height=\"10\" xmlns=\"http://www.w3.org/2000/svg\">"
                     "<rect width=\"%.1f\" height=\"10\" fill=\"%s\"/></svg></td><td>",
                (unsigned long long)code[c], (unsigned long long)files[c],
                120.0 * (double)code[c] / (double)most, sev_color[worst < 0 ? 0 : worst]);
        esc(out, ci->summary);
        fputs("</td></tr>\n", out);
    }
    fputs("</table>\n", out);
    return EXIT_OK;
}

/* Findings by file: one collapsed entry per file (the most errors first) with its counts per
 * code; opened, its findings, SHOWN_PER_CODE of each code and the rest counted. */
enum { SHOWN_PER_CODE = 3, FILES_DETAILED = 1000 };

typedef struct file_group {
    size_t first, count, by_sev[3];
} file_group;

static int cmp_group(const void *a, const void *b, void *arg)
{
    const file_group *x = a, *y = b;
    (void)arg;
    for (int s = AMX_SEV_ERROR; s >= AMX_SEV_INFO; s--)
        if (x->by_sev[s] != y->by_sev[s])
            return x->by_sev[s] > y->by_sev[s] ? -1 : 1;
    return (x->first > y->first) - (x->first < y->first);
}

static int section_files(FILE *out, const report *r, render *rd)
{
    (void)rd;
    const cli_findings *l = &r->findings;
    file_group *g = malloc((l->n + 1) * sizeof *g);
    if (!g)
        return EXIT_IO;
    size_t ng = 0;
    for (size_t i = 0; i < l->n;) {
        file_group fg = { .first = i };
        size_t e = i;
        while (e < l->n && !strcmp(l->v[e].path, l->v[i].path) && !strcmp(l->v[e].root, l->v[i].root)) {
            if (l->v[e].severity <= AMX_SEV_ERROR)
                fg.by_sev[l->v[e].severity]++;
            e++;
        }
        fg.count = e - i;
        g[ng++] = fg;
        i = e;
    }
    amx_sort(g, ng, sizeof *g, cmp_group, NULL);
    /* a long list is collapsed as a whole too */
    fprintf(out, "<details%s><summary>%zu file%s with findings, the most errors first; open one "
                 "for its findings</summary>\n", ng > 50 ? "" : " open", ng, cli_s(ng));
    for (size_t k = 0; k < ng; k++) {
        const cli_finding *v = l->v + g[k].first;
        if (k == FILES_DETAILED)
            fprintf(out, "<p class=\"dim\">The other %zu files, by their counts only: report.json "
                         "and <code>animidx issues PATH</code> have their findings.</p>\n",
                    ng - FILES_DETAILED);
        bool detailed = k < FILES_DETAILED;
        fputs(detailed ? "<details class=\"file\"><summary>" : "<div class=\"file\">", out);
        for (int s = AMX_SEV_ERROR; s >= AMX_SEV_INFO; s--)
            if (g[k].by_sev[s])
                fprintf(out, "<span class=\"sev\" style=\"background:%s\">%zu</span> ", sev_color[s],
                        g[k].by_sev[s]);
        esc(out, v->path);
        fputs(" <span class=\"dim\">", out);
        /* the file's findings by code and severity; its codes with their counts, in order
         * of first appearance */
        size_t total[AMX_CODE_COUNT + 1][3] = { { 0 } }, rank[AMX_CODE_COUNT + 1][3] = { { 0 } };
        bool named[AMX_CODE_COUNT + 1] = { false };
        for (size_t a = 0; a < g[k].count; a++)
            total[code_slot(&v[a])][cli_sev_slot(v[a].severity)]++;
        for (size_t a = 0, listed = 0; a < g[k].count; a++) {
            size_t c = code_slot(&v[a]);
            if (named[c])
                continue;
            named[c] = true;
            fprintf(out, "%s%zu&#215; ", listed++ ? ", " : "",
                    total[c][0] + total[c][1] + total[c][2]);
            esc(out, c < AMX_CODE_COUNT ? v[a].code : "other codes");
        }
        if (!detailed) {
            fputs("</span></div>\n", out);
            continue;
        }
        fputs("</span></summary><ul>", out);
        /* SHOWN_PER_CODE of each code and severity (an error is never collapsed behind infos
         * of its code), the rest counted where the next would be */
        for (size_t a = 0; a < g[k].count; a++) {
            size_t c = code_slot(&v[a]), sv = cli_sev_slot(v[a].severity), n = total[c][sv];
            size_t at = rank[c][sv]++;
            if (at == SHOWN_PER_CODE) {
                fprintf(out, "<li class=\"dim\">... and %zu more ", n - SHOWN_PER_CODE);
                esc(out, c < AMX_CODE_COUNT ? v[a].code : "findings of other codes");
                if ((total[c][0] > 0) + (total[c][1] > 0) + (total[c][2] > 0) > 1)
                    fprintf(out, " (%s)", amx_severity_name(v[a].severity));
                fputs("</li>", out);
            }
            if (at >= SHOWN_PER_CODE)
                continue;
            int si = v[a].severity <= AMX_SEV_ERROR ? (int)v[a].severity : 0;
            fprintf(out, "<li><span class=\"sev\" style=\"background:%s\">%s</span> <code>",
                    sev_color[si], amx_severity_name(v[a].severity));
            esc(out, v[a].code);
            fputs("</code> ", out);
            if (v[a].offset >= 0)
                fprintf(out, "@%lld ", (long long)v[a].offset);
            if (v[a].context[0]) {
                fputs("(", out);
                esc(out, v[a].context);
                fputs(") ", out);
            }
            esc(out, v[a].message);
            fputs("</li>", out);
        }
        fputs("</ul></details>\n", out);
    }
    fputs("</details>\n", out);
    free(g);
    return EXIT_OK;
}

/* The number of error findings of one file other than the bone checks (the compatibility
 * column already says those); findings come sorted by (root, path). */
static size_t errors_of(const cli_findings *l, const char *root, const char *path)
{
    size_t lo = 0, hi = l->n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        int c = strcmp(l->v[mid].root, root);
        if (!c)
            c = strcmp(l->v[mid].path, path);
        if (c < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    size_t n = 0;
    for (; lo < l->n && !strcmp(l->v[lo].root, root) && !strcmp(l->v[lo].path, path); lo++)
        n += l->v[lo].severity == AMX_SEV_ERROR && strncmp(l->v[lo].code, "BONE_", 5) != 0;
    return n;
}

/* A clip gets a plot with --plots all, or (the default) when it has findings, for the first
 * PLOT_BUDGET such clips: a plot is 5-30 kB of SVG, and a mod has thousands of clips. */
enum { PLOT_BUDGET = 50 };
/* Bones drawn in marked hierarchies, in all (past the first): about 150 bytes of SVG each. */
enum { TREE_ROW_BUDGET = 100000 };

static bool wants_plot(const report *r, render *rd, const rep_clip *c)
{
    if (r->plots == PLOTS_NONE)
        return false;
    if (r->plots == PLOTS_ALL)
        return true;
    if (!c->bound || c->bones_missing || errors_of(&r->findings, c->root, c->path))
        return rd->plots++ < PLOT_BUDGET;
    return false;
}

static void clip_table_row(FILE *out, const report *r, const rep_clip *c, decoder *d, render *rd)
{
    fputs("<tr><td><b>", out);
    esc(out, c->clip);
    fputs("</b><br><span class=\"dim\">", out);
    esc(out, c->path);
    fputs("</span></td><td class=\"n\">", out);
    if (c->frames >= 0)
        fprintf(out, "%lld @ %g fps", (long long)c->frames, c->fps);
    fprintf(out, "</td><td class=\"n\">%lld</td><td>", (long long)c->tracks);
    if (!c->bound)
        fputs("<span class=\"badge warn\">skeleton not found</span>", out);
    else if (c->bones_missing)
        fprintf(out, "<span class=\"badge bad\">%lld bone%s do not match</span>",
                (long long)c->bones_missing, c->bones_missing == 1 ? "" : "s");
    else
        fputs("<span class=\"badge ok\">compatible</span>", out);
    if (c->how) { /* why this skeleton: the rule, and its detail */
        fputs("<br><span class=\"dim\">bound by ", out);
        esc(out, strcmp(c->how, "name") == 0 ? "the naming convention" : c->how);
        if (c->via && c->via[0]) {
            fputs(" (", out);
            esc(out, c->via);
            fputs(")", out);
        }
        fputs("</span>", out);
    }
    size_t errors = errors_of(&r->findings, c->root, c->path);
    if (errors)
        fprintf(out, "<br><span class=\"badge bad\">%zu error%s in the file</span>", errors,
                errors == 1 ? "" : "s");
    fputs("</td><td>", out);
    if (!wants_plot(r, rd, c)) {
        if (r->plots == PLOTS_NONE)
            fputs("<span class=\"dim\">no plot (--plots none)</span></td></tr>\n", out);
        else if (!c->bound || c->bones_missing || errors_of(&r->findings, c->root, c->path))
            fputs("<span class=\"dim\">plotted for the first clips with findings only "
                  "(--plots all)</span></td></tr>\n", out);
        else
            fputs("<span class=\"dim\">no findings, no plot (--plots all)</span></td></tr>\n", out);
        return;
    }
    amx_asset *a = decode_clip(d, c->root, c->path);
    const amx_clip *clip = NULL;
    for (uint32_t i = 0; a && i < a->clip_count && !clip; i++)
        if (strcasecmp(a->clips[i].name, c->clip) == 0)
            clip = &a->clips[i];
    if (!clip && a && a->clip_count)
        clip = &a->clips[0];
    if (clip)
        plot_clip(out, clip);
    else
        fputs("<span class=\"dim\">the file could not be decoded again</span>", out);
    amx_asset_free(a);
    fputs("</td></tr>\n", out);
}

static const char clip_head[] =
    "<table><tr><th>clip</th><th>frames</th><th>tracks</th><th>compatibility</th>"
    "<th>channels over time (<span style=\"color:#c0392b\">x</span> "
    "<span style=\"color:#229954\">y</span> <span style=\"color:#2e86c1\">z</span> "
    "<span style=\"color:#7f8c8d\">w</span>)</th></tr>\n";

static int section_skeleton(FILE *out, const report *r, const rep_skeleton *sk, size_t id,
                            decoder *d, render *rd)
{
    size_t nclips = 0, bad = 0;
    for (size_t c = 0; c < r->nclips; c++) {
        const rep_clip *cl = &r->clips[c];
        if (!rep_same_skeleton(cl, sk))
            continue;
        nclips++;
        bad += cl->bones_missing > 0;
    }
    /* many skeletons: each collapsed, except while the first few with problems are open */
    bool open = rd->nskels <= SKELETONS_OPEN || (bad && rd->open_skels++ < SKELETONS_OPEN);
    fprintf(out, "<details class=\"skel\" id=\"skel%zu\"%s><summary><b>", id, open ? " open" : "");
    esc(out, sk->name);
    fprintf(out, "</b> <span class=\"dim\">%lld bones, %zu clips", (long long)sk->bones, nclips);
    if (bad)
        fprintf(out, ", <span style=\"color:#c0392b\">%zu not compatible</span>", bad);
    fputs("</span></summary><p class=\"dim\">", out);
    esc(out, sk->path);
    fputs("</p>\n", out);
    loaded skel;
    int rc = load(r, sk->root, sk->path, &skel);
    if (rc != EXIT_OK) {
        loaded_free(&skel);
        return rc;
    }
    if (nclips) {
        fputs(clip_head, out);
        for (size_t c = 0; c < r->nclips; c++) {
            const rep_clip *cl = &r->clips[c];
            if (rep_same_skeleton(cl, sk))
                clip_table_row(out, r, cl, d, rd);
        }
        fputs("</table>\n", out);
    }
    /* The hierarchy: marked for every clip that does not match, else plain. */
    for (size_t c = 0; c < r->nclips && rc == EXIT_OK; c++) {
        const rep_clip *cl = &r->clips[c];
        if (!rep_same_skeleton(cl, sk) || cl->bones_missing == 0)
            continue;
        /* and the bones drawn: a skeleton of 20,000 bones against 50 clips would be a
         * million rows */
        if (r->plots != PLOTS_ALL &&
            (rd->trees++ >= PLOT_BUDGET ||
             (rd->trees > 1 && rd->tree_rows + skel.nbones > TREE_ROW_BUDGET))) {
            fputs("<p class=\"dim\">bone hierarchy not drawn: the report draws it for the first "
                  "clips that do not match (--plots all draws every one)</p>\n", out);
            continue;
        }
        rd->tree_rows += skel.nbones;
        loaded tracks;
        rc = load(r, cl->root, cl->path, &tracks);
        if (rc == EXIT_OK) {
            fprintf(out, "<details%s><summary>Bones of ", open ? " open" : "");
            esc(out, sk->name);
            fputs(" against clip ", out);
            esc(out, cl->clip);
            fputs(" <span class=\"legend\"><i class=\"ok\"></i>animated <i class=\"idle\"></i>not "
                  "animated <i class=\"bad\"></i>does not match</span></summary>\n", out);
            hierarchy(out, &skel, &tracks);
            fputs("</details>\n", out);
        }
        loaded_free(&tracks);
    }
    if (!bad && skel.nbones && (r->plots == PLOTS_ALL || rd->nskels <= SKELETONS_OPEN)) {
        fputs("<details><summary>Bone hierarchy</summary>\n", out);
        hierarchy(out, &skel, NULL);
        fputs("</details>\n", out);
    }
    fputs("</details>\n", out);
    loaded_free(&skel);
    return rc;
}

/* Missing assets, grouped by name, most referenced first; long lists collapsed. */
static int section_missing(FILE *out, const report *r, render *rd)
{
    (void)rd;
    int64_t refs = 0;
    for (size_t i = 0; i < r->nmissing; i++)
        refs += r->missing[i].references;
    fprintf(out, "<h2 id=\"missing\">Missing assets (%zu file%s, %lld reference%s)</h2>\n",
            r->nmissing, cli_s(r->nmissing), (long long)refs, cli_s((unsigned long long)refs));
    fputs("<p class=\"dim\">Files the models, particles and game objects name that no layer "
          "of their tree provides (or provides as the wrong kind, or as a file that does not "
          "decode), one row per file the engine looks for, with every spelling that names it. "
          "Without base layers (<code>scan --base</code>) a mod's references to the game's own "
          "assets are listed here as info.</p>\n", out);
    fprintf(out, "<details%s><summary>by file</summary>\n", r->nmissing <= 50 ? " open" : "");
    fputs("<table><tr><th>severity</th><th>kind</th><th>file</th><th>references</th>"
          "<th>named by</th></tr>\n", out);
    for (size_t i = 0; i < r->nmissing; i++) {
        const rep_missing *m = &r->missing[i];
        fprintf(out, "<tr><td style=\"color:%s\">%s</td><td>", sev_color[m->severity],
                amx_severity_name(m->severity));
        esc(out, m->kind);
        fputs("</td><td><b>", out);
        esc(out, m->file && m->file[0] ? m->file : m->name);
        fputs("</b>", out);
        if (strcmp(m->resolution, "wrong-kind") == 0)
            fputs(" <span class=\"badge bad\">wrong kind</span>", out);
        if (strcmp(m->resolution, "unusable") == 0)
            fputs(" <span class=\"badge bad\">does not decode</span>", out);
        fputs("<br><span class=\"dim\">named ", out);
        for (size_t k = 0; k < m->nspellings && k < 6; k++) {
            fputs(k ? ", " : "", out);
            esc(out, m->spellings[k].name);
        }
        if (m->nspellings > 6)
            fprintf(out, ", and %zu more", m->nspellings - 6);
        fputs("</span>", out);
        fprintf(out, "</td><td class=\"n\">%lld in %lld file%s</td><td>",
                (long long)m->references, (long long)m->files, m->files == 1 ? "" : "s");
        for (size_t k = 0; k < m->nreferrers; k++) {
            fputs(k ? "<br>" : "", out);
            esc(out, m->paths[k]);
            fputs(" <span class=\"dim\">", out);
            esc(out, m->places[k]);
            fputs("</span>", out);
        }
        if ((int64_t)m->nreferrers < m->references)
            fprintf(out, "<br><span class=\"dim\">... and %lld more</span>",
                    (long long)(m->references - (int64_t)m->nreferrers));
        fputs("</td></tr>\n", out);
    }
    fputs("</table></details>\n", out);
    return EXIT_OK;
}

static void section_config(FILE *out, const amx_config *cfg)
{
    fputs("<table>", out);
    fputs("<tr><th>config file</th><td>", out);
    esc(out, cfg->source ? cfg->source : "(none: built-in defaults)");
    fputs("</td></tr><tr><th>index</th><td>", out);
    esc(out, cfg->db_path);
    fputs("</td></tr><tr><th>ignore</th><td>", out);
    for (size_t i = 0; i < cfg->ignore_count; i++) {
        esc(out, cfg->ignore[i]);
        fputs(i + 1 < cfg->ignore_count ? ", " : "", out);
    }
    fputs("</td></tr><tr><th>severity overrides</th><td>", out);
    bool any = false;
    for (int i = 0; i < AMX_CODE_COUNT; i++)
        if (cfg->severity_set[i]) {
            fprintf(out, "%s<code>%s</code> = %s", any ? ", " : "", amx_code_get((amx_code)i)->name,
                    amx_severity_name(cfg->severity[i]));
            any = true;
        }
    fputs(any ? "" : "none", out);
    fputs("</td></tr></table>\n", out);
}

static const char css[] =
    "body{font:14px/1.4 system-ui,sans-serif;margin:24px;color:#222;background:#fff}"
    "h1{margin:0 0 4px}h2{margin-top:32px;border-bottom:1px solid #ddd}"
    "table{border-collapse:collapse;margin:8px 0}td,th{border:1px solid #ddd;padding:3px 8px;"
    "text-align:left;vertical-align:top}th{background:#f4f4f4}td.n{text-align:right}"
    ".cards{display:flex;gap:12px;flex-wrap:wrap;margin:12px 0}"
    ".card{border:1px solid #ddd;border-radius:6px;padding:8px 16px;min-width:90px}"
    ".num{font-size:28px;font-weight:600}.dim{color:#777}"
    ".sev{color:#fff;border-radius:3px;padding:0 5px}"
    ".badge{border-radius:3px;padding:1px 6px;color:#fff;white-space:nowrap;line-height:1.9}.badge.ok{background:#229954}"
    ".badge.bad{background:#c0392b}.badge.warn{background:#b9770e}"
    "section.skel{margin:18px 0;padding:4px 12px;border-left:4px solid #ddd}"
    "svg text{font:11px sans-serif;fill:#333}svg .ax{fill:#888;font-size:9px}"
    "svg .bl{font-weight:600}svg .more{paint-order:stroke;stroke:#fff;stroke-width:3px}svg .band{fill:#fafafa;stroke:#e4e4e4}"
    "svg .edge{fill:none;stroke:#aaa}circle.bone{fill:#555}circle.ok{fill:#229954}"
    "circle.idle{fill:#bbb}circle.bad{fill:#c0392b}svg .t-bad{fill:#c0392b;font-weight:600}"
    "svg .t-idle{fill:#888}.legend i{display:inline-block;width:9px;height:9px;"
    "border-radius:50%;margin:0 3px 0 10px}.legend i.ok{background:#229954}"
    ".legend i.idle{background:#bbb}.legend i.bad{background:#c0392b}"
    "summary{cursor:pointer;margin:6px 0}details.file summary{margin:2px 0}"
    "details.file ul{margin:2px 0 8px}div.file{margin:2px 0 2px 14px}details.skel{margin:10px 0;padding:2px 12px;"
    "border-left:4px solid #ddd}nav.toc{border:1px solid #ddd;border-radius:6px;padding:6px 14px;"
    "display:inline-block}nav.toc ol{margin:4px 0}";

static int section_summary(FILE *out, const report *r, render *rd)
{
    (void)rd;
    uint64_t sev[3] = { 0 };
    for (size_t i = 0; i < r->findings.n; i++)
        if (r->findings.v[i].severity <= AMX_SEV_ERROR)
            sev[r->findings.v[i].severity]++;
    /* the effective severities (config overrides applied) of the findings, as every section */
    fputs("<div class=\"cards\">", out);
    card(out, "errors", sev[AMX_SEV_ERROR], sev_color[AMX_SEV_ERROR]);
    card(out, "warnings", sev[AMX_SEV_WARNING], sev_color[AMX_SEV_WARNING]);
    card(out, "info", sev[AMX_SEV_INFO], sev_color[AMX_SEV_INFO]);
    card(out, "files", r->sum.files, "#222");
    card(out, "clips", r->sum.clips, "#222");
    card(out, "clips without skeleton", r->sum.clips_unbound, r->sum.clips_unbound ? sev_color[1] : "#222");
    card(out, "skeletons", r->sum.skeletons, "#222");
    fputs("</div>\n<table><tr><th>format</th><th>files</th><th>errors</th><th>warnings</th>"
          "<th>info</th></tr>\n", out);
    for (int f = 0; f < AMX_FORMAT_COUNT; f++) {
        uint64_t fs[3] = { 0 };
        for (size_t i = 0; i < r->findings.n; i++) {
            amx_format fm = AMX_FMT_UNKNOWN;
            amx_format_parse(r->findings.v[i].format, &fm);
            if ((int)fm == f && r->findings.v[i].severity <= AMX_SEV_ERROR)
                fs[r->findings.v[i].severity]++;
        }
        if (!r->sum.by_format[f] && !fs[0] && !fs[1] && !fs[2])
            continue;
        fprintf(out, "<tr><td>%s</td><td class=\"n\">%llu</td><td class=\"n\">%llu</td>"
                     "<td class=\"n\">%llu</td><td class=\"n\">%llu</td></tr>\n",
                amx_format_name((amx_format)f), (unsigned long long)r->sum.by_format[f],
                (unsigned long long)fs[2], (unsigned long long)fs[1], (unsigned long long)fs[0]);
    }
    fputs("</table>\n", out);
    return EXIT_OK;
}

static int section_changes(FILE *out, const report *r, render *rd)
{
    (void)rd;
    section_diff(out, r);
    return EXIT_OK;
}

static int section_skeletons(FILE *out, const report *r, render *rd)
{
    decoder d = { 0 };
    int rc = EXIT_OK;
    size_t idle = 0;
    for (size_t s = 0; s < r->nskels; s++)
        rd->nskels += r->skels[s].clips > 0;
    if (rd->nskels > SKELETONS_OPEN)
        fprintf(out, "<p class=\"dim\">%zu skeletons with clips, each collapsed (the first with "
                     "clips that do not match are open).</p>\n", rd->nskels);
    for (size_t s = 0; s < r->nskels && rc == EXIT_OK; s++) {
        if (r->skels[s].clips)
            rc = section_skeleton(out, r, &r->skels[s], s, &d, rd);
        else
            idle++;
    }
    if (idle && rc == EXIT_OK) {
        fprintf(out, "<details><summary>Skeletons without clips (%zu)</summary>\n<table><tr>"
                     "<th>skeleton</th><th>bones</th><th>file</th></tr>\n", idle);
        for (size_t s = 0; s < r->nskels; s++) {
            if (r->skels[s].clips)
                continue;
            fputs("<tr><td>", out);
            esc(out, r->skels[s].name);
            fprintf(out, "</td><td class=\"n\">%lld</td><td>", (long long)r->skels[s].bones);
            esc(out, r->skels[s].path);
            fputs("</td></tr>\n", out);
        }
        fputs("</table></details>\n", out);
    }
    decoder_drop(&d);
    return rc;
}

static int section_unbound(FILE *out, const report *r, render *rd)
{
    size_t unbound = 0;
    for (size_t c = 0; c < r->nclips; c++)
        unbound += r->clips[c].skel_path == NULL;
    decoder d = { 0 };
    fprintf(out, "<details%s><summary>%zu clips</summary>\n", unbound <= 20 ? " open" : "", unbound);
    fputs(clip_head, out);
    for (size_t c = 0; c < r->nclips; c++)
        if (!r->clips[c].skel_path)
            clip_table_row(out, r, &r->clips[c], &d, rd);
    fputs("</table></details>\n", out);
    decoder_drop(&d);
    return EXIT_OK;
}

static int section_config_(FILE *out, const report *r, render *rd)
{
    (void)rd;
    section_config(out, r->cfg);
    return EXIT_OK;
}

static bool has_previous(const report *r) { return r->have_previous; }
static bool has_findings(const report *r) { return r->findings.n > 0; }
static bool has_skeletons(const report *r) { return r->nskels > 0; }
static bool has_missing(const report *r) { return r->nmissing > 0; }
static bool has_unbound(const report *r)
{
    for (size_t c = 0; c < r->nclips; c++)
        if (!r->clips[c].skel_path)
            return true;
    return false;
}

/* The page's sections, in order: each is one function (and, optionally, when it is there);
 * the table of contents lists them. A new section is one row. */
static const struct {
    const char *id, *title;
    int (*write)(FILE *out, const report *r, render *rd);
    bool (*present)(const report *r);   /* NULL: always */
    bool own_heading;                   /* the function writes its <h2 id=...> (with counts) */
} sections[] = {
    { "summary", "Summary", section_summary, NULL, false },
    { "diff", "Since the previous report", section_changes, has_previous, true },
    { "codes", "Findings by code", section_codes, has_findings, false },
    { "files", "Findings by file", section_files, has_findings, false },
    { "skeletons", "Skeletons and their clips", section_skeletons, has_skeletons, false },
    { "unbound", "Clips without a skeleton in the index", section_unbound, has_unbound, false },
    { "missing", "Missing assets", section_missing, has_missing, true },
    { "config", "Effective configuration", section_config_, NULL, false },
};

int report_write_html(FILE *out, const report *r)
{
    fputs("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
          "<meta name=\"viewport\" content=\"width=device-width\">"
          "<title>animidx report</title><style>", out);
    fputs(css, out);
    fputs("</style></head><body>\n<h1>animidx report</h1>\n<p class=\"dim\">generated ", out);
    esc(out, r->generated_at);
    if (r->scanned_at[0]) {
        fputs(", last scan ", out);
        esc(out, r->scanned_at);
    }
    fputs(", animidx " AMX_VERSION_STRING ", index ", out);
    esc(out, r->cfg->db_path);
    fputs("</p>\n<nav class=\"toc\"><b>Contents</b><ol>", out);
    enum { NSECTIONS = sizeof sections / sizeof sections[0] };
    for (size_t i = 0; i < NSECTIONS; i++)
        if (!sections[i].present || sections[i].present(r))
            fprintf(out, "<li><a href=\"#%s\">%s</a></li>", sections[i].id, sections[i].title);
    fputs("</ol></nav>\n", out);
    render rd = { 0 };
    int rc = EXIT_OK;
    for (size_t i = 0; i < NSECTIONS && rc == EXIT_OK; i++) {
        if (sections[i].present && !sections[i].present(r))
            continue;
        if (!sections[i].own_heading)
            fprintf(out, "<h2 id=\"%s\">%s</h2>\n", sections[i].id, sections[i].title);
        rc = sections[i].write(out, r, &rd);
    }
    fputs("</body></html>\n", out);
    return rc;
}
