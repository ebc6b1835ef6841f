/* The portability layer on POSIX systems (Linux, the BSDs); see animidx/os.h. */
#include "animidx/os.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static void from_stat(const struct stat *s, amx_os_stat *st)
{
    mode_t m = s->st_mode;
    st->kind = S_ISREG(m) ? AMX_OS_FILE : S_ISDIR(m) ? AMX_OS_DIR : S_ISFIFO(m) ? AMX_OS_FIFO
             : S_ISCHR(m) ? AMX_OS_CHARDEV : S_ISBLK(m) ? AMX_OS_BLOCKDEV
             : S_ISSOCK(m) ? AMX_OS_SOCKET : AMX_OS_OTHER;
    st->size = (int64_t)s->st_size;
#if defined(__APPLE__)
    st->mtime_ns = (int64_t)s->st_mtimespec.tv_sec * 1000000000LL + s->st_mtimespec.tv_nsec;
#else
    st->mtime_ns = (int64_t)s->st_mtim.tv_sec * 1000000000LL + s->st_mtim.tv_nsec;
#endif
    st->dev = (uint64_t)s->st_dev;
    st->ino = (uint64_t)s->st_ino;
}

int amx_os_path_stat(const char *path, amx_os_stat *st)
{
    struct stat s;
    if (stat(path, &s) != 0)
        return -errno;
    from_stat(&s, st);
    st->link = false;
    return 0;
}

int amx_os_path_lstat(const char *path, amx_os_stat *st)
{
    struct stat s;
    if (lstat(path, &s) != 0)
        return -errno;
    bool link = S_ISLNK(s.st_mode);
    if (link && stat(path, &s) != 0) {
        *st = (amx_os_stat){ .kind = AMX_OS_OTHER, .link = true };
        return 0;
    }
    from_stat(&s, st);
    st->link = link;
    return 0;
}

/* ---- directories ---- */

struct amx_os_dir {
    DIR *d;
};

int amx_os_dir_open(const char *path, amx_os_dir **out)
{
    *out = NULL;
    DIR *d = opendir(path);
    if (!d)
        return -errno;
    if (access(path, X_OK) != 0) { /* listable, but its entries cannot be looked at */
        int e = errno;
        closedir(d);
        return -e;
    }
    amx_os_dir *h = malloc(sizeof *h);
    if (!h) {
        closedir(d);
        return -ENOMEM;
    }
    h->d = d;
    *out = h;
    return 0;
}

bool amx_os_dir_next(amx_os_dir *h, amx_os_entry *e, int *err)
{
    *err = 0;
    for (;;) {
        errno = 0;
        struct dirent *de = readdir(h->d);
        if (!de) {
            *err = -errno;
            return false;
        }
        if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0)
            continue;
        e->name = de->d_name;
        e->err = 0;
        e->st = (amx_os_stat){ 0 };
        /* Entries are stat'ed relative to the open directory, which spares the kernel a full
         * path resolution per file; the link check only for what is not a regular file. */
        struct stat s;
        int dfd = dirfd(h->d);
        /* a link check only for what the directory does not already say is no link */
        bool maybe_link = de->d_type == DT_LNK || de->d_type == DT_UNKNOWN;
        struct stat ls;
        if (fstatat(dfd, de->d_name, &s, 0) != 0) {
            e->err = -errno;
            e->st.link = maybe_link && fstatat(dfd, de->d_name, &ls, AT_SYMLINK_NOFOLLOW) == 0 &&
                         S_ISLNK(ls.st_mode);
            return true;
        }
        bool link = maybe_link && fstatat(dfd, de->d_name, &ls, AT_SYMLINK_NOFOLLOW) == 0 &&
                    S_ISLNK(ls.st_mode);
        from_stat(&s, &e->st);
        e->st.link = link;
        return true;
    }
}

void amx_os_dir_close(amx_os_dir *h)
{
    if (h) {
        closedir(h->d);
        free(h);
    }
}

/* ---- files ---- */

struct amx_os_file {
    int fd;
};

