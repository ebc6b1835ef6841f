/* The portability layer on POSIX systems (Linux, the BSDs); see animidx/os.h. */
#include "animidx/os.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
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

/* ---- what people read ---- */

const char *amx_os_pick(const char *posix, const char *windows)
{
    (void)windows;
    return posix;
}

const char *amx_os_user_dir_text(amx_os_user_dir which)
{
    return which == AMX_OS_CONFIG_DIR  ? "~/.config"
           : which == AMX_OS_STATE_DIR ? "~/.local/state"
                                       : "~/.cache";
}

const char *amx_os_user_dir_variables(void)
{
    return "XDG_CONFIG_HOME, XDG_STATE_HOME, XDG_CACHE_HOME";
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

int amx_os_setenv(const char *name, const char *value)
{
    int rc = value ? setenv(name, value, 1) : unsetenv(name);
    return rc == 0 ? 0 : -errno;
}

int amx_os_mkdtemp(char *templ)
{
    return mkdtemp(templ) ? 0 : -errno;
}

int amx_os_temp_dir(char *out, size_t size)
{
    const char *t = getenv("TMPDIR");
    int n = snprintf(out, size, "%s", t && t[0] == '/' ? t : "/tmp");
    return n >= 0 && (size_t)n < size ? 0 : -ENAMETOOLONG;
}

int amx_os_mkfifo(const char *path)
{
    return mkfifo(path, 0600) == 0 ? 0 : -errno;
}

int amx_os_symlink(const char *target, const char *path)
{
    return symlink(target, path) == 0 ? 0 : -errno;
}

int amx_os_set_mtime(const char *path, int64_t ns)
{
    struct timespec t[2] = { { .tv_sec = (time_t)(ns / 1000000000), .tv_nsec = (long)(ns % 1000000000) },
                             { .tv_sec = (time_t)(ns / 1000000000), .tv_nsec = (long)(ns % 1000000000) } };
    return utimensat(AT_FDCWD, path, t, 0) == 0 ? 0 : -errno;
}

int amx_os_home_dir(char *out, size_t size)
{
    const char *home = getenv("HOME");
    if (!home || !*home)
        return -ENOENT;
    int n = snprintf(out, size, "%s", home);
    return n >= 0 && (size_t)n < size ? 0 : -ENAMETOOLONG;
}

int amx_os_default_socket(const char *db, char *out, size_t size)
{
    (void)db; /* one socket per user: the lock file beside the index keeps one daemon each */
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

static volatile sig_atomic_t interrupted, from_terminal;
static struct sigaction old_int, old_term;

static void on_interrupt(int sig)
{
    interrupted = 1;
    from_terminal = sig == SIGINT;
    signal(sig, SIG_DFL); /* the next one kills at once */
}

bool amx_os_interrupted(void)
{
    return interrupted != 0;
}

bool amx_os_interrupt_from_terminal(void)
{
    return from_terminal != 0;
}

void amx_os_interrupt_catch(void)
{
    interrupted = from_terminal = 0;
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

/* ---- the daemon's needs ---- */

struct amx_os_lock {
    int fd;
};

int amx_os_lock_held(const char *path)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
    if (fd < 0)
        return errno == ENOENT ? 0 : -errno;
    int rc = 0;
    if (flock(fd, LOCK_SH | LOCK_NB) != 0)
        rc = errno == EWOULDBLOCK ? 1 : -errno;
    close(fd); /* releases the shared lock when it was taken */
    return rc;
}

int amx_os_lock_take(const char *path, const char *text, amx_os_lock **out, char *held,
                     size_t heldlen)
{
    *out = NULL;
    if (heldlen)
        held[0] = '\0';
    int fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600);
    if (fd < 0)
        return -errno;
    if (flock(fd, LOCK_EX | LOCK_NB) != 0) {
        int e = errno == EWOULDBLOCK ? EWOULDBLOCK : errno;
        ssize_t n = heldlen ? pread(fd, held, heldlen - 1, 0) : 0;
        if (heldlen)
            held[n > 0 ? n : 0] = '\0';
        close(fd);
        return -e;
    }
    amx_os_lock *l = malloc(sizeof *l);
    if (!l) {
        close(fd);
        return -ENOMEM;
    }
    l->fd = fd;
    *out = l;
    size_t len = strlen(text);
    if (ftruncate(fd, 0) != 0 || pwrite(fd, text, len, 0) != (ssize_t)len)
        return -errno; /* held all the same; the caller may warn */
    return 0;
}

void amx_os_lock_release(amx_os_lock *l)
{
    if (l) {
        close(l->fd); /* releases the lock; the file stays (removing it would race) */
        free(l);
    }
}

static int unix_address(const char *path, struct sockaddr_un *sa)
{
    *sa = (struct sockaddr_un){ .sun_family = AF_UNIX };
    size_t len = strlen(path);
    if (len >= sizeof sa->sun_path)
        return -ENAMETOOLONG;
    memcpy(sa->sun_path, path, len + 1);
    return 0;
}

int amx_os_endpoint_prepare(const char *path, char *err, size_t errlen)
{
    int rc = amx_mkdir_parents(path, 0700);
    if (rc) {
        snprintf(err, errlen, "%s: cannot create its directory: %s", path, strerror(-rc));
        return -1;
    }
    /* The socket's directory must be ours: in a shared directory such as /tmp, another user
     * could replace the socket. */
    char dir[AMX_PATH_MAX];
    snprintf(dir, sizeof dir, "%s", path);
    char *slash = strrchr(dir, '/');
    if (slash) {
        if (slash == dir)
            slash[1] = '\0';
        else
            *slash = '\0';
        struct stat st;
        if (lstat(dir, &st) != 0) {
            snprintf(err, errlen, "%s: %s", dir, strerror(errno));
            return -1;
        }
        if (!S_ISDIR(st.st_mode) || (st.st_uid != getuid() && st.st_uid != 0) ||
            ((st.st_mode & (S_IWGRP | S_IWOTH)) && !(st.st_mode & S_ISVTX))) {
            snprintf(err, errlen, "%s: the socket's directory must be a directory of this user "
                                  "that others cannot write to; set [daemon] socket elsewhere",
                     dir);
            return -1;
        }
    }
    /* A socket file left by a daemon that died: refused if something still answers on it. */
    struct stat st;
    if (lstat(path, &st) != 0)
        return 0;
    if (!S_ISSOCK(st.st_mode)) {
        snprintf(err, errlen, "%s exists and is not a socket; set [daemon] socket to another "
                              "path", path);
        return -1;
    }
    amx_os_conn *c;
    rc = amx_os_connect(path, &c);
    if (rc == 0) {
        amx_os_conn_close(c);
        snprintf(err, errlen, "another animidxd is already listening on %s ('animidx status' "
                              "shows which); stop it, or set [daemon] socket to another path",
                 path);
        return -1;
    }
    if (rc == -ECONNREFUSED || rc == -ENOENT) {
        unlink(path);
        return 0;
    }
    snprintf(err, errlen, "%s: cannot check the existing socket: %s", path, strerror(-rc));
    return -1;
}

void amx_os_endpoint_remove(const char *path)
{
    unlink(path);
}

unsigned amx_os_umask(unsigned mask)
{
    return (unsigned)umask((mode_t)mask);
}

struct amx_os_conn {
    int fd;
};

int amx_os_connect(const char *path, amx_os_conn **out)
{
    *out = NULL;
    struct sockaddr_un sa;
    int rc = unix_address(path, &sa);
    if (rc)
        return rc;
    int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0)
        return -errno;
    if (connect(fd, (struct sockaddr *)&sa, sizeof sa) != 0) {
        int e = errno;
        close(fd);
        return -e;
    }
    amx_os_conn *c = malloc(sizeof *c);
    if (!c) {
        close(fd);
        return -ENOMEM;
    }
    c->fd = fd;
    *out = c;
    return 0;
}

