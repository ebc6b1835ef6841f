/*
 * The SQLite index: open/migrate, the incremental scanner, the link pass and the queries.
 *
 * One writer: a scan (or the daemon) holds the only write connection and writes in
 * BEGIN IMMEDIATE batches; readers open the database read-only and never block it (WAL).
 * Functions return amx_status; on failure the message is in the caller's err buffer.
 */
#ifndef ANIMIDX_INDEX_H
#define ANIMIDX_INDEX_H

#include "animidx.h"
#include "config.h"

#include <stdint.h>

typedef struct amx_db amx_db;

enum { AMX_DB_READONLY = 1 << 0 };

/* The SQLite application_id of an animidx index ("AMXI"), set when it is created. */
#define AMX_DB_APPLICATION_ID 0x414D5849

/* Opens (creating it and its directory unless READONLY) and migrates the index.
 * A read-only open of a missing database fails with a message that says to run a scan. A
 * database that is not an animidx index (another application_id, or tables and no id) is
 * refused with AMX_E_DB and left untouched; an index of an earlier animidx (no id, its tables)
 * gets the id. Read-only, an index whose directory cannot be written (no -shm) is opened as
 * immutable when it has no WAL content. */
amx_status amx_db_open(const char *path, int flags, amx_db **out, char *err, size_t errlen);
void amx_db_close(amx_db *db); /* NULL is a no-op */

/* Paths in the index are text: the bytes of a file name that are not UTF-8 are stored as %XX,
 * and a '%' followed by two hex digits as %25, so every name is stored losslessly and two files
 * never look alike. A name that is UTF-8 and holds no "%XX" is stored as it is. The scanner
 * stores what amx_path_encode gives for the file system's relative path; amx_path_decode gives
 * the file system's path back (for opening a file named by the index). Both return malloc'd
 * strings (NULL when out of memory). */
char *amx_path_encode(const char *raw);
char *amx_path_decode(const char *stored);
bool amx_path_needs_encoding(const char *raw);
int amx_db_schema_version(amx_db *db);
/* The underlying handle, for queries in tests. */
struct sqlite3 *amx_db_handle(amx_db *db);

/* ---- scanning ---- */

typedef struct amx_scan_progress {
    uint64_t files_seen;      /* files found so far */
    uint64_t files_decoded;   /* decoded (new or changed) */
    uint64_t files_unchanged; /* skipped: size and mtime unchanged */
    uint64_t bytes_read;
    const char *current;      /* a path being worked on (may be NULL) */
} amx_scan_progress;

typedef struct amx_scan_opts {
    const char *root;                 /* directory to scan */
    /* Only this file or subtree of the root ('/'-separated, relative to the root; NULL or ""
     * = the whole root). Rows inside the scope whose files are gone are removed; rows outside
     * it are not touched. The daemon rescans what changed this way. */
    const char *scope;
    /* With a directory scope (or none): only the files directly in it are scanned and swept;
     * its subdirectories are neither walked nor touched. */
    bool shallow;
    /* The base layers this root sits on (a mod on its parent mods and games), in lookup order.
     * With set_bases they replace what the index recorded (an empty list declares none);
     * otherwise the config's [root PATH] base applies, else the layers the index recorded. A
     * whole-root scan scans its bases first, as base layers (new roots get role "base": their
     * own findings are left out of issues, lint and report unless asked); a scoped or shallow
     * scan does not. Clips bind only within a root and its layers. */
    const char *const *bases;
    size_t base_count;
    bool set_bases;
    bool as_base;                     /* the root is scanned as another root's base layer */
    int jobs;                         /* threads that decode and link files; 0 = one per CPU */
    /* Follow symbolic links that lead out of the root (one level: not from inside what such a
     * link leads to). Otherwise each is a LINK_NOT_FOLLOWED info finding and is not read. A
     * link to a directory of the root is never followed (DIRECTORY_LOOP). The CLI and the
     * daemon set it from --follow-links or [scan] follow_links. */
    bool follow_links;
    const amx_config *config;         /* ignore globs; may be NULL */
    /* Called from the scanning thread about every 100 ms, and once at the end. */
    void (*progress)(const amx_scan_progress *p, void *user);
    /* Polled from the scanning thread between files, and from the decoding threads (before
     * each file, between an archive's members, and while a long file is decoded): it must be
     * thread-safe. Returning true stops the scan: files already decoded are written, a decode
     * it stops is not (the file's row keeps what it had); rows are not swept (the walk was
     * incomplete), so the index stays consistent and the next scan completes it. amx_scan
     * then returns AMX_E_CANCELLED. NULL: never. */
    bool (*cancelled)(void *user);
    void *user;
    /* What the scan's archives may unpack together before they add to it (AMX_UNPACK_RATIO x
     * their size): 0 = AMX_UNPACK_SCAN_FLOOR. */
    uint64_t unpack_floor;
} amx_scan_opts;

