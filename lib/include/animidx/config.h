/*
 * animidx configuration (config/animidx.ini documents every key).
 *
 * Precedence: built-in defaults < the config file < command-line flags (applied by the caller
 * after loading). The file is `--config FILE`, else $XDG_CONFIG_HOME/animidx/animidx.ini
 * (~/.config/animidx/animidx.ini); see amx_config_locate. A project's own file (./animidx.ini)
 * is read only when given with --config: the working directory may be a downloaded mod.
 *
 *   [index]
 *   database = path             ; relative paths resolve against the config file's directory
 *   [scan]
 *   roots = path, path          ; comma-separated and/or repeated on continuation lines
 *   jobs = 0                    ; 0 = one per CPU
 *   memory_mb = 1024            ; file bytes the decoder threads hold at once (MiB)
 *   ignore = *.bak, tmp/ *      ; fnmatch globs on the path relative to the root ('/' separators)
 *   follow_links = false        ; follow symbolic links that lead out of a root (one level)
 *   [severity]
 *   BONE_NOT_IN_SKELETON = warning   ; info | warning | error | off
 *   [root Metroid/Data]
 *   game = mp1                  ; Metroid Prime files under this root are from MP1 (or mp2);
 *                               ; eaw | foc: the Alamo game whose animation types it uses;
 *                               ; generals | zh: the SAGE game its INI files are for
 *   [root Mods/MyMod]
 *   base = Games/FoC, Games/EaW ; the layers this root sits on, in lookup order ("" = none)
 *   [daemon]                    ; animidxd, and the CLI commands that talk to it
 *   socket = path               ; the control socket
 *   settle_ms = 50              ; quiet time before a changed file is indexed
 *   reconcile_interval_s = 3600 ; full rescan of every root; 0 = never
 *   poll_interval_s = 30        ; rescan of directories that could not be watched
 *   max_watches = 0             ; inotify watches; 0 = max_user_watches - 500
 *   log = stderr                ; or a file
 *   log_level = info            ; error | warning | info | debug
 *
 * An unknown section or key, or a bad value, is an error naming the file and the line; so is a
 * NUL byte, and an indented continuation line under a key that takes one value (roots, ignore
 * and base take a list, continued on indented lines).
 */
#ifndef ANIMIDX_CONFIG_H
#define ANIMIDX_CONFIG_H

#include "animidx.h"

typedef enum amx_log_level {
    AMX_LOG_ERROR,
    AMX_LOG_WARNING,
    AMX_LOG_INFO,
    AMX_LOG_DEBUG,
} amx_log_level;

typedef struct amx_root_bases {
    char *path;                             /* the [root PATH] section, absolute */
    char **bases;                           /* absolute */
    size_t count;
} amx_root_bases;

typedef struct amx_config {
    char *db_path;                          /* owned; default: $XDG_STATE_HOME/animidx/index.db */
    char **roots;                           /* owned */
    size_t root_count;
    int jobs;                               /* 0 = one per CPU */
    int memory_mb;                          /* file bytes held by the decoders at once; a larger
                                             * file is read alone. Default 1024 */
    bool follow_links;                      /* follow symbolic links out of a root (one level;
                                             * default false: such a link is LINK_NOT_FOLLOWED) */
    char **ignore;                          /* owned fnmatch globs */
    size_t ignore_count;
    amx_severity severity[AMX_CODE_COUNT];  /* effective severity of every code */
    bool severity_set[AMX_CODE_COUNT];      /* true where the config overrides the default */
    char *source;                           /* the file loaded, or NULL when defaults only */
    /* [root PATH] sections: game = eaw|foc|mp1|mp2|generals|zh for the roots at or below PATH
     * (the Alamo game's table of animation types; Metroid Prime files carry no game marker; the
     * SAGE game whose INI rules apply, docs/formats/sage-ini.md). Parallel
     * lists, paths absolute. */
    char **game_paths;
    char **games;
    size_t game_count;
    /* [root PATH] base = ...: the base layers of the roots at or below PATH (a mod on its parent
     * mods and games), absolute, in lookup order; an empty list declares none. */
    struct amx_root_bases *root_bases;
    size_t root_bases_count;
    /* [daemon] */
    char *socket_path;                      /* owned; default: $XDG_RUNTIME_DIR/animidx/animidxd.sock,
                                             * else /tmp/animidx-<uid>/animidxd.sock; Windows:
                                             * //./pipe/animidx-<user>-<index hash> */
    bool socket_set;                        /* set by the config or a flag (else it follows
                                             * the index, where the default names it) */
    int settle_ms;                          /* default 50 */
    int reconcile_s;                        /* default 3600; 0 = never */
    int poll_s;                             /* default 30 */
    int max_watches;                        /* default 0 = max_user_watches - 500 */
    char *log_path;                         /* owned; NULL = stderr (the default) */
    amx_log_level log_level;                /* default AMX_LOG_INFO */
} amx_config;

