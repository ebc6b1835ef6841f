/*
 * animidx configuration: built-in defaults, the INI file (parsed with inih) and ignore globs.
 *
 * A load is all or nothing: the file is applied to a copy of the config, which replaces the
 * caller's only when the whole file is good. inih gives the handler no line numbers, so the
 * lines are read through our own reader, which counts them (and rejects lines too long for
 * inih's fixed buffer, NUL bytes, and indented continuation lines of keys that take one value);
 * a syntax error that only inih sees is placed by its return value.
 */
#include "animidx/config.h"

#include <ini.h>

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include "animidx/os.h"

enum { SEC_INDEX, SEC_SCAN, SEC_SEVERITY, SEC_DAEMON, SEC_COUNT };
static const char *const section_names[SEC_COUNT] = { "index", "scan", "severity", "daemon" };
static const char *const section_keys[SEC_COUNT] = {
    "database", "roots, jobs, memory_mb, ignore, follow_links", "",
    "socket, settle_ms, reconcile_interval_s, poll_interval_s, max_watches, log, log_level",
};
#define KNOWN_SECTIONS "index, scan, severity, daemon, root PATH"

#define MAX_JOBS 256

static const char *const log_level_names[] = { "error", "warning", "info", "debug" };

const char *amx_log_level_name(amx_log_level level)
{
    return (unsigned)level < sizeof log_level_names / sizeof log_level_names[0]
               ? log_level_names[level]
               : "?";
}

/* ---- small helpers ---- */

/* Returns a malloc'd "a" + "b" + "c"; any argument may be "". */
static char *concat3(const char *a, const char *b, const char *c)
{
    size_t la = strlen(a), lb = strlen(b), lc = strlen(c);
    char *s = malloc(la + lb + lc + 1);
    if (s) {
        memcpy(s, a, la);
        memcpy(s + la, b, lb);
        memcpy(s + la + lb, c, lc + 1);
    }
    return s;
}

static const char *env_home(void)
{
    static char home[AMX_PATH_MAX];
    return amx_os_home_dir(home, sizeof home) == 0 ? home : NULL;
}

/* Appends an owned string (NULL means an allocation failed); frees it on failure. */
static int list_push(char ***items, size_t *count, char *owned)
{
    char **grown = owned ? realloc(*items, (*count + 1) * sizeof **items) : NULL;
    if (!grown) {
        free(owned);
        return -ENOMEM;
    }
    grown[(*count)++] = owned;
    *items = grown;
    return 0;
}

static void list_free(char **items, size_t count)
{
    for (size_t i = 0; i < count; i++)
        free(items[i]);
    free(items);
}

/* ---- init / finish / copy ---- */

/* The daemon's control socket (amx_os_default_socket): on POSIX
 * $XDG_RUNTIME_DIR/animidx/animidxd.sock, else /tmp/animidx-<uid>/animidxd.sock (the daemon
 * creates the directory, mode 0700); on Windows a named pipe of the user. */
static char *default_socket(const char *db)
{
    char path[AMX_PATH_MAX];
    return amx_os_default_socket(db, path, sizeof path) == 0 ? strdup(path) : NULL;
}

/* The index changed: a default socket follows it (Windows names one per index). */
static int follow_db(amx_config *c)
{
    if (c->socket_set)
        return 0;
    char *s = default_socket(c->db_path);
    if (!s)
        return -ENOMEM;
    free(c->socket_path);
    c->socket_path = s;
    return 0;
}

int amx_config_init(amx_config *c)
{
    memset(c, 0, sizeof *c);
    char state[AMX_PATH_MAX];
    if (amx_os_state_dir(state, sizeof state) == 0)
        c->db_path = concat3(state, "/animidx/index.db", "");
    else
        c->db_path = strdup("./animidx.db");
    c->socket_path = default_socket(c->db_path);
    c->settle_ms = 50;
    c->memory_mb = 1024;
    c->reconcile_s = 3600;
    c->poll_s = 30;
    c->log_level = AMX_LOG_INFO;
    if (!c->db_path || !c->socket_path) {
        amx_config_finish(c);
        return -ENOMEM;
    }
    for (int i = 0; i < AMX_CODE_COUNT; i++)
        c->severity[i] = amx_code_get((amx_code)i)->severity;
    return 0;
}

