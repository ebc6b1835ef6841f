/*
 * Asset references: every name a file gives of another file (textures, shaders, proxies, XML
 * model tags), resolved the way the engine looks it up through the layers (lib/resolve/;
 * docs/formats/alamo.md 8b, w3d.md 10).
 *
 * One finding per file the engine would look for and not find (or find unusable), however many
 * spellings name it: "X.tga", "x.DDS" and "C:\Art\X.tga" all want DATA/ART/TEXTURES/X.DDS, the
 * proxies P_X_ALT0 and P_X_LOD1_ALT1 the particle P_X (amx__ref_file). A file's references are
 * read in that order, each spelling resolved once; the finding names the first spelling, the
 * others, how many places name it, and, for a file that is missing, where the tree has a file of
 * that name if it has one (the engine does not look there).
 */
#include "link_internal.h"
#include "resolve/resolve.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* ---- resolving one spelling ---- */

typedef enum res_kind { RES_FOUND, RES_BUILTIN, RES_SKIPPED, RES_MISSING, RES_WRONG_KIND,
                        RES_UNUSABLE, RES_EMPTY, RES_TOO_LONG, RES_KINDS } res_kind;

static const char *const res_names[] = { "found", "builtin", "skipped", "missing", "wrong-kind",
                                         "unusable", "empty", "too-long" };

typedef struct resolution {
    res_kind what;
    file_hit target;          /* when found, wrong-kind or unusable */
    char tried[1200];         /* the paths looked at, for messages */
    char detail[300];         /* wrong kind, unusable: what was found; too long: the path */
} resolution;

static void note_tried(resolution *r, const char *lkey)
{
    size_t n = strlen(r->tried);
    if (n < sizeof r->tried - 1)
        snprintf(r->tried + n, sizeof r->tried - n, "%s%s", n ? ", " : "", lkey);
}

/* Looks the candidates up in order; the first found wins. */
static int first_found(linker *l, char keys[][AMX_LKEY_MAX], size_t n, int64_t root,
                       resolution *r, size_t max_len)
{
    for (size_t i = 0; i < n; i++) {
        if (strlen(keys[i]) > max_len) {
            r->what = RES_TOO_LONG;
            snprintf(r->detail, sizeof r->detail, "%.250s", keys[i]);
            return 0;
        }
        note_tried(r, keys[i]);
        int f = link_file_at(l, keys[i], root, &r->target);
        if (f)
            return f;
    }
    return 0;
}

/* What the file found is to a reference of `kind`: RES_FOUND, RES_WRONG_KIND (an Alamo file of
 * another kind), or RES_UNUSABLE (a model, particle or animation set that finds a file that
 * does not decode as an Alamo file: the engine stops there and loads nothing). */
static res_kind kind_fits(amx_ref_kind kind, const file_hit *h, char *what, size_t n)
{
    const char *format = h->format;
    bool model = strcmp(format, "alamo-alo") == 0, particle = strcmp(format, "alamo-particle") == 0,
         anim = strcmp(format, "alamo-ala") == 0;
    snprintf(what, n, "%s", anim ? "an animation" : model ? "a model"
                            : particle                    ? "a particle system"
                                                          : format);
    if (kind == AMX_REF_TEXTURE || kind == AMX_REF_SHADER)
        return RES_FOUND; /* not decoded by animidx */
    if (kind == AMX_REF_XML_FILE) {
        if (strcmp(format, "alamo-xml") == 0)
            return RES_FOUND;
        snprintf(what, n, "which is not XML (%s)", strcmp(format, "unknown") == 0
                                                       ? "empty, or of no format animidx knows"
                                                       : format);
        return RES_UNUSABLE;
    }
    if (strcmp(h->status, "error") == 0) {
        snprintf(what, n, "which does not decode (its findings say why)");
        return RES_UNUSABLE;
    }
    if (!model && !particle && !anim) {
        snprintf(what, n, "which is not an Alamo file (%s)",
                 strcmp(format, "unknown") == 0 ? "empty, or of no format animidx knows" : format);
        return RES_UNUSABLE;
    }
    switch (kind) {
    case AMX_REF_MODEL:
    case AMX_REF_ANIM_OVERRIDE:
        return model ? RES_FOUND : RES_WRONG_KIND;
    case AMX_REF_MODEL_OR_PARTICLE:
        return anim ? RES_WRONG_KIND : RES_FOUND;
    case AMX_REF_PARTICLE:
        return particle ? RES_FOUND : RES_WRONG_KIND;
    default:
        return RES_FOUND;
    }
}

