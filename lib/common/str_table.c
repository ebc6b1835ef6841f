/* The table of owned strings of common/str_table.h. */
#include "common/str_table.h"
#include "common/hash.h"
#include "animidx/os.h" /* amx_strndup */

#include <stdlib.h>
#include <string.h>
#include <strings.h>

static size_t hash_of(const amx__str_table *t, const char *p, size_t n)
{
    return (size_t)(t->fold ? amx__hash_upper(p, n) : amx_hash(p, n));
}

/* The slot of the key p[0..n) of hash h, or of the empty slot where it would go (t->cap > 0). */
static size_t slot_of(const amx__str_table *t, const char *p, size_t n, size_t h)
{
    size_t i = h & (t->cap - 1);
    for (; t->e[i].key; i = (i + 1) & (t->cap - 1)) {
        const amx__str_entry *e = &t->e[i];
        if (e->hash == h && e->len == n &&
            (t->fold ? strncasecmp(e->key, p, n) : memcmp(e->key, p, n)) == 0)
            break;
    }
    return i;
}

size_t amx__str_table_find(const amx__str_table *t, const char *p, size_t n)
{
    if (!t->n)
        return SIZE_MAX;
    size_t i = slot_of(t, p, n, hash_of(t, p, n));
    return t->e[i].key ? i : SIZE_MAX;
}

size_t amx__str_table_seek(amx__str_table *t, const char *p, size_t n, size_t *hash)
{
    if ((t->n + 1) * 2 > t->cap) {
        size_t cap = t->cap ? t->cap * 2 : 64;
        amx__str_entry *e = calloc(cap, sizeof *e);
        if (!e)
            return SIZE_MAX;
        for (size_t i = 0; i < t->cap; i++) {
            if (!t->e[i].key)
                continue;
            size_t j = t->e[i].hash & (cap - 1);
            while (e[j].key)
                j = (j + 1) & (cap - 1);
            e[j] = t->e[i];
        }
        free(t->e);
        t->e = e;
        t->cap = cap;
    }
    *hash = hash_of(t, p, n);
    return slot_of(t, p, n, *hash);
}

void amx__str_table_set(amx__str_table *t, size_t i, char *key, size_t n, size_t hash,
                        void *value)
{
    t->e[i] = (amx__str_entry){ .key = key, .value = value, .hash = hash, .len = n };
    t->n++;
}

size_t amx__str_table_add(amx__str_table *t, const char *p, size_t n, void *value, bool *added)
{
    size_t h, i = amx__str_table_seek(t, p, n, &h);
    *added = false;
    if (i == SIZE_MAX || t->e[i].key)
        return i;
    char *key = amx_strndup(p, n);
    if (!key)
        return SIZE_MAX;
    amx__str_table_set(t, i, key, n, h, value);
    *added = true;
    return i;
}

void amx__str_table_clear(amx__str_table *t)
{
    if (t->cap > 64 && t->cap > 8 * t->n) {
        for (size_t i = 0; i < t->cap; i++) {
            free(t->e[i].key);
            free(t->e[i].value);
        }
        free(t->e);
        *t = (amx__str_table){ .fold = t->fold };
        return;
    }
    for (size_t i = 0; i < t->cap && t->n; i++)
        if (t->e[i].key) {
            free(t->e[i].key);
            free(t->e[i].value);
            t->e[i] = (amx__str_entry){ 0 };
            t->n--;
        }
}

void amx__str_table_free(amx__str_table *t)
{
    amx__str_table_clear(t);
    free(t->e);
    *t = (amx__str_table){ 0 };
}