void amx_config_finish(amx_config *c)
{
    free(c->db_path);
    list_free(c->roots, c->root_count);
    list_free(c->ignore, c->ignore_count);
    list_free(c->game_paths, c->game_count);
    list_free(c->games, c->game_count);
    for (size_t i = 0; i < c->root_bases_count; i++) {
        free(c->root_bases[i].path);
        list_free(c->root_bases[i].bases, c->root_bases[i].count);
    }
    free(c->root_bases);
    free(c->source);
    free(c->socket_path);
    free(c->log_path);
    memset(c, 0, sizeof *c);
}

static int config_copy(amx_config *dst, const amx_config *src)
{
    *dst = *src;
    dst->db_path = dst->source = dst->socket_path = dst->log_path = NULL;
    dst->roots = dst->ignore = dst->game_paths = dst->games = NULL;
    dst->root_count = dst->ignore_count = dst->game_count = 0;
    dst->root_bases = NULL;
    dst->root_bases_count = 0;
    int rc = 0;
    if ((src->db_path && !(dst->db_path = strdup(src->db_path))) ||
        (src->source && !(dst->source = strdup(src->source))) ||
        (src->socket_path && !(dst->socket_path = strdup(src->socket_path))) ||
        (src->log_path && !(dst->log_path = strdup(src->log_path))))
        rc = -ENOMEM;
    for (size_t i = 0; rc == 0 && i < src->root_count; i++)
        rc = list_push(&dst->roots, &dst->root_count, strdup(src->roots[i]));
    for (size_t i = 0; rc == 0 && i < src->ignore_count; i++)
        rc = list_push(&dst->ignore, &dst->ignore_count, strdup(src->ignore[i]));
    for (size_t i = 0; rc == 0 && i < src->game_count; i++) {
        size_t n = dst->game_count;
        rc = list_push(&dst->game_paths, &n, strdup(src->game_paths[i]));
        if (rc == 0)
            rc = list_push(&dst->games, &dst->game_count, strdup(src->games[i]));
    }
    if (rc == 0 && src->root_bases_count &&
        !(dst->root_bases = calloc(src->root_bases_count, sizeof *dst->root_bases)))
        rc = -ENOMEM;
    for (size_t i = 0; rc == 0 && i < src->root_bases_count; i++) {
        const amx_root_bases *from = &src->root_bases[i];
        amx_root_bases *to = &dst->root_bases[dst->root_bases_count++];
        if (!(to->path = strdup(from->path)))
            rc = -ENOMEM;
        for (size_t k = 0; rc == 0 && k < from->count; k++)
            rc = list_push(&to->bases, &to->count, strdup(from->bases[k]));
    }
    if (rc)
        amx_config_finish(dst);
    return rc;
}

static int replace_string(char **slot, const char *value)
{
    char *copy = strdup(value);
    if (!copy)
        return -ENOMEM;
    free(*slot);
    *slot = copy;
    return 0;
}

int amx_config_set_db(amx_config *c, const char *path)
{
    int rc = replace_string(&c->db_path, path);
    return rc ? rc : follow_db(c);
}

int amx_config_set_socket(amx_config *c, const char *path)
{
    c->socket_set = true;
    return replace_string(&c->socket_path, path);
}

int amx_config_add_ignore(amx_config *c, const char *glob)
{
    return list_push(&c->ignore, &c->ignore_count, strdup(glob));
}

/* ---- loading ---- */

typedef struct load_state {
    amx_config work;       /* the copy the file is applied to */
    const char *file;      /* the file's path, NULL for a string */
    const char *text;      /* the rest of the text (a file is read whole first) */
    const char *end;       /* its end (a NUL before it is a NUL byte of the file) */
    int lineno;            /* lines read so far */
    int err_line;          /* line of our own error, 0 for none */
    char msg[512];         /* our own error, without the "name:line: " prefix */
    bool have_key;         /* a key was read in the current section (inih continues it) */
    bool continuation;     /* the line being parsed is an indented continuation of that key */
    /* The current section's name as the file writes it: inih cuts the one it hands the
     * handler to 49 bytes, and a [root PATH] is often longer (C:/Program Files (x86)/...). */
    char section[AMX_PATH_MAX];
} load_state;

