/*
 * The Empire at War naming convention that binds animations to models (docs/formats/alamo.md,
 * section 8; the engine side: PGRender in AlamoEngine-Tools/ModVerify): the engine loads
 * DATA\ART\MODELS\<MODEL>_<TYPE>_<NN>.ALA for each animation type TYPE and NN = 00, 01, ...
 * Types are mostly one word (IDLE, MOVE, DIE, DEPLOY, FIRE); the few of several words are listed
 * below, so MODEL_SPACE_IDLE_00 names MODEL, not MODEL_SPACE. The index falls back to the longest
 * existing model name that prefixes the clip name (lib/index/link.c), which also covers files
 * outside the convention.
 */
#include "decoder.h"

#include <ctype.h>
#include <strings.h>

static const char *const multi_word_types[] = {
    "SPACE_IDLE", "LAND_IDLE", "ATTACK_IDLE", "MOVE_IDLE", "TURN_LEFT", "TURN_RIGHT",
    "SPECIAL_A", "SPECIAL_B", "SPECIAL_C", "POWER_DOWN", "POWER_UP", "BUILD_IDLE",
    "WALK_IDLE", "CROUCH_IDLE", "FIRE_IDLE", "SPIN_UP", "SPIN_DOWN", "DEPLOYED_IDLE",
};

static bool ends_with_ci(const char *s, size_t n, const char *suffix)
{
    size_t k = strlen(suffix);
    return k <= n && strncasecmp(s + n - k, suffix, k) == 0;
}

bool amx__alamo_clip_model(const char *stem, char *out, size_t outlen)
{
    size_t n = strlen(stem);
    size_t digits = 0;
    while (digits < n && isdigit((unsigned char)stem[n - 1 - digits]))
        digits++;
    if (digits == 0 || digits == n || stem[n - 1 - digits] != '_')
        return false;
    n -= digits + 1; /* drop "_NN" */
    size_t model_len = 0;
    for (size_t i = 0; i < sizeof multi_word_types / sizeof multi_word_types[0]; i++) {
        const char *t = multi_word_types[i];
        size_t k = strlen(t);
        if (ends_with_ci(stem, n, t) && n > k + 1 && stem[n - k - 1] == '_') {
            model_len = n - k - 1;
            break;
        }
    }
    if (model_len == 0) {
        const char *us = NULL;
        for (size_t i = n; i > 0; i--)
            if (stem[i - 1] == '_') {
                us = stem + i - 1;
                break;
            }
        if (!us || us == stem || us == stem + n - 1)
            return false;
        model_len = (size_t)(us - stem);
    }
    if (model_len + 1 > outlen)
        return false;
    memcpy(out, stem, model_len);
    out[model_len] = '\0';
    return true;
}
