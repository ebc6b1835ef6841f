/*
 * The portability layer: everything animidx asks of the operating system goes through here
 * (lib/common/os_posix.c on Linux and the BSDs, lib/common/os_win.c on Windows; meson builds
 * one of them). Nothing outside lib/common tests which system it is on.
 *
 * Paths are UTF-8 inside the program, on every system, and separated by '/': a Windows path is
 * "C:/Games/Mods/X" or "//server/share/X" once it is in. The Windows layer turns them into
 * UTF-16 (and the \\?\ form, so that paths longer than 260 characters work) only to call the
 * system, and accepts either separator on the way in. Functions that fail return a negative
 * errno value (-ENOENT, -EACCES, ...) on every system, so that callers report with strerror.
 */
#ifndef ANIMIDX_OS_H
#define ANIMIDX_OS_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* The longest path the program handles, in bytes of UTF-8, on every system (Windows' own
 * MAX_PATH of 260 is not a limit: the layer uses the long form). */
#define AMX_PATH_MAX 4096

/* printf-style checking. mingw-w64's GCC takes plain "printf" for Microsoft's printf (no %zu,
 * %lld); the program is built with the C99 printf (__USE_MINGW_ANSI_STDIO), which is GNU's. */
#if defined(__MINGW32__)
#define AMX_PRINTF(a, b) __attribute__((format(gnu_printf, a, b)))
#elif defined(__GNUC__)
#define AMX_PRINTF(a, b) __attribute__((format(printf, a, b)))
#else
#define AMX_PRINTF(a, b)
#endif

/* ---- file status ---- */

typedef enum {
    AMX_OS_OTHER, AMX_OS_FILE, AMX_OS_DIR, AMX_OS_FIFO, AMX_OS_CHARDEV, AMX_OS_BLOCKDEV,
    AMX_OS_SOCKET
} amx_os_kind;
/* "a directory", "a FIFO", ... "not a regular file", for messages */
const char *amx_os_kind_text(amx_os_kind k);

typedef struct amx_os_stat {
    amx_os_kind kind;
    bool link;          /* amx_os_path_lstat, amx_os_dir_next: a symbolic link (Windows: a reparse
                         * point: symbolic link or junction); kind is then the target's, when
                         * the link resolves (AMX_OS_OTHER when it does not) */
    int64_t size;       /* bytes (regular files) */
    int64_t mtime_ns;   /* last modification, nanoseconds since 1970 (Windows: 100 ns steps) */
    uint64_t dev, ino;  /* the file's identity: the same file has the same pair, whatever the
                         * path (POSIX st_dev/st_ino; Windows: volume serial, 64-bit file ID) */
} amx_os_stat;

int amx_os_path_stat(const char *path, amx_os_stat *st);   /* follows links */
int amx_os_path_lstat(const char *path, amx_os_stat *st);  /* a link itself: link = true */

/* ---- directory listing ---- */

/* One directory's entries, without "." and "..", in the order the system gives them; each with
 * its status (links followed: st.link says the entry is one). */
typedef struct amx_os_dir amx_os_dir;
typedef struct amx_os_entry {
    const char *name;   /* valid until the next call */
    amx_os_stat st;
    int err;            /* 0, or why the status could not be read (-ENOENT: a broken link) */
} amx_os_entry;

int amx_os_dir_open(const char *path, amx_os_dir **out);
/* The next entry; false at the end (or on an error: *err then says which, else 0). */
bool amx_os_dir_next(amx_os_dir *d, amx_os_entry *e, int *err);
void amx_os_dir_close(amx_os_dir *d);

/* ---- reading and writing files ---- */

/* A file open for reading: binary, not inherited by child processes; opening never blocks (a
 * FIFO is opened, not waited on: amx_os_file_stat tells what it is before anything is read). */
