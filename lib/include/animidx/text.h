/*
 * Text for people: what animidx prints on a terminal, into a pipe or a log is one line per
 * record, whatever the names in it hold (lib/common/text.c).
 *
 * File names, names inside files and messages come from downloaded mods: a name holding "\n"
 * would forge a line in a CI log ("::error ...", "lint: passed"), one holding "\033[2K" or
 * "\033]0;...\a" would be run by a terminal. So every such string is written with its control
 * characters escaped as \xNN: C0 (tab, LF and CR included), DEL, the C1 controls U+0080..U+009F,
 * the line and paragraph separators U+2028/U+2029, and every byte that is not part of valid
 * UTF-8. Everything else (UTF-8 text, backslashes) is written as it is.
 *
 * amx_text_vformat is vsnprintf with that done to every %s argument: the format's own text (its
 * newlines, the colour sequences a program writes itself) passes, the strings it formats are
 * escaped. JSON, SARIF and XML escape control characters by their own rules (json.h).
 */
#ifndef ANIMIDX_TEXT_H
#define ANIMIDX_TEXT_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>

#include "animidx/os.h"

/* The length of the valid UTF-8 sequence at s[0, n) (n >= 1), or 0 when it is not one (a stray
 * continuation byte, an overlong form, a surrogate, a sequence cut by n). The code point goes to
 * *cp when cp is not NULL. */
size_t amx_utf8_len(const unsigned char *s, size_t n, unsigned *cp);

/* True when a[0, na) and b[0, nb) differ, ASCII case aside, by at most one character changed,
 * added or dropped, or two neighbours swapped: a name one typo from another ("did you mean"). */
bool amx_text_one_edit(const char *a, size_t na, const char *b, size_t nb);

/* True when the code point is one amx_text_escape writes as \xNN (C0, DEL, C1, U+2028/9). */
bool amx_text_is_control(unsigned cp);

/* Escapes s[0, n) into out (at least 4 * n bytes; NULL only counts) and returns the bytes
 * written. No NUL is added. */
size_t amx_text_escape(const char *s, size_t n, char *out);

/* vsnprintf (the same conversions, width and precision; a precision on %s counts the bytes read
 * from the argument), with every %s argument escaped as amx_text_escape does, except those for
 * which keep(arg) is true (keep may be NULL): a program's own colour sequences. Returns the
 * length of the whole text, as vsnprintf does; buf gets as much as fits, NUL-terminated. */
int amx_text_vformat(char *buf, size_t len, bool (*keep)(const char *s), const char *fmt,
                     va_list ap);
int amx_text_format(char *buf, size_t len, bool (*keep)(const char *s), const char *fmt, ...)
    AMX_PRINTF(4, 5);

/* A help text or message in this system's words (amx_os_pick), appended to b. The text is
 * copied as it is, except each "{{...}}":
 *   {{POSIX|WINDOWS}}    the words of this system: "{{SIGHUP reloads it|a restart reads it}}"
 *   {{CONFIG/animidx}}   a path: a leading CONFIG, STATE or CACHE is where that per-user folder
 *                        is (amx_os_user_dir_text), and '/' is this system's separator, so
 *                        "~/.config/animidx" or "%APPDATA%\animidx"; "{{./Data}}" is ".\Data"
 *                        on Windows.
 * A "{{" without its "}}" is copied as it is. */
void amx_text_for_system(amx_strbuf *b, const char *text);
/* The same, written to out (help texts); each line after the first indented by `indent`
 * spaces (0: none). */
void amx_text_put_for_system(FILE *out, const char *text, int indent);

#endif