AMX_PRINTF(2, 3)
static int fail(load_state *st, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(st->msg, sizeof st->msg, fmt, ap);
    va_end(ap);
    st->err_line = st->lineno;
    return 0; /* what the inih handler returns on error */
}

/* The section named by s[0..len) (surrounding blanks ignored), or -1. */
static int section_id(const char *s, size_t len)
{
    while (len && (*s == ' ' || *s == '\t'))
        s++, len--;
    while (len && (s[len - 1] == ' ' || s[len - 1] == '\t'))
        len--;
    for (int i = 0; i < SEC_COUNT; i++)
        if (strlen(section_names[i]) == len && strncasecmp(s, section_names[i], len) == 0)
            return i;
    return -1;
}

static int unknown_section(load_state *st, const char *s, size_t len)
{
    return fail(st, "unknown section [%.*s] (known: " KNOWN_SECTIONS ")", (int)len, s);
}

/* Checks a line the reader returns (len bytes, NULs included); NULL stops the parse. */
static char *check_line(load_state *st, char *line, size_t len, int num)
{
    st->lineno++;
    if (memchr(line, '\0', len)) {
        fail(st, "a NUL byte in the line (a configuration is text)");
        return NULL;
    }
    if (len == (size_t)num - 1 && line[len - 1] != '\n') {
        fail(st, "line too long (at most %d characters)", num - 2);
        return NULL;
    }
    /* inih's multi-line values: a non-blank line that starts with blanks continues the key
     * before it (within a section); the handler must know, as most keys take one value. */
    const char *t = line + strspn(line, " \t");
    bool blank = *t == '\0' || *t == '\n' || *t == '\r';
    st->continuation = t > line && !blank && *t != ';' && *t != '#' && st->have_key;
    if (*t == '[') {
        st->have_key = false;
        /* inih's section: from the '[' to the first ']' (a line without one is its error) */
        const char *close = memchr(t, ']', len - (size_t)(t - line));
        if (close)
            snprintf(st->section, sizeof st->section, "%.*s", (int)(close - t - 1), t + 1);
    }
    /* A section header at the start of a line: check it here so an empty unknown section is
     * caught too, on its own line (inih tells the handler only about keys). */
    const char *p = line;
    if (st->lineno == 1 && strncmp(p, "\xEF\xBB\xBF", 3) == 0)
        p += 3;
    const char *end = p[0] == '[' ? strchr(p, ']') : NULL;
    if (end && section_id(p + 1, (size_t)(end - p - 1)) < 0 && strncasecmp(p + 1, "root ", 5) != 0) {
        unknown_section(st, p + 1, (size_t)(end - p - 1));
        return NULL;
    }
    return line;
}

static char *string_reader(char *str, int num, void *stream)
{
    load_state *st = stream;
    if (st->err_line || st->text == st->end || num < 2)
        return NULL;
    /* a line, its NUL bytes included: check_line refuses them rather than cut the line */
    size_t n = 0, left = (size_t)(st->end - st->text);
    while (n < (size_t)num - 1 && n < left) {
        if (st->text[n++] == '\n')
            break;
    }
    memcpy(str, st->text, n);
    str[n] = '\0';
    st->text += n;
    return check_line(st, str, n, num);
}

/* The directory relative paths resolve against: the config file's (or the current one), made
 * absolute so the result does not depend on a later chdir. NULL with errno on failure. */