typedef struct amx_scan_stats {
    uint64_t files_seen;          /* regular files found under the root (archives count once) */
    uint64_t files_unchanged;     /* skipped by size and mtime */
    uint64_t files_rehashed;      /* size/mtime changed but the content hash did not */
    uint64_t files_decoded;       /* decoded, including archive members */
    uint64_t files_removed;       /* rows removed for files that are gone */
    uint64_t files_failed;        /* unreadable, vanished, loops */
    uint64_t bytes_read;
    uint64_t clips_linked;        /* clips (re)bound to skeletons by the link pass */
    double seconds;
    /* The scan is incomplete: directories that could not be read (their files keep their rows
     * and the directory has one IO_ERROR finding), and archives left for the next scan by the
     * scan's unpack budget. */
    uint64_t dirs_unreadable;
    uint64_t archives_incomplete;
} amx_scan_stats;

/* Scans a directory tree into the index: decodes new and changed files in parallel, removes
 * rows for deleted files, and re-binds clips to skeletons. Unreadable files, loops and files
 * that vanish are findings, not failures. Returns AMX_OK unless the database fails or the root
 * cannot be read at all. */
amx_status amx_scan(amx_db *db, const amx_scan_opts *opts, amx_scan_stats *stats, char *err,
                    size_t errlen);
/* Adds the counts (and seconds) of s to sum: the stats of several scans as one. */
void amx_scan_stats_add(amx_scan_stats *sum, const amx_scan_stats *s);

/* ---- reading BFME #include files outside a scan ---- */

/* What a scan gives amx_decode_opts.read_include, for a decode of one file without an index
 * (`animidx dump`): the files its `#include` lines name, read from below the canonical
 * directory `root` (a path that climbs out of it, or a link that leads out, is not read), each
 * name matched without case as Windows finds the game's files. `file_name` is the decode's
 * opts.file_name, `file_abs` the file's canonical path (below root). The bytes read stay valid
 * until amx_include_reader_free. NULL: out of memory. */
typedef struct amx_include_reader amx_include_reader;
amx_include_reader *amx_include_reader_new(const char *root, const char *file_name,
                                           const char *file_abs);
/* amx_decode_opts.read_include, with include_user the reader. */
const uint8_t *amx_include_reader_read(void *reader, const char *from, const char *path,
                                       size_t max_len, size_t *len, char *resolved,
                                       size_t resolved_cap);
/* The files read (their paths relative to root, in reading order): for `dump` to say so. */
size_t amx_include_reader_count(const amx_include_reader *r);
const char *amx_include_reader_path(const amx_include_reader *r, size_t i);
void amx_include_reader_free(amx_include_reader *r); /* NULL is a no-op */

/* ---- asset references ---- */

/* A reference of one file to another (README "Asset references"). */
typedef struct amx_ref_row {
    const char *root, *path;      /* the file that names the other */
    const char *kind;             /* what it expects: model, model-or-particle, particle,
                                   * texture, shader, anim-override */
    const char *tag;              /* where: "mesh 'HULL' submesh 0 param 'BaseTexture'",
                                   * "Land_Model_Name", "proxy 2 'p_smoke'" */
    const char *name;             /* as written */
    const char *object;           /* the XML game object, or NULL */
    int64_t line, offset;         /* 0 / -1 when none */
    const char *resolution;       /* found, builtin (an engine shader), skipped (an empty XML tag,
                                   * a texture named None), missing, wrong-kind, empty, too-long;
                                   * NULL before the link pass looked */
    const char *target_root, *target_path; /* the file found (NULL when none) */
    bool target_base;             /* it is in a base layer of the referring file's root */
} amx_ref_row;

/* What the file at `path` (exactly) under the absolute `root` names, and what names it. `file`
 * is called first, then `out` for each of its references and `in` for each reference to it.
 * *found = 1 when the file is indexed, else 0. */
amx_status amx_query_refs(amx_db *db, const char *root, const char *path,
                          void (*file)(const char *root, const char *path, void *user),
                          void (*out)(const amx_ref_row *r, void *user),
                          void (*in)(const amx_ref_row *r, void *user), void *user, int *found,
                          char *err, size_t errlen);