int amx_os_open_read(const char *path, amx_os_file **out)
{
    *out = NULL;
    int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
    if (fd < 0)
        return -errno;
    struct stat s;
    if (fstat(fd, &s) == 0 && S_ISREG(s.st_mode)) /* reads of a file wait for the disk */
        fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK);
    amx_os_file *f = malloc(sizeof *f);
    if (!f) {
        close(fd);
        return -ENOMEM;
    }
    f->fd = fd;
    *out = f;
    return 0;
}

int amx_os_file_stat(amx_os_file *f, amx_os_stat *st)
{
    struct stat s;
    if (fstat(f->fd, &s) != 0)
        return -errno;
    from_stat(&s, st);
    st->link = false;
    return 0;
}

int amx_os_read(amx_os_file *f, void *buf, size_t want, size_t *got)
{
    size_t off = 0;
    while (off < want) {
        ssize_t n = read(f->fd, (char *)buf + off, want - off);
        if (n < 0) {
            if (errno == EINTR)
                continue;
            *got = off;
            return -errno;
        }
        if (n == 0)
            break;
        off += (size_t)n;
    }
    *got = off;
    return 0;
}

void amx_os_close(amx_os_file *f)
{
    if (f) {
        close(f->fd);
        free(f);
    }
}

FILE *amx_os_fopen(const char *path, const char *mode)
{
    char m[8];
    snprintf(m, sizeof m, "%.4se", mode); /* glibc and the BSDs: 'e' is O_CLOEXEC */
    return fopen(path, m);
}

FILE *amx_os_temp_beside(const char *path, char *tmp, size_t tmplen)
{
    const char *slash = strrchr(path, '/');
    size_t dir = slash ? (size_t)(slash - path) + 1 : 0;
    int n = snprintf(tmp, tmplen, "%.*s.%s.XXXXXX", (int)dir, path, path + dir);
    if (n < 0 || (size_t)n >= tmplen) {
        errno = ENAMETOOLONG;
        return NULL;
    }
    int fd = mkostemp(tmp, O_CLOEXEC);
    if (fd < 0)
        return NULL;
    /* the mode of any new file (mkostemp's is 0600) */
    mode_t mask = umask(0);
    umask(mask);
    FILE *f = fchmod(fd, 0666 & ~mask) == 0 ? fdopen(fd, "wb") : NULL;
    if (!f) {
        int e = errno;
        close(fd);
        unlink(tmp);
        errno = e;
    }
    return f;
}

int amx_os_replace(const char *from, const char *to)
{
    return rename(from, to) == 0 ? 0 : -errno;
}

int amx_os_remove(const char *path)
{
    return remove(path) == 0 ? 0 : -errno;
}

bool amx_os_exists(const char *path)
{
    return access(path, F_OK) == 0;
}

bool amx_os_can_read(const char *path)
{
    return access(path, R_OK) == 0;
}

int amx_mkdir_parents(const char *path, unsigned mode)
{
    char buf[AMX_PATH_MAX];
    if (strlen(path) >= sizeof buf)
        return -ENAMETOOLONG;
    strcpy(buf, path);
    for (char *p = buf + 1; *p; p++) {
        if (*p != '/')
            continue;
        *p = '\0';
        int rc = mkdir(buf, (mode_t)mode);
        *p = '/';
        if (rc != 0 && errno != EEXIST)
            return -errno;
    }
    return 0;
}

/* ---- paths ---- */

int amx_os_canonical(const char *path, char *out, size_t size)
{
    char *real = realpath(path, NULL);
    if (!real)
        return -errno;
    size_t n = strlen(real);
    int rc = 0;
    if (n >= size)
        rc = -ENAMETOOLONG;
    else
        memcpy(out, real, n + 1);
    free(real);
    return rc;
}

int amx_os_getcwd(char *out, size_t size)
{
    return getcwd(out, size) ? 0 : -errno;
}

bool amx_os_path_is_absolute(const char *path)
{
    return path[0] == '/';
}

size_t amx_os_path_root_len(const char *path)
{
    return path[0] == '/' ? 1 : 0;
}

void amx_os_path_normalize(char *path)
{
    (void)path;
}

bool amx_os_names_fold_case(void)
{
    return false;
}

char amx_os_separator(void)
{
    return '/';
}

const char *amx_os_path_display(const char *path, char *out, size_t size)
{
    snprintf(out, size, "%s", path);
    return out;
}