typedef struct amx_os_file amx_os_file;
int amx_os_open_read(const char *path, amx_os_file **out);
int amx_os_file_stat(amx_os_file *f, amx_os_stat *st);
/* Reads up to `want` bytes (fewer only at the end of the file); 0 or -errno. */
int amx_os_read(amx_os_file *f, void *buf, size_t want, size_t *got);
void amx_os_close(amx_os_file *f);

/* fopen with a UTF-8 path: always binary (no newline translation), never inherited. */
FILE *amx_os_fopen(const char *path, const char *mode);
/* Reads a whole file into a malloc'd buffer (NUL-terminated, not counted in *len); NULL with
 * errno set. */
char *amx_os_read_file(const char *path, size_t *len);

/* `path` (resolved, '/' separated) relative to `root`: NULL when it is outside the root, ""
 * for the root itself. */
const char *amx_os_path_below(const char *root, const char *path);
/* A new file next to `path` (same directory, so it can replace it: DIR/.NAME.XXXXXX), opened
 * for writing with exclusive creation (a link planted there is never followed), with the mode
 * of a new file; its name goes to tmp. */
FILE *amx_os_temp_beside(const char *path, char *tmp, size_t tmplen);
/* Replaces `to` with `from` in one step (POSIX rename; Windows MoveFileEx with replace). */
int amx_os_replace(const char *from, const char *to);
int amx_os_remove(const char *path);
/* Whether the path exists (as anything), and whether the user may read it. */
bool amx_os_exists(const char *path);
bool amx_os_can_read(const char *path);
/* Creates the directories leading to `path` (not path itself), with `mode` for new ones (POSIX
 * permissions; Windows: the user's default). Returns 0 or -errno. */
int amx_mkdir_parents(const char *path, unsigned mode);

/* ---- paths ---- */

/* The absolute canonical path (links resolved, '.' and '..' gone, '/' separators; Windows: the
 * drive letter upper-case, "C:/" for a drive's root). 0 or -errno (the path must exist). */
int amx_os_canonical(const char *path, char *out, size_t size);
/* The current directory, as amx_os_canonical spells paths. */
int amx_os_getcwd(char *out, size_t size);
/* "/x" on POSIX; "C:/x", "C:\x", "//server/share", "\\server\share" on Windows. */
bool amx_os_path_is_absolute(const char *path);
/* Length of the root part of an absolute path: 1 for "/", 3 for "C:/", 0 for a relative one. */
size_t amx_os_path_root_len(const char *path);
/* dir + '/' + name (no doubled '/'; name absolute: name). -ENAMETOOLONG when it does not fit. */
int amx_os_path_join(const char *dir, const char *name, char *out, size_t size);
/* dir + '/' + the entry of `dir` named `name` (n bytes, no separator) as the file system spells
 * it: as written when that exists, else the first entry equal to it without case (as Windows
 * finds a game's files); its status goes to *st. 0, -ENOENT when there is none, or
 * -ENAMETOOLONG. */
int amx_os_path_join_nocase(const char *dir, const char *name, size_t n, char *out, size_t size,
                            amx_os_stat *st);
/* Turns the system's separators into '/' in place (Windows '\'; nothing on POSIX). */
void amx_os_path_normalize(char *path);
/* True when file names of this system compare without case (Windows). */
bool amx_os_names_fold_case(void);
/* The path separator people type on this system, for messages ('/' or '\'). */
char amx_os_separator(void);
/* Writes path as people of this system spell it (Windows: '\') into out. */
const char *amx_os_path_display(const char *path, char *out, size_t size);

/* ---- the process and its environment ---- */

int amx_os_cpu_count(void);
/* An environment variable (UTF-8 on every system), or NULL. The pointer stays valid until
 * the next call for the same name. */
const char *amx_os_getenv(const char *name);
/* Where the user's configuration and state live: XDG_CONFIG_HOME or ~/.config, XDG_STATE_HOME
 * or ~/.local/state, XDG_CACHE_HOME or ~/.cache (POSIX); %APPDATA% for configuration and
 * %LOCALAPPDATA% for state and caches (Windows). 0 or -ENOENT. */
