/*
 * The Empire at War / Forces of Corruption naming convention by which the engine finds a model's
 * animations (docs/formats/alamo.md, "Animation naming"). For the model it draws, DATA\ART\
 * MODELS\<MODEL>.ALO, the engine tries <MODEL>_<TYPE>_<NN>.ALA in the model's directory for
 * every animation type TYPE of its table and NN = 00, 01, ... (formatted with two digits at
 * least, "D2") until one does not load as an animation (PGRender.LoadAnimations in
 * AlamoEngine-Tools/ModVerify, a reimplementation of the engine). Nothing else loads an
 * animation by name, so a clip binds only where this pattern puts it.
 *
 * Read backwards from a clip name, the pattern gives every model that loads it:
 *   <MODEL>_<TYPE>_<NN>, NN digits, TYPE a type of the game's table, one word (IDLE) or several
 *   (TURNL_BEGIN: MODEL_TURNL_BEGIN_00 names MODEL). A remainder that is not in the table is
 *   never a type (X_TRANSITION_00, Ei_Thrawn_stand_up_00: no model loads them), so a shorter
 *   model that happens to prefix the name is never used.
 * A name can fit more than one way (X_DEPLOYED_DIE_00 is X + DEPLOYED_DIE and X_DEPLOYED +
 * DIE): the engine loads it for each such model that exists. NN spelled otherwise than the
 * engine spells it (X_IDLE_0, X_IDLE_000) is never tried: number_loaded is false.
 *
 * The tables: SupportedModelAnimationTypes.cs in AlamoEngine-Tools/ModVerify
 * (src/PetroglyphTools/PG.StarWarsGame.Engine/Rendering/Animations/, with EawModelAnimationTypes.cs
 * and FocModelAnimationTypes.cs): Empire at War's 104 types (0x00-0x67), and Forces of
 * Corruption's, which are the same 104 and 15 more (0x68-0x76).
 */
#include "animidx/animidx.h"

#include <ctype.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

static const char *const engine_types[] = {
    /* Empire at War (and Forces of Corruption) */
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

enum { EAW_TYPES = 104, FOC_TYPES = sizeof engine_types / sizeof engine_types[0] };
_Static_assert(FOC_TYPES == 119, "Forces of Corruption's table has 119 types");

size_t amx_alamo_anim_types(amx_alamo_game game, const char *const **types)
{
    if (types)
        *types = engine_types;
    return game == AMX_ALAMO_EAW ? EAW_TYPES : FOC_TYPES;
}

bool amx_alamo_game_parse(const char *name, amx_alamo_game *out)
{
    if (!name)
        return false;
    if (strcasecmp(name, "foc") == 0)
        *out = AMX_ALAMO_FOC;
    else if (strcasecmp(name, "eaw") == 0)
        *out = AMX_ALAMO_EAW;
    else
        return false;
    return true;
}

const char *amx_alamo_game_title(amx_alamo_game game)
{
    return game == AMX_ALAMO_EAW ? "Empire at War" : "Forces of Corruption";
}

bool amx_alamo_anim_type_known(amx_alamo_game game, const char *type, size_t len)
{
    size_t n = amx_alamo_anim_types(game, NULL);
    for (size_t i = 0; i < n; i++)
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

/* The number after stem[at] ("_NN"): its value, and whether the engine spells it so (two
 * digits, or more without a leading zero, as .NET's "D2" formats it). */
static void read_number(const char *digits, unsigned *value, bool *loaded)
{
    size_t len = strlen(digits);
    unsigned v = 0;
    bool fits = len <= 9;
    for (size_t i = 0; fits && i < len; i++)
        v = v * 10 + (unsigned)(digits[i] - '0');
    *value = fits ? v : 0;
    *loaded = fits && (len == 2 || (len > 2 && digits[0] != '0'));
}

static void put_name(amx_alamo_anim_name *o, const char *stem, size_t model_len, const char *type,
                     size_t type_len, const char *digits)
{
    snprintf(o->model, sizeof o->model, "%.*s", (int)model_len, stem);
    size_t k = type_len < sizeof o->type - 1 ? type_len : sizeof o->type - 1;
    for (size_t i = 0; i < k; i++)
        o->type[i] = (char)toupper((unsigned char)type[i]);
    o->type[k] = '\0';
    read_number(digits, &o->number, &o->number_loaded);
}

size_t amx_alamo_anim_names(const char *stem, amx_alamo_game game, amx_alamo_anim_name *out,
                            size_t max)
{
    size_t n = strip_number(stem), found = 0;
    if (n == 0)
        return 0;
    size_t types = amx_alamo_anim_types(game, NULL);
    for (size_t i = 0; i < types && found < max; i++) {
        const char *t = engine_types[i];
        size_t k = strlen(t);
        if (k + 2 > n || stem[n - k - 1] != '_' || strncasecmp(stem + n - k, t, k) != 0)
            continue;
        put_name(&out[found++], stem, n - k - 1, stem + n - k, k, stem + n + 1);
    }
    /* longest type (shortest model) first: T_DEPLOYED_CA_DIE_00 is T's before T_DEPLOYED's */
    for (size_t i = 1; i < found; i++)
        for (size_t j = i; j > 0 && strlen(out[j].model) < strlen(out[j - 1].model); j--) {
            amx_alamo_anim_name t = out[j];
            out[j] = out[j - 1];
            out[j - 1] = t;
        }
    return found;
}

bool amx_alamo_anim_near_miss(const char *stem, amx_alamo_game game, amx_alamo_anim_name *out)
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
        if (!memchr(rest, '_', len) || amx_alamo_anim_type_known(game, rest, len))
            continue;
        char joined[64];
        size_t k = 0;
        for (size_t j = 0; j < len && k < sizeof joined - 1; j++)
            if (rest[j] != '_')
                joined[k++] = rest[j];
        if (k > 0 && amx_alamo_anim_type_known(game, joined, k)) {
            put_name(out, stem, i, joined, k, stem + n + 1);
            return true;
        }
    }
    return false;
}