static char *base_dir(const load_state *st)
{
    char file[AMX_PATH_MAX];
    snprintf(file, sizeof file, "%s", st->file ? st->file : "");
    amx_os_path_normalize(file);
    const char *slash = strrchr(file, '/');
    size_t root = amx_os_path_root_len(file);
    if (slash && root)
        return amx_strndup(file, (size_t)(slash - file) < root ? root : (size_t)(slash - file));
    char cwd[AMX_PATH_MAX];
    int rc = amx_os_getcwd(cwd, sizeof cwd);
    if (rc < 0) {
        errno = -rc;
        return NULL;
    }
    if (!slash)
        return strdup(cwd);
    char *dir = amx_strndup(file, (size_t)(slash - file));
    char abs[AMX_PATH_MAX];
    char *out = dir && amx_os_path_join(cwd, dir, abs, sizeof abs) == 0 ? strdup(abs) : NULL;
    free(dir);
    return out;
}

/* Expands a path value: "~/x" is $HOME/x, a relative path is taken from base_dir(). Returns a
 * malloc'd path, or NULL after fail(). */
static char *resolve_path(load_state *st, const char *key, const char *value)
{
    char *path = NULL;
    char norm[AMX_PATH_MAX];
    snprintf(norm, sizeof norm, "%s", value); /* Windows: '\' is '/' */
    amx_os_path_normalize(norm);
    value = norm;
    if (value[0] == '~' && (value[1] == '/' || value[1] == '\0')) {
        const char *home = env_home();
        if (!home) {
            fail(st, "cannot expand '~' in %s: %s is not set", key,
                 amx_os_pick("HOME", "USERPROFILE"));
            return NULL;
        }
        path = concat3(home, value + 1, "");
    } else if (amx_os_path_is_absolute(value)) {
        path = strdup(value);
    } else {
        while (value[0] == '.' && value[1] == '/')
            value += 2;
        char *base = base_dir(st);
        if (!base) {
            fail(st, "cannot resolve the relative path '%s' for %s: %s", value, key,
                 strerror(errno));
            return NULL;
        }
        bool here = value[0] == '\0' || strcmp(value, ".") == 0;
        char joined[AMX_PATH_MAX];
        path = here ? strdup(base)
               : amx_os_path_join(base, value, joined, sizeof joined) == 0 ? strdup(joined)
                                                                           : NULL;
        free(base);
    }
    if (!path)
        fail(st, "out of memory");
    return path;
}

/* Adds the comma-separated items of value to a list (paths resolved when is_path). */
static int add_items(load_state *st, const char *key, const char *value, bool is_path,
                     char ***items, size_t *count)
{
    const char *p = value;
    while (*p) {
        while (*p == ' ' || *p == '\t' || *p == ',')
            p++;
        const char *end = p + strcspn(p, ",");
        size_t len = (size_t)(end - p);
        while (len && (p[len - 1] == ' ' || p[len - 1] == '\t'))
            len--;
        if (len) {
            char *item = amx_strndup(p, len);
            if (item && !is_path) {
                /* a glob: on Windows '\' is a separator ("Data\Old"), as in paths (no escape:
                 * its names hold no '*' or '?', and [[] matches '['); "tmp/" means tmp */
                amx_os_path_normalize(item);
                size_t n = strlen(item);
                while (n > 1 && item[n - 1] == '/')
                    item[--n] = '\0';
            }
            if (item && is_path) {
                char *path = resolve_path(st, key, item);
                free(item);
                if (!path)
                    return 0;
                item = path;
            }
            if (list_push(items, count, item) != 0)
                return fail(st, "out of memory");
        }
        p = end;
    }
    return 1;
}

/* A whole number from lo to hi into *out. */
static int parse_int(load_state *st, const char *key, const char *value, int lo, int hi,
                     int *out)
{
    int n = 0;
    bool ok = *value != '\0';
    for (const char *p = value; ok && *p; p++) {
        ok = *p >= '0' && *p <= '9';
        n = ok ? n * 10 + (*p - '0') : n;
        ok = ok && n <= hi;
    }
    if (!ok || n < lo)
        return fail(st, "bad value '%s' for %s: expected a whole number from %d to %d", value,
                    key, lo, hi);
    *out = n;
    return 1;
}