int amx_os_config_dir(char *out, size_t size);
int amx_os_state_dir(char *out, size_t size);
int amx_os_cache_dir(char *out, size_t size);
/* The user's home directory (HOME; Windows: USERPROFILE), for "~/" in the configuration. */
int amx_os_home_dir(char *out, size_t size);
/* The daemon's control socket when the configuration names none: POSIX
 * $XDG_RUNTIME_DIR/animidx/animidxd.sock, else /tmp/animidx-<uid>/animidxd.sock; Windows the
 * named pipe //./pipe/animidx-<user>-<hash of the index's path>: one per user and index. */
int amx_os_default_socket(const char *db, char *out, size_t size);
/* Sets (value NULL: removes) an environment variable of this process; 0 or -errno. */
int amx_os_setenv(const char *name, const char *value);
/* A new directory "<prefix>XXXXXX" (the X's replaced, in place); 0 or -errno. */
int amx_os_mkdtemp(char *templ);
/* The system's directory for temporary files (TMPDIR or /tmp; Windows: GetTempPath). */
int amx_os_temp_dir(char *out, size_t size);
/* Makes a FIFO (tests of what must never block); -ENOSYS where there are none (Windows). */
int amx_os_mkfifo(const char *path);
/* Makes a symbolic link at `path` to `target` (tests of links out of a tree; Windows: to a
 * directory or file as the target is, without elevation where the system allows it). -ENOSYS
 * where the system makes none (wine: CreateSymbolicLinkW says it did and makes nothing). */
int amx_os_symlink(const char *target, const char *path);
/* Sets a file's modification time (nanoseconds since 1970). */
int amx_os_set_mtime(const char *path, int64_t ns);
/* The running program's path (for starting its sibling). */
int amx_os_self_path(char *out, size_t size);
/* A process id, for messages and lock files. */
long amx_os_pid(void);
/* Monotonic and wall clocks, nanoseconds. */
int64_t amx_os_monotonic_ns(void);
int64_t amx_os_wall_ns(void);
/* The program's arguments as UTF-8 (Windows: from the UTF-16 command line; POSIX: as given).
 * Call once at the start of main; may replace *argv. */
void amx_os_args_utf8(int *argc, char ***argv);

/* From amx_os_interrupt_catch to amx_os_interrupt_restore, the first Ctrl-C (POSIX: SIGINT or
 * SIGTERM; Windows: Ctrl-C, Ctrl-Break or the console closing) makes amx_os_interrupted()
 * true, and the next one ends the program at once. */
void amx_os_interrupt_catch(void);
bool amx_os_interrupted(void);
/* True when the interruption came from the terminal (POSIX SIGINT; Windows Ctrl-C or
 * Ctrl-Break): it reached the child processes on the same terminal too. */
bool amx_os_interrupt_from_terminal(void);
void amx_os_interrupt_restore(void);

/* ---- the daemon's needs: one instance, a control endpoint, the background ---- */

/* Takes the lock file `path` (created when missing; never through a link planted at that name:
 * -ELOOP) for this process, without waiting, and
 * writes `text` (the pid, the socket) into it for whoever finds it held: 0; -EWOULDBLOCK when
 * another process holds it (its text goes to held); -errno. Released by amx_os_lock_release
 * or when the process ends. POSIX flock; Windows LockFileEx (on a byte past the text, so the
 * text stays readable). */
typedef struct amx_os_lock amx_os_lock;
int amx_os_lock_take(const char *path, const char *text, amx_os_lock **out, char *held,
                     size_t heldlen);
void amx_os_lock_release(amx_os_lock *l);
/* Whether another process holds the lock file `path` (a daemon still running): 1 held, 0 not
 * (or no such file), -errno. Looks without taking it and without writing. */
int amx_os_lock_held(const char *path);

