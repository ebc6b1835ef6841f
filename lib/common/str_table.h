/* An open-addressed table of owned strings, each with an optional owned value (freed with
 * free()): the keys a decoder has seen, its macros and flag sets (format/ini.c), the names a
 * link pass counts (index/bind_alamo_lists.c). Keyed by names read from files, so hashed with the
 * seeded hashes of common/hash.h: a look-up costs the same however many entries there are, and
 * nobody can craft names that share slots. */
#ifndef AMX_COMMON_STR_TABLE_H
#define AMX_COMMON_STR_TABLE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct amx__str_entry {
    char *key;                /* NULL: the slot is empty */
    void *value;              /* owned, may be NULL */
    size_t hash, len;         /* the key's hash and length */
} amx__str_entry;

typedef struct amx__str_table {
    amx__str_entry *e;
    size_t cap, n;            /* cap: 0 or a power of two, at least twice n */
    bool fold;                /* keys compare without case (ASCII) */
} amx__str_table;

/* The entry of the key p[0..n): its slot, or SIZE_MAX when it is not there. */
size_t amx__str_table_find(const amx__str_table *t, const char *p, size_t n);

/* The slot of the key p[0..n) with room made for one more entry: the key's entry (its key set),
 * or the empty slot where amx__str_table_set puts it (the key's hash in *hash: each key is
 * hashed once, and moved without hashing when the table grows). SIZE_MAX when out of memory. */
size_t amx__str_table_seek(amx__str_table *t, const char *p, size_t n, size_t *hash);

/* Puts `key` (n bytes, owned by the table from now on) and `value` in the empty slot i that
 * amx__str_table_seek gave for it. */
void amx__str_table_set(amx__str_table *t, size_t i, char *key, size_t n, size_t hash,
                        void *value);

/* Adds a copy of p[0..n) with `value` unless the key is there: the slot of its entry (*added
 * says whether it is new; a new entry owns `value`, an old one leaves it to the caller), or
 * SIZE_MAX when out of memory (`value` is then the caller's). */
size_t amx__str_table_add(amx__str_table *t, const char *p, size_t n, void *value, bool *added);

/* Empties the table; its memory is kept unless it is much larger than what it held (so that
 * emptying it costs what filling it did). */
void amx__str_table_clear(amx__str_table *t);
void amx__str_table_free(amx__str_table *t);

#endif
