/*
 * Asset references: every name a file gives of another file (textures, shaders, proxies, XML
 * model tags), resolved the way the engine looks it up through the layers (lib/resolve/;
 * docs/formats/alamo.md 8b, w3d.md 10), one finding per name and file.
 */
#include "link_internal.h"
#include "resolve/resolve.h"

#include <stdio.h>
#include <string.h>
#include <strings.h>

/* ---- asset references ---- */

typedef enum res_kind { RES_FOUND, RES_BUILTIN, RES_SKIPPED, RES_MISSING, RES_WRONG_KIND,
                        RES_EMPTY, RES_TOO_LONG } res_kind;

static const char *const res_names[] = { "found", "builtin", "skipped", "missing", "wrong-kind",
                                         "empty", "too-long" };

typedef struct resolution {
    res_kind what;
    file_hit target;               /* when found or wrong-kind */
    char tried[1200];         /* the paths looked at, for messages */
    char detail[300];         /* wrong kind: what was found; too long: the path */
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

/* Whether the file found is of the kind the reference expects. */
static bool kind_fits(amx_ref_kind kind, const char *format, char *what, size_t n)
{
    bool model = strcmp(format, "alamo-alo") == 0, particle = strcmp(format, "alamo-particle") == 0;
    snprintf(what, n, "%s", strcmp(format, "alamo-ala") == 0 ? "an animation"
                            : model                          ? "a model"
                            : particle                       ? "a particle system"
                                                             : format);
    switch (kind) {
    case AMX_REF_MODEL:
    case AMX_REF_ANIM_OVERRIDE:
        return model || (!particle && strcmp(format, "alamo-ala") != 0);
    case AMX_REF_MODEL_OR_PARTICLE:
        return strcmp(format, "alamo-ala") != 0;
    case AMX_REF_PARTICLE:
        return particle || (!model && strcmp(format, "alamo-ala") != 0);
    default:
        return true;
    }
}

static int resolve_ref(linker *l, amx_ref_kind kind, const char *name, const char *key, bool w3d,
                       int64_t root, resolution *r)
{
    memset(r, 0, sizeof *r);
    r->what = RES_MISSING;
    char keys[8][AMX_LKEY_MAX];
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
        n = amx__texture_lkeys(trimmed_name, w3d, keys, 8);
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
    char what[64];
    r->what = kind_fits(kind, r->target.format, what, sizeof what) ? RES_FOUND : RES_WRONG_KIND;
    snprintf(r->detail, sizeof r->detail, "%s", what);
    return 0;
}

static const char *kind_noun(amx_ref_kind kind)
{
    switch (kind) {
    case AMX_REF_TEXTURE: return "texture";
    case AMX_REF_SHADER: return "shader";
    case AMX_REF_PARTICLE: return "particle system";
    case AMX_REF_ANIM_OVERRIDE: return "animation set";
    default: return "model";
    }
}

static const char *kind_expected(amx_ref_kind kind)
{
    switch (kind) {
    case AMX_REF_PARTICLE: return "a particle system";
    case AMX_REF_MODEL: case AMX_REF_ANIM_OVERRIDE: return "a model";
    default: return "a model or a particle system";
    }
}

/* The finding of one group of references to the same name (first: where it is named first). */
static int report_ref(linker *l, int64_t file_id, int64_t root, amx_ref_kind kind,
                      const char *name, const char *where, int64_t offset, size_t more,
                      const resolution *r)
{
    char ctx[600], msg[3000], also[64] = "";
    snprintf(ctx, sizeof ctx, "%.590s", where);
    if (more)
        snprintf(also, sizeof also, " (named in %zu more place%s)", more, more > 1 ? "s" : "");
    const root_info *ri = link_root_of(l, root);
    bool has_bases = ri && ri->stack_len > 1;
    switch (r->what) {
    case RES_MISSING: {
        char stack[2048];
        link_describe_stack(l, root, stack, sizeof stack);
        snprintf(msg, sizeof msg, "%s '%.200s' is in no file of %.1500s; looked for %.1000s%s",
                 kind_noun(kind), name, stack, r->tried, also);
        return link_add_finding_sev(l, file_id, "refs", AMX_C_REFERENCE_NOT_FOUND,
                               has_bases ? AMX_SEV_ERROR : AMX_SEV_INFO, offset, ctx, msg);
    }
    case RES_WRONG_KIND: {
        const root_info *tr = link_root_of(l, r->target.root_id);
        snprintf(msg, sizeof msg, "%s '%.200s' finds %.500s%s%.300s, %s, where the engine "
                 "expects %s%s", kind_noun(kind), name, r->target.path,
                 r->target.root_id != root ? " in base layer " : "",
                 r->target.root_id != root && tr ? tr->path : "", r->detail,
                 kind_expected(kind), also);
        return link_add_finding(l, file_id, "refs", AMX_C_REFERENCE_WRONG_KIND, offset, ctx, msg);
    }
    case RES_EMPTY:
        snprintf(msg, sizeof msg, "an empty %s name: the engine finds nothing there%s",
                 kind_noun(kind), also);
        return link_add_finding(l, file_id, "refs", AMX_C_REFERENCE_EMPTY, offset, ctx, msg);
    case RES_TOO_LONG:
        snprintf(msg, sizeof msg, "%s '%.200s' is looked up as %s (%zu characters); the engine "
                 "accepts at most %d%s", kind_noun(kind), name, r->detail, strlen(r->detail),
                 AMX_MAX_ASSET_PATH, also);
        return link_add_finding(l, file_id, "refs", AMX_C_REFERENCE_PATH_TOO_LONG, offset, ctx, msg);
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
    snprintf(msg, sizeof msg, "%s '%.200s' is found in %.500s by the CRC-32 of its name "
             "(0x%08llX), which %.1000s shares: the game may load that file instead%s",
             kind_noun(kind), name, r->target.path, (unsigned long long)r->target.name_crc, twin,
             also);
    return link_add_finding(l, file_id, "refs", AMX_C_ARCHIVE_CRC_COLLISION, offset, ctx, msg);
}

/* Every reference of a file, grouped by what it names (one finding per name and file). */
int link_asset_refs(linker *l, int64_t file_id)
{
    sqlite3_stmt *s = l->asset_refs;
    sqlite3_bind_int64(s, 1, file_id);
    int rc = sqlite3_step(s);
    if (rc != SQLITE_ROW) {
        /* no references (most files): no reference findings to replace either, since the
         * references of a file only change when it is written again, with its findings */
        sqlite3_reset(s);
        return rc == SQLITE_DONE ? 0 : -1;
    }
    sqlite3_stmt *fi = l->file_info;
    sqlite3_bind_int64(fi, 1, file_id);
    int frc = sqlite3_step(fi);
    int64_t root = frc == SQLITE_ROW ? sqlite3_column_int64(fi, 0) : 0;
    bool w3d = frc == SQLITE_ROW && strcmp(col_or(fi, 1, ""), "w3d") == 0;
    bool ini = frc == SQLITE_ROW && strcmp(col_or(fi, 1, ""), "sage-ini") == 0;
    sqlite3_reset(fi);
    if (ini) { /* SAGE INI: its own rules (bind_sage.c) */
        sqlite3_reset(s);
        return bind_sage_refs(l, file_id, root);
    }
    if ((frc != SQLITE_ROW && frc != SQLITE_DONE) ||
        (!l->first_pass && link_record(l, W_DEL_REF_FINDINGS, "i", file_id))) {
        sqlite3_reset(s);
        return -1;
    }
    char group[600] = "", first_where[600] = "";
    amx_ref_kind group_kind = AMX_REF_MODEL;
    int64_t first_offset = -1;
    size_t more = 0;
    resolution r = { 0 };
    char name[512] = "";
    bool have = false;
    for (; rc == SQLITE_ROW; rc = sqlite3_step(s)) {
        int64_t id = sqlite3_column_int64(s, 0);
        amx_ref_kind kind = AMX_REF_MODEL;
        amx_ref_kind_parse(col_or(s, 1, ""), &kind);
        const char *nm = col_or(s, 3, "");
        char this_group[600];
        snprintf(this_group, sizeof this_group, "%d:%.580s", (int)kind, col_or(s, 8, ""));
        if (!have || strcmp(this_group, group) != 0) {
            if (have && report_ref(l, file_id, root, group_kind, name, first_where, first_offset,
                                   more, &r))
                return -1;
            have = true;
            snprintf(group, sizeof group, "%s", this_group);
            group_kind = kind;
            snprintf(name, sizeof name, "%s", nm);
            more = 0;
            first_offset = sqlite3_column_type(s, 6) == SQLITE_NULL ? -1 : sqlite3_column_int64(s, 6);
            /* where: the tag and the object for XML, the chunk's place for binaries */
            const char *object = col_text(s, 7);
            int64_t line = sqlite3_column_int64(s, 5);
            if (object)
                snprintf(first_where, sizeof first_where, "%.200s of '%.200s', line %lld",
                         col_or(s, 2, ""), object, (long long)line);
            else if (line)
                snprintf(first_where, sizeof first_where, "%.200s, line %lld", col_or(s, 2, ""),
                         (long long)line);
            else
                snprintf(first_where, sizeof first_where, "%.500s", col_or(s, 2, ""));
            if (resolve_ref(l, kind, nm, col_or(s, 4, ""), w3d, root, &r))
                return -1;
        } else {
            more++;
        }
        bool target = r.target.id && (r.what == RES_FOUND || r.what == RES_WRONG_KIND);
        if (link_record(l, W_ASSET_REF, "iot", id, target ? r.target.id : -1, res_names[r.what])) {
            sqlite3_reset(s);
            return -1;
        }
    }
    sqlite3_reset(s);
    if (rc != SQLITE_DONE)
        return -1;
    if (have && report_ref(l, file_id, root, group_kind, name, first_where, first_offset, more, &r))
        return -1;
    return 0;
}
