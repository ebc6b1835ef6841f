/*
 * The Empire at War / Forces of Corruption naming convention by which the engine finds a model's
 * animations (docs/formats/alamo.md, "Animation naming"). For the model it draws, DATA\ART\
 * MODELS\<MODEL>.ALO, the engine tries <MODEL>_<TYPE>_<NN>.ALA in the model's directory for
 * every animation type TYPE of its table and NN = 00, 01, ... until one is missing
 * (PGRender.LoadAnimations in AlamoEngine-Tools/ModVerify, a reimplementation of the engine).
 * Nothing else loads an animation by name, so a clip binds only where this pattern puts it.
 *
 * Read backwards from a clip name, the pattern gives every model that loads it:
 *   <MODEL>_<TYPE>_<NN>, NN digits, TYPE either one of the engine's multi-word types below
 *   (MODEL_TURNL_BEGIN_00 names MODEL) or one word of letters (MODEL_IDLE_00; a word the table
 *   lacks, such as TRANSITION, is accepted: mods for other builds use more types than the
 *   table lists). A remainder of several words that is not in the table (MODEL_snow_idle_00 is
 *   MODEL_snow + idle, never MODEL + snow_idle) and a one-letter one are not types.
 * A name can fit more than one way (X_DEPLOYED_DIE_00 is X + DEPLOYED_DIE and X_DEPLOYED +
 * DIE): the engine loads it for each such model that exists.
 *
 * The table: SupportedModelAnimationTypes.cs in AlamoEngine-Tools/ModVerify
 * (src/PetroglyphTools/PG.StarWarsGame.Engine/Rendering/Animations/), Empire at War's 104 types
 * plus the 15 Forces of Corruption adds; listed whole so `amx_alamo_anim_type_known` can tell a
 * near miss (Attack_Idle for ATTACKIDLE) from a type.
 */
#include "animidx/animidx.h"

#include <ctype.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

static const char *const engine_types[] = {
    /* Empire at War */
    "IDLE", "SPACE_IDLE", "MOVE", "TURNL", "TURNR", "ATTACK", "ATTACKIDLE", "DIE", "ROTATE",
    "SPECIAL_A", "SPECIAL_B", "SPECIAL_C", "TURNL_BEGIN", "TURNL_END", "TURNR_BEGIN",
    "TURNR_END", "MOVESTART", "MOVE_ENDONE", "MOVE_ENDTWO", "MOVE_ENDTHREE", "MOVE_ENDFOUR",
    "TURNL_HALF", "TURNL_QUARTER", "TURNR_HALF", "TURNR_QUARTER", "DEPLOY", "UNDEPLOY",
    "CINEMATIC", "BLOCK_BLASTER", "REDIRECT_BLASTER", "IDLE_BLOCKBLASTER", "FW_ATTACK",
    "FW_DIE", "FTK_ATTACK", "FTK_HOLD", "FTK_RELEASE", "FTK_DIE", "FB_ATTACK", "FB_HOLD",
    "FB_RELEASE", "FL_ATTACK", "FL_DIE", "FORCE_RUN", "LAND", "TAKEOFF", "FLAME_ATTACK",
    "DEMOLITION", "BOMBTOSS", "JUMP", "FLYIDLE", "FLYLAND", "FLYLANDIDLE", "FLYLANDDROP",
    "HC_WIN", "HC_LOSE", "HC_DRAW", "SHIELD_ON", "SHIELD_OFF", "CA_DIE", "DEPLOYED_CA_DIE",
    "DEPLOYED_DIE", "FIRE_MOVE", "FIRE_DIE", "POUND_ATTACK", "EAT_ATTACK", "EATEN_DIE",
    "WALKMOVE", "CROUCHMOVE", "OPEN", "HOLD", "CLOSE", "CROUCHIDLE", "CROUCHTURNL",
    "CROUCHTURNR", "BUILD", "TRANS", "SELF_DESTRUCT", "ATTENTION", "CELEBRATE", "FLINCHL",
    "FLINCHR", "FLINCHF", "FLINCHB", "ATTACKFLINCHL", "ATTACKFLINCHR", "ATTACKFLINCHF",
    "ATTACKFLINCHB", "TALK", "TALKGESTURE", "TALKQUESTION", "HACKING", "REPAIRING", "CHOKE",
    "CHOKEDEATH", "TROOPDROP", "ROPESLIDE", "ROPELAND", "ROPE_DROP", "ROPE_LIFT", "ALARM",
    "WARNING", "CRUSHED", "POWERDOWN", "POWERUP",
    /* Forces of Corruption adds */
    "SPINMOVE", "FORCE_REVEAL_BEGIN", "FORCE_REVEAL_LOOP", "FORCE_REVEAL_END", "SWORD_THROW",
    "SWORD_CONTROL", "SWORD_CATCH", "SWORDSPIN", "CONTAMINATE_ATTACK", "CONTAMINATE_LOOP",
    "CONTAMINATE_RELEASE", "WALK", "PAD_BUILD", "PAD_SELL", "HEAL",
};

