/* Hashes for the in-memory tables keyed by names read from files (an INI file's keys and
 * macros, a model's sub-objects, a skeleton's bones): XXH3 with a seed drawn once per process.
 * A fixed hash lets names be crafted in advance to share a table's slots, and every look-up
 * then walks them all (quadratic in the names); with a seed nobody can know, they cannot.
 * Nothing the index stores or prints depends on these values. The plain hash is public
 * (animidx/hash.h) for the daemon's table of paths; this header adds the case-folding one. */
#ifndef AMX_COMMON_HASH_H
#define AMX_COMMON_HASH_H

#include "animidx/hash.h" /* amx_hash: the hash of p[0..n) */

/* The hash of p[0..n) with ASCII a-z read as A-Z (names the engines compare without case). */
uint64_t amx__hash_upper(const void *p, size_t n);

#endif
