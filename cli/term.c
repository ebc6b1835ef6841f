/* Text output of the command line: one line per record, on a terminal and in a pipe alike.
 *
 * File and member names, names inside files and messages come from downloaded mods: a name
 * holding "\n::error file=...::" would forge a line (a verdict, a GitHub workflow command) in
 * a CI log, one holding "\033]0;...\a" or "\033[2K" would be run by a terminal. Every text the
 * command prints goes through cli_printf/cli_fprintf: the format's own text (its newlines) is
 * written as it is, every %s argument with its control characters escaped as \xNN
 * (animidx/text.h), except the colour sequences of cli_sev_on/cli_color_off, recognised by
 * their address (a name that spells one is escaped like any other). JSON, SARIF, JUnit and
 * the report escape by their formats' rules instead (json.c, escape.c). */
#include "cli.h"

#include "animidx/text.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- colours ---- */

bool cli_use_color;

static const char colour_error[] = "\033[1;31m", colour_warning[] = "\033[33m",
                  colour_info[] = "\033[36m", colour_fixed[] = "\033[32m", colour_off[] = "\033[0m";

const char *cli_sev_on(amx_severity sev)
{
    if (!cli_use_color)
        return "";
    switch (sev) {
    case AMX_SEV_ERROR: return colour_error;
    case AMX_SEV_WARNING: return colour_warning;
    case AMX_SEV_INFO: return colour_info;
    case AMX_SEV_OFF: break;
    }
    return "";
}

size_t cli_sev_slot(amx_severity sev)
{
    return sev <= AMX_SEV_ERROR ? (size_t)sev : (size_t)AMX_SEV_ERROR;
}

void cli_collapsed(const size_t seen[3], size_t shown_max, const char *code)
{
    int kinds = (seen[0] > 0) + (seen[1] > 0) + (seen[2] > 0);
    for (int s = AMX_SEV_ERROR; s >= AMX_SEV_INFO; s--) {
        if (seen[s] <= shown_max)
            continue;
        cli_printf("  ... and %zu more %s", seen[s] - shown_max, code);
        if (kinds > 1)
            cli_printf(" (%s)", amx_severity_name((amx_severity)s));
        cli_printf("\n");
    }
}

const char *cli_s(unsigned long long n)
{
    return n == 1 ? "" : "s";
}

const char *cli_fixed_on(void)
{
    return cli_use_color ? colour_fixed : "";
}

const char *cli_color_off(void)
{
    return cli_use_color ? colour_off : "";
}

/* The command's own colour sequences pass: by address, not by content. */
static bool own_colour(const char *s)
{
    return s == colour_error || s == colour_warning || s == colour_info || s == colour_fixed ||
           s == colour_off;
}

/* ---- printing ---- */

int cli_vfprintf(FILE *out, const char *fmt, va_list ap)
{
    char stack[1024];
    va_list aq;
    va_copy(aq, ap);
    int n = amx_text_vformat(stack, sizeof stack, own_colour, fmt, aq);
    va_end(aq);
    char *text = stack;
    if (n >= (int)sizeof stack) {
        text = malloc((size_t)n + 1);
        if (text)
            amx_text_vformat(text, (size_t)n + 1, own_colour, fmt, ap);
        else
            text = stack; /* out of memory: what fitted */
    }
    size_t len = strlen(text) < (size_t)n ? strlen(text) : (size_t)n;
    size_t put = fwrite(text, 1, len, out);
    if (text != stack)
        free(text);
    return put == len ? n : -1;
}

int cli_fprintf(FILE *out, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = cli_vfprintf(out, fmt, ap);
    va_end(ap);
    return n;
}

int cli_printf(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = cli_vfprintf(stdout, fmt, ap);
    va_end(ap);
    return n;
}

void cli_error(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fputs("animidx: ", stderr);
    cli_vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
}
