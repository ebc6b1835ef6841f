/* The commands that drive animidxd, the watcher daemon (cli/cmd_daemon.c). */
#ifndef AMX_CMD_DAEMON_H
#define AMX_CMD_DAEMON_H

#include "cli.h"

/* status / pause / resume / sync: one request over the daemon's socket ([daemon] socket).
 * Exit 0, or 3 when no daemon answers or it reports an error. */
int cmd_status(cli_opts *o, amx_config *cfg);
int cmd_pause(cli_opts *o, amx_config *cfg);
int cmd_resume(cli_opts *o, amx_config *cfg);
int cmd_sync(cli_opts *o, amx_config *cfg);
/* watch DIR...: runs animidxd in the foreground on DIR... (returns only when that fails). */
int cmd_watch(cli_opts *o, amx_config *cfg);

#endif