/* The daemon's control endpoint: a Unix socket path (POSIX), a named pipe //./pipe/NAME
 * (Windows); libuv's uv_pipe_bind takes either as it is. Before binding, prepare: the socket's
 * directory (created, and refused when others may write to it), and a socket left by a daemon
 * that died removed (an endpoint something answers on: an error). */
int amx_os_endpoint_prepare(const char *path, char *err, size_t errlen);
void amx_os_endpoint_remove(const char *path);
/* Sets the file mode creation mask (POSIX umask; nothing on Windows); returns the old one. */
unsigned amx_os_umask(unsigned mask);
/* A client's connection to an endpoint: -ENOENT or -ECONNREFUSED when nothing listens. */
typedef struct amx_os_conn amx_os_conn;
int amx_os_connect(const char *path, amx_os_conn **out);
int amx_os_conn_write(amx_os_conn *c, const void *buf, size_t n);
/* Reads what is there (at least one byte, waiting for it); *got 0: the other end closed. */
int amx_os_conn_read(amx_os_conn *c, void *buf, size_t n, size_t *got);
/* Waits up to `ms` milliseconds for something to read on c (or for the other end to close):
 * 1 when there is, 0 when nothing came, -EINTR when an interruption (amx_os_interrupt_catch)
 * came, -errno. */
int amx_os_conn_wait(amx_os_conn *c, int ms);
void amx_os_conn_close(amx_os_conn *c);

/* Going to the background: this process starts the background one (POSIX: a fork; Windows:
 * the program again, detached, with the same command line) and waits until that one calls
 * amx_os_background_ready (or dies), then exits with its status, printing "started (pid N)" or
 * its error. Returns 0 in the background process (its standard streams on the null device),
 * an exit status when it could not start. `name` prefixes the messages. */
int amx_os_background(const char *name);
void amx_os_background_ready(int code, const char *msg);
/* Tells a service manager the daemon's state (systemd's sd_notify "READY=1", "STOPPING=1";
 * nothing where there is none). */
void amx_os_notify_service(const char *state);
/* Ctrl-Break's signal number for uv_signal (Windows), 0 where there is none; the signal that
 * asks a daemon to reload its configuration (SIGHUP), 0 where there is none (Windows: libuv's
 * SIGHUP is the console closing). */
int amx_os_sigbreak(void);
int amx_os_reload_signal(void);
/* Ignores SIGPIPE (a client that went away is an error of the write, not the end). */
void amx_os_ignore_broken_pipes(void);

/* Runs another program in this one's place: POSIX exec (argv[0] looked up in PATH when it has
 * no '/'); Windows: started with the same console, waited for, and its exit status becomes
 * this one's. Returns only on failure (-errno). */
int amx_os_exec(const char *exe, const char *const *argv);
/* A child process: exe started with argv (exe looked up as amx_os_exec does), its standard
 * output on this one's standard error when out_to_err. 0 or -errno (exe cannot be run). */
typedef struct amx_os_child amx_os_child;
int amx_os_spawn(const char *exe, const char *const *argv, bool out_to_err, amx_os_child **out);
/* Whether the child has ended (waiting for it when `wait`): true, with its exit status in
 * *status (-1 when a signal ended it). */
bool amx_os_child_ended(amx_os_child *c, bool wait, int *status);
/* Asks the child to stop (POSIX: SIGTERM; Windows: it is ended at once). */
void amx_os_child_stop(amx_os_child *c);
/* Forgets the child (it goes on if it has not ended). */
void amx_os_child_free(amx_os_child *c);
/* Sleeps `ms` milliseconds (returning early on a signal). */
void amx_os_sleep_ms(int ms);

/* ".exe" on Windows, "" elsewhere: the file name of a program. */
const char *amx_os_exe_suffix(void);

/* ---- the console ---- */

/* True when the stream is an interactive terminal (Windows: a console; NUL is not one). */
bool amx_os_is_terminal(FILE *f);
/* Prepares the console: UTF-8 output and colour sequences (Windows: the console's virtual
 * terminal mode). Returns true when colour sequences can be shown on stream f. */
