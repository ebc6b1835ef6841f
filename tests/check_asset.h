/*
 * Invariants every decoded asset must satisfy, whatever the input (ufbx's check_scene):
 * strings are terminated, arrays match their counts, parents point backwards, samples have
 * exactly `frames` entries, findings have known codes. Touches every byte the asset owns, so
 * ASan sees any bad pointer. Also the mutation loop used by every decoder's tests.
 */
#ifndef AMX_CHECK_ASSET_H
#define AMX_CHECK_ASSET_H

#include "animidx/animidx.h"

#include <stdint.h>

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

/* Finding lookups for decoder tests. offset TEST_ANY_OFFSET matches any offset. */
#define TEST_ANY_OFFSET INT64_MIN
const amx_finding *test_find(const amx_asset *a, amx_code code, int64_t offset);
int test_count_code(const amx_asset *a, amx_code code);
int test_count_severity(const amx_asset *a, amx_severity sev);
/* Prints every finding as a TAP comment (for failure reports). */
void test_print_findings(const amx_asset *a);

#endif