/* One spelling of a file looked for (its kind and the name as written), and how many
 * references use it. */
typedef struct amx_missing_spelling {
    const char *kind, *name;
    int64_t references;
} amx_missing_spelling;

/* One file the engine looks for and no layer provides (or provides as the wrong kind, or as a
 * file that does not decode), with every spelling that names it and who names it. */
typedef struct amx_missing_row {
    const char *kind, *name;      /* the first spelling (most referenced first) */
    const char *file;             /* the file it stands for, as the engine's logical path:
                                   * "DATA/ART/TEXTURES/X.DDS" for X.tga and x.dds; NULL for a
                                   * SAGE INI reference (grouped by kind and name) */
    const char *resolution;       /* missing, wrong-kind or unusable */
    amx_severity severity;        /* effective: error where the tree declares base layers, info
                                   * where it does not (REFERENCE_NOT_FOUND); config overrides */
    int64_t references, files;    /* how many references, from how many files */
    const amx_missing_spelling *spellings; /* every spelling (the first 32), most used first */
    size_t spelling_count;
    const amx_ref_row *referrers; /* the first of them (at most 20), in path order */
    size_t referrer_count;
} amx_missing_row;

/* Missing files, one row per file looked for (and per resolution), most referenced first.
 * Roots scanned only as base layers are left out unless include_base. */
amx_status amx_query_missing(amx_db *db, const amx_config *config, bool include_base,
                             void (*row)(const amx_missing_row *r, void *user), void *user,
                             char *err, size_t errlen);

/* Every root of the index with its role ("target": scanned for itself; "base": scanned as
 * another root's base layer) and its base layers in lookup order, in path order. */
typedef struct amx_root_row {
    const char *path, *role;
    const char *const *bases;     /* absolute paths */
    size_t base_count;
} amx_root_row;

amx_status amx_query_roots(amx_db *db, void (*row)(const amx_root_row *r, void *user), void *user,
                           char *err, size_t errlen);

/* Renames an indexed file or directory (with everything below it, and archive members) from
 * old_rel to new_rel (as stored: amx_path_encode of the file system's paths) under `root`, keeping the rows, their ids and their findings. A file whose
 * name (stem) changes is marked stale, so the next scan of new_rel re-decodes it into the same
 * row (Alamo clips and skeletons are named after their files); a moved file keeps its decode.
 * What was indexed at new_rel before is replaced. Clips and models are rebound by the next link
 * pass. *moved = rows renamed (0 when nothing was indexed at old_rel: then scan new_rel). */
amx_status amx_index_rename(amx_db *db, const char *root, const char *old_rel, const char *new_rel,
                            uint64_t *moved, char *err, size_t errlen);

/* Re-binds every clip marked unlinked (called by amx_scan; exposed for tests and the daemon). */
amx_status amx_link(amx_db *db, uint64_t *linked, char *err, size_t errlen);

/* ---- queries (read-only) ---- */

typedef struct amx_summary {
    uint64_t files;               /* indexed files of our formats (archive members included) */
    uint64_t other_files;         /* files seen that are not of a known format */
    uint64_t by_format[AMX_FORMAT_COUNT];
    uint64_t clips, skeletons, models, particles;
    uint64_t clips_unbound;       /* clips whose skeleton was not found (SKELETON_NOT_FOUND) */
    uint64_t clips_not_loaded;    /* clips no model loads by name (CLIP_NOT_LOADED_BY_NAME) */
    uint64_t clips_not_reached;   /* clips the engine's numbering never reaches
                                   * (ANIMATION_NOT_REACHED) */
    uint64_t findings[3];         /* by effective severity (info, warning, error) */
    /* REFERENCE_NOT_FOUND and SKELETON_NOT_FOUND findings of roots that declare no base layer:
     * the command says once how base layers are declared (their messages do not) */
    uint64_t not_found_without_bases;
} amx_summary;

/* What a command says once when files were not found in a tree that declares no base layer. */
#define AMX_BASE_LAYER_HINT                                                                   \
    "no base layer is declared: the game's files and a parent mod's are looked at when the "   \
    "tree names them, with 'scan --base DIR' or [root PATH] base = DIR in the configuration"

/* Totals over the whole index, with the config's severity overrides applied (config may be NULL).
 * Findings (and the clip counts that come from them) leave out the roots scanned only as base
 * layers unless include_base. */