/* ---- the process ---- */

int amx_os_cpu_count(void)
{
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    return n > 0 && n < 256 ? (int)n : 1;
}

const char *amx_os_getenv(const char *name)
{
    return getenv(name);
}

/* An XDG variable holding an absolute directory (others are ignored, as the XDG spec says),
 * else $HOME/fallback. */
static int xdg_dir(const char *var, const char *fallback, char *out, size_t size)
{
    const char *v = getenv(var);
    int n;
    if (v && v[0] == '/') {
        n = snprintf(out, size, "%s", v);
    } else {
        const char *home = getenv("HOME");
        if (!home || !*home)
            return -ENOENT;
        n = snprintf(out, size, "%s/%s", home, fallback);
    }
    return n >= 0 && (size_t)n < size ? 0 : -ENAMETOOLONG;
}

int amx_os_config_dir(char *out, size_t size)
{
    return xdg_dir("XDG_CONFIG_HOME", ".config", out, size);
}

int amx_os_state_dir(char *out, size_t size)
{
    return xdg_dir("XDG_STATE_HOME", ".local/state", out, size);
}

int amx_os_cache_dir(char *out, size_t size)
{
    return xdg_dir("XDG_CACHE_HOME", ".cache", out, size);
}

int amx_os_home_dir(char *out, size_t size)
{
    const char *home = getenv("HOME");
    if (!home || !*home)
        return -ENOENT;
    int n = snprintf(out, size, "%s", home);
    return n >= 0 && (size_t)n < size ? 0 : -ENAMETOOLONG;
}

int amx_os_default_socket(char *out, size_t size)
{
    const char *run = getenv("XDG_RUNTIME_DIR");
    int n;
    if (run && run[0] == '/')
        n = snprintf(out, size, "%s/animidx/animidxd.sock", run);
    else
        n = snprintf(out, size, "/tmp/animidx-%lu/animidxd.sock", (unsigned long)getuid());
    return n >= 0 && (size_t)n < size ? 0 : -ENAMETOOLONG;
}

int amx_os_self_path(char *out, size_t size)
{
    ssize_t n = readlink("/proc/self/exe", out, size - 1);
    if (n < 0)
        return -errno;
    if ((size_t)n >= size - 1)
        return -ENAMETOOLONG;
    out[n] = '\0';
    return 0;
}

long amx_os_pid(void)
{
    return (long)getpid();
}

int64_t amx_os_monotonic_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

int64_t amx_os_wall_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (int64_t)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

void amx_os_args_utf8(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
}

void amx_time_local(int64_t t, amx_tm *tm)
{
    time_t tt = (time_t)t;
    struct tm b;
    if (!localtime_r(&tt, &b)) {
        amx_time_utc(t, tm);
        return;
    }
    *tm = (amx_tm){ b.tm_year + 1900, b.tm_mon + 1, b.tm_mday, b.tm_hour, b.tm_min, b.tm_sec };
}

/* ---- interruptions ---- */

static volatile sig_atomic_t interrupted;
static struct sigaction old_int, old_term;

static void on_interrupt(int sig)
{
    interrupted = 1;
    signal(sig, SIG_DFL); /* the next one kills at once */
}

bool amx_os_interrupted(void)
{
    return interrupted != 0;
}

void amx_os_interrupt_catch(void)
{
    interrupted = 0;
    struct sigaction sa = { .sa_handler = on_interrupt };
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, &old_int);
    sigaction(SIGTERM, &sa, &old_term);
}

void amx_os_interrupt_restore(void)
{
    sigaction(SIGINT, &old_int, NULL);
    sigaction(SIGTERM, &old_term, NULL);
}

/* ---- the console ---- */

/* The descriptor under a stream; stdout may be the command line's filtering stream (no
 * descriptor of its own: cli/term.c), which writes to descriptor 1. */
static int fd_of(FILE *f)
{
    int fd = fileno(f);
    return fd < 0 && f == stdout ? STDOUT_FILENO : fd;
}

bool amx_os_is_terminal(FILE *f)
{
    return isatty(fd_of(f));
}

bool amx_os_console_colour(FILE *f)
{
    return isatty(fd_of(f));
}
