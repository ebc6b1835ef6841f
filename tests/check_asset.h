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

/* Decodes p[0, n) with opts (may be NULL) and CHECKs the status (AMX_OK), the asset and
 * check_asset. Returns the asset, or NULL when amx_decode gave none. */
amx_asset *test_decode(const uint8_t *p, size_t n, const amx_decode_opts *opts);

/* CHECKs a finding with this code at this offset (TEST_ANY_OFFSET: anywhere, -1: one without
 * an offset); prints the asset's findings when there is none. Needs test.h. */
#define CHECK_FINDING(a, code, off) \
    do { \
        if (!test_find((a), (code), (int64_t)(off))) { \
            printf("# %s:%d: no %s finding at offset %lld\n", __FILE__, __LINE__, \
                   amx_code_get(code)->name, (long long)(off)); \
            test_print_findings(a); \
            test_failed_checks++; \
        } \
    } while (0)

/* CHECKs a decoded asset with status OK and no findings. */
#define CHECK_CLEAN(a) \
    do { \
        CHECK_EQ((a)->status, AMX_ASSET_OK); \
        if ((a)->finding_count) { \
            CHECK_EQ((a)->finding_count, 0); \
            test_print_findings(a); \
        } \
    } while (0)

#endif