static int daemon_key(load_state *st, const char *name, const char *value)
{
    amx_config *c = &st->work;
    if (strcasecmp(name, "socket") == 0) {
        if (!*value)
            return fail(st, "bad value '' for socket: expected a path");
        char *path = resolve_path(st, "socket", value);
        if (!path)
            return 0;
        if (strlen(path) > AMX_SOCKET_PATH_MAX) {
            fail(st, "bad value '%s' for socket: the path is %zu bytes long, %s can have at "
                     "most %d", value, strlen(path),
                 amx_os_pick("a Unix socket path", "animidx's named pipe name"),
                 AMX_SOCKET_PATH_MAX);
            free(path);
            return 0;
        }
        free(c->socket_path);
        c->socket_path = path;
        c->socket_set = true;
        return 1;
    }
    if (strcasecmp(name, "settle_ms") == 0)
        return parse_int(st, "settle_ms", value, 0, 60000, &c->settle_ms);
    if (strcasecmp(name, "reconcile_interval_s") == 0)
        return parse_int(st, "reconcile_interval_s", value, 0, 7 * 86400, &c->reconcile_s);
    if (strcasecmp(name, "poll_interval_s") == 0)
        return parse_int(st, "poll_interval_s", value, 1, 86400, &c->poll_s);
    if (strcasecmp(name, "max_watches") == 0)
        return parse_int(st, "max_watches", value, 0, 100000000, &c->max_watches);
    if (strcasecmp(name, "log") == 0) {
        if (!*value)
            return fail(st, "bad value '' for log: expected stderr or a file");
        char *path = NULL;
        if (strcasecmp(value, "stderr") != 0 && !(path = resolve_path(st, "log", value)))
            return 0;
        free(c->log_path);
        c->log_path = path;
        return 1;
    }
    if (strcasecmp(name, "log_level") == 0) {
        for (size_t i = 0; i < sizeof log_level_names / sizeof log_level_names[0]; i++)
            if (strcasecmp(value, log_level_names[i]) == 0) {
                c->log_level = (amx_log_level)i;
                return 1;
            }
        return fail(st, "bad value '%s' for log_level: expected error, warning, info or debug",
                    value);
    }
    return fail(st, "unknown key '%s' in [daemon] (known keys: %s)", name,
                section_keys[SEC_DAEMON]);
}

/* The [root PATH] entry of the base lists for this path, added when new. */
static amx_root_bases *bases_entry(load_state *st, char *path)
{
    amx_config *c = &st->work;
    for (size_t i = 0; i < c->root_bases_count; i++)
        if (strcmp(c->root_bases[i].path, path) == 0) {
            free(path);
            return &c->root_bases[i];
        }
    amx_root_bases *g = realloc(c->root_bases, (c->root_bases_count + 1) * sizeof *g);
    if (!g) {
        free(path);
        return NULL;
    }
    c->root_bases = g;
    g[c->root_bases_count] = (amx_root_bases){ .path = path };
    return &g[c->root_bases_count++];
}

/* [root PATH]: settings of the roots at or below PATH. */
static int root_key(load_state *st, const char *path_text, const char *name, const char *value)
{
    amx_config *c = &st->work;
    if (strcasecmp(name, "base") == 0) {
        char *path = resolve_path(st, "root", path_text);
        if (!path)
            return 0;
        amx_root_bases *e = bases_entry(st, path);
        if (!e)
            return fail(st, "out of memory");
        /* a repeated key or a continuation line adds to the list */
        return add_items(st, "base", value, true, &e->bases, &e->count);
    }
    if (strcasecmp(name, "game") != 0)
        return fail(st, "unknown key '%s' in [root %s] (known keys: game, base)", name, path_text);
    static const char *const games[] = { "eaw", "foc", "mp1", "mp2", "generals", "zh" };
    const char *known = NULL;
    for (size_t i = 0; i < sizeof games / sizeof games[0] && !known; i++)
        if (strcasecmp(value, games[i]) == 0)
            known = games[i];
    if (!known)
        return fail(st, "bad value '%s' for game: expected eaw (Empire at War), foc (Forces of "
                    "Corruption), mp1 or mp2 (Metroid Prime 1, 2), generals or zh (Command & "
                    "Conquer Generals, Zero Hour)", value);
    char *path = resolve_path(st, "root", path_text);
    if (!path)
        return 0;
    char *game = strdup(known);
    size_t n = c->game_count;
    if (!game || list_push(&c->game_paths, &n, path) != 0 ||
        list_push(&c->games, &c->game_count, game) != 0) {
        if (c->game_count < n) /* the path went in, the game did not */
            free(c->game_paths[--n]);
        return fail(st, "out of memory");
    }
    return 1;
}