static int resolve_ref(linker *l, amx_ref_kind kind, const char *name, const char *key, bool w3d,
                       int64_t root, resolution *r)
{
    memset(r, 0, sizeof *r);
    r->what = RES_MISSING;
    char keys[AMX_MAX_TEXTURE_LKEYS][AMX_LKEY_MAX];
    amx__languages langs; /* a Generals root's (sage_languages) */
    size_t n = 0;
    const char *trimmed_name = name;
    while (*trimmed_name == ' ')
        trimmed_name++;
    if (!*trimmed_name) {
        r->what = kind == AMX_REF_ANIM_OVERRIDE || kind == AMX_REF_MODEL ||
                          kind == AMX_REF_MODEL_OR_PARTICLE
                      ? RES_SKIPPED  /* an empty XML tag clears what a variant inherits */
                      : RES_EMPTY;
        return 0;
    }
    switch (kind) {
    case AMX_REF_W3D_MODEL:
    case AMX_REF_W3D_ANIMATION:
    case AMX_REF_BONE:
    case AMX_REF_SUB_OBJECT:
    case AMX_REF_PARTICLE_BONE:
    case AMX_REF_INCLUDE:
    case AMX_REF_INI_OBJECT:
        r->what = RES_SKIPPED; /* SAGE INI references: not resolved here */
        return 0;
    case AMX_REF_TEXTURE:
        if (strcasecmp(trimmed_name, "None") == 0) {
            r->what = RES_SKIPPED; /* the engine's "no texture" */
            return 0;
        }
        n = amx__texture_lkeys(trimmed_name, w3d, sage_languages(l, root, false, &langs), keys,
                               AMX_MAX_TEXTURE_LKEYS);
        break;
    case AMX_REF_SHADER:
        if (amx__shader_builtin(trimmed_name)) {
            r->what = RES_BUILTIN;
            return 0;
        }
        n = amx__shader_lkeys(trimmed_name, keys, 8);
        break;
    case AMX_REF_PARTICLE: {
        char particle[512];
        amx__proxy_name(trimmed_name, particle, sizeof particle);
        n = amx__model_lkeys(particle, keys);
        break;
    }
    case AMX_REF_XML_FILE:
        n = amx__xml_file_lkey(trimmed_name, keys[0]) ? 1 : 0;
        break;
    default:
        n = amx__model_lkeys(trimmed_name, keys);
        break;
    }
    int f = first_found(l, keys, n, root, r, AMX_MAX_ASSET_PATH);
    if (f < 0)
        return -1;
    if (r->what == RES_TOO_LONG)
        return 0;
    if (!f && kind == AMX_REF_ANIM_OVERRIDE && key[0]) {
        /* no model of that name: the set is there when clips of it are (KEY_<TYPE>_<NN>) */
        sqlite3_stmt *s = l->clips_named;
        sqlite3_bind_text(s, 1, key, -1, SQLITE_TRANSIENT);
        int rc;
        while ((rc = sqlite3_step(s)) == SQLITE_ROW && !f)
            if (link_layer_of(l, root, sqlite3_column_int64(s, 0)) >= 0)
                f = 1;
        sqlite3_reset(s);
        if (rc != SQLITE_DONE && rc != SQLITE_ROW)
            return -1;
        if (f) {
            r->what = RES_FOUND;
            r->target.id = 0; /* satisfied by clips, not one file */
            return 0;
        }
        note_tried(r, "clips named ");
        size_t t = strlen(r->tried);
        snprintf(r->tried + t, sizeof r->tried - t, "%.200s_<TYPE>_<NN>", key);
    }
    if (!f)
        return 0;
    r->what = kind_fits(kind, &r->target, r->detail, sizeof r->detail);
    return 0;
}

static const char *kind_noun(amx_ref_kind kind)
{
    switch (kind) {
    case AMX_REF_TEXTURE: return "texture";
    case AMX_REF_SHADER: return "shader";
    case AMX_REF_PARTICLE: return "particle system";
    case AMX_REF_ANIM_OVERRIDE: return "animation set";
    case AMX_REF_XML_FILE: return "XML file";
    default: return "model";
    }
}

