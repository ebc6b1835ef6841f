/*
 * Helpers shared by the Metroid Prime decoders (lib/format/mp_*.c). Header-only (static
 * inline): the build lists only the format files. The formats: docs/formats/metroid-prime.md.
 *
 * Game detection: none of the MP files carries a game marker. Each decoder computes whether the
 * MP1 and the MP2 layout fit the bytes (structure), and mp_choose_game() turns that, the
 * amx_decode_opts.game hint and the format's fallback heuristic into a game and the way it was
 * chosen (animidx/mp.h amx_mp_game_source).
 */
#ifndef AMX_MP_COMMON_H
#define AMX_MP_COMMON_H

#include "animidx/mp.h"
#include "decoder.h"

#include <stddef.h>

#include <math.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

enum { MP1 = 1, MP2 = 2 };

#define MP_MAX_BONE_ID 100u   /* ids < 100: ANIM v0 has a 100-slot table */
#define MP_PAD_ALIGN 32u      /* PAK resources are padded to 32 bytes */

/* The game asked for by amx_decode_opts.game: MP1, MP2, or 0 (none or not understood). */
static inline int mp_game_hint(const amx_decode_opts *o)
{
    if (!o || !o->game)
        return 0;
    if (strcasecmp(o->game, "mp1") == 0)
        return MP1;
    if (strcasecmp(o->game, "mp2") == 0)
        return MP2;
    return 0;
}

static inline const char *mp_game_name(int game) { return game == MP2 ? "mp2" : "mp1"; }

/* True when [end, len) is nothing or zero padding that ends the data on a 32-byte boundary
 * (a resource taken from a PAK with its padding). end <= len. */
static inline bool mp_is_padding(const uint8_t *data, size_t len, size_t end)
{
    if (end == len)
        return true;
    if (end > len || len - end >= MP_PAD_ALIGN || len % MP_PAD_ALIGN != 0)
        return false;
    for (size_t i = end; i < len; i++)
        if (data[i] != 0)
            return false;
    return true;
}

/* Reports the bytes after the last structure (zero padding to 32 bytes is not reported). */
static inline void mp_check_trailing(amx_dec *d, size_t end, const char *what)
{
    size_t len = d->r.end;
    if (end >= len || mp_is_padding(d->r.base, len, end))
        return;
    amx__finding(d, AMX_C_TRAILING_DATA, (int64_t)end, NULL, "%zu bytes after the %s", len - end,
                 what);
}

/* The asset's amx_mp_info, allocated on first use. NULL when out of memory. */
static inline amx_mp_info *mp_info(amx_dec *d)
{
    if (d->asset->mp)
        return (amx_mp_info *)d->asset->mp;
    amx_mp_info *mp = amx__alloc(d, sizeof *mp);
    if (mp) {
        mp->game_source = AMX_MP_GAME_NONE;
        d->asset->mp = mp;
    }
    return mp;
}

/*
 * Chooses the game of a file: the hint when there is one (a finding when only the other game's
 * layout fits), else the only layout that fits, else `heuristic`. Reports a hint that is not
 * "mp1"/"mp2". Records the choice in the asset's amx_mp_info.
 */
static inline int mp_choose_game(amx_dec *d, bool fits_mp1, bool fits_mp2, int heuristic,
                                 const char *format_name)
{
    int hint = mp_game_hint(d->opts);
    int game;
    amx_mp_game_source src;
    if (d->opts->game && !hint)
        amx__finding(d, AMX_C_BAD_VALUE, -1, NULL,
                     "unknown game setting '%s' (mp1 or mp2) ignored; the game is detected",
                     d->opts->game);
    if (hint) {
        game = hint;
        src = AMX_MP_GAME_HINT;
        bool fits_hint = hint == MP1 ? fits_mp1 : fits_mp2;
        bool fits_other = hint == MP1 ? fits_mp2 : fits_mp1;
        if (!fits_hint && fits_other)
            amx__finding(d, AMX_C_BAD_VALUE, -1, NULL,
                         "the game setting says %s, but the file has the %s layout of %s; "
                         "decoded as %s", mp_game_name(hint), format_name,
                         mp_game_name(hint == MP1 ? MP2 : MP1), mp_game_name(hint));
    } else if (fits_mp1 != fits_mp2) {
        game = fits_mp1 ? MP1 : MP2;
        src = AMX_MP_GAME_STRUCTURE;
    } else {
        game = heuristic;
        src = AMX_MP_GAME_HEURISTIC;
    }
    amx_mp_info *mp = mp_info(d);
    if (mp) {
        mp->game = mp_game_name(game);
        mp->game_source = src;
    }
    return game;
}

