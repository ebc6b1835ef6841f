/* The asset arena: one bump allocator per decoded asset, with a byte limit. Freed all at once. */
#include "decoder.h"

#include <stdlib.h>

typedef struct arena_block {
    struct arena_block *next;
    size_t size, used;
    _Alignas(16) unsigned char data[];
} arena_block;

struct amx_arena {
    arena_block *head;
    size_t limit, total;
};

amx_arena *amx__arena_create(size_t limit)
{
    amx_arena *a = calloc(1, sizeof *a);
    if (a)
        a->limit = limit;
    return a;
}

void amx__arena_destroy(amx_arena *a)
{
    if (!a)
        return;
    for (arena_block *b = a->head, *next; b; b = next) {
        next = b->next;
        free(b);
    }
    free(a);
}

size_t amx__arena_used(const amx_arena *a) { return a ? a->total : 0; }

void *amx__arena_alloc(amx_arena *a, size_t size)
{
    size = (size + 15) & ~(size_t)15;
    if (size == 0)
        size = 16;
    if (size > a->limit || a->total > a->limit - size)
        return NULL;
    arena_block *b = a->head;
    if (!b || b->size - b->used < size) {
        size_t cap = size > 16384 ? size : 16384;
        b = malloc(sizeof *b + cap);
        if (!b)
            return NULL;
        b->size = cap;
        b->used = 0;
        b->next = a->head;
        a->head = b;
    }
    void *p = b->data + b->used;
    b->used += size;
    a->total += size;
    memset(p, 0, size);
    return p;
}