static const char *kind_expected(amx_ref_kind kind)
{
    switch (kind) {
    case AMX_REF_PARTICLE: return "a particle system";
    case AMX_REF_MODEL: case AMX_REF_ANIM_OVERRIDE: return "a model";
    case AMX_REF_XML_FILE: return "an XML file";
    default: return "a model or a particle system";
    }
}

/* ---- where the tree has a missing file ---- */

static bool ext_is(const char *path, const char *const *exts)
{
    const char *dot = strrchr(path, '.'), *slash = strrchr(path, '/');
    if (!dot || (slash && dot < slash))
        return false;
    for (; *exts; exts++)
        if (strcasecmp(dot + 1, *exts) == 0)
            return true;
    return false;
}

/* A file of the stack with the name a missing reference gives (its file name's stem) and an
 * extension of its kind, somewhere the engine does not look: says where it is and why the
 * engine does not find it. Appends to msg. */
static int where_else(linker *l, amx_ref_kind kind, const char *name, bool w3d, int64_t root,
                      char *msg, size_t n)
{
    static const char *const textures[] = { "tga", "dds", NULL }, *const shaders[] = {
        "fx", "fxo", "fxh", NULL }, *const models[] = { "alo", NULL },
        *const xmls[] = { "xml", NULL };
    const char *const *exts = kind == AMX_REF_TEXTURE    ? textures
                              : kind == AMX_REF_SHADER   ? shaders
                              : kind == AMX_REF_XML_FILE ? xmls
                                                         : models;
    const char *f = name;
    for (const char *p = name; *p; p++)
        if (*p == '/' || *p == '\\')
            f = p + 1;
    char stem[512];
    snprintf(stem, sizeof stem, "%s", f);
    if (kind == AMX_REF_PARTICLE)
        amx__proxy_name(f, stem, sizeof stem);
    char *dot = strrchr(stem, '.');
    if (dot && (kind == AMX_REF_TEXTURE || kind == AMX_REF_SHADER || ext_is(stem, exts)))
        *dot = '\0';
    for (char *p = stem; *p; p++)
        *p = (char)(*p >= 'a' && *p <= 'z' ? *p - 32 : *p);
    sqlite3_stmt *s = l->files_of_stem;
    sqlite3_bind_text(s, 1, stem, -1, SQLITE_TRANSIENT);
    int rc, best = -1;
    char path[1100] = "", lkey[AMX_LKEY_MAX] = "";
    int64_t in_root = 0;
    while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
        int layer = link_layer_of(l, root, sqlite3_column_int64(s, 1));
        if (layer < 0 || !ext_is(col_or(s, 3, ""), exts))
            continue;
        int rank = amx__lookup_rank((size_t)layer, sqlite3_column_int(s, 2) != 0);
        if (best >= 0 && rank >= best)
            continue;
        best = rank;
        snprintf(path, sizeof path, "%.1000s", col_or(s, 0, ""));
        snprintf(lkey, sizeof lkey, "%s", col_or(s, 3, ""));
        in_root = sqlite3_column_int64(s, 1);
    }
    sqlite3_reset(s);
    if (rc != SQLITE_DONE)
        return -1;
    if (!path[0])
        return 0;
    size_t at = strlen(msg);
    const root_info *r = link_root_of(l, in_root);
    char where[1500];
    snprintf(where, sizeof where, "%s%s%s", path, in_root != root ? " in base layer " : "",
             in_root != root && r ? r->path : "");
    char dir[AMX_LKEY_MAX];
    link_lkey_dir(lkey, dir, sizeof dir);
    bool texture_dir = !w3d && strcmp(dir, "DATA/ART/TEXTURES") == 0;
    if (kind == AMX_REF_TEXTURE && texture_dir && ext_is(lkey, (const char *const[]){ "tga", NULL }))
        snprintf(msg + at, at < n ? n - at : 0, "; the tree has %s, but the engine looks for a "
                 ".dds in place of a .tga it does not find, never for a .tga in place of a .dds",
                 where);
    else
        snprintf(msg + at, at < n ? n - at : 0, "; the tree has %s, where the engine does not "
                 "look", where);
    return 0;
}

/* ---- one finding per file looked for ---- */