/* A float that must be finite and > 0 (intervals). */
static inline bool mp_positive(float v) { return isfinite(v) && v > 0.0f; }

/* Reads a NUL-terminated string; NULL (err latched, cursor at end) when it is not terminated
 * inside the reader. *n gets its length without the NUL. */
static inline const uint8_t *mp_read_cstr(amx_reader *r, size_t *n)
{
    size_t left = amx_reader_left(r);
    const uint8_t *p = amx_reader_peek(r, left);
    /* (the bound tells the optimiser what a reader guarantees: a window fits in memory) */
    const uint8_t *nul = p && left <= PTRDIFF_MAX ? memchr(p, 0, left) : NULL;
    if (!nul) {
        amx_reader_skip(r, left + 1); /* latches err */
        *n = 0;
        return NULL;
    }
    *n = (size_t)(nul - p);
    amx_reader_skip(r, *n + 1);
    return p;
}

/* True when every byte of a name is printable ASCII (the probes' test for names). */
static inline bool mp_printable(const uint8_t *p, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (p[i] < 0x20 || p[i] > 0x7E)
            return false;
    return true;
}

/* A FourCC as text: 4 characters, non-printable ones as '?'. */
static inline void mp_fourcc(uint32_t v, char out[5])
{
    for (int i = 0; i < 4; i++) {
        unsigned c = (v >> (24 - 8 * i)) & 0xFFu;
        out[i] = c >= 0x20 && c <= 0x7E ? (char)c : '?';
    }
    out[4] = '\0';
}

/* A set of 32-bit ids in first-seen order (arena memory): ANCS ANIM ids, PAK asset ids.
 * Open addressing; grows by reallocating from the arena (the old arrays are left behind). */
typedef struct mp_idset {
    uint32_t *ids;   /* in insertion order */
    uint32_t count, cap;
    uint32_t *slots; /* index + 1 into ids, 0 = empty; 2 x cap entries */
} mp_idset;

static inline uint32_t mp_idset_hash(uint32_t id, uint32_t mask)
{
    return (id * 2654435761u) & mask;
}

/* Adds id; returns 1 when added, 0 when already there, -1 when out of memory. */
static inline int mp_idset_add(amx_dec *d, mp_idset *s, uint32_t id)
{
    if (s->cap) {
        uint32_t mask = 2 * s->cap - 1;
        for (uint32_t h = mp_idset_hash(id, mask);; h = (h + 1) & mask) {
            if (!s->slots[h])
                break;
            if (s->ids[s->slots[h] - 1] == id)
                return 0;
        }
    }
    if (s->count == s->cap) {
        uint32_t cap = s->cap ? 2 * s->cap : 32;
        if (cap > (UINT32_MAX >> 2))
            return -1;
        uint32_t *ids = amx__array(d, cap, sizeof *ids);
        uint32_t *slots = amx__array(d, 2 * (size_t)cap, sizeof *slots);
        if (!ids || !slots)
            return -1;
        if (s->count)
            memcpy(ids, s->ids, s->count * sizeof *ids);
        uint32_t mask = 2 * cap - 1;
        for (uint32_t i = 0; i < s->count; i++) {
            uint32_t h = mp_idset_hash(ids[i], mask);
            while (slots[h])
                h = (h + 1) & mask;
            slots[h] = i + 1;
        }
        s->ids = ids;
        s->slots = slots;
        s->cap = cap;
    }
    uint32_t mask = 2 * s->cap - 1;
    uint32_t h = mp_idset_hash(id, mask);
    while (s->slots[h])
        h = (h + 1) & mask;
    s->ids[s->count] = id;
    s->slots[h] = ++s->count;
    return 1;
}

/* Index of id in insertion order, or -1. */
static inline int64_t mp_idset_find(const mp_idset *s, uint32_t id)
{
    if (!s->cap)
        return -1;
    uint32_t mask = 2 * s->cap - 1;
    for (uint32_t h = mp_idset_hash(id, mask); s->slots[h]; h = (h + 1) & mask)
        if (s->ids[s->slots[h] - 1] == id)
            return (int64_t)s->slots[h] - 1;
    return -1;
}

#endif
