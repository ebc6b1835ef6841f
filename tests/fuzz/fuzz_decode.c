/*
 * libFuzzer harness for one decoder (FUZZ_FORMAT names it; AMX_FMT_UNKNOWN probes the content).
 * Every decode must return a status, and a successful one must satisfy check_asset.
 *
 *   meson setup build-fuzz -Dfuzzing=true -Db_sanitize=address,undefined -Db_lundef=false \
 *         --native-file tests/fuzz/clang.ini
 *   build-fuzz/tests/fuzz_ala tests/fuzz/dict/alamo.dict -max_total_time=60 CORPUS_DIR
 */
#include "check_asset.h"

#include <stdio.h>
#include <stdlib.h>

#ifndef FUZZ_FORMAT
#define FUZZ_FORMAT AMX_FMT_UNKNOWN
#endif

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* An INI file's #include lines read the input again, under the name written: a name read before
 * (up the chain) is a cycle, others nest to the decoder's limits. */
struct input { const uint8_t *data; size_t size; };

static const uint8_t *read_input_again(void *user, const char *from, const char *path,
                                       size_t max_len, size_t *len, char *resolved, size_t cap)
{
    const struct input *in = user;
    (void)from;
    if (in->size > max_len) {
        *len = SIZE_MAX;
        return NULL;
    }
    snprintf(resolved, cap, "inc/%s", path);
    *len = in->size;
    return in->data;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct input in = { data, size };
    amx_decode_opts opts = { .samples = true, .format = FUZZ_FORMAT, .file_name = "FUZZ_MODEL_IDLE_00",
                             .read_include = read_input_again, .include_user = &in };
    amx_asset *a = NULL;
    if (amx_decode(data, size, &opts, &a) != AMX_OK)
        abort();
    if (check_asset(a) != 0)
        abort();
    amx_asset_free(a);
    return 0;
}
