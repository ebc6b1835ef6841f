/* animidxd logging: one line per event, "2025-01-31T12:00:00.123 animidxd[42] info: ...",
 * the control characters of the names in it escaped (animidx/text.h), to stderr or a file
 * (reopened on SIGHUP, so log rotation works). Thread-safe: the scan job logs from its worker
 * thread. */
#include "daemon.h"

#include "animidx/text.h"

#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

static uv_once_t once = UV_ONCE_INIT;
static uv_mutex_t mu;
static FILE *out;                       /* NULL = stderr */
static atomic_int level = AMX_LOG_INFO;

static void init_mutex(void)
{
    uv_mutex_init(&mu);
}

int amxd_log_open(const char *path, amx_log_level lvl, char *err, size_t errlen)
{
    uv_once(&once, init_mutex);
    FILE *f = NULL;
    if (path) {
        amx_mkdir_parents(path, 0700);
        f = amx_os_fopen(path, "a"); /* each line is flushed as it is written */
        if (!f) {
            snprintf(err, errlen, "%s: cannot open the log file: %s", path, strerror(errno));
            return -1;
        }
    }
    uv_mutex_lock(&mu);
    if (out)
        fclose(out);
    out = f;
    atomic_store(&level, (int)lvl);
    uv_mutex_unlock(&mu);
    return 0;
}

void amxd_log_close(void)
{
    uv_once(&once, init_mutex);
    uv_mutex_lock(&mu);
    if (out)
        fclose(out);
    out = NULL;
    uv_mutex_unlock(&mu);
}

bool amxd_log_enabled(amx_log_level lvl)
{
    return (int)lvl <= atomic_load(&level);
}

void amxd_log(amx_log_level lvl, const char *fmt, ...)
{
    if (!amxd_log_enabled(lvl))
        return;
    uv_once(&once, init_mutex);
    int64_t now = amx_os_wall_ns();
    amx_tm tm;
    amx_time_local(now / 1000000000, &tm);
    char stamp[40];
    snprintf(stamp, sizeof stamp, "%04d-%02d-%02dT%02d:%02d:%02d", tm.year, tm.month, tm.day,
             tm.hour, tm.min, tm.sec);
    /* one line per event: the names in it have their control characters escaped */
    char msg[2048];
    va_list ap;
    va_start(ap, fmt);
    amx_text_vformat(msg, sizeof msg, NULL, fmt, ap);
    va_end(ap);
    uv_mutex_lock(&mu);
    FILE *f = out ? out : stderr;
    fprintf(f, "%s.%03ld animidxd[%ld] %s: %s\n", stamp, (long)(now % 1000000000 / 1000000), amx_os_pid(),
            amx_log_level_name(lvl), msg);
    fflush(f);
    uv_mutex_unlock(&mu);
}

void amxd_eprintf(const char *fmt, ...)
{
    char msg[2048];
    va_list ap;
    va_start(ap, fmt);
    amx_text_vformat(msg, sizeof msg, NULL, fmt, ap);
    va_end(ap);
    fputs(msg, stderr);
}
