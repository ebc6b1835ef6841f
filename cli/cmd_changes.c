/* animidx changes: what the last scan(s) added, changed and removed (the index's scan log). */
#include "cli.h"

#include <stdio.h>

int cmd_changes(cli_opts *o, amx_config *cfg)
{
    (void)o, (void)cfg;
    cli_error("changes: not built yet");
    return EXIT_IO;
}