bool amx_os_console_colour(FILE *f);

/* ---- what people read: this system's words for paths and ways ---- */

/* For texts only (help, messages, man pages): `posix` on Linux and the BSDs, `windows` on
 * Windows. What the program does never depends on it: that goes through the functions above. */
const char *amx_os_pick(const char *posix, const char *windows);
/* Where the per-user folders are, as people of this system write them (not expanded): POSIX
 * "~/.config", "~/.local/state", "~/.cache" (the XDG defaults); Windows "%APPDATA%",
 * "%LOCALAPPDATA%", "%LOCALAPPDATA%" (amx_os_config_dir, _state_dir, _cache_dir). */
typedef enum { AMX_OS_CONFIG_DIR, AMX_OS_STATE_DIR, AMX_OS_CACHE_DIR } amx_os_user_dir;
const char *amx_os_user_dir_text(amx_os_user_dir which);
/* The environment variables that move those folders: "XDG_CONFIG_HOME, XDG_STATE_HOME,
 * XDG_CACHE_HOME" (POSIX), "APPDATA, LOCALAPPDATA" (Windows). */
const char *amx_os_user_dir_variables(void);

/* ---- dates (portable: no gmtime_r, timegm or strptime) ---- */

/* Seconds since 1970 (UTC) -> "YYYY-MM-DDTHH:MM:SSZ" (size >= 21). */
void amx_time_iso8601(int64_t t, char *out, size_t size);
/* "YYYY-MM-DD" or "YYYY-MM-DD HH:MM:SS" / "...THH:MM:SS" (UTC) -> seconds since 1970; false
 * when it is not one of those. */
bool amx_time_parse(const char *s, int64_t *t);
/* The broken-down UTC time of t. */
typedef struct amx_tm {
    int year, month, day, hour, min, sec; /* month 1-12, day 1-31 */
} amx_tm;
void amx_time_utc(int64_t t, amx_tm *tm);
/* Local time (for what people read: the daemon's log, `animidx daemon status`). */
void amx_time_local(int64_t t, amx_tm *tm);

/* ---- portable string and sort helpers (lib/common/strings.c) ---- */

char *amx_strndup(const char *s, size_t n);
const void *amx_memmem(const void *hay, size_t hlen, const void *needle, size_t nlen);
/* strstr ignoring ASCII case. */
const char *amx_strcasestr(const char *hay, const char *needle);
/* A stable merge sort with a context argument: the same order on every system (qsort's order
 * of equal elements differs between C libraries). */
void amx_sort(void *base, size_t n, size_t size,
              int (*cmp)(const void *a, const void *b, void *ctx), void *ctx);
/* Glob matching of a path ('*' '?' '[...]' '\' escapes; '*' matches '/' too, as fnmatch
 * without FNM_PATHNAME), ASCII case folded when fold_case. */
bool amx_glob_match(const char *glob, const char *s, bool fold_case);

/* A growing string (the JSON writer's and other writers' buffers). */
typedef struct amx_strbuf {
    char *s;
    size_t len, cap;
    bool failed;        /* an allocation failed: what was appended since is lost */
} amx_strbuf;
void amx_strbuf_add(amx_strbuf *b, const char *s, size_t n);
void amx_strbuf_puts(amx_strbuf *b, const char *s);
void amx_strbuf_putc(amx_strbuf *b, char c);
void amx_strbuf_printf(amx_strbuf *b, const char *fmt, ...) AMX_PRINTF(2, 3);
void amx_strbuf_vprintf(amx_strbuf *b, const char *fmt, va_list ap) AMX_PRINTF(2, 0);
/* The string (malloc'd, the caller frees; "" when nothing was added), or NULL when an
 * allocation failed; the buffer is empty again. */
char *amx_strbuf_take(amx_strbuf *b, size_t *len);
void amx_strbuf_free(amx_strbuf *b);

#endif