/* Keys that take a list: a repeated key or an indented continuation line adds to it. */
static bool list_key(const char *section, const char *name)
{
    if (strncasecmp(section, "root ", 5) == 0)
        return strcasecmp(name, "base") == 0;
    return strcasecmp(section, "scan") == 0 &&
           (strcasecmp(name, "roots") == 0 || strcasecmp(name, "ignore") == 0);
}

static int handler(void *user, const char *section, const char *name, const char *value)
{
    load_state *st = user;
    amx_config *c = &st->work;
    if (st->err_line) /* newer inih still hands over the start of an over-long line */
        return 1;
    st->have_key = true;
    if (st->continuation && !list_key(section, name))
        return fail(st, "an indented line continues '%s', which takes one value (only roots, "
                        "ignore and base take a list); remove the indentation or join the lines",
                    name);
    if (!*section)
        return fail(st, "key '%s' before any section (known: " KNOWN_SECTIONS ")", name);
    if (strncmp(st->section, section, strlen(section)) == 0)
        section = st->section; /* the whole name, where inih cut it */
    if (strncasecmp(section, "root ", 5) == 0) {
        const char *path = section + 5;
        while (*path == ' ')
            path++;
        if (!*path)
            return fail(st, "[root] needs a path: [root Data/MP1]");
        return root_key(st, path, name, value);
    }
    int sec = section_id(section, strlen(section));
    if (sec < 0)
        return unknown_section(st, section, strlen(section));

    if (sec == SEC_INDEX && strcasecmp(name, "database") == 0) {
        if (!*value)
            return fail(st, "bad value '' for database: expected a path");
        char *path = resolve_path(st, "database", value);
        if (!path)
            return 0;
        free(c->db_path);
        c->db_path = path;
        if (follow_db(c) != 0)
            return fail(st, "out of memory");
        return 1;
    }
    if (sec == SEC_SCAN && strcasecmp(name, "roots") == 0)
        return add_items(st, "roots", value, true, &c->roots, &c->root_count);
    if (sec == SEC_SCAN && strcasecmp(name, "ignore") == 0)
        return add_items(st, "ignore", value, false, &c->ignore, &c->ignore_count);
    if (sec == SEC_SCAN && strcasecmp(name, "jobs") == 0)
        return parse_int(st, "jobs", value, 0, MAX_JOBS, &c->jobs);
    if (sec == SEC_SCAN && strcasecmp(name, "memory_mb") == 0)
        return parse_int(st, "memory_mb", value, 1, 1 << 20, &c->memory_mb);
    if (sec == SEC_SCAN && strcasecmp(name, "follow_links") == 0) {
        bool yes = strcasecmp(value, "true") == 0 || strcasecmp(value, "yes") == 0 ||
                   strcmp(value, "1") == 0;
        if (!yes && strcasecmp(value, "false") != 0 && strcasecmp(value, "no") != 0 &&
            strcmp(value, "0") != 0)
            return fail(st, "bad value '%s' for follow_links: expected true or false", value);
        c->follow_links = yes;
        return 1;
    }
    if (sec == SEC_DAEMON)
        return daemon_key(st, name, value);
    if (sec == SEC_SEVERITY) {
        amx_code code;
        amx_severity sev;
        if (!amx_code_parse(name, &code))
            return fail(st, "unknown issue code '%s' in [severity] (run 'animidx rules' for "
                            "the list)", name);
        if (!amx_severity_parse(value, &sev))
            return fail(st, "bad severity '%s' for %s: expected info, warning, error or off",
                        value, amx_code_get(code)->name);
        c->severity[code] = sev;
        c->severity_set[code] = true;
        return 1;
    }
    return fail(st, "unknown key '%s' in [%s] (known keys: %s)", name, section_names[sec],
                section_keys[sec]);
}

