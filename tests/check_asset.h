/*
 * Invariants every decoded asset must satisfy, whatever the input (ufbx's check_scene):
 * strings are terminated, arrays match their counts, parents point backwards, samples have
 * exactly `frames` entries, findings have known codes. Touches every byte the asset owns, so
 * ASan sees any bad pointer. Also the mutation loop used by every decoder's tests.
 */
#ifndef AMX_CHECK_ASSET_H
#define AMX_CHECK_ASSET_H

#include "animidx/animidx.h"

/* Returns the number of violated invariants (each printed as a TAP comment). */
int check_asset(const amx_asset *a);

typedef struct mutate_stats {
    size_t decodes;
    size_t statuses[3]; /* by amx_asset_status */
    size_t violations;
} mutate_stats;

/* Decodes every truncation of data and every single-byte patch (0x00, 0xFF, +1) at every
 * offset, stride apart (1 = all offsets), with samples on; checks each result with check_asset.
 * opts may be NULL. */
void mutate_all(const unsigned char *data, size_t len, size_t stride,
                const amx_decode_opts *opts, mutate_stats *st);

#endif
