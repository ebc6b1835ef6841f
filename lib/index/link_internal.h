/*
 * The link pass's internals, shared by the pass (link.c) and each engine's binding rules
 * (bind_alamo.c, bind_w3d.c, bind_mp.c) and the asset references (link_refs.c). Nothing outside
 * lib/index/ includes it.
 */
#ifndef AMX_LINK_INTERNAL_H
#define AMX_LINK_INTERNAL_H

#include "db_internal.h"
#include "resolve/resolve.h"

#include <stdbool.h>
#include <stdint.h>

#define MAX_STACK 32            /* layers per root */
#define MAX_NAMES 8             /* models a clip name can give */
#define MAX_BINDINGS 64         /* skeletons one clip is checked against */
#define MAX_OBJECT_WALK 65536   /* game objects visited for the overrides of one set */
#define MAX_VARIANT_DEPTH 256   /* Variant_Of_Existing_Type chain */

typedef struct bone { int64_t idx; char *name, *key; } bone;

/* A map from a string key to a blob, for the answers the pass works out once and asks for
 * again (the pass writes nothing they read): which object of a name the stack sees first, the
 * model an object inherits, the models an override set reaches. Grows as needed; freed with
 * the linker. */
typedef struct link_memo link_memo;
link_memo *link_memo_new(void);
void link_memo_free(link_memo *m);
/* The blob stored under key (its length in *len), or NULL. */
const void *link_memo_get(const link_memo *m, const char *key, size_t *len);
/* Stores a copy of blob under key, replacing what was there (append: adding to it). 0, or -1
 * out of memory. */
int link_memo_put(link_memo *m, const char *key, const void *blob, size_t len);
int link_memo_append(link_memo *m, const char *key, const void *blob, size_t len);

/* A skeleton's bones with two hash tables: by index (or id) and by upper-cased name. The link
 * pass keeps the last few skeletons it checked clips against: a model's clips come together. */
typedef struct skeleton_bones {
    int64_t id;               /* 0: the slot is empty */
    bone *bones;
    size_t n;
    int32_t *by_idx, *by_key; /* slots hold an index into bones, -1 empty */
    size_t mask;
} skeleton_bones;

#define SKELETON_CACHE 4
#define LOOKUP_MEMO 8           /* find_by_lkey results kept (a model's clips come together) */

typedef struct root_info {
    int64_t id;
    char *path;
    amx_alamo_game game;      /* whose table of animation types ([root] game) */
    bool generals;            /* [root] game = generals: Generals' file lookups (sage_languages) */
    int64_t *bases;
    size_t base_count;
    int64_t stack[MAX_STACK];
    size_t stack_len;
} root_info;

/* The pass's writes, recorded while a file is linked and applied by the writer afterwards, in
 * the order they were made (so that helper threads can link files while the writer writes
 * those before them: "helpers" below). Nothing the pass reads is written by the pass (rows of other
 * tables, or columns it does not read), so linking ahead of the writes reads what linking
 * after them would. (The INI references it inserts from a file's pending blob, and the blob it
 * deletes with them, say the same: another file's #include check reads the names from
 * whichever it finds.) */
typedef enum write_kind {
    W_FINDING, W_BINDING, W_CLIP, W_CLIP_SAME_KEY, W_SKELETON_REF, W_ASSET_REF,
    W_DEL_LINK_FINDINGS, W_DEL_BINDINGS, W_DEL_REF_FINDINGS, W_CLIP_FIT, W_SAGE_REF,
    W_SAGE_REF_INSERT,        /* a pending INI reference inserted resolved (bind_sage.c) */
    W_DEL_PENDING_REFS,       /* ... and its file's blob deleted, after its rows */
    W_DECODE_AGAIN,           /* a file whose pending references are damaged: the next scan
                               * decodes it again */
    W_SAGE_REF_INSERT_BATCH,  /* not recorded: apply() writes 16 W_SAGE_REF_INSERT at once */
    W_FINDING_BATCH,          /* not recorded: apply() writes 16 W_FINDING at once */
    W_KINDS
} write_kind;

enum { MAX_WRITE_PARAMS = 15 };

