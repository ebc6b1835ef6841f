/* An array that doubles: the one growth rule of the library's growing arrays (a copy per added
 * element would be quadratic). */
#ifndef AMX_COMMON_GROW_H
#define AMX_COMMON_GROW_H

#include <stdbool.h>
#include <stdlib.h>

/* Makes room for element `count` of the array *items of *cap elements of `elem` bytes: doubles
 * it (64 to start) when it is full. False when out of memory (the array is left as it was). */
static inline bool amx__grow(void **items, size_t *cap, size_t count, size_t elem)
{
    if (count < *cap)
        return true;
    size_t c = *cap ? *cap * 2 : 64;
    void *g = realloc(*items, c * elem);
    if (!g)
        return false;
    *items = g;
    *cap = c;
    return true;
}

#endif
