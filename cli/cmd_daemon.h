/* The commands that drive animidxd, the watcher daemon (cli/cmd_daemon.c). */
#ifndef AMX_CMD_DAEMON_H
#define AMX_CMD_DAEMON_H

#include "cli.h"

#include "animidx/os.h"

/* status / pause / resume / sync: one request over the daemon's socket ([daemon] socket).
 * Exit 0, or 3 when no daemon answers or it reports an error. */
int cmd_status(cli_opts *o, amx_config *cfg);
int cmd_pause(cli_opts *o, amx_config *cfg);
int cmd_resume(cli_opts *o, amx_config *cfg);
int cmd_sync(cli_opts *o, amx_config *cfg);
/* stop: asks the daemon to stop and waits until it has (its index closed). Exit 0, or 3 when
 * no daemon answers, or it has not stopped within a minute. */
int cmd_stop(cli_opts *o, amx_config *cfg);
/* watch DIR...: runs animidxd in the foreground on DIR... (returns only when that fails); with
 * --lint, runs it as a child and follows it (cmd_follow.c). */
int cmd_watch(cli_opts *o, amx_config *cfg);

/* Connects to the daemon's socket ([daemon] socket; a named pipe on Windows); NULL with a
 * message (none when `quiet` and no daemon listens there). */
amx_os_conn *cli_daemon_connect(const amx_config *cfg, bool quiet);
/* The daemon's replies are flat JSON objects: the value of a key (NULL when absent), a string
 * value into buf ("" when it is not one), a number (0 when not one), true, and the strings of
 * an array. */
const char *cli_reply_get(const char *json, const char *key);
const char *cli_reply_str(const char *v, char *buf, size_t len);
double cli_reply_num(const char *v);
bool cli_reply_true(const char *v);
void cli_reply_strings(const char *v, void (*fn)(const char *s, void *user), void *user);

/* animidx status --follow and watch --lint (cmd_follow.c): the findings that appear and go
 * after each batch the daemon indexes, counted as lint counts them (--fail-on, the config's
 * severities, --suppressions, --baseline). cli_follow_new checks the options and reads the
 * files they name (EXIT_OK, or the exit status with a message); cli_follow_run follows the
 * daemon (daemon: NULL, or the animidxd watch started; freed too), frees f, and returns lint's
 * exit status for the findings at the end (0 or 1) when stopped by a signal or when the
 * watch's daemon ended well, 3 when the daemon goes away, or the daemon's own failure. */
typedef struct follow follow;
int cli_follow_new(cli_opts *o, amx_config *cfg, follow **out);
int cli_follow_run(follow *f, amx_os_child *daemon);
void cli_follow_free(follow *f);

#endif