static void set_err(char *err, size_t errlen, const char *name, int line, const char *msg)
{
    if (!err || !errlen)
        return;
    if (line > 0)
        snprintf(err, errlen, "%s:%d: %s", name, line, msg);
    else
        snprintf(err, errlen, "%s: %s", name, msg);
}

/* Parses from st (fp or text set) into a copy of c; on success the copy replaces c. */
static int load(amx_config *c, load_state *st, const char *name, char *err, size_t errlen)
{
    if (config_copy(&st->work, c) != 0) {
        set_err(err, errlen, name, 0, "out of memory");
        return -1;
    }
    int r = ini_parse_stream(string_reader, st, handler, st);
    int line = 0;
    const char *msg = NULL;
    if (r == -2) {
        msg = "out of memory";
    } else if (r > 0 && (!st->err_line || r < st->err_line)) {
        line = r; /* inih saw a malformed line before any error of ours */
        msg = "syntax error: expected '[section]' or 'key = value'";
    } else if (r != 0 || st->err_line) {
        line = st->err_line;
        msg = st->msg;
    }
    char *source = msg ? NULL : strdup(name);
    if (!msg && !source)
        msg = "out of memory";
    if (msg) {
        set_err(err, errlen, name, line, msg);
        amx_config_finish(&st->work);
        return -1;
    }
    if (err && errlen)
        err[0] = '\0';
    free(st->work.source);
    st->work.source = source;
    amx_config_finish(c);
    *c = st->work;
    return 0;
}

int amx_config_load_file(amx_config *c, const char *path, char *err, size_t errlen)
{
    /* A regular file of at most 1 MiB: a FIFO would hang the program, a device never end. */
    size_t len = 0;
    amx_read_why why;
    char msg[600];
    char *text = (char *)amx_read_regular(path, AMX_CONFIG_FILE_MAX, &len, &why, msg, sizeof msg);
    if (!text) {
        if (err && errlen)
            snprintf(err, errlen, "%s%s", msg,
                     why == AMX_READ_NOT_REGULAR || why == AMX_READ_TOO_BIG
                         ? "; a configuration is a text file of at most 1 MiB"
                         : "");
        return -1;
    }
    load_state st = { .file = path, .text = text, .end = text + len };
    int rc = load(c, &st, path, err, errlen);
    free(text);
    return rc;
}

int amx_config_load_string(amx_config *c, const char *text, const char *name, char *err,
                           size_t errlen)
{
    load_state st = { .text = text, .end = text + strlen(text) };
    return load(c, &st, name ? name : "<string>", err, errlen);
}

/* ---- locating the file ---- */

static bool is_file(const char *path)
{
    amx_os_stat sb;
    return amx_os_path_stat(path, &sb) == 0 && sb.kind != AMX_OS_DIR;
}

const char *amx_config_locate(const char *explicit_path, char *buf, size_t buflen)
{
    int n = -1;
    /* Never ./animidx.ini by itself: a mod unpacked in the working directory could switch
     * rules off or move the index. A project uses its own file with --config. */
    if (explicit_path) {
        n = snprintf(buf, buflen, "%s", explicit_path);
    } else {
        char dir[AMX_PATH_MAX];
        if (amx_os_config_dir(dir, sizeof dir) == 0)
            n = snprintf(buf, buflen, "%s/animidx/animidx.ini", dir);
        if (n >= 0 && (size_t)n < buflen && !is_file(buf))
            n = -1;
    }
    return n >= 0 && (size_t)n < buflen ? buf : NULL;
}

/* ---- ignore globs ---- */

static bool glob_match(const char *glob, const char *s)
{
    return amx_glob_match(glob, s, true);
}

