/* UTF-8, strictly: no overlong forms, no surrogates, nothing past U+10FFFF. */
#ifndef AMX_COMMON_UTF8_H
#define AMX_COMMON_UTF8_H

#include <stddef.h>

/* Length of the valid UTF-8 sequence at s, of which `avail` bytes may be read (a NUL ends a
 * sequence too, so a NUL-terminated string may pass 4), 0 when it is not valid. */
static inline size_t amx__utf8_len(const unsigned char *s, size_t avail)
{
    unsigned c = s[0], min;
    size_t n;
    if (c < 0x80)
        return 1;
    if (c >= 0xC2 && c <= 0xDF)
        n = 2, min = 0x80;
    else if (c >= 0xE0 && c <= 0xEF)
        n = 3, min = 0x800;
    else if (c >= 0xF0 && c <= 0xF4)
        n = 4, min = 0x10000;
    else
        return 0;
    if (n > avail)
        return 0;
    unsigned cp = c & (0x7Fu >> n);
    for (size_t i = 1; i < n; i++) {
        if ((s[i] & 0xC0) != 0x80)
            return 0;
        cp = cp << 6 | (s[i] & 0x3Fu);
    }
    if (cp < min || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF))
        return 0;
    return n;
}

/* Offset of the first byte of [s, s+n) that does not start a valid sequence; n when the whole
 * span is UTF-8. */
static inline size_t amx__utf8_invalid_at(const unsigned char *s, size_t n)
{
    size_t i = 0;
    while (i < n) {
        if (s[i] < 0x80) {
            i++;
            continue;
        }
        size_t k = amx__utf8_len(s + i, n - i);
        if (!k)
            return i;
        i += k;
    }
    return n;
}

#endif