/* The first spelling of a file with one outcome, and what else named it so. */
typedef struct outcome {
    bool any;
    int64_t first_id;         /* the reference named first in the file */
    amx_ref_kind kind;
    bool w3d;
    char name[512], where[600];
    int64_t offset;
    resolution r;
    size_t more;              /* references after the first */
    char others[400];         /* the other spellings: 'x.TGA', 'X.dds' */
    size_t nothers;
} outcome;

/* The outcomes of the references to one file (its key: amx__ref_file, or the kind for an empty
 * name), one finding each. */
typedef struct file_group {
    char key[AMX_LKEY_MAX];
    outcome o[RES_KINDS];
} file_group;

static void add_spelling(outcome *o, const char *name)
{
    if (strcmp(o->name, name) == 0)
        return;
    size_t at = strlen(o->others);
    char quoted[520];
    snprintf(quoted, sizeof quoted, "'%.510s'", name);
    if (strstr(o->others, quoted)) /* said already */
        return;
    size_t len = strlen(quoted);
    if (o->nothers++ < 4 && at + len + 3 < sizeof o->others) {
        if (at) {
            memcpy(o->others + at, ", ", 2);
            at += 2;
        }
        memcpy(o->others + at, quoted, len + 1);
    }
}

/* The finding of one outcome of the references to a file (where: where the first spelling is). */
static int report(linker *l, int64_t file_id, int64_t root, const outcome *o)
{
    char ctx[600], msg[3500], also[700] = "";
    const resolution *r = &o->r;
    snprintf(ctx, sizeof ctx, "%.590s", o->where);
    size_t at = 0;
    if (o->nothers)
        at += (size_t)snprintf(also, sizeof also, " (also named %s%s", o->others,
                               o->nothers > 4 ? " and more" : "");
    if (o->more && at < sizeof also)
        at += (size_t)snprintf(also + at, sizeof also - at, "%snamed in %zu more place%s",
                               at ? "; " : " (", o->more, o->more > 1 ? "s" : "");
    if (at && at < sizeof also)
        snprintf(also + at, sizeof also - at, ")");
    const root_info *ri = link_root_of(l, root);
    bool has_bases = ri && ri->stack_len > 1;
    switch (r->what) {
    case RES_MISSING: {
        char stack[2048];
        link_describe_stack(l, root, stack, sizeof stack);
        const char *how = ""; /* what the list of places does not say */
        if (o->kind == AMX_REF_TEXTURE && !o->w3d) {
            const char *dot = strrchr(o->name, '.');
            how = dot && strcasecmp(dot, ".tga") == 0 ? " (a .tga it does not find, it looks for "
                                                        "as .dds)"
                                                      : "";
        } else if (o->kind == AMX_REF_TEXTURE && strstr(r->tried, "ART/COMPILEDTEXTURES/")) {
            how = " (ART/COMPILEDTEXTURES: BFME 2's packed textures)";
        }
        snprintf(msg, sizeof msg, "%s '%.200s'%s is in no file of %.1500s: the engine looks for "
                 "%.1000s%s", kind_noun(o->kind), o->name, also, stack, r->tried, how);
        if (where_else(l, o->kind, o->name, o->w3d, root, msg, sizeof msg))
            return -1;
        return link_add_finding_sev(l, file_id, "refs", AMX_C_REFERENCE_NOT_FOUND,
                                    has_bases ? AMX_SEV_ERROR : AMX_SEV_INFO, o->offset, ctx, msg);
    }
    case RES_WRONG_KIND:
    case RES_UNUSABLE: {
        const root_info *tr = link_root_of(l, r->target.root_id);
        char found[1000];
        snprintf(found, sizeof found, "%.500s%s%.300s", r->target.path,
                 r->target.root_id != root ? " in base layer " : "",
                 r->target.root_id != root && tr ? tr->path : "");
        if (r->what == RES_UNUSABLE) {
            snprintf(msg, sizeof msg, "%s '%.200s'%s finds %s, %s: the engine stops there and "
                     "loads nothing", kind_noun(o->kind), o->name, also, found, r->detail);
            return link_add_finding(l, file_id, "refs", AMX_C_REFERENCE_UNUSABLE, o->offset, ctx,
                                    msg);
        }
        snprintf(msg, sizeof msg, "%s '%.200s'%s finds %s, %s, where the engine expects %s",
                 kind_noun(o->kind), o->name, also, found, r->detail, kind_expected(o->kind));
        return link_add_finding(l, file_id, "refs", AMX_C_REFERENCE_WRONG_KIND, o->offset, ctx,
                                msg);
    }
    case RES_EMPTY:
        snprintf(msg, sizeof msg, "an empty %s name: the engine finds nothing there%s",
                 kind_noun(o->kind), also);
        return link_add_finding(l, file_id, "refs", AMX_C_REFERENCE_EMPTY, o->offset, ctx, msg);
    case RES_TOO_LONG:
        snprintf(msg, sizeof msg, "%s '%.200s'%s is looked up as %s (%zu characters); the engine "
                 "accepts at most %d", kind_noun(o->kind), o->name, also, r->detail,
                 strlen(r->detail), AMX_MAX_ASSET_PATH);
        return link_add_finding(l, file_id, "refs", AMX_C_REFERENCE_PATH_TOO_LONG, o->offset, ctx,
                                msg);
    default:
        break;
    }
    if (r->what != RES_FOUND || !r->target.id || !r->target.meg_member || !r->target.has_crc)
        return 0;
    /* found in a MEG, which finds members by the CRC-32 of their names: another member of the
     * stack with the same CRC may be what the game loads */
    sqlite3_stmt *s = l->crc_twins;
    sqlite3_bind_int64(s, 1, r->target.name_crc);
    sqlite3_bind_int64(s, 2, r->target.id);
    int rc;
    char twin[1100] = "";
    while ((rc = sqlite3_step(s)) == SQLITE_ROW && !twin[0])
        if (link_layer_of(l, root, sqlite3_column_int64(s, 1)) >= 0 &&
            strcasecmp(col_or(s, 2, ""), r->target.lkey) != 0)
            snprintf(twin, sizeof twin, "%.1000s", col_or(s, 0, ""));
    sqlite3_reset(s);
    if (rc != SQLITE_DONE && rc != SQLITE_ROW)
        return -1;
    if (!twin[0])
        return 0;
    snprintf(msg, sizeof msg, "%s '%.200s'%s is found in %.500s by the CRC-32 of its name "
             "(0x%08llX), which %.1000s shares: the game may load that file instead",
             kind_noun(o->kind), o->name, also, r->target.path,
             (unsigned long long)r->target.name_crc, twin);
    return link_add_finding(l, file_id, "refs", AMX_C_ARCHIVE_CRC_COLLISION, o->offset, ctx, msg);
}

