/*
 * A hash for in-memory tables keyed by what comes from outside the program (file names in a
 * watched tree, names read from files): XXH3 with a seed drawn once per process
 * (lib/common/hash.c). A fixed hash lets keys be crafted in advance to share a table's slots,
 * and every look-up then walks them all; with a seed nobody can know, they cannot.
 * The values differ from one process to the next: never store or print them.
 */
#ifndef ANIMIDX_HASH_H
#define ANIMIDX_HASH_H

#include <stddef.h>
#include <stdint.h>

/* The hash of p[0..n). */
uint64_t amx_hash(const void *p, size_t n);

#endif