bool amx_config_ignored(const amx_config *c, const char *relpath)
{
    if (c->ignore_count == 0)
        return false;
    size_t len = strlen(relpath);
    char *buf = malloc(len + 1);
    if (!buf)
        return false;
    bool hit = false;
    for (size_t g = 0; g < c->ignore_count && !hit; g++) {
        const char *glob = c->ignore[g];
        hit = glob_match(glob, relpath);
        /* every component ("a", "b", "c" of "a/b/c") and every leading directory ("a", "a/b") */
        for (size_t start = 0; start <= len && !hit; ) {
            size_t end = start + strcspn(relpath + start, "/");
            memcpy(buf, relpath + start, end - start);
            buf[end - start] = '\0';
            hit = glob_match(glob, buf);
            if (!hit && end < len) {
                memcpy(buf, relpath, end);
                buf[end] = '\0';
                hit = glob_match(glob, buf);
            }
            start = end + 1;
        }
    }
    free(buf);
    return hit;
}

/* How specific a [root P] section is for abs_root: strlen(P) when abs_root is P or below it
 * (through symbolic links too), else -1. */
static long root_match(const char *p, const char *abs_root)
{
    size_t n = strlen(p);
    while (n > 1 && p[n - 1] == '/')
        n--;
    if (strncmp(abs_root, p, n) == 0 && (abs_root[n] == '\0' || abs_root[n] == '/'))
        return (long)n;
    char real[AMX_PATH_MAX];
    if (amx_os_canonical(p, real, sizeof real) == 0) { /* the root was resolved through links */
        size_t k = strlen(real);
        if (strncmp(abs_root, real, k) == 0 && (abs_root[k] == '\0' || abs_root[k] == '/'))
            return (long)n;
    }
    return -1;
}

const char *amx_config_game(const amx_config *c, const char *abs_root)
{
    const char *best = NULL;
    long best_len = -1;
    for (size_t i = 0; c && i < c->game_count; i++) {
        long m = root_match(c->game_paths[i], abs_root);
        if (m >= 0 && m >= best_len) {
            best = c->games[i];
            best_len = m;
        }
    }
    return best;
}

const amx_root_bases *amx_config_bases(const amx_config *c, const char *abs_root)
{
    const amx_root_bases *best = NULL;
    long best_len = -1;
    for (size_t i = 0; c && i < c->root_bases_count; i++) {
        long m = root_match(c->root_bases[i].path, abs_root);
        if (m >= 0 && m >= best_len) {
            best = &c->root_bases[i];
            best_len = m;
        }
    }
    return best;
}

/* Whether `inner` is `outer` or lies below it (both absolute, resolved). */
static bool path_within(const char *inner, const char *outer)
{
    size_t n = strlen(outer);
    while (n > 1 && outer[n - 1] == '/')
        n--;
    if (n == 1 && outer[0] == '/')
        return true;
    return strncmp(inner, outer, n) == 0 && (inner[n] == '\0' || inner[n] == '/');
}

int amx_config_check_bases(const amx_config *c, const char *abs_root, const char *const *bases,
                           size_t n, bool set_bases, char *err, size_t errlen)
{
    const amx_root_bases *cb = set_bases ? NULL : amx_config_bases(c, abs_root);
    if (cb) {
        bases = (const char *const *)cb->bases;
        n = cb->count;
    } else if (!set_bases) {
        n = 0;
    }
    char from[4200];
    if (cb)
        snprintf(from, sizeof from, "the config's [root %s] base%s%s", cb->path,
                 c->source ? " in " : "", c->source ? c->source : "");
    else
        snprintf(from, sizeof from, "--base");
    for (size_t i = 0; i < n; i++) {
        char real[AMX_PATH_MAX];
        if (!bases[i] || amx_os_canonical(bases[i], real, sizeof real) != 0)
            continue;
        const char *what = NULL;
        if (strcmp(real, abs_root) == 0)
            what = "is the tree itself";
        else if (path_within(real, abs_root))
            what = "lies inside the tree";
        else if (path_within(abs_root, real))
            what = "holds the tree";
        if (!what)
            continue;
        snprintf(err, errlen,
                 "base layer %s %s %s: a base layer is another tree (the game, or the parent mod "
                 "this one sits on), or the files of both would be indexed twice; give %s the "
                 "game's or the parent mod's own directory, neither inside %s nor holding it",
                 real, what, abs_root, from, abs_root);
        return -1;
    }
    return 0;
}
