/* Escaping for the XML and HTML outputs (JUnit, the HTML report) and for SARIF URIs, and the
 * small formatting helpers lint and report share. */
#include "lint.h"

#include "animidx/text.h"

#include <stdio.h>
#include <string.h>
#include <time.h>

void cli_xml_escape(FILE *out, const char *str)
{
    const unsigned char *s = (const unsigned char *)(str ? str : "");
    while (*s) {
        unsigned cp = 0;
        size_t n = amx_utf8_len(s, 4, &cp); /* stops at the NUL, which continues nothing */
        switch (n ? cp : 0xFFFDu) {
        case '&': fputs("&amp;", out); break;
        case '<': fputs("&lt;", out); break;
        case '>': fputs("&gt;", out); break;
        case '"': fputs("&quot;", out); break;
        case '\'': fputs("&#39;", out); break;
        default:
            /* A control character (tab, LF and CR too: one finding is one line in a JUnit
             * viewer and in the report), and a byte that is not UTF-8, are shown as the
             * terminal shows them (\x1B, animidx/text.h); U+FFFE/U+FFFF are not XML. */
            if (!n || amx_text_is_control(cp)) {
                char e[16];
                size_t k = amx_text_escape((const char *)s, n ? n : 1, e);
                fwrite(e, 1, k, out);
            } else if (cp == 0xFFFE || cp == 0xFFFF) {
                fputs("&#xFFFD;", out);
            } else {
                fwrite(s, 1, n, out);
            }
        }
        s += n ? n : 1;
    }
}

void cli_uri_escape(FILE *out, const char *str)
{
    static const char keep[] = "-._~!$&'()*+,;=:@/";
    for (const unsigned char *s = (const unsigned char *)str; *s; s++) {
        unsigned c = *s;
        if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
            (c && strchr(keep, (int)c)))
            fputc((int)c, out);
        else
            fprintf(out, "%%%02X", c);
    }
}

void cli_iso_time(int64_t unix_seconds, char *buf, size_t len)
{
    time_t t = (time_t)unix_seconds;
    struct tm tm;
    if (!gmtime_r(&t, &tm) || !strftime(buf, len, "%Y-%m-%dT%H:%M:%SZ", &tm))
        snprintf(buf, len, "1970-01-01T00:00:00Z");
}

const char *cli_sarif_level(amx_severity sev)
{
    switch (sev) {
    case AMX_SEV_ERROR: return "error";
    case AMX_SEV_WARNING: return "warning";
    case AMX_SEV_INFO: return "note";
    case AMX_SEV_OFF: break;
    }
    return "none";
}
