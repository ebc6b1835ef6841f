/* Escaping for the XML and HTML outputs (JUnit, the HTML report) and for SARIF URIs, and the
 * small formatting helpers lint and report share. */
#include "lint.h"

#include "animidx/text.h"

#include <stdio.h>
#include <string.h>
#include <time.h>

/* Writes s[0..n) to a FILE or a buffer. */
static void emit(FILE *out, amx_strbuf *b, const void *s, size_t n)
{
    if (out)
        fwrite(s, 1, n, out);
    else
        amx_strbuf_add(b, s, n);
}

static void xml_escape(FILE *out, amx_strbuf *b, const char *str)
{
    const unsigned char *s = (const unsigned char *)(str ? str : "");
    while (*s) {
        /* the run of plain ASCII that needs no escape, in one write */
        const unsigned char *run = s;
        while (*s >= 0x20 && *s < 0x7F && *s != '&' && *s != '<' && *s != '>' && *s != '"' &&
               *s != '\'')
            s++;
        if (s > run)
            emit(out, b, run, (size_t)(s - run));
        if (!*s)
            break;
        unsigned cp = 0;
        size_t n = amx_utf8_len(s, 4, &cp); /* stops at the NUL, which continues nothing */
        switch (n ? cp : 0xFFFDu) {
        case '&': emit(out, b, "&amp;", 5); break;
        case '<': emit(out, b, "&lt;", 4); break;
        case '>': emit(out, b, "&gt;", 4); break;
        case '"': emit(out, b, "&quot;", 6); break;
        case '\'': emit(out, b, "&#39;", 5); break;
        default:
            /* A control character (tab, LF and CR too: one finding is one line in a JUnit
             * viewer and in the report), and a byte that is not UTF-8, are shown as the
             * terminal shows them (\x1B, animidx/text.h); U+FFFE/U+FFFF are not XML. */
            if (!n || amx_text_is_control(cp)) {
                char e[16];
                size_t k = amx_text_escape((const char *)s, n ? n : 1, e);
                emit(out, b, e, k);
            } else if (cp == 0xFFFE || cp == 0xFFFF) {
                emit(out, b, "&#xFFFD;", 8);
            } else {
                emit(out, b, s, n);
            }
        }
        s += n ? n : 1;
    }
}

void cli_xml_escape(FILE *out, const char *s)
{
    xml_escape(out, NULL, s);
}

void cli_xml_escape_buf(amx_strbuf *b, const char *s)
{
    xml_escape(NULL, b, s);
}

void cli_uri_escape(amx_strbuf *out, const char *str)
{
    static const char keep[] = "-._~!$&'()*+,;=:@/";
    for (const unsigned char *s = (const unsigned char *)str; *s; s++) {
        unsigned c = *s;
        if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
            (c && strchr(keep, (int)c)))
            amx_strbuf_putc(out, (char)c);
        else
            amx_strbuf_printf(out, "%%%02X", c);
    }
}

void cli_file_uri(amx_strbuf *out, const char *abs)
{
    /* file:///C:/x on Windows (the drive is part of the path), file:///x on POSIX,
     * file://server/share for a UNC path */
    amx_strbuf_puts(out, abs[0] == '/' ? "file://" : "file:///");
    cli_uri_escape(out, abs);
}

void cli_iso_time(int64_t unix_seconds, char *buf, size_t len)
{
    amx_time_iso8601(unix_seconds, buf, len);
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