int amx_os_conn_write(amx_os_conn *c, const void *buf, size_t n)
{
    size_t off = 0;
    while (off < n) {
        ssize_t k = send(c->fd, (const char *)buf + off, n - off, MSG_NOSIGNAL);
        if (k < 0 && errno == EINTR)
            continue;
        if (k < 0)
            return -errno;
        off += (size_t)k;
    }
    return 0;
}

int amx_os_conn_read(amx_os_conn *c, void *buf, size_t n, size_t *got)
{
    for (;;) {
        ssize_t k = recv(c->fd, buf, n, 0);
        if (k < 0 && errno == EINTR)
            continue;
        if (k < 0) {
            *got = 0;
            return -errno;
        }
        *got = (size_t)k;
        return 0;
    }
}

int amx_os_conn_wait(amx_os_conn *c, int ms)
{
    if (interrupted)
        return -EINTR;
    struct pollfd p = { .fd = c->fd, .events = POLLIN };
    int r = poll(&p, 1, ms);
    return r < 0 ? -errno : r > 0;
}

void amx_os_conn_close(amx_os_conn *c)
{
    if (c) {
        close(c->fd);
        free(c);
    }
}

static int ready_fd = -1;

int amx_os_background(const char *name)
{
    int p[2];
    if (pipe(p) != 0) {
        fprintf(stderr, "%s: pipe: %s\n", name, strerror(errno));
        return 3;
    }
    pid_t pid = fork();
    if (pid < 0) {
        fprintf(stderr, "%s: fork: %s\n", name, strerror(errno));
        return 3;
    }
    if (pid > 0) { /* waits until the child listens (or fails) and exits with its status */
        close(p[1]);
        char msg[2048];
        size_t len = 0;
        ssize_t n;
        while (len < sizeof msg - 1 && (n = read(p[0], msg + len, sizeof msg - 1 - len)) != 0) {
            if (n < 0 && errno == EINTR)
                continue;
            if (n < 0)
                break;
            len += (size_t)n;
        }
        msg[len] = '\0';
        close(p[0]);
        if (len == 0) {
            fprintf(stderr, "%s: the daemon died while starting (see its log)\n", name);
            _exit(3);
        }
        int code = msg[0] - '0';
        const char *text = strchr(msg, '\n');
        if (code == 0)
            printf("%s: started (pid %ld)\n", name, (long)pid);
        else
            fprintf(stderr, "%s: %s\n", name, text ? text + 1 : "failed to start");
        fflush(stdout);
        _exit(code);
    }
    close(p[0]);
    setsid();
    int null = open("/dev/null", O_RDWR | O_CLOEXEC);
    if (null >= 0) {
        dup2(null, STDIN_FILENO);
        dup2(null, STDOUT_FILENO);
        dup2(null, STDERR_FILENO);
        if (null > STDERR_FILENO)
            close(null);
    }
    if (chdir("/") != 0)
        return 3;
    ready_fd = p[1];
    return 0;
}

