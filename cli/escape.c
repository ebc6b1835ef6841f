/* Escaping for the XML and HTML outputs (JUnit, the HTML report) and for SARIF URIs, and the
 * small formatting helpers lint and report share. */
#include "lint.h"

#include <stdio.h>
#include <string.h>
#include <time.h>

/* The code point of the valid UTF-8 sequence at s and its length in *n; *n = 0 if invalid. */
static unsigned utf8_decode(const unsigned char *s, size_t *n)
{
    unsigned c = s[0], min;
    if (c < 0x80) {
        *n = 1;
        return c;
    }
    if (c >= 0xC2 && c <= 0xDF) {
        *n = 2;
        min = 0x80;
    } else if (c >= 0xE0 && c <= 0xEF) {
        *n = 3;
        min = 0x800;
    } else if (c >= 0xF0 && c <= 0xF4) {
        *n = 4;
        min = 0x10000;
    } else {
        *n = 0;
        return 0;
    }
    unsigned cp = c & (0x7Fu >> *n);
    for (size_t i = 1; i < *n; i++) {
        if ((s[i] & 0xC0) != 0x80) {
            *n = 0;
            return 0;
        }
        cp = cp << 6 | (s[i] & 0x3Fu);
    }
    if (cp < min || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF))
        *n = 0;
    return cp;
}

void cli_xml_escape(FILE *out, const char *str)
{
    const unsigned char *s = (const unsigned char *)(str ? str : "");
    while (*s) {
        size_t n;
        unsigned cp = utf8_decode(s, &n);
        switch (n ? cp : 0xFFFDu) {
        case '&': fputs("&amp;", out); break;
        case '<': fputs("&lt;", out); break;
        case '>': fputs("&gt;", out); break;
        case '"': fputs("&quot;", out); break;
        case '\'': fputs("&#39;", out); break;
        default:
            /* XML 1.0 allows tab, newline, carriage return, and no other control character. */
            if (!n || (cp < 0x20 && cp != '\t' && cp != '\n' && cp != '\r') || cp == 0x7F ||
                cp == 0xFFFE || cp == 0xFFFF)
                fputs("&#xFFFD;", out);
            else
                fwrite(s, 1, n, out);
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