#define TYPE_COUNT (sizeof engine_types / sizeof engine_types[0])

bool amx_alamo_anim_type_known(const char *type, size_t len)
{
    for (size_t i = 0; i < TYPE_COUNT; i++)
        if (strlen(engine_types[i]) == len && strncasecmp(engine_types[i], type, len) == 0)
            return true;
    return false;
}

/* Length of the stem without "_<digits>", or 0 when it does not end so. */
static size_t strip_number(const char *stem)
{
    size_t n = strlen(stem), digits = 0;
    while (digits < n && isdigit((unsigned char)stem[n - 1 - digits]))
        digits++;
    if (digits == 0 || digits + 1 >= n || stem[n - 1 - digits] != '_')
        return 0;
    return n - digits - 1;
}

static void put_name(amx_alamo_anim_name *o, const char *stem, size_t model_len, const char *type,
                     size_t type_len)
{
    snprintf(o->model, sizeof o->model, "%.*s", (int)model_len, stem);
    size_t k = type_len < sizeof o->type - 1 ? type_len : sizeof o->type - 1;
    for (size_t i = 0; i < k; i++)
        o->type[i] = (char)toupper((unsigned char)type[i]);
    o->type[k] = '\0';
    o->known_type = amx_alamo_anim_type_known(type, type_len);
}

size_t amx_alamo_anim_names(const char *stem, amx_alamo_anim_name *out, size_t max)
{
    size_t n = strip_number(stem), found = 0;
    if (n == 0)
        return 0;
    /* the engine's multi-word types that end the name */
    for (size_t i = 0; i < TYPE_COUNT && found < max; i++) {
        const char *t = engine_types[i];
        size_t k = strlen(t);
        if (!strchr(t, '_') || k + 2 > n || stem[n - k - 1] != '_' ||
            strncasecmp(stem + n - k, t, k) != 0)
            continue;
        size_t model_len = n - k - 1;
        bool dup = false; /* a type that is the tail of another (CA_DIE of DEPLOYED_CA_DIE) */
        for (size_t j = 0; j < found; j++)
            dup |= strlen(out[j].model) == model_len;
        if (!dup)
            put_name(&out[found++], stem, model_len, stem + n - k, k);
    }
    /* longest type (shortest model) first: T_DEPLOYED_CA_DIE_00 is T's before T_DEPLOYED's */
    for (size_t i = 1; i < found; i++)
        for (size_t j = i; j > 0 && strlen(out[j].model) < strlen(out[j - 1].model); j--) {
            amx_alamo_anim_name t = out[j];
            out[j] = out[j - 1];
            out[j - 1] = t;
        }
    /* one word of letters (two or more: a one-letter remainder such as D in X_D_DIE is a
     * model suffix, never a type) */
    size_t w = n;
    while (w > 0 && isalpha((unsigned char)stem[w - 1]))
        w--;
    if (found < max && n - w >= 2 && w >= 2 && stem[w - 1] == '_')
        put_name(&out[found++], stem, w - 1, stem + w, n - w);
    return found;
}

bool amx_alamo_anim_near_miss(const char *stem, amx_alamo_anim_name *out)
{
    size_t n = strip_number(stem);
    if (n == 0)
        return false;
    /* From the shortest remainder of several words: MODEL_Move_Start_00 -> MODEL, MOVESTART. */
    for (size_t i = n; i-- > 1;) {
        if (stem[i] != '_' || i + 1 >= n)
            continue;
        const char *rest = stem + i + 1;
        size_t len = n - i - 1;
        if (!memchr(rest, '_', len) || amx_alamo_anim_type_known(rest, len))
            continue;
        char joined[64];
        size_t k = 0;
        for (size_t j = 0; j < len && k < sizeof joined - 1; j++)
            if (rest[j] != '_')
                joined[k++] = rest[j];
        if (k > 0 && amx_alamo_anim_type_known(joined, k)) {
            put_name(out, stem, i, joined, k);
            return true;
        }
    }
    return false;
}