/* The longest Unix socket path (sun_path holds 108 bytes with the terminating NUL). */
#define AMX_SOCKET_PATH_MAX 107

/* Fills in the built-in defaults. Returns 0, or -ENOMEM. */
int amx_config_init(amx_config *c);
/* Frees everything; the struct may be init'ed again. A zeroed struct is a no-op. */
void amx_config_finish(amx_config *c);

/* Loads a file on top of what c holds. Returns 0, or -1 with a message in err such as
 * "animidx.ini:7: unknown key 'rootz' in [scan] (known keys: roots, jobs, memory_mb, ignore)" or
 * "animidx.ini: cannot open: No such file or directory". */
int amx_config_load_file(amx_config *c, const char *path, char *err, size_t errlen);
/* The same from a string; `name` stands for the file name in messages. */
int amx_config_load_string(amx_config *c, const char *text, const char *name, char *err,
                           size_t errlen);

/* Finds the config file to use: `explicit_path` if non-NULL (returned even if it does not exist,
 * so loading it reports the error), else the XDG one if it exists; never ./animidx.ini unless
 * it is the explicit path. Writes the path into buf and returns buf, or returns NULL when there
 * is none. */
const char *amx_config_locate(const char *explicit_path, char *buf, size_t buflen);

/* The `game` setting of the [root PATH] section that holds `abs_root` (the most specific one),
 * or NULL. */
const char *amx_config_game(const amx_config *c, const char *abs_root);

/* The base layers declared for `abs_root` by the most specific [root PATH] section that holds it
 * and sets `base` (an empty list when `base =` is empty), or NULL when none declares any. */
const amx_root_bases *amx_config_bases(const amx_config *c, const char *abs_root);

/* Checks the base layers of the root `abs_root` (absolute, links resolved): `bases` (n, as
 * given on a command line) when `set_bases`, else those the config declares for it. A base
 * layer must be another directory than the root, and must neither hold it nor lie inside it:
 * the files of both would be indexed twice, under two roots. A base that does not resolve is
 * left to the scan (an I/O error there). Returns 0, or -1 with a message naming both paths and
 * the fix in err, such as "base layer /g/Mod/Data/X lies inside the tree /g/Mod/Data: ...". */
int amx_config_check_bases(const amx_config *c, const char *abs_root, const char *const *bases,
                           size_t n, bool set_bases, char *err, size_t errlen);

/* True when the root-relative path matches one of the ignore globs (a glob matching a directory
 * also ignores everything below it). */
bool amx_config_ignored(const amx_config *c, const char *relpath);

/* Replaces the database path / the jobs (command-line flags). Return 0 or -ENOMEM. */
int amx_config_set_db(amx_config *c, const char *path);
/* Replaces the socket path (command-line flag). Returns 0 or -ENOMEM. */
int amx_config_set_socket(amx_config *c, const char *path);
/* Adds an ignore glob (as `ignore =` does; a trailing '/' is not dropped). Returns 0 or
 * -ENOMEM. */
int amx_config_add_ignore(amx_config *c, const char *glob);

/* "error", "warning", "info", "debug". */
const char *amx_log_level_name(amx_log_level level);

#endif