amx_status amx_query_summary(amx_db *db, const amx_config *config, bool include_base,
                             amx_summary *out, char *err, size_t errlen);

/* Each query calls `row` once per result; string fields are valid only during the call. */
typedef struct amx_clip_row {
    const char *root, *path, *clip, *skeleton, *format;
    int64_t frames;               /* -1 when the format has none */
    double fps, duration;
    int64_t bones_missing, tracks;
    bool bound;                   /* the skeleton was found in the index */
    const char *details;          /* format-specific details as a JSON object, or NULL */
    const char *skeleton_root;    /* the root and path of the file of the skeleton the clip is */
    const char *skeleton_path;    /* bound to (that binding's in amx_query_clips and
                                   * amx_query_all_clips); NULL when unbound */
    const char *how;              /* how the binding was made: "name" (the engine's file-name
                                   * convention), "xml-override", "w3d-header", "ancs"; NULL
                                   * when unbound */
    const char *via;              /* the detail: "type IDLE", the XML file:line and object,
                                   * "own file", the character; NULL when unbound */
} amx_clip_row;

/* The animations the game plays on model NAME (case-insensitive), every engine: the clips bound
 * to the skeleton of the Alamo model file NAME (by the naming convention or an XML override), to
 * the hierarchy of the W3D render object NAME ('w3d-header'), to a skeleton named NAME (an ANCS
 * character's); and the animations SAGE INI draw states play on a model NAME ('ini', via: the
 * object, the state, the INI file and line), each with the clip file the INI reference found. */
amx_status amx_query_clips_for_model(amx_db *db, const char *model,
                                     void (*row)(const amx_clip_row *r, void *user), void *user,
                                     char *err, size_t errlen);

/* The clips bound to a skeleton of this name (case-insensitive), one row per binding (a clip
 * checked against the model its name gives and, through an XML override, another of the same
 * name counts once per skeleton file), with bones_missing of that binding; and the clips that
 * target the name but found no such skeleton (bound false). */
amx_status amx_query_clips(amx_db *db, const char *skeleton,
                           void (*row)(const amx_clip_row *r, void *user), void *user,
                           char *err, size_t errlen);

/* Every clip of the index, in root and path order, with each skeleton it is bound to: a row per
 * binding, with that binding's bones_missing, how and via (a clip an XML override also binds to
 * another model's skeleton comes once for each), and a row for a clip bound to none. */
amx_status amx_query_all_clips(amx_db *db, void (*row)(const amx_clip_row *r, void *user),
                               void *user, char *err, size_t errlen);

/* What the index says about one file: format, status, findings by effective severity (config
 * overrides applied; "off" codes left out) and the codes that occur. */
typedef struct amx_file_summary {
    char format[32], status[16];
    uint64_t findings[3];         /* info, warning, error */
    char codes[256];              /* "BONE_NOT_IN_SKELETON, TRUNCATED" */
} amx_file_summary;

/* Returns AMX_OK with *found = false when the file is not indexed. */
amx_status amx_query_file_summary(amx_db *db, const amx_config *config, const char *root,
                                  const char *path, amx_file_summary *out, bool *found, char *err,
                                  size_t errlen);

/* The files whose findings depend on the file at `path` under the absolute `root` (or on a member
 * of it, for an archive): the clips bound to a skeleton it defines, and the files with a
 * reference it satisfies. Each once, in root and path order. */
amx_status amx_query_dependents(amx_db *db, const char *root, const char *path,
                                void (*row)(const char *root, const char *path, void *user),
                                void *user, char *err, size_t errlen);

/* Every indexed file under an absolute root, except files of other kinds, in path order. */
amx_status amx_query_files(amx_db *db, const char *root,
                           void (*row)(const char *path, const char *format, void *user),
                           void *user, char *err, size_t errlen);

/* The files indexed at `path` (as stored) or below it (a directory's) under an absolute root,
 * archive members left out, each with the size and mtime its last scan recorded (mtime_ns -1:
 * to be decoded again), in path order; `row` is called for each until it returns true (stop).
 * For comparing what is indexed with the files on disk now (the daemon checks that a new name
 * holds the files of a name that went away before it takes the two for a rename). */
amx_status amx_query_file_stats(amx_db *db, const char *root, const char *path,
                                bool (*row)(const char *path, int64_t size, int64_t mtime_ns,
                                            void *user),
                                void *user, char *err, size_t errlen);

/* Indexed look-ups of paths as a user types them (cli/paths.c), each a seek or a range on an
 * index however large the index is. Files of other kinds are left out. `row` is called for each
 * file until it returns true (stop). `fold`: compared without regard to ASCII case. */