typedef struct write_op {    /* (types and values apart: no padding after each type) */
    uint8_t kind, n;
    uint8_t type[MAX_WRITE_PARAMS];  /* SQLITE_INTEGER, SQLITE_TEXT or SQLITE_NULL */
    int64_t value[MAX_WRITE_PARAMS]; /* the integer, or the text's offset in plan.text */
} write_op;

typedef struct plan {
    write_op *ops;
    size_t n, cap;
    amx__byte_buf text;       /* the texts, NUL-terminated */
    uint64_t clips;           /* clips linked */
    bool failed;              /* out of memory while recording */
} plan;

/* The findings of the file being linked, per origin ('link', 'refs'), held so that at most
 * MAX_FILE_FINDINGS are written (the most severe, as the decoders' cap) and one
 * LIMIT_EXCEEDED counts the rest. */
#define MAX_FILE_FINDINGS 200

typedef struct held_finding {
    amx_code code;
    amx_severity sev;
    int64_t offset;
    char *ctx, *msg;
} held_finding;

typedef struct held_findings {
    held_finding *f;          /* MAX_FILE_FINDINGS slots, allocated when first needed */
    size_t n;
    uint32_t kept[3], dropped[3], dropped_total;
} held_findings;

typedef struct linker {
    sqlite3 *h;               /* the connection it reads through */
    plan out;                 /* what it has to write */
    sqlite3_stmt *files_todo, *clips_of_file, *sets_of_clip, *named_own, *named_dir,
        *named_in_root, *by_lkey, *bones, *tracks, *update_clip, *update_clip_same_key,
        *del_link_findings, *ins_finding, *refs_of_file, *update_ref,
        *del_bindings, *ins_binding, *overrides, *object_model, *objects_named,
        *variants_of, *fit_candidates, *skeletons_todo,
        *names_of_file, *same_name_in_root, *del_name_findings, *skeletons_done, *winner_check,
        *file_info, *asset_refs, *del_ref_findings, *update_asset_ref, *files_at, *crc_twins,
        *clips_named, *update_clip_fit, *files_of_stem, *clips_squashed, *update_sage_ref,
        *ins_sage_ref, *ins_sage_refs_batch, *del_pending_refs, *pending_refs_of_file,
        *decode_again, *ins_findings_batch, *data_lkey_from, *lkey_between;
    struct sage_stmts *sage;  /* bind_sage.c's statements, prepared on first use */
    skeleton_bones cache[SKELETON_CACHE];
    unsigned cache_next;
    /* the last find_by_lkey answers, by hash of path and root: the link pass writes nothing
     * a lookup reads (files, skeletons), so an answer holds for the whole pass */
    struct lookup_memo *memo;
    /* the pass's answers worked out once (link_memo): objects, inherited models, override
     * sets */
    link_memo *answers;
    root_info *roots;
    size_t root_count;
    amx__languages languages; /* SAGE's Data/<language>/ directories in the index */
    held_findings held[2];    /* origin 'link', 'refs' */
    bool holding;             /* a file is being linked: its findings are held */
    /* no link pass has written anything yet (an index being built): there are no bindings
     * and no findings of the pass to replace, so their deletes are skipped */
    bool first_pass;
} linker;

static inline const char *col_text(sqlite3_stmt *s, int i)
{
    const unsigned char *t = sqlite3_column_text(s, i);
    return t ? (const char *)t : NULL;
}

static inline const char *col_or(sqlite3_stmt *s, int i, const char *dflt)
{
    const char *t = col_text(s, i);
    return t ? t : dflt;
}

typedef struct pick {
    int64_t id, bone_count, file_id, root_id;
    int rank;
    char name[256];
    char path[1024];          /* the skeleton's file, relative to its root */
    char how[32];
    char via[512];
} pick;

typedef struct bindings {
    pick p[MAX_BINDINGS];     /* 120 KB: allocated without zeroing (new_bindings) */
    size_t n;
    size_t dropped;           /* skeletons past MAX_BINDINGS (a LIMIT_EXCEEDED says so) */
} bindings;

typedef struct clip_ctx {
    int64_t id, file_id, root_id, root_bone;
    char name[256], key[256], format[32], hint[256];
    char dir_key[1024];       /* the clip's directory as the game sees it (lkey's directory) */
    char path[1024];
    size_t lkey_len;          /* the length of the path the engine loads it by */
    char cur_key[256];        /* skeleton_key as the index has it */
} clip_ctx;