void amx_os_background_ready(int code, const char *msg)
{
    if (ready_fd < 0)
        return;
    char text[2048];
    int n = snprintf(text, sizeof text, "%d\n%s", code, msg ? msg : "");
    if (n > (int)sizeof text - 1)
        n = (int)sizeof text - 1;
    (void)!write(ready_fd, text, (size_t)n);
    close(ready_fd);
    ready_fd = -1;
}

/* sd_notify(3) without libsystemd: one datagram to $NOTIFY_SOCKET. */
void amx_os_notify_service(const char *state)
{
    const char *path = getenv("NOTIFY_SOCKET");
    struct sockaddr_un sa = { .sun_family = AF_UNIX };
    size_t len = path ? strlen(path) : 0;
    if (!path || (path[0] != '/' && path[0] != '@') || len >= sizeof sa.sun_path)
        return;
    memcpy(sa.sun_path, path, len);
    if (path[0] == '@')
        sa.sun_path[0] = '\0';
    int fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
    if (fd < 0)
        return;
    (void)!sendto(fd, state, strlen(state), MSG_NOSIGNAL, (struct sockaddr *)&sa,
                  (socklen_t)(offsetof(struct sockaddr_un, sun_path) + len));
    close(fd);
}

int amx_os_sigbreak(void)
{
    return 0;
}

int amx_os_reload_signal(void)
{
    return SIGHUP;
}

void amx_os_ignore_broken_pipes(void)
{
    signal(SIGPIPE, SIG_IGN);
}

int amx_os_exec(const char *exe, const char *const *argv)
{
    fflush(NULL);
    if (strchr(exe, '/'))
        execv(exe, (char *const *)argv);
    else
        execvp(exe, (char *const *)argv);
    return -errno;
}

struct amx_os_child {
    pid_t pid;
};

extern char **environ;

int amx_os_spawn(const char *exe, const char *const *argv, bool out_to_err, amx_os_child **out)
{
    *out = NULL;
    amx_os_child *c = malloc(sizeof *c);
    if (!c)
        return -ENOMEM;
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    if (out_to_err)
        posix_spawn_file_actions_adddup2(&fa, STDERR_FILENO, STDOUT_FILENO);
    fflush(NULL);
    int rc = strchr(exe, '/') ? posix_spawn(&c->pid, exe, &fa, NULL, (char *const *)argv, environ)
                              : posix_spawnp(&c->pid, exe, &fa, NULL, (char *const *)argv,
                                             environ);
    posix_spawn_file_actions_destroy(&fa);
    if (rc != 0) {
        free(c);
        return -rc;
    }
    *out = c;
    return 0;
}

bool amx_os_child_ended(amx_os_child *c, bool wait, int *status)
{
    int st;
    pid_t r;
    while ((r = waitpid(c->pid, &st, wait ? 0 : WNOHANG)) < 0 && errno == EINTR)
        ;
    if (r != c->pid)
        return false;
    *status = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
    return true;
}

void amx_os_child_stop(amx_os_child *c)
{
    kill(c->pid, SIGTERM);
}

void amx_os_child_free(amx_os_child *c)
{
    free(c);
}

void amx_os_sleep_ms(int ms)
{
    struct timespec t = { ms / 1000, (long)(ms % 1000) * 1000000L };
    nanosleep(&t, NULL);
}

const char *amx_os_exe_suffix(void)
{
    return "";
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