typedef struct amx_path_row {
    const char *root, *path, *format;
    size_t member_at;             /* an archive member: the length of its archive's path, else 0 */
} amx_path_row;
typedef bool (*amx_path_cb)(const amx_path_row *r, void *user);

/* The files of absolute root `root` at `path` (relative to it). */
amx_status amx_query_path_at(amx_db *db, const char *root, const char *path, bool fold,
                             amx_path_cb row, void *user, char *err, size_t errlen);
/* Whether `path` (relative to absolute root `root`; an archive member as ARCHIVE#MEMBER) is a
 * file the scan saw and skipped, of a kind animidx does not read (counted, not decoded, but
 * the references that name it lead to it; any case for a loose file with `fold`). Its path as
 * indexed goes to `found` (found_cap bytes; NULL: not wanted). */
amx_status amx_query_path_skipped(amx_db *db, const char *root, const char *path, bool fold,
                                  bool *skipped, char *found, size_t found_cap, char *err,
                                  size_t errlen);
/* The loose files of `root` under directory `dir` ("" = all), in path order. */
amx_status amx_query_path_under(amx_db *db, const char *root, const char *dir, bool fold,
                                amx_path_cb row, void *user, char *err, size_t errlen);
/* The files of every root whose name (the last part of a path or of a member's name) has the
 * stem of `name` ("X" of "DIR/X.ALA"), compared upper-cased; the caller checks the rest. */
amx_status amx_query_path_named(amx_db *db, const char *name, amx_path_cb row, void *user,
                                char *err, size_t errlen);
/* Whether a skeleton of this name (compared upper-cased) is indexed. */
amx_status amx_query_skeleton_exists(amx_db *db, const char *name, bool *exists, char *err,
                                     size_t errlen);

/* The last finished whole-root scan of every root: root, finished_at (unix seconds), files. */
amx_status amx_query_scans(amx_db *db,
                           void (*row)(const char *root, int64_t finished_at, int64_t files_seen,
                                       void *user),
                           void *user, char *err, size_t errlen);

/* What scans added, changed (new content) and removed: files of their own, in root, scan and
 * path order. scan_id -1: a change of the daemon's rescans (not a whole scan) */
typedef struct amx_change_row {
    int64_t scan_id, at;          /* at: unix seconds */
    const char *root, *path, *change, *format;   /* change: added | changed | removed */
} amx_change_row;

/* since_scan >= 0: the changes of the scans after that scan id; else since_time >= 0: those
 * made at or after that time; else those of the last whole scan of each root. The daemon's
 * changes (after the last whole scan) are included in each case. */
amx_status amx_query_changes(amx_db *db, int64_t since_scan, int64_t since_time,
                             void (*row)(const amx_change_row *r, void *user), void *user,
                             char *err, size_t errlen);

typedef struct amx_skeleton_row {
    const char *root, *path, *skeleton, *format;
    int64_t bones, clips;
} amx_skeleton_row;

amx_status amx_query_skeletons(amx_db *db,
                               void (*row)(const amx_skeleton_row *r, void *user), void *user,
                               char *err, size_t errlen);
/* The skeletons that have a bone of this name (case-insensitive). */
amx_status amx_query_skeletons_with_bone(amx_db *db, const char *bone,
                                         void (*row)(const amx_skeleton_row *r, void *user),
                                         void *user, char *err, size_t errlen);
/* The clips with a track for a bone of this name (case-insensitive), in root and path order,
 * one row each, with the file of the skeleton each is bound to first. */
amx_status amx_query_clips_with_bone(amx_db *db, const char *bone,
                                     void (*row)(const amx_clip_row *r, void *user), void *user,
                                     char *err, size_t errlen);

typedef struct amx_issue_row {
    const char *root, *path, *code, *message, *context, *format;
    const char *container;        /* an archive member's archive (its path; the member's path
                                   * is the archive's, '#' and the member's name); else NULL */
    amx_severity severity;        /* effective (config overrides applied) */
    int64_t offset;               /* -1 when none */
} amx_issue_row;

typedef struct amx_issue_filter {
    bool has_min_severity;
    amx_severity min_severity;    /* report findings at or above this */
    const char *code;             /* NULL = every code */
    const char *path_prefix;      /* NULL = every file */
    bool include_base;            /* also the roots scanned only as base layers */
    size_t limit;                 /* added: at most this many rows (0 = all); the first by path
                                   * are read from the index without sorting every finding */
    const char *root;             /* added: only this (absolute) root; NULL = every root */
    const bool *stop;             /* added: when not NULL, reading ends once the row callback
                                   * has set *stop (read in path order, like limit) */
} amx_issue_filter;