static int report_group(linker *l, int64_t file_id, int64_t root, file_group *g)
{
    for (int k = 0; k < RES_KINDS; k++)
        if (g->o[k].any && report(l, file_id, root, &g->o[k]))
            return -1;
    memset(g, 0, sizeof *g);
    return 0;
}

/* Every reference of a file, in the order of the files they stand for: each spelling resolved
 * once, one finding per file and outcome. pending: the file has references in
 * ini_refs_pending (an INI file's; of any other file, which only a damaged index has, they are
 * dropped). */
int link_asset_refs(linker *l, int64_t file_id, bool pending)
{
    sqlite3_stmt *fi = l->file_info;
    sqlite3_bind_int64(fi, 1, file_id);
    int frc = sqlite3_step(fi);
    int64_t root = frc == SQLITE_ROW ? sqlite3_column_int64(fi, 0) : 0;
    bool w3d = frc == SQLITE_ROW && strcmp(col_or(fi, 1, ""), "w3d") == 0;
    bool ini = frc == SQLITE_ROW && strcmp(col_or(fi, 1, ""), "sage-ini") == 0;
    sqlite3_reset(fi);
    if (frc != SQLITE_ROW && frc != SQLITE_DONE)
        return -1;
    if (ini) /* SAGE INI: its own rules (bind_sage.c), its own read of the references (this
              * query sorts them all by the file each stands for, only to see one) */
        return bind_sage_refs(l, file_id, root);
    if (pending && link_record(l, W_DEL_PENDING_REFS, "i", file_id))
        return -1;
    sqlite3_stmt *s = l->asset_refs;
    sqlite3_bind_int64(s, 1, file_id);
    sqlite3_bind_text(s, 2, w3d ? "w3d" : "", -1, SQLITE_STATIC);
    int rc = sqlite3_step(s);
    if (rc != SQLITE_ROW) {
        /* no references (most files): no reference findings to replace either, since the
         * references of a file only change when it is written again, with its findings */
        sqlite3_reset(s);
        return rc == SQLITE_DONE ? 0 : -1;
    }
    file_group *g = calloc(1, sizeof *g);
    resolution *r = malloc(sizeof *r);
    if (!g || !r || (!l->first_pass && link_record(l, W_DEL_REF_FINDINGS, "i", file_id))) {
        free(g);
        free(r);
        sqlite3_reset(s);
        return -1;
    }
    char spelling[600] = "", name[512] = "";
    amx_ref_kind kind = AMX_REF_MODEL;
    bool have = false;
    int err = 0;
    for (; rc == SQLITE_ROW && !err; rc = sqlite3_step(s)) {
        int64_t id = sqlite3_column_int64(s, 0);
        amx_ref_kind k = AMX_REF_MODEL;
        amx_ref_kind_parse(col_or(s, 1, ""), &k);
        const char *nm = col_or(s, 3, "");
        /* the file it stands for; an empty name: its kind's */
        char key[AMX_LKEY_MAX], this_spelling[600];
        snprintf(key, sizeof key, "%s", col_or(s, 9, ""));
        if (!key[0])
            snprintf(key, sizeof key, ":%s", col_or(s, 1, ""));
        snprintf(this_spelling, sizeof this_spelling, "%d:%.580s", (int)k, col_or(s, 8, ""));
        if (have && strcmp(key, g->key) != 0 && report_group(l, file_id, root, g)) {
            err = -1;
            break;
        }
        snprintf(g->key, sizeof g->key, "%s", key);
        if (!have || strcmp(this_spelling, spelling) != 0) { /* a spelling: resolved once */
            have = true;
            snprintf(spelling, sizeof spelling, "%s", this_spelling);
            kind = k;
            snprintf(name, sizeof name, "%s", nm);
            if (resolve_ref(l, k, nm, col_or(s, 4, ""), w3d, root, r)) {
                err = -1;
                break;
            }
            outcome *o = &g->o[r->what];
            if (o->any) { /* another spelling: the one named first in the file leads */
                o->more++;
                if (id > o->first_id) {
                    add_spelling(o, name);
                } else {
                    char lead[sizeof o->name];
                    memcpy(lead, o->name, sizeof lead);
                    snprintf(o->name, sizeof o->name, "%s", name); /* the same text twice (of
                                                                    * two kinds) is one spelling */
                    add_spelling(o, lead);
                    size_t more = o->more, nothers = o->nothers;
                    char others[sizeof o->others];
                    memcpy(others, o->others, sizeof others);
                    o->any = false;
                    o->more = more;
                    o->nothers = nothers;
                    memcpy(o->others, others, sizeof others);
                }
            }
            if (!o->any) {
                size_t more = o->more, nothers = o->nothers;
                char others[sizeof o->others];
                memcpy(others, o->others, sizeof others);
                *o = (outcome){ .any = true, .first_id = id, .kind = kind, .w3d = w3d, .r = *r,
                                .more = more, .nothers = nothers,
                                .offset = sqlite3_column_type(s, 6) == SQLITE_NULL
                                              ? -1 : sqlite3_column_int64(s, 6) };
                memcpy(o->others, others, sizeof others);
                snprintf(o->name, sizeof o->name, "%s", name);
                /* where: the tag and the object for XML, the chunk's place for binaries */
                const char *object = col_text(s, 7);
                int64_t line = sqlite3_column_int64(s, 5);
                if (object)
                    snprintf(o->where, sizeof o->where, "%.200s of '%.200s', line %lld",
                             col_or(s, 2, ""), object, (long long)line);
                else if (line)
                    snprintf(o->where, sizeof o->where, "%.200s, line %lld", col_or(s, 2, ""),
                             (long long)line);
                else
                    snprintf(o->where, sizeof o->where, "%.500s", col_or(s, 2, ""));
            }
        } else {
            g->o[r->what].more++;
        }
        bool target = r->target.id && (r->what == RES_FOUND || r->what == RES_WRONG_KIND ||
                                       r->what == RES_UNUSABLE);
        if (link_record(l, W_ASSET_REF, "iot", id, target ? r->target.id : -1, res_names[r->what]))
            err = -1;
    }
    sqlite3_reset(s);
    if (!err && rc != SQLITE_DONE && rc != SQLITE_ROW)
        err = -1;
    if (!err && have && report_group(l, file_id, root, g))
        err = -1;
    free(g);
    free(r);
    return err;
}