/* roots and their stacks (link.c) */
const root_info *link_root_of(const linker *l, int64_t id);
/* The language directories a SAGE lookup for a file of `root` tries (resolve.h, amx__languages):
 * the index's, before the game's own directory; in a root declared game = generals none for a
 * .w3d file (w3d_file) and, for a texture, after the game's own (Generals' W3DFileSystem.cpp).
 * `tmp` holds the set when it is not the index's. */
const amx__languages *sage_languages(const linker *l, int64_t root, bool w3d_file,
                                     amx__languages *tmp);
amx_alamo_game link_game_of(const linker *l, int64_t root);
int link_layer_of(const linker *l, int64_t from, int64_t id);
void link_describe_stack(const linker *l, int64_t root, char *out, size_t n);
int64_t link_first_in_lookup_order(linker *l, sqlite3_stmt *s, int64_t root);
void link_lkey_dir(const char *lkey, char *out, size_t n);

/* the pass's writes and findings (link.c) */
int link_record(linker *l, write_kind kind, const char *types, ...);
int link_add_finding_sev(linker *l, int64_t file_id, const char *origin, amx_code code,
                         amx_severity sev, int64_t offset, const char *ctx, const char *msg);
int link_add_finding(linker *l, int64_t file_id, const char *origin, amx_code code,
                     int64_t offset, const char *ctx, const char *msg);
/* Whether the file being linked has no room left for a finding of this origin and severity
 * (MAX_FILE_FINDINGS, none less severe to give way): it is then counted in the file's
 * LIMIT_EXCEEDED, as link_add_finding_sev would count it, and the caller need not format it. */
bool link_finding_dropped(linker *l, const char *origin, amx_severity sev);

/* skeletons, bones and tracks (link.c) */
const skeleton_bones *link_skeleton_of(linker *l, int64_t id);
const bone *link_bone_at(const skeleton_bones *k, int64_t idx);
const bone *link_bone_named(const skeleton_bones *k, const char *name);
bool link_tracks_of(linker *l, int64_t clip_id, amx__tracks_iter *it);
void link_tracks_done(linker *l, amx__tracks_iter *it);
void link_skeleton_label(const pick *p, const linker *l, int64_t clip_root, char *out, size_t n);

/* The file the game finds at logical path `lkey` from root `root`: the best-ranked of its
 * stack (loose before archived, then layer order). 1 found, 0 none, -1 error (link.c). */
typedef struct file_hit {
    int64_t id, root_id, name_crc;
    bool in_archive, meg_member, has_crc;
    char format[32], status[16], path[1024], lkey[AMX_LKEY_MAX];
} file_hit;
int link_file_at(linker *l, const char *lkey, int64_t root, file_hit *h);

/* finding skeletons and storing bindings (link.c) */
int link_find_by_lkey(linker *l, const char *lkey, int64_t root, pick *p, bool *shadowed_other);
int link_find_named(linker *l, const char *key, int64_t file_id, const char *dir_key,
                    int64_t root, pick *out);
bindings *link_new_bindings(void);
void link_add_binding(bindings *b, const pick *p, const char *how, const char *via);
int link_store_bindings(linker *l, int64_t file_id, int64_t clip_id, int64_t clip_root,
                        int64_t root_bone, const bindings *b, const char *unbound_key,
                        const char *cur_key);

/* each engine's rules */
int bind_alamo_clip(linker *l, const clip_ctx *c);                    /* bind_alamo.c */
int bind_named_clip(linker *l, const clip_ctx *c);                    /* bind_w3d.c */
int bind_skeleton_ref(linker *l, int64_t file_id, sqlite3_stmt *r);   /* bind_w3d.c */
int bind_names(linker *l);                                            /* bind_w3d.c */
int bind_xml_lists(linker *l);                                 /* bind_alamo_lists.c */
int bind_by_sets(linker *l, const clip_ctx *c);                       /* bind_mp.c */
int link_asset_refs(linker *l, int64_t file_id, bool pending);        /* link_refs.c */
int bind_sage_refs(linker *l, int64_t file_id, int64_t root);          /* bind_sage.c */
void bind_sage_close(linker *l);                                       /* bind_sage.c */

#endif