amx_status amx_query_issues(amx_db *db, const amx_config *config, const amx_issue_filter *filter,
                            void (*row)(const amx_issue_row *r, void *user), void *user,
                            char *err, size_t errlen);

/* How many findings of each code the filter selects (limit ignored), one call per code: with
 * the severity the configuration gives them (the most severe, when a code's findings have
 * several) and how many files have them; codes switched off are left out, and with
 * min_severity the findings below it. *files_total (when not NULL): the files with any of them.
 * Counted on the indexes of the findings, not row by row. */
typedef struct amx_issue_count {
    const char *code;
    amx_severity severity;
    uint64_t findings, files;
    uint64_t by_severity[3]; /* added: the findings at each severity (AMX_SEV_INFO..ERROR) */
} amx_issue_count;
amx_status amx_query_issue_counts(amx_db *db, const amx_config *config,
                                  const amx_issue_filter *filter,
                                  void (*row)(const amx_issue_count *c, void *user), void *user,
                                  uint64_t *files_total, char *err, size_t errlen);

/* `show`: everything known about the files whose path (relative to its root) matches `path`
 * exactly, or which end with "/path" (or "#path" for archive members). Calls the callbacks in
 * order for each file. */
typedef struct amx_show_file {
    int64_t id;
    const char *root, *path, *format, *version, *status, *container;
    int64_t size, mtime_ns;
    uint64_t hash;
    int64_t decoder_version;
} amx_show_file;

typedef struct amx_model_row {
    const char *kind, *name;      /* kind: "model" | "particle" */
    int64_t meshes, submeshes, vertices, triangles, lights, proxies, dazzles, emitters;
} amx_model_row;

/* A skeleton a clip is checked against (show). */
typedef struct amx_binding_row {
    const char *how, *via;        /* as amx_clip_row */
    const char *skeleton;         /* its name */
    const char *root, *path;      /* the skeleton's file */
    bool base_layer;              /* the file is in a base layer of the clip's root */
    int64_t bones_bad;            /* bones of the clip that do not fit it */
} amx_binding_row;

/* A game object of an XML file and one file it names, or (on a model) an object that uses it. */
typedef struct amx_object_row {
    const char *type, *name;      /* SpaceUnit, 'X' */
    const char *variant_of;       /* may be NULL */
    const char *root, *path;      /* the XML file */
    int64_t line;                 /* of the tag (of the object when tag is NULL) */
    const char *tag, *value;      /* Land_Model_Name, "X.alo"; NULL for an object with no
                                   * reference */
} amx_object_row;

typedef struct amx_show_callbacks {
    void (*file)(const amx_show_file *f, void *user);
    void (*skeleton)(const char *name, int64_t bones, void *user);
    void (*bone)(int64_t idx, const char *name, int64_t parent, void *user);
    void (*clip)(const amx_clip_row *c, void *user);
    /* every skeleton the last clip is checked against, after it */
    void (*binding)(const amx_binding_row *b, void *user);
    void (*track)(int64_t idx, const char *bone, int64_t bone_index, const char *channels,
                  void *user);
    /* Format-specific lines about the last clip, in order, each in a group (MechWarrior 3:
     * "sequence X" -> its events; Metroid Prime: "channels" -> key counts and bit widths). */
    void (*detail)(const char *group, const char *text, void *user);
    void (*model)(const amx_model_row *m, void *user);
    void (*mesh)(const char *name, int64_t materials, int64_t vertices, int64_t triangles,
                 const char *shaders, bool hidden, bool collision, void *user);
    void (*member)(const char *path, const char *format, const char *status, void *user);
    /* an XML file's game objects with each file they name; for a model, the game objects
     * (of its root and of the roots that sit on it) whose tags name it */
    void (*object)(const amx_object_row *o, void *user);
    void (*used_by)(const amx_object_row *o, void *user);
    void (*issue)(const amx_issue_row *r, void *user);
    void (*end)(void *user);
} amx_show_callbacks;

/* `show` of one file: the file at `path` (exactly) under the absolute `root`. */
amx_status amx_query_show_file(amx_db *db, const amx_config *config, const char *root,
                               const char *path, const amx_show_callbacks *cb, void *user,
                               int *found, char *err, size_t errlen);

#endif
