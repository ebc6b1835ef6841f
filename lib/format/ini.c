/*
 * SAGE INI (Command & Conquer Generals / Zero Hour, Battle for Middle-earth 1 and 2): the game
 * objects of a file, their draw modules' states with the model each draws (after the default
 * state's inheritance), and every model, animation, bone and sub-object the states name. Layout,
 * rules and sources: docs/formats/sage-ini.md.
 *
 *   Object NAME                      a game object (ObjectReskin NEW OLD, ChildObject NEW PARENT:
 *     Draw = W3DModelDraw TAG        copies of OLD / PARENT, variant_of)
 *       DefaultConditionState        copied into every later state (model, animations, bones)
 *         Model = X                  <X up to its first '.'>.w3d holds a render object X
 *         Animation = H.A            A.w3d holds animation A of hierarchy H
 *         WeaponFireFXBone = PRIMARY Muzzle
 *       End
 *       ConditionState = DAMAGED     AliasConditionState = FLAGS (no End), TransitionState = A B
 *       End
 *     End
 *     Draw = W3DTreeDraw TAG         a model outside any state (W3DPropDraw; BFME W3DFloorDraw)
 *       ModelName = X                as Model = X
 *       TextureName = F.tga          Art/Terrain/F.tga or Art/Textures/F.tga (trees)
 *     End
 *   End
 *
 * The lexer is the engine's (INI.cpp readLine): a line ends at '\n' or after 1028 characters,
 * is cut at the first ';' (and, in the BFME dialect, "//" or "--"), bytes 1..31 are spaces;
 * tokens split on space, tab, CR, LF and '='. Block ends are "End" in any case. BFME adds
 * #define NAME VALUE (global, case-insensitive) and #include "path": a reference, resolved by
 * the link pass; with amx_decode_opts.read_include the text of one inside a block is read in
 * place (a draw module's states kept in a fragment), and of one at the top level its #defines.
 *
 * Reads through the bounds-checked reader (reader.h); nesting, tokens per line, defines, list
 * lengths and references are bounded, and every problem is a finding with the line.
 */
#include "common/grow.h"
#include "common/str_table.h"
#include "decoder.h"
#include "animidx/text.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#define LINE_MAX_CHARS 1028   /* INI_MAX_CHARS_PER_LINE: the engine splits longer lines */
#define MAX_TOKENS 128        /* tokens kept per line (the rest are ignored) */
#define MAX_DEPTH 64          /* nested blocks */
#define MAX_DEFINES 4096
#define MAX_LIST 256          /* animations, bones, sub-objects of one state */
#define SLOTS 3               /* weapon slots: PRIMARY, SECONDARY, TERTIARY */
#define W3D_NAME_CHARS 15     /* a W3D name field holds 16 bytes with its NUL */
#define MAX_INCLUDE_DEPTH 16  /* #include files read in place, one inside another */
#define MAX_INCLUDES_READ 1024 /* #include files read in place by one decode ... */
#define INCLUDE_BYTES_MAX ((uint64_t)4 << 20) /* ... and their bytes together (a real file
                                                * reads a few fragments of a few KB) */
#define MODEL_PICK_BUDGET 4000000 /* BFME animation state x model state flag comparisons a file
                                   * (a real module has tens of each; past it, LIMIT_EXCEEDED) */

typedef struct tok { const char *p; size_t n; } tok;

enum frame_kind { F_OBJECT, F_MODULE, F_DRAW, F_STATE, F_BFME_STATE, F_BFME_ANIM, F_GENERIC,
                  F_FLAT, F_NAMED, F_SCRIPT };

typedef struct frame {
    enum frame_kind kind;
    const char *const *subs;  /* F_NAMED: the blocks nested in it (NULL-terminated) */
    uint32_t line;
    char what[64];            /* for messages: the block's first token */
} frame;

typedef struct named { const char *name; const char *tag; uint32_t line; } named;

enum { WB_FIREFX, WB_RECOIL, WB_MUZZLE, WB_LAUNCH, WB_HIDESHOW, WB_KINDS };
static const char *const weapon_fields[WB_KINDS] = {
    "WeaponFireFXBone", "WeaponRecoilBone", "WeaponMuzzleFlash", "WeaponLaunchBone",
    "WeaponHideShowBone",
};
static const char *const turret_fields[4] = { "Turret", "TurretPitch", "AltTurret",
                                              "AltTurretPitch" };

/* What a state holds: the engine's ModelConditionInfo, the names only. Strings live in the
 * asset's arena, so a copy is a memcpy. */
typedef struct state_data {
    const char *model;        /* NULL: not set; "" None */
    const char *model_tag;    /* its tag (line_tag), NULL: "Model" */
    uint32_t model_line;
    bool anims_copied, got_idle, got_normal, transition_keys;
    int mode_once;            /* 1: ONCE or ONCE_BACKWARDS (the default), 0: another mode */
    named turret[4];
    named weapon[WB_KINDS][SLOTS];
    size_t n_anims, n_particle, n_subobj;
    /* the lists last: a copy or a reset touches only the entries in use */
    named anims[MAX_LIST];
    named particle[MAX_LIST];
    named subobj[MAX_LIST];   /* Show/HideSubObject names */
} state_data;

static void state_reset(state_data *st)
{
    memset(st, 0, offsetof(state_data, anims));
    st->mode_once = 1;
}

static void state_copy(state_data *dst, const state_data *src)
{
    memcpy(dst, src, offsetof(state_data, anims));
    memcpy(dst->anims, src->anims, (src->n_anims < MAX_LIST ? src->n_anims : MAX_LIST) *
                                        sizeof *dst->anims);
    memcpy(dst->particle, src->particle, (src->n_particle < MAX_LIST ? src->n_particle : MAX_LIST) *
                                             sizeof *dst->particle);
    memcpy(dst->subobj, src->subobj, (src->n_subobj < MAX_LIST ? src->n_subobj : MAX_LIST) *
                                         sizeof *dst->subobj);
}


/* The SAGE game a tree is declared for ([root PATH] game = generals | zh: amx_decode_opts.game),
 * or none: then the dialect is told from each file (bfme_dialect) and the engine rules are Zero
 * Hour's, save the top-level words, of which only misspellings of its blocks are judged. */
enum sage_game { SAGE_UNDECLARED, SAGE_GENERALS, SAGE_ZH };

/* A BFME draw module's ModelConditionState (its flags as a flag_set, owned; its Model or NULL),
 * and a name of one of its AnimationStates, checked when the module ends against the model the
 * state's flags select (bfme_anim_model). */
typedef struct bfme_mstate { char *flags; const char *model; } bfme_mstate;
typedef struct bfme_aname {
    amx_ref_kind kind;
    const char *name, *tag;
    uint32_t line;
    int32_t state;            /* the AnimationState's index in states */
    size_t flags;             /* its flags: index in bfme_aflags */
} bfme_aname;

typedef struct ini_state {
    amx_dec *d;
    bool bfme;                /* the BFME dialect: "//" and "--" comments */
    enum sage_game game;
    const bool *seps;         /* the bytes that separate tokens (lex_separates[_generals]) */
    /* the line being read: its tokens point into the file's bytes */
    tok t[MAX_TOKENS];
    size_t nt;
    bool has_eq;
    uint32_t line_no;
    int64_t line_at;          /* byte offset of the line */
    /* blocks */
    frame stack[MAX_DEPTH];
    size_t depth;
    size_t skipped_depth;     /* blocks past MAX_DEPTH (counted, not kept) */
    /* objects and states (malloc'd while parsing; copied to the arena at the end) */
    amx_game_object *objects;
    size_t n_objects, cap_objects;
    amx_ini_state *states;
    size_t n_states, cap_states;
    long object;              /* the object being read, -1 none */
    /* the draw module being read */
    const char *module;
    /* a draw module that names its model outside any state (W3DTreeDraw, W3DPropDraw of Zero
     * Hour; BFME's W3DFloorDraw): its ModelName and (trees) TextureName, the last of each line
     * (INI::parseAsciiString replaces), referenced when the module ends */
    enum { DRAW_STATES, DRAW_TREE, DRAW_PROP, DRAW_FLOOR } draw_kind;
    named model_name, texture_name;
    bool has_default;
    size_t module_states;     /* condition states of the module (not transitions) */
    amx__str_table flag_sets; /* the module's condition flag sets, for duplicates */
    char *ignored_flags;      /* the module's IgnoreConditionStates (a flag_set), or NULL */
    uint32_t ignored_line;
    state_data *def, *cur;    /* the default state; the state being read */
    const char *cur_kind, *cur_flags;
    uint32_t cur_line;
    bool cur_transition;
    const char *bfme_default_model;
    bfme_mstate *bfme_mstates; /* the module's model states, in order */
    size_t n_mstates, cap_mstates;
    char **bfme_aflags;        /* the flags (flag_set, owned) of its animation states */
    size_t n_aflags, cap_aflags;
    bfme_aname *bfme_anames;   /* their animation and particle bone names */
    size_t n_anames, cap_anames;
    char *bfme_cur_flags;      /* the condition flags (flag_set) of the BFME state being read */
    size_t model_pick_left;    /* of MODEL_PICK_BUDGET */
    bool model_pick_over;      /* MODEL_PICK_BUDGET reached (said once) */
    /* references, one per distinct (kind, name, model) in the file */
    amx__str_table seen;
    amx__str_table defines;   /* #define NAME VALUE (fold) */
    bool defines_over_limit;  /* MAX_DEFINES reached (said once) */
    bool continuing;          /* the line read is cut: its rest comes as the next line */
    bool include_in_block;    /* an #include not read inside a block (its text may close it) */
    /* #include files read in place (BFME, inside a block: amx_decode_opts.read_include),
     * innermost last; while one is read, line_no and line_at stay those of the #include line
     * of the decoded file, which the references and findings from inside it point at */
    struct include_frame {
        amx_reader saved;     /* the reader of the file that holds the #include */
        const char *path;     /* the file read (read_include's `resolved`) */
        uint32_t line;        /* the line being read in it */
        size_t depth;         /* the blocks open at the #include: its End of the innermost
                               * ends the file's reading (OpenSAGE ParseBlockContent) */
        bool defines_only;    /* a top-level #include: only its #define lines (the game loads
                               * the file on its own, its macros for all that follows) */
        bool continuing;
    } inc[MAX_INCLUDE_DEPTH];
    size_t inc_depth;
    size_t includes_read;
    uint64_t include_bytes;
    bool include_limit_said;
    const uint8_t *line_p;    /* the start of the line read (its indentation) */
    size_t lookahead_left;    /* bytes body_follows may still read (linear on any input) */
    bool lookahead_said;      /* ... and the LIMIT_EXCEEDED when they ran out */
    tok replace_tag;          /* the tag of the last ReplaceModule line of an object ... */
    uint32_t replace_line;    /* ... and its line (its block's frame has this line) */
    bool oom;
} ini_state;


/* ---- probe ---- */

static bool is_space_byte(uint8_t c) { return c == ' ' || c == '\t' || c == '\r' || c == '\n'; }

/* The top-level blocks of Generals / Zero Hour (INI.cpp theTypeTable) and BFME (OpenSAGE's block
 * parsers) that a file of game data starts with. */
static const char *const first_blocks[] = {
    "AIData", "Animation", "Armor", "AudioEvent", "AudioSettings", "Bridge", "Campaign",
    "ChallengeGenerals", "ChildObject", "CommandButton", "CommandMap", "CommandSet",
    "ControlBarResizer", "ControlBarScheme", "CrateData", "Credits", "DamageFX", "DialogEvent",
    "DrawGroupInfo", "DynamicGameLOD", "EvaEvent", "FXList", "GameData", "HeaderTemplate",
    "InGameUI", "Language", "Locomotor", "LODPreset", "MapCache", "MapData", "MappedImage",
    "MiscAudio", "Mouse", "MouseCursor", "MultiplayerColor", "MultiplayerSettings",
    "MultiplayerStartingMoneyChoice", "MusicTrack", "Object", "ObjectCreationList",
    "ObjectReskin", "OnlineChatColors", "ParticleSystem", "PlayerTemplate", "Rank", "Road",
    "Science", "ShellMenuScheme", "SpecialPower", "StaticGameLOD", "Terrain", "Upgrade", "Video",
    "WaterSet", "WaterTransparency", "Weapon", "Weather", "WebpageURL", "WindowTransition",
    "#define", "#include",
};

/* The top-level blocks of BFME and its sequels that Zero Hour does not have (OpenSAGE's
 * IniParser.BlockParsers.cs; no engine source exists; `RegionCampain` is spelt as the game
 * spells it). A file starting with one is taken when a later line holds End (a plain word such
 * as Fire may begin a text of another kind), or when it is a one-line block (AudioLowMHz). */
static const char *const bfme_blocks[] = {
    "AIBase", "AIDozerAssignment", "AmbientStream", "AnimationSoundClientBehaviorGlobalSetting",
    "AptButtonTooltipMap", "ArmyDefinition", "ArmySummaryDescription", "AudioLOD", "AudioLowMHz",
    "AutoResolveArmor", "AutoResolveBody", "AutoResolveCombatChain", "AutoResolveHandicapLevel",
    "AutoResolveLeadership", "AutoResolveReinforcementSchedule", "AutoResolveWeapon",
    "AwardSystem", "BannerType", "BannerUI", "CloudEffect", "CreateAHeroSystem", "CrowdResponse",
    "EmotionNugget", "EvaEventForwardReference", "ExperienceLevel", "ExperienceScalarTable",
    "FactionVictoryData", "Fire", "FireEffect", "FireLogicSystem", "FontDefaultSettings",
    "FontSubstitution", "FormationAssistant", "FXParticleSystem", "GlowEffect", "HouseColor",
    "InGameNotificationBox", "LargeGroupAudioMap", "LargeGroupAudioUnusedKnownKeys",
    "LinearCampaign", "LivingWorldAITemplate", "LivingWorldAnimObject", "LivingWorldArmyIcon",
    "LivingWorldAutoResolveResourceBonus", "LivingWorldAutoResolveSciencePurchasePointBonus",
    "LivingWorldBuilding", "LivingWorldBuildingIcon", "LivingWorldBuildPlotIcon",
    "LivingWorldCampaign", "LivingWorldMapInfo", "LivingWorldObject", "LivingWorldPlayerArmy",
    "LivingWorldPlayerTemplate", "LivingWorldRegionCampaign", "LivingWorldRegionEffects",
    "LivingWorldSound", "LoadSubsystem", "MeshNameMatches", "MiscEvaData", "MissionObjectiveList",
    "ModifierList", "Multisound", "NewEvaEvent", "Pathfinder", "PlayerAIType",
    "PredefinedEvaEvent", "RegionCampain", "RingEffect", "ScoredKillEvaAnnouncer", "ShadowMap",
    "SkirmishAIData", "SkyboxTextureSet", "StanceTemplate", "StrategicHUD", "StreamedSound",
    "VictorySystemData", "WaterTextureList", "WeatherData",
};

/* The engine's table of top-level blocks (INI.cpp theTypeTable, in its order): Zero Hour's 62,
 * of which Generals has all but the 5 marked zh (EA Generals/Code/.../INI/INI.cpp 84-145,
 * GeneralsMD 84-150). Any other word at the top level stops the game at load (INI::load:
 * "Unknown block", throw INI_UNKNOWN_TOKEN). */
static const struct engine_block { const char *name; bool zh; } engine_blocks[] = {
    { "AIData", 0 }, { "Animation", 0 }, { "Armor", 0 }, { "AudioEvent", 0 },
    { "AudioSettings", 0 }, { "Bridge", 0 }, { "Campaign", 0 }, { "ChallengeGenerals", 1 },
    { "CommandButton", 0 }, { "CommandMap", 0 }, { "CommandSet", 0 }, { "ControlBarScheme", 0 },
    { "ControlBarResizer", 0 }, { "CrateData", 0 }, { "Credits", 0 }, { "WindowTransition", 0 },
    { "DamageFX", 0 }, { "DialogEvent", 0 }, { "DrawGroupInfo", 0 }, { "EvaEvent", 0 },
    { "FXList", 0 }, { "GameData", 0 }, { "InGameUI", 0 }, { "Locomotor", 0 }, { "Language", 0 },
    { "MapCache", 0 }, { "MapData", 0 }, { "MappedImage", 0 }, { "MiscAudio", 0 }, { "Mouse", 0 },
    { "MouseCursor", 0 }, { "MultiplayerColor", 0 }, { "MultiplayerStartingMoneyChoice", 1 },
    { "OnlineChatColors", 0 }, { "MultiplayerSettings", 0 }, { "MusicTrack", 0 }, { "Object", 0 },
    { "ObjectCreationList", 0 }, { "ObjectReskin", 0 }, { "ParticleSystem", 0 },
    { "PlayerTemplate", 0 }, { "Road", 0 }, { "Science", 0 }, { "Rank", 0 }, { "SpecialPower", 0 },
    { "ShellMenuScheme", 0 }, { "Terrain", 0 }, { "Upgrade", 0 }, { "Video", 0 }, { "WaterSet", 0 },
    { "WaterTransparency", 0 }, { "Weather", 1 }, { "Weapon", 0 }, { "WebpageURL", 0 },
    { "HeaderTemplate", 0 }, { "StaticGameLOD", 0 }, { "DynamicGameLOD", 0 }, { "LODPreset", 0 },
    { "BenchProfile", 0 }, { "ReallyLowMHz", 0 }, { "ScriptAction", 1 }, { "ScriptCondition", 1 },
};

/* The game's name for messages. */
static const char *game_title(enum sage_game g)
{
    return g == SAGE_GENERALS ? "Generals" : "Zero Hour";
}

/* The block of the table `t` is (exactly), or NULL. */
static const struct engine_block *engine_block(tok t)
{
    for (size_t k = 0; k < sizeof engine_blocks / sizeof engine_blocks[0]; k++)
        if (strlen(engine_blocks[k].name) == t.n && memcmp(engine_blocks[k].name, t.p, t.n) == 0)
            return &engine_blocks[k];
    return NULL;
}

/* The block of game g (undeclared: Zero Hour) a top-level word that is none misspells (one
 * edit, or case), or NULL. */
static const char *misspelt_block(tok t, enum sage_game g)
{
    for (size_t k = 0; k < sizeof engine_blocks / sizeof engine_blocks[0]; k++) {
        const struct engine_block *b = &engine_blocks[k];
        if ((g != SAGE_GENERALS || !b->zh) &&
            amx_text_one_edit(t.p, t.n, b->name, strlen(b->name)))
            return b->name;
    }
    return NULL;
}

/* Whether [p, p+w) is one of the `n` words of `list`. */
static bool word_in(const char *const *list, size_t n, const uint8_t *p, size_t w)
{
    for (size_t k = 0; k < n; k++)
        if (strlen(list[k]) == w && memcmp(list[k], p, w) == 0)
            return true;
    return false;
}

/* Whether [p, p+w) is a block name of first_blocks. */
static bool first_block(const uint8_t *p, size_t w)
{
    return word_in(first_blocks, sizeof first_blocks / sizeof first_blocks[0], p, w);
}

/* Whether [p, p+w) is a block of the engine's table (Zero Hour's: Generals has fewer). */
static bool engine_block_at(const uint8_t *p, size_t w)
{
    return engine_block((tok){ (const char *)p, w }) != NULL;
}

/* Whether [p, p+w) is a block of BFME that Zero Hour does not have. */
static bool bfme_block(const uint8_t *p, size_t w)
{
    return word_in(bfme_blocks, sizeof bfme_blocks / sizeof bfme_blocks[0], p, w);
}

/* The blocks of one line, without End (Zero Hour: INI.cpp's parsers of these read one value;
 * BFME: OpenSAGE's parse an integer). */
static bool one_line_block(tok t)
{
    static const char *const one_line[] = { "LODPreset", "BenchProfile", "ReallyLowMHz",
                                            "AudioLowMHz" };
    return word_in(one_line, sizeof one_line / sizeof one_line[0], (const uint8_t *)t.p, t.n);
}

/* A word of 4 bytes or more one edit (or only case) from a block of the engine's table: a
 * misspelt first block, which stops the game at load ("Unknown block"), and which the decoder
 * reports (INI_MALFORMED, "did you mean"). */
static bool near_block(const uint8_t *p, size_t w)
{
    if (w < 4)
        return false;
    for (size_t k = 0; k < sizeof engine_blocks / sizeof engine_blocks[0]; k++)
        if (amx_text_one_edit((const char *)p, w, engine_blocks[k].name,
                              strlen(engine_blocks[k].name)))
            return true;
    return false;
}

/* Whether a line of data[0..n) holds the word End alone (any case), as every INI block ends. */
static bool end_line(const uint8_t *data, size_t n)
{
    for (size_t i = 0; i < n;) {
        while (i < n && data[i] != '\n')
            i++;
        while (i < n && is_space_byte(data[i]))
            i++;
        if (n - i >= 3 && strncasecmp((const char *)data + i, "End", 3) == 0 &&
            (n - i == 3 || is_space_byte(data[i + 3]) || data[i + 3] == ';'))
            return true;
    }
    return false;
}

/* The probe's answer, and whether more of the file could change a no: the window ended in
 * the comments before the first word, inside the first word, or before the End line a block
 * needs to be taken. */
enum probe_answer { PROBE_NO, PROBE_YES, PROBE_NO_YET };

/* The window the INI probe looks at (amx_probe_wants_more: what a caller reads to decide). */
#define INI_PROBE_WINDOW AMX_PROBE_TEXT_BYTES

/* A file whose first word is #include or #define (data[0..n): the window from that word on):
 * BFME's when its lines are BFME's #include "PATH" and #define NAME VALUE (and comments) up to
 * a line that starts with a block of the game (`Object`, `GameData`, ...) or to the end of the
 * window. C, C++ and resource scripts start so too, and were taken for INI until 2026-11-28,
 * with an INI_MALFORMED error at their first '}': their other directives (#ifndef, #if,
 * #pragma), `#include <stdio.h>`, braces, or any other line before a block say no. */
static bool hash_first(const uint8_t *data, size_t n)
{
    for (size_t i = 0; i < n;) {
        while (i < n && (data[i] == ' ' || data[i] == '\t' || data[i] == '\r'))
            i++;
        size_t s = i;
        while (i < n && !is_space_byte(data[i]) && data[i] != '=' && data[i] != ';')
            i++;
        size_t w = i - s;
        bool blank = w == 0 || (w >= 2 && ((data[s] == '/' && data[s + 1] == '/') ||
                                           (data[s] == '-' && data[s + 1] == '-')));
        if (!blank && data[s] == '#') {
            if (!(w == 7 && memcmp(data + s, "#define", 7) == 0) &&
                !(w == 8 && memcmp(data + s, "#include", 8) == 0))
                return false; /* #ifndef, #if, #pragma, ...: C's */
            if (w == 8) {
                size_t j = i;
                while (j < n && (data[j] == ' ' || data[j] == '\t'))
                    j++;
                if (j < n && data[j] == '<')
                    return false; /* #include <stdio.h>: BFME quotes its paths */
            }
        } else if (!blank) {
            return first_block(data + s, w) || engine_block_at(data + s, w) ||
                   bfme_block(data + s, w);
        }
        while (i < n && data[i] != '\n')
            i++;
        i++;
    }
    return true;
}

static enum probe_answer ini_probe(const uint8_t *data, size_t len)
{
    if (!data)
        return PROBE_NO;
    /* text: no NUL in what we look at; the first word that is not a comment is a block */
    size_t i = 0, n = len < INI_PROBE_WINDOW ? len : INI_PROBE_WINDOW;
    bool commented_ini = false; /* a comment holds a block name or End: commented-out INI */
    if (n >= 3 && data[0] == 0xEF && data[1] == 0xBB && data[2] == 0xBF)
        i = 3;
    if (memchr(data, 0, n))
        return PROBE_NO;
    while (i < n) {
        while (i < n && is_space_byte(data[i]))
            i++;
        if (i >= n)
            break;
        if (data[i] == ';' || (i + 1 < n && data[i] == '/' && data[i + 1] == '/')) {
            while (i < n && (data[i] == ';' || data[i] == '/' || data[i] == ' ' || data[i] == '\t'))
                i++;
            size_t s = i;
            while (i < n && !is_space_byte(data[i]) && data[i] != '=' && data[i] != ';')
                i++;
            if (first_block(data + s, i - s) || (i - s == 3 && strncasecmp((const char *)data + s,
                                                                           "End", 3) == 0))
                commented_ini = true;
            while (i < n && data[i] != '\n')
                i++;
            continue;
        }
        size_t s = i;
        while (i < n && !is_space_byte(data[i]) && data[i] != '=' && data[i] != ';')
            i++;
        if (i >= n) /* a block name alone is not a file */
            return PROBE_NO_YET;
        tok w = { (const char *)data + s, i - s };
        if (data[s] == '#') /* #include, #define: a BFME file, or C */
            return hash_first(data + s, n - s) ? PROBE_YES : PROBE_NO;
        bool bfme = bfme_block(data + s, i - s);
        if (first_block(data + s, i - s) || engine_block_at(data + s, i - s) ||
            (bfme && one_line_block(w)))
            return PROBE_YES;
        if (bfme || near_block(data + s, i - s)) /* taken with a line End */
            return end_line(data + i, n - i) ? PROBE_YES : PROBE_NO_YET;
        return PROBE_NO;
    }
    /* only comments in what the probe sees (a long header): INI when they hold INI */
    return commented_ini && n >= 1024 ? PROBE_YES : PROBE_NO_YET;
}

bool amx__ini_probe(const uint8_t *data, size_t len)
{
    return ini_probe(data, len) == PROBE_YES;
}

bool amx__ini_probe_wants_more(const uint8_t *data, size_t len)
{
    return len < INI_PROBE_WINDOW && ini_probe(data, len) == PROBE_NO_YET;
}

/* ---- findings and strings ---- */

static void ctx_of(ini_state *s, char *out, size_t n)
{
    char in[300] = "";
    if (s->inc_depth) /* the line's own place, inside the file the #include line reads */
        snprintf(in, sizeof in, " (line %u of the #included %.200s)",
                 (unsigned)s->inc[s->inc_depth - 1].line, s->inc[s->inc_depth - 1].path);
    if (s->object >= 0)
        snprintf(out, n, "%s '%.120s', line %u%s", s->objects[s->object].type,
                 s->objects[s->object].name, (unsigned)s->line_no, in);
    else
        snprintf(out, n, "line %u%s", (unsigned)s->line_no, in);
}

/* INI_MALFORMED at the current line. */
static void malformed(ini_state *s, const char *fmt, ...) AMX_PRINTF(2, 3);
static void malformed(ini_state *s, const char *fmt, ...)
{
    char msg[600], ctx[300];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    ctx_of(s, ctx, sizeof ctx);
    amx__finding(s->d, AMX_C_INI_MALFORMED, s->line_at, ctx, "line %u: %s", (unsigned)s->line_no,
                 msg);
}

/* INI_MALFORMED for a rule of the Zero Hour draw-state grammar (W3DModelDraw.cpp): not judged in
 * a BFME file, whose engine source is not public (OpenSAGE does not enforce these rules). */
static void state_malformed(ini_state *s, const char *fmt, ...) AMX_PRINTF(2, 3);
static void state_malformed(ini_state *s, const char *fmt, ...)
{
    if (s->bfme)
        return;
    char msg[600];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    malformed(s, "%s", msg);
}

static const char *tokdup(ini_state *s, tok t)
{
    return amx__strndup(s->d, (const uint8_t *)t.p, t.n);
}

static bool tok_is(tok t, const char *w)
{
    return strlen(w) == t.n && memcmp(t.p, w, t.n) == 0;
}

static bool tok_is_ci(tok t, const char *w)
{
    return strlen(w) == t.n && strncasecmp(t.p, w, t.n) == 0;
}

/* A name token with #define macros applied (BFME; names compare upper-cased). */
static tok expand(ini_state *s, tok t)
{
    size_t h = amx__str_table_find(&s->defines, t.p, t.n);
    if (h == SIZE_MAX)
        return t;
    return (tok){ s->defines.e[h].value, strlen(s->defines.e[h].value) };
}

/* ---- the lexer ---- */

/* What a byte is to the lexer: part of a token, a separator (space, and bytes 1-31, which the
 * game reads as spaces), '=' (a separator the line's grammar looks at), the start of a comment
 * (';'), or the start of one when doubled in the BFME dialect ("//", "--"). */
enum { LEX_TOKEN, LEX_SPACE, LEX_EQUALS, LEX_COMMENT, LEX_BFME_COMMENT };

static const uint8_t lex_class[256] = {
    [1] = LEX_SPACE, [2] = LEX_SPACE, [3] = LEX_SPACE, [4] = LEX_SPACE, [5] = LEX_SPACE,
    [6] = LEX_SPACE, [7] = LEX_SPACE, [8] = LEX_SPACE, [9] = LEX_SPACE, [10] = LEX_SPACE,
    [11] = LEX_SPACE, [12] = LEX_SPACE, [13] = LEX_SPACE, [14] = LEX_SPACE, [15] = LEX_SPACE,
    [16] = LEX_SPACE, [17] = LEX_SPACE, [18] = LEX_SPACE, [19] = LEX_SPACE, [20] = LEX_SPACE,
    [21] = LEX_SPACE, [22] = LEX_SPACE, [23] = LEX_SPACE, [24] = LEX_SPACE, [25] = LEX_SPACE,
    [26] = LEX_SPACE, [27] = LEX_SPACE, [28] = LEX_SPACE, [29] = LEX_SPACE, [30] = LEX_SPACE,
    [31] = LEX_SPACE, [' '] = LEX_SPACE, ['='] = LEX_EQUALS, [';'] = LEX_COMMENT,
    ['/'] = LEX_BFME_COMMENT, ['-'] = LEX_BFME_COMMENT,
};

/* The separators: LEX_SPACE and LEX_EQUALS bytes. */
static const bool lex_separates[256] = {
    [1] = 1, [2] = 1, [3] = 1, [4] = 1, [5] = 1, [6] = 1, [7] = 1, [8] = 1, [9] = 1, [10] = 1,
    [11] = 1, [12] = 1, [13] = 1, [14] = 1, [15] = 1, [16] = 1, [17] = 1, [18] = 1, [19] = 1,
    [20] = 1, [21] = 1, [22] = 1, [23] = 1, [24] = 1, [25] = 1, [26] = 1, [27] = 1, [28] = 1,
    [29] = 1, [30] = 1, [31] = 1, [' '] = 1, ['='] = 1,
};

/* Generals' separators: its INI::readLine makes a byte a space when isspace() says so (tab,
 * LF, VT, FF, CR; Generals/Code/.../INI/INI.cpp 453-454), where Zero Hour's makes every byte
 * 1-31 one (GeneralsMD INI.cpp 463-464): a control byte 1-8 or 14-31 is part of a Generals
 * token. */
static const bool lex_separates_generals[256] = {
    [9] = 1, [10] = 1, [11] = 1, [12] = 1, [13] = 1, [' '] = 1, ['='] = 1,
};

/* The class of line byte i of n: a BFME comment only where the dialect has them and the byte
 * is doubled, else part of a token. */
static int lex_at(const ini_state *s, const uint8_t *p, size_t i, size_t n)
{
    int c = lex_class[p[i]];
    if (c == LEX_BFME_COMMENT)
        return s->bfme && i + 1 < n && p[i + 1] == p[i] ? LEX_COMMENT : LEX_TOKEN;
    return c;
}

/* Reads the next line and tokenises it in place: the tokens point into the file's bytes, up
 * to the line's comment (what is between them is read with span_dup). False at the end of the
 * file. */
static bool next_line(ini_state *s)
{
    amx_reader *r = &s->d->r;
    if (amx_reader_eof(r))
        return false;
    if (!s->inc_depth)
        s->line_at = (int64_t)amx_reader_tell(r);
    /* the line's bytes: up to '\n' or LINE_MAX_CHARS characters, whichever comes first */
    size_t avail = amx_reader_left(r), want = avail < LINE_MAX_CHARS ? avail : LINE_MAX_CHARS;
    const uint8_t *p = amx_reader_peek(r, want);
    const uint8_t *nl = p ? memchr(p, '\n', want) : NULL;
    size_t len = nl ? (size_t)(nl - p) : want;
    bool ended = nl != NULL;
    amx_reader_skip(r, len + (ended ? 1 : 0));
    s->line_p = p;
    if (s->inc_depth)
        s->inc[s->inc_depth - 1].line++;
    else
        s->line_no++;
    bool continued = s->continuing;
    s->continuing = false;
    if (!ended && len == LINE_MAX_CHARS && !amx_reader_eof(r)) {
        const uint8_t *nx = amx_reader_peek(r, 1);
        s->continuing = nx && *nx != '\n';
        if (s->continuing && !continued) {
            char ctx[300];
            ctx_of(s, ctx, sizeof ctx);
            amx__finding_sev(s->d, AMX_C_BAD_VALUE, AMX_SEV_WARNING, s->line_at, ctx,
                             "line %u is longer than %d characters: the game reads the rest as a "
                             "line of its own", (unsigned)s->line_no, LINE_MAX_CHARS);
        }
    }
    /* the line ends at its comment: the first ';' (memchr), or in BFME also "//" or "--" */
    size_t end = len;
    if (!s->bfme) {
        const uint8_t *semi = p ? memchr(p, ';', len) : NULL;
        if (semi)
            end = (size_t)(semi - p);
    } else {
        for (size_t i = 0; i < len; i++)
            if (lex_at(s, p, i, len) == LEX_COMMENT) {
                end = i;
                break;
            }
    }
    /* tokens: runs of token bytes between separators ('/', '-' before the comment are token
     * bytes) */
    size_t nt = 0; /* (locals: the file's bytes may alias s's fields, to a compiler) */
    bool has_eq = false;
    for (size_t i = 0; i < end;) {
        while (i < end && s->seps[p[i]]) {
            has_eq |= p[i] == '=';
            i++;
        }
        size_t st = i;
        while (i < end && !s->seps[p[i]])
            i++;
        if (i > st && nt < MAX_TOKENS)
            s->t[nt++] = (tok){ (const char *)p + st, i - st };
    }
    s->nt = nt;
    s->has_eq = has_eq;
    return true;
}

/* The line's bytes from token `from` to the end of token `to` as a string, the separators
 * between them as the game reads them (the bytes it makes spaces are spaces), up to a NUL. */
static const char *span_dup(ini_state *s, size_t from, size_t to)
{
    const char *a = s->t[from].p, *b = s->t[to].p + s->t[to].n;
    size_t n = (size_t)(b - a);
    const char *nul = memchr(a, 0, n);
    if (nul)
        n = (size_t)(nul - a);
    char *out = amx__alloc(s->d, n + 1);
    if (!out)
        return "";
    for (size_t i = 0; i < n; i++)
        out[i] = s->seps[(uint8_t)a[i]] && a[i] != '=' ? ' ' : a[i];
    out[n] = '\0';
    return out;
}

/* ---- objects, states, references ---- */

static void add_object(ini_state *s, const char *type, tok name, const tok *parent)
{
    s->object = -1;
    if (!amx__grow((void **)&s->objects, &s->cap_objects, s->n_objects, sizeof *s->objects)) {
        s->oom = true;
        return;
    }
    s->objects[s->n_objects] = (amx_game_object){
        .type = type, .name = tokdup(s, name), .variant_of = parent ? tokdup(s, *parent) : NULL,
        .line = s->line_no };
    s->object = (long)s->n_objects++;
}

/* True the first time `key` is seen in the file. */
static bool first_time(ini_state *s, const char *key)
{
    bool added;
    if (amx__str_table_add(&s->seen, key, strlen(key), NULL, &added) == SIZE_MAX)
        s->oom = true;
    return added;
}

/* `n` bytes at most of `a` (NULL: none), upper-cased, at out; returns the bytes written */
static size_t upper_n(char *out, const char *a, size_t n)
{
    size_t i = 0;
    for (; a && a[i] && i < n; i++)
        out[i] = a[i] >= 'a' && a[i] <= 'z' ? (char)(a[i] - 32) : a[i];
    return i;
}

/* `a` upper-cased into out, a string of at most n - 1 bytes (out may be a) */
static void upper_into(char *out, size_t n, const char *a)
{
    out[upper_n(out, a, n - 1)] = '\0';
}

/* W3D_NAME_TOO_LONG for a name part longer than a W3D name field holds (once per name). */
static bool too_long(ini_state *s, const char *what, const char *name, const char *part,
                     size_t part_len, const char *tag, uint32_t line)
{
    if (part_len <= W3D_NAME_CHARS)
        return false;
    char key[600];
    snprintf(key, sizeof key, "L\x1f%.580s", name);
    upper_into(key, sizeof key, key);
    if (!first_time(s, key))
        return true;
    char ctx[300];
    if (s->object >= 0)
        snprintf(ctx, sizeof ctx, "%s of '%.200s', line %u", tag, s->objects[s->object].name,
                 (unsigned)line);
    else
        snprintf(ctx, sizeof ctx, "%s, line %u", tag, (unsigned)line);
    amx__finding(s->d, AMX_C_W3D_NAME_TOO_LONG, -1, ctx,
                 "line %u: %s '%.200s': '%.*s' has %zu characters, and a W3D name field holds %d, "
                 "so no W3D file can hold it", (unsigned)line, what, name, (int)(part_len > 200 ? 200 : part_len),
                 part, part_len, W3D_NAME_CHARS);
    return true;
}

/* Records a reference of the current object and state, once per (kind, name, model, slot):
 * `slot` is a weapon barrel bone's slot and the slot's barrel bone names (weapon_slot_text),
 * NULL for any other reference. */
static void ref_in(ini_state *s, amx_ref_kind kind, const char *name, const char *tag,
                   uint32_t line, const char *model, const char *slot, int32_t state)
{
    /* "KIND\x1fNAME\x1fMODEL[\x1fSLOT]", upper-cased, each name cut at 580 bytes and the slot
     * at 1200 (built by hand: the decoder makes one per name of every state, a printf each cost
     * a tenth of the decode) */
    char key[2500];
    size_t at = 0;
    char digits[12];
    int nd = 0;
    for (unsigned v = (unsigned)kind; nd == 0 || v; v /= 10)
        digits[nd++] = (char)('0' + v % 10);
    while (nd)
        key[at++] = digits[--nd];
    key[at++] = '\x1f';
    at += upper_n(key + at, name, 580);
    key[at++] = '\x1f';
    at += upper_n(key + at, model, 580);
    if (slot) {
        key[at++] = '\x1f';
        at += upper_n(key + at, slot, 1200);
    }
    key[at] = '\0';
    if (!first_time(s, key))
        return;
    uint32_t before = s->d->asset->ref_count;
    amx__ref(s->d, kind, name, tag, (int32_t)s->object, line, -1);
    if (s->d->asset->ref_count > before) {
        amx_ref *r = &s->d->asset->refs[before];
        r->state = state;
        r->model = model;
        r->slot = slot ? amx__strdup(s->d, slot) : NULL;
    }
}

/* ref_in for the state read last. */
static void ref(ini_state *s, amx_ref_kind kind, const char *name, const char *tag,
                uint32_t line, const char *model, const char *slot)
{
    ref_in(s, kind, name, tag, line, model, slot, s->n_states ? (int32_t)s->n_states - 1 : -1);
}

/* "SLOT NAME..." of weapon slot w of a state: the slot and the names of its barrel bones
 * (WeaponFireFXBone, WeaponRecoilBone, WeaponMuzzleFlash, WeaponLaunchBone, in that order, those
 * set), each cut at 280 bytes. The engine looks them up together (W3DModelDraw.cpp,
 * validateWeaponBarrelInfo): NAME01, NAME02, ... for as long as one of them is found, and the
 * plain names only when none has a NAME01. Tokens hold no space, so the text splits back. */
static void weapon_slot_text(const state_data *st, int w, char *out, size_t n)
{
    static const char *const slots[SLOTS] = { "PRIMARY", "SECONDARY", "TERTIARY" };
    /* by hand, not snprintf: a state's three slots cost 40 M instructions a Zero Hour mod so */
    size_t at = strlen(slots[w]);
    memcpy(out, slots[w], at + 1);
    for (int k = 0; k < WB_HIDESHOW; k++) {
        const char *name = st->weapon[k][w].name;
        size_t len = name ? strnlen(name, 280) : 0;
        if (!name || at + 1 + len + 1 > n)
            continue;
        out[at++] = ' ';
        memcpy(out + at, name, len);
        at += len;
        out[at] = '\0';
    }
}

static bool is_none(const char *n) { return strcasecmp(n, "None") == 0; }

/* A W3D render object a field names (WW3DAssetManager::Create_Render_Obj): <HLOD> or
 * <container>.<mesh>, each part a W3D name (W3D_NAME_TOO_LONG, and no reference, past 15
 * characters). False when it is too long. */
static bool w3d_model_ref(ini_state *s, const char *model, const char *tag, uint32_t line,
                          int32_t state)
{
    const char *dot = strchr(model, '.');
    size_t first = dot ? (size_t)(dot - model) : strlen(model);
    if (too_long(s, "model", model, model, first, tag, line) ||
        (dot && too_long(s, "model", model, dot + 1, strlen(dot + 1), tag, line)))
        return false;
    ref_in(s, AMX_REF_W3D_MODEL, model, tag, line, NULL, NULL, state);
    return true;
}

/* An animation's name, HIERARCHY.NAME (BFME also writes NAME alone: the file NAME.w3d, whose
 * animation NAME is played, as retail BFME 2 names GUAragorn_IDLE beside
 * GUAragorn_SKL.GUAragorn_IDLE): true, and W3D_NAME_TOO_LONG, when a part is longer than a W3D
 * name holds. */
static bool anim_name_too_long(ini_state *s, const named *a)
{
    const char *dot = strchr(a->name, '.');
    if (!dot)
        return too_long(s, "animation", a->name, a->name, strlen(a->name), a->tag, a->line);
    return too_long(s, "animation", a->name, a->name, (size_t)(dot - a->name), a->tag, a->line) ||
           too_long(s, "animation", a->name, dot + 1, strlen(dot + 1), a->tag, a->line);
}

/* The references of a finished state, against the model it draws. */
static void state_refs(ini_state *s, const state_data *st)
{
    const char *model = st->model && !is_none(st->model) ? st->model : "";
    bool model_ok = model[0] != '\0' &&
                    w3d_model_ref(s, model, st->model_tag ? st->model_tag : "Model", st->model_line,
                                  s->n_states ? (int32_t)s->n_states - 1 : -1);
    /* (a count past MAX_LIST says that the rest were dropped: LIMIT_EXCEEDED) */
    for (size_t i = 0; i < st->n_anims && i < MAX_LIST; i++) {
        const named *a = &st->anims[i];
        const char *dot = strchr(a->name, '.');
        if (!dot && !s->bfme) {
            char key[600];
            snprintf(key, sizeof key, "D\x1f%.580s", a->name);
            upper_into(key, sizeof key, key);
            if (first_time(s, key)) {
                char ctx[300];
                snprintf(ctx, sizeof ctx, "%s of '%.200s', line %u", a->tag,
                         s->object >= 0 ? s->objects[s->object].name : "", (unsigned)a->line);
                amx__finding_sev(s->d, AMX_C_BAD_VALUE, AMX_SEV_WARNING, -1, ctx,
                                 "line %u: animation '%.200s' has no '.': the engine looks "
                                 "animations up as HIERARCHY.NAME and finds nothing",
                                 (unsigned)a->line, a->name);
            }
            continue;
        }
        if (anim_name_too_long(s, a))
            continue;
        ref(s, AMX_REF_W3D_ANIMATION, a->name, a->tag, a->line, model_ok ? model : NULL, NULL);
    }
    if (!model_ok)
        return;
    for (int k = 0; k < 4; k++)
        if (st->turret[k].name)
            ref(s, AMX_REF_BONE, st->turret[k].name, st->turret[k].tag, st->turret[k].line, model,
                NULL);
    for (int w = 0; w < SLOTS; w++) {
        char slot[1200];
        bool any = false;
        for (int k = 0; k < WB_KINDS; k++)
            any |= st->weapon[k][w].name != NULL;
        if (!any)
            continue;
        weapon_slot_text(st, w, slot, sizeof slot);
        for (int k = 0; k < WB_KINDS; k++)
            if (st->weapon[k][w].name)
                ref(s, AMX_REF_BONE, st->weapon[k][w].name, st->weapon[k][w].tag,
                    st->weapon[k][w].line, model, k == WB_HIDESHOW ? NULL : slot);
    }
    for (size_t i = 0; i < st->n_particle && i < MAX_LIST; i++)
        ref(s, AMX_REF_PARTICLE_BONE, st->particle[i].name, st->particle[i].tag,
            st->particle[i].line, model, NULL);
    for (size_t i = 0; i < st->n_subobj && i < MAX_LIST; i++)
        ref(s, AMX_REF_SUB_OBJECT, st->subobj[i].name, st->subobj[i].tag, st->subobj[i].line,
            model, NULL);
}

static void push_state(ini_state *s, const char *kind, const char *flags, const char *model,
                       uint32_t line)
{
    if (!amx__grow((void **)&s->states, &s->cap_states, s->n_states, sizeof *s->states)) {
        s->oom = true;
        return;
    }
    s->states[s->n_states++] = (amx_ini_state){
        .object = (int32_t)s->object, .module = s->module ? s->module : "", .kind = kind,
        .flags = flags ? flags : "", .model = model && !is_none(model) ? model : "", .line = line };
}

/* The condition flags of a state: upper-cased, sorted, each once ("NONE" is no flag), joined
 * with spaces: two states with the same set have the same string. */
static char *flag_set(ini_state *s, size_t from)
{
    char *words[MAX_TOKENS];
    size_t n = 0;
    for (size_t i = from; i < s->nt; i++) {
        if (tok_is_ci(s->t[i], "NONE"))
            continue;
        char *w = malloc(s->t[i].n + 1);
        if (!w) {
            s->oom = true;
            break;
        }
        for (size_t k = 0; k < s->t[i].n; k++)
            w[k] = s->t[i].p[k] >= 'a' && s->t[i].p[k] <= 'z' ? (char)(s->t[i].p[k] - 32)
                                                              : s->t[i].p[k];
        w[s->t[i].n] = '\0';
        size_t at = n;
        bool dup = false;
        for (size_t k = 0; k < n; k++) {
            int c = strcmp(w, words[k]);
            if (c == 0) {
                dup = true;
                break;
            }
            if (c < 0 && at == n)
                at = k;
        }
        if (dup) {
            free(w);
            continue;
        }
        memmove(words + at + 1, words + at, (n - at) * sizeof *words);
        words[at] = w;
        n++;
    }
    size_t len = 1;
    for (size_t k = 0; k < n; k++)
        len += strlen(words[k]) + 1;
    char *out = malloc(len);
    if (out) {
        out[0] = '\0';
        for (size_t k = 0; k < n; k++) {
            strcat(out, words[k]);
            if (k + 1 < n)
                strcat(out, " ");
        }
    } else {
        s->oom = true;
    }
    for (size_t k = 0; k < n; k++)
        free(words[k]);
    return out;
}

/* The first flag of `set` that the module's IgnoreConditionStates names, as a length (0: none),
 * at *at. Both are flag_set strings: sorted words, one space between. */
static size_t ignored_flag(const ini_state *s, const char *set, const char **at)
{
    const char *a = set, *b = s->ignored_flags;
    while (b && *a && *b) {
        size_t na = strcspn(a, " "), nb = strcspn(b, " ");
        int c = strncmp(a, b, na < nb ? na : nb);
        if (c == 0 && na == nb) {
            *at = a;
            return na;
        }
        if (c < 0 || (c == 0 && na < nb))
            a += na + (a[na] == ' ');
        else
            b += nb + (b[nb] == ' ');
    }
    return 0;
}

/* A state or alias whose flags the module said to ignore: the engine refuses it at load
 * (W3DModelDrawModuleData::parseConditionState, PARSE_NORMAL and PARSE_ALIAS: "You should not
 * specify bits in a state once they are used in IgnoreConditionStates", throw INI_INVALID_DATA). */
static void check_ignored(ini_state *s, const char *set)
{
    const char *flag = NULL;
    size_t n = ignored_flag(s, set, &flag);
    if (n)
        state_malformed(s, "the flag %.*s is in the module's IgnoreConditionStates (line %u): the "
                        "engine refuses a state for a flag it is told to ignore",
                        (int)(n < 200 ? n : 200), flag, (unsigned)s->ignored_line);
}

/* Adds a condition flag set to the module's; false (and INI_MALFORMED) when it is there. */
static bool add_flag_set(ini_state *s, char *set)
{
    size_t n = strlen(set), h, i = amx__str_table_seek(&s->flag_sets, set, n, &h);
    if (i == SIZE_MAX) {
        free(set);
        s->oom = true;
        return false;
    }
    if (s->flag_sets.e[i].key) {
        state_malformed(s, "a second state for the condition flags '%.300s': the engine refuses "
                  "duplicate condition states", set[0] ? set : "NONE");
        free(set);
        return false;
    }
    amx__str_table_set(&s->flag_sets, i, set, n, h, NULL);
    return true;
}

/* Of two flag_set strings a and b: how many words of a are in b (*common) and how many are not
 * (*only_a). */
static void set_compare(const char *a, const char *b, size_t *common, size_t *only_a)
{
    *common = *only_a = 0;
    while (*a) {
        size_t na = strcspn(a, " ");
        int c = 1;
        while (*b) {
            size_t nb = strcspn(b, " ");
            c = strncmp(a, b, na < nb ? na : nb);
            if (c == 0 && na != nb)
                c = na < nb ? -1 : 1;
            if (c <= 0)
                break;
            b += nb + (b[nb] == ' ');
        }
        if (c == 0)
            ++*common;
        else
            ++*only_a;
        a += na + (a[na] == ' ');
    }
}

/* The model a BFME AnimationState with the condition flags `flags` plays on, or NULL when that is
 * not known. A ModelConditionState and an AnimationState are each chosen by the object's flags on
 * their own, and the engines choose differently: BFME 2's SparseMatchFinder (the Zero Hour one,
 * SparseMatchFinder.h findBestInfoSlow: the most of the flags, then the fewest others; a tie keeps
 * the first) and RotWK's findBestInfo (Open-BFME: the first state in order whose flags are all
 * set, else the default). Asked for the animation state's own flags, the model is the one both
 * choose; when they differ, NULL (the animation is then looked up, not checked against a
 * hierarchy). No flags (IdleAnimationState, TransitionState): the default model. */
static const char *bfme_anim_model(const ini_state *s, const char *flags)
{
    const char *def = s->bfme_default_model;
    if (!flags[0])
        return def;
    const char *sparse = NULL, *first = NULL;
    size_t best_yes = 0, best_extra = 999;
    bool found_first = false;
    for (size_t i = 0; i < s->n_mstates; i++) {
        const bfme_mstate *m = &s->bfme_mstates[i];
        const char *model = m->model ? m->model : def;
        size_t yes, extra;
        set_compare(m->flags, flags, &yes, &extra);
        if (yes > best_yes || (yes >= best_yes && extra < best_extra)) {
            sparse = model;
            best_yes = yes;
            best_extra = extra;
        }
        if (!found_first && m->flags[0] && extra == 0) {
            first = model;
            found_first = true;
        }
    }
    if (!found_first)
        first = def;
    if (!sparse || !first || strcasecmp(sparse, first) != 0)
        return NULL;
    return is_none(first) ? NULL : first;
}

/* The animation and particle bone names of the module's animation states, against the model
 * each state's flags select (the module's model states are all known now). Each state's model is
 * chosen once, within MODEL_PICK_BUDGET comparisons a file (a file of thousands of states in one
 * module would otherwise cost their square): past it, no model. */
static void bfme_module_refs(ini_state *s)
{
    size_t last = SIZE_MAX;
    const char *model = NULL;
    for (size_t i = 0; i < s->n_anames; i++) {
        const bfme_aname *a = &s->bfme_anames[i];
        if (a->flags != last) {
            last = a->flags;
            model = NULL;
            if (s->n_mstates <= s->model_pick_left) {
                s->model_pick_left -= s->n_mstates;
                model = bfme_anim_model(s, s->bfme_aflags[a->flags]);
            } else if (!s->model_pick_over) {
                s->model_pick_over = true;
                char ctx[300];
                ctx_of(s, ctx, sizeof ctx);
                amx__finding(s->d, AMX_C_LIMIT_EXCEEDED, s->line_at, ctx,
                             "more than %d comparisons of animation states with model states: "
                             "the animations of the rest are not checked against a model",
                             MODEL_PICK_BUDGET);
            }
        }
        if (a->kind == AMX_REF_W3D_ANIMATION || model)
            ref_in(s, a->kind, a->name, a->tag, a->line, model, NULL, a->state);
    }
    for (size_t i = 0; i < s->n_mstates; i++)
        free(s->bfme_mstates[i].flags);
    for (size_t i = 0; i < s->n_aflags; i++)
        free(s->bfme_aflags[i]);
    s->n_mstates = s->n_aflags = s->n_anames = 0;
}

/* The model (and a tree's texture) of a module without states, as its ModelName and
 * TextureName lines left them (docs/formats/sage-ini.md, section 4, "Models outside states"). */
static void module_model_refs(ini_state *s)
{
    if (s->model_name.name && s->model_name.name[0])
        w3d_model_ref(s, s->model_name.name, "ModelName", s->model_name.line, -1);
    /* W3DTreeBuffer::updateTexture opens Art/Terrain/<TextureName>, then
     * Art/Textures/<TextureName>: the link pass's texture rule for a SAGE INI file */
    if (s->texture_name.name && s->texture_name.name[0])
        ref_in(s, AMX_REF_TEXTURE, s->texture_name.name, "TextureName", s->texture_name.line,
               NULL, NULL, -1);
    s->model_name = s->texture_name = (named){ 0 };
    s->draw_kind = DRAW_STATES;
}

static void end_module(ini_state *s)
{
    module_model_refs(s);
    bfme_module_refs(s);
    amx__str_table_clear(&s->flag_sets);
    free(s->ignored_flags);
    s->ignored_flags = NULL;
    s->module = NULL;
    s->has_default = false;
    s->module_states = 0;
    s->bfme_default_model = NULL;
}

static const char *joined(ini_state *s, size_t from)
{
    if (from >= s->nt)
        return "";
    return span_dup(s, from, s->nt - 1);
}

/* ConditionState / DefaultConditionState / TransitionState (Zero Hour grammar). */
static void begin_state(ini_state *s, const char *kind)
{
    bool is_default = strcmp(kind, "DefaultConditionState") == 0;
    bool transition = strcmp(kind, "TransitionState") == 0;
    s->cur_kind = kind;
    s->cur_line = s->line_no;
    s->cur_transition = transition;
    s->cur_flags = joined(s, 1);
    state_reset(s->cur);
    if (is_default) {
        if (s->has_default)
            state_malformed(s, "a second DefaultConditionState in the module: the engine allows one");
        else if (s->nt > 1)
            state_malformed(s, "DefaultConditionState takes nothing after it");
        else if (s->module_states)
            state_malformed(s, "DefaultConditionState must be the module's first state");
        return;
    }
    if (s->has_default) {
        state_copy(s->cur, s->def);
        s->cur->anims_copied = true;
        s->cur->transition_keys = false;
    }
    if (transition) {
        if (s->nt < 3)
            state_malformed(s, "TransitionState needs the two states it goes between");
        else if (s->t[1].n == s->t[2].n && strncasecmp(s->t[1].p, s->t[2].p, s->t[1].n) == 0)
            state_malformed(s, "a transition between a state and itself");
        return;
    }
    char *set = flag_set(s, 1);
    if (!set)
        return;
    if (!set[0] && s->has_default)
        state_malformed(s, "a ConditionState for no flags (NONE) beside a DefaultConditionState");
    else if (set[0] && !s->has_default && s->module_states == 0)
        state_malformed(s, "without a DefaultConditionState, the first ConditionState must be for "
                  "NONE");
    check_ignored(s, set);
    s->module_states++;
    add_flag_set(s, set);
}

static void end_state(ini_state *s)
{
    state_data *st = s->cur;
    bool is_default = strcmp(s->cur_kind, "DefaultConditionState") == 0;
    uint32_t at = s->line_no;
    s->line_no = s->cur_line;
    if (!st->model || !st->model[0])
        state_malformed(s, "%s without a Model: the engine refuses a state that draws nothing "
                  "(Model = None says so)", s->cur_kind);
    if (st->got_idle && st->got_normal)
        state_malformed(s, "Animation and IdleAnimation in one state: the engine refuses both");
    if (st->got_idle && !st->mode_once)
        state_malformed(s, "IdleAnimation with an AnimationMode other than ONCE or ONCE_BACKWARDS");
    if (s->cur_transition) {
        if (st->got_idle)
            state_malformed(s, "IdleAnimation in a TransitionState");
        if (!st->mode_once)
            state_malformed(s, "a TransitionState's AnimationMode must be ONCE or ONCE_BACKWARDS");
        if (st->transition_keys)
            state_malformed(s, "a TransitionState with a TransitionKey or "
                      "WaitForStateToFinishIfPossible");
    }
    s->line_no = at;
    push_state(s, s->cur_kind, s->cur_flags, st->model, s->cur_line);
    state_refs(s, st);
    if (is_default && !s->has_default) {
        state_copy(s->def, st);
        s->has_default = true;
        s->module_states++;
    }
}

/* The tag of a name read on the current line: `tag` itself, or, in an #included file read in
 * place, with that file's name and line ("AnimationName (anims.inc line 4)"): the reference's
 * line is the #include line of the decoded file, and the link pass's findings show the tag. */
static const char *line_tag(ini_state *s, const char *tag)
{
    if (!s->inc_depth)
        return tag;
    const struct include_frame *f = &s->inc[s->inc_depth - 1];
    const char *slash = strrchr(f->path, '/');
    char out[128];
    snprintf(out, sizeof out, "%s (%.60s line %u)", tag, slash ? slash + 1 : f->path,
             (unsigned)f->line);
    return amx__strdup(s->d, out);
}

static void add_named(ini_state *s, named *list, size_t *n, const char *name, const char *tag)
{
    if (*n >= MAX_LIST) {
        if (*n == MAX_LIST) {
            char ctx[300];
            ctx_of(s, ctx, sizeof ctx);
            amx__finding(s->d, AMX_C_LIMIT_EXCEEDED, s->line_at, ctx,
                         "more than %d names of one kind in a state: the rest are not checked",
                         MAX_LIST);
            (*n)++;
        }
        return;
    }
    list[(*n)++] = (named){ name, line_tag(s, tag), s->line_no };
}

static int weapon_slot(tok t)
{
    static const char *const slots[SLOTS] = { "PRIMARY", "SECONDARY", "TERTIARY" };
    for (int i = 0; i < SLOTS; i++)
        if (tok_is_ci(t, slots[i]))
            return i;
    return -1;
}

/* A field of a Zero Hour state. */
static void state_field(ini_state *s)
{
    state_data *st = s->cur;
    tok f = s->t[0];
    if (tok_is(f, "Model")) {
        st->model = s->nt > 1 ? tokdup(s, expand(s, s->t[1])) : "";
        st->model_tag = line_tag(s, "Model");
        st->model_line = s->line_no;
        return;
    }
    bool idle = tok_is(f, "IdleAnimation");
    if (idle || tok_is(f, "Animation")) {
        if (st->anims_copied) {
            st->n_anims = 0;
            st->anims_copied = st->got_idle = st->got_normal = false;
        }
        if (idle)
            st->got_idle = true;
        else
            st->got_normal = true;
        if (s->nt < 2) {
            state_malformed(s, "%.*s without a name", (int)f.n, f.p);
            return;
        }
        tok name = expand(s, s->t[1]);
        if (!tok_is_ci(name, "None"))
            add_named(s, st->anims, &st->n_anims, tokdup(s, name),
                      idle ? "IdleAnimation" : "Animation");
        return;
    }
    if (tok_is(f, "AnimationMode")) {
        st->mode_once = s->nt > 1 && (tok_is_ci(s->t[1], "ONCE") ||
                                      tok_is_ci(s->t[1], "ONCE_BACKWARDS"));
        return;
    }
    if (tok_is(f, "TransitionKey") || tok_is(f, "WaitForStateToFinishIfPossible")) {
        st->transition_keys = true;
        return;
    }
    for (int k = 0; k < 4; k++)
        if (tok_is(f, turret_fields[k])) {
            tok name = s->nt > 1 ? expand(s, s->t[1]) : (tok){ "", 0 };
            st->turret[k] = name.n && !tok_is_ci(name, "None")
                                ? (named){ tokdup(s, name), line_tag(s, turret_fields[k]),
                                           s->line_no }
                                : (named){ 0 };
            return;
        }
    for (int k = 0; k < WB_KINDS; k++)
        if (tok_is(f, weapon_fields[k])) {
            int slot = s->nt > 1 ? weapon_slot(s->t[1]) : -1;
            if (slot < 0) {
                state_malformed(s, "%s needs a weapon slot (PRIMARY, SECONDARY or TERTIARY) first",
                          weapon_fields[k]);
                return;
            }
            if (s->nt < 3) {
                state_malformed(s, "%s %.*s without a bone name", weapon_fields[k], (int)s->t[1].n,
                          s->t[1].p);
                return;
            }
            tok name = expand(s, s->t[2]);
            st->weapon[k][slot] = tok_is_ci(name, "None")
                                      ? (named){ 0 }
                                      : (named){ tokdup(s, name), line_tag(s, weapon_fields[k]),
                                                 s->line_no };
            return;
        }
    if (tok_is(f, "ParticleSysBone")) {
        /* "None": no bone, the system sits at the object's origin (the engine's lookup finds no
         * bone of that name and uses the origin: no missing bone) */
        if (s->nt > 1 && !tok_is_ci(expand(s, s->t[1]), "None"))
            add_named(s, st->particle, &st->n_particle, tokdup(s, expand(s, s->t[1])),
                      "ParticleSysBone");
        return;
    }
    bool hide = tok_is(f, "HideSubObject");
    if (hide || tok_is(f, "ShowSubObject")) {
        if (s->nt > 1 && tok_is_ci(s->t[1], "None")) {
            st->n_subobj = 0;
            return;
        }
        for (size_t i = 1; i < s->nt; i++) {
            const char *name = tokdup(s, expand(s, s->t[i]));
            bool dup = false;
            for (size_t k = 0; k < st->n_subobj && k < MAX_LIST && !dup; k++)
                dup = strcasecmp(st->subobj[k].name, name) == 0;
            if (!dup)
                add_named(s, st->subobj, &st->n_subobj, name,
                          hide ? "HideSubObject" : "ShowSubObject");
        }
    }
}

/* A field of a BFME ModelConditionState: models and bones (animations are AnimationState
 * blocks of their own). */
static void bfme_state_field(ini_state *s)
{
    tok f = s->t[0];
    if (tok_is(f, "Model") && s->nt > 1) {
        s->cur->model = tokdup(s, expand(s, s->t[1]));
        s->cur->model_tag = line_tag(s, "Model");
        s->cur->model_line = s->line_no;
    } else if (tok_is(f, "ParticleSysBone") && s->nt > 1 &&
               !tok_is_ci(expand(s, s->t[1]), "None")) {
        add_named(s, s->cur->particle, &s->cur->n_particle, tokdup(s, expand(s, s->t[1])),
                  "ParticleSysBone");
    }
}

static void bfme_aname_add(ini_state *s, amx_ref_kind kind, const named *n, int32_t state,
                           size_t flags)
{
    if (!amx__grow((void **)&s->bfme_anames, &s->cap_anames, s->n_anames,
                   sizeof *s->bfme_anames)) {
        s->oom = true;
        return;
    }
    s->bfme_anames[s->n_anames++] = (bfme_aname){ kind, n->name, n->tag, n->line, state, flags };
}

static void end_bfme_state(ini_state *s)
{
    state_data *st = s->cur;
    bool is_default = strcmp(s->cur_kind, "DefaultModelConditionState") == 0;
    bool anim_state = !strstr(s->cur_kind, "ModelConditionState");
    const char *model = st->model ? st->model : s->bfme_default_model;
    if (is_default && st->model)
        s->bfme_default_model = st->model;
    push_state(s, s->cur_kind, s->cur_flags, anim_state ? "" : model, s->cur_line);
    char *flags = s->bfme_cur_flags;
    s->bfme_cur_flags = NULL;
    if (!flags)
        return;
    if (!anim_state) {
        /* a model state: its model and bones (it names no animation) */
        if (!amx__grow((void **)&s->bfme_mstates, &s->cap_mstates, s->n_mstates,
                       sizeof *s->bfme_mstates)) {
            free(flags);
            s->oom = true;
            return;
        }
        s->bfme_mstates[s->n_mstates++] = (bfme_mstate){ flags, st->model };
        st->model = model;
        if (!st->model_line)
            st->model_line = s->cur_line;
        st->n_anims = 0;
        state_refs(s, st);
        return;
    }
    /* an animation state draws no model: it plays on the one its flags select, known when the
     * module ends (bfme_module_refs) */
    if (!amx__grow((void **)&s->bfme_aflags, &s->cap_aflags, s->n_aflags,
                   sizeof *s->bfme_aflags)) {
        free(flags);
        s->oom = true;
        return;
    }
    size_t fi = s->n_aflags;
    s->bfme_aflags[s->n_aflags++] = flags;
    int32_t state = s->n_states ? (int32_t)s->n_states - 1 : -1;
    for (size_t i = 0; i < st->n_anims && i < MAX_LIST; i++) {
        const named *an = &st->anims[i];
        if (anim_name_too_long(s, an))
            continue;
        bfme_aname_add(s, AMX_REF_W3D_ANIMATION, an, state, fi);
    }
    for (size_t i = 0; i < st->n_particle && i < MAX_LIST; i++)
        bfme_aname_add(s, AMX_REF_PARTICLE_BONE, &st->particle[i], state, fi);
}

static void begin_bfme_state(ini_state *s, const char *kind)
{
    state_reset(s->cur);
    s->cur_kind = kind;
    s->cur_line = s->line_no;
    s->cur_flags = joined(s, 1);
    /* a TransitionState's word is its name, no condition */
    free(s->bfme_cur_flags);
    s->bfme_cur_flags = flag_set(s, strcmp(kind, "TransitionState") == 0 ? s->nt : 1);
}

/* ---- blocks ---- */

static void push(ini_state *s, enum frame_kind kind)
{
    if (s->depth >= MAX_DEPTH) {
        if (s->skipped_depth++ == 0) {
            char ctx[300];
            ctx_of(s, ctx, sizeof ctx);
            amx__finding(s->d, AMX_C_LIMIT_EXCEEDED, s->line_at, ctx,
                         "blocks nested more than %d deep: their contents are not read",
                         MAX_DEPTH);
        }
        return;
    }
    frame *f = &s->stack[s->depth++];
    f->kind = kind;
    f->subs = NULL;
    f->line = s->line_no;
    size_t n = s->t[0].n < 60 ? s->t[0].n : 60; /* (a copy: a printf a block cost 1.5% of a scan) */
    memcpy(f->what, s->t[0].p, n);
    f->what[n] = '\0';
}

static void pop(ini_state *s)
{
    if (s->skipped_depth) {
        s->skipped_depth--;
        return;
    }
    frame *f = &s->stack[--s->depth];
    switch (f->kind) {
    case F_STATE: end_state(s); break;
    case F_BFME_STATE: end_bfme_state(s); break;
    case F_DRAW: end_module(s); break;
    case F_OBJECT: s->object = -1; break;
    default: break;
    }
}

static bool is_state_kind(tok t, const char **kind)
{
    static const char *const zh[] = { "DefaultConditionState", "ConditionState",
                                       "TransitionState" };
    for (size_t i = 0; i < 3; i++)
        if (tok_is(t, zh[i])) {
            *kind = zh[i];
            return true;
        }
    return false;
}

static bool is_bfme_state_kind(tok t, const char **kind)
{
    static const char *const bfme[] = { "DefaultModelConditionState", "ModelConditionState",
                                         "AnimationState", "IdleAnimationState" };
    for (size_t i = 0; i < 4; i++)
        if (tok_is(t, bfme[i])) {
            *kind = bfme[i];
            return true;
        }
    return false;
}

/* Past this many lines (and 4 bytes read ahead for each byte of the file, plus this many) a
 * line is not looked past for the End of a block (below). */
enum { LOOKAHEAD_LINES = 256, LOOKAHEAD_EXTRA_BYTES = 1 << 20 };

/* The width of an indentation (a tab to the next multiple of 4). */
static size_t indent_width(const uint8_t *p, const uint8_t *end)
{
    size_t w = 0;
    for (; p < end; p++)
        w = *p == '\t' ? (w / 4 + 1) * 4 : w + 1;
    return w;
}

/* Whether the line read has a body: the next line that is not blank or a comment is indented
 * deeper, and the first line after it indented no deeper than the line read is End, at its
 * indentation. How a block looks in every file the game's makers and modders write; a field
 * has its next line at its own indentation or less. (Files read ahead of the line, at most
 * LOOKAHEAD_LINES lines and a budget linear in the file's size.) */
static bool body_follows(ini_state *s)
{
    amx_reader *r = &s->d->r;
    size_t left = amx_reader_left(r);
    const uint8_t *p = left ? amx_reader_peek(r, left) : NULL;
    if (!p || !s->line_p || s->continuing || !s->lookahead_left)
        return false;
    const uint8_t *end = p + left;
    size_t own = indent_width(s->line_p, (const uint8_t *)s->t[0].p);
    bool first = true;
    for (size_t lines = 0; p < end && lines < LOOKAHEAD_LINES; lines++) {
        /* (a line is looked for only as far as the budget goes) */
        size_t span = (size_t)(end - p) < s->lookahead_left ? (size_t)(end - p) : s->lookahead_left;
        const uint8_t *nl = memchr(p, '\n', span);
        const uint8_t *le = nl ? nl : p + span;
        size_t cost = (size_t)(le - p) + 1;
        if (!nl && le < end) /* the budget ends inside the line */
            cost = s->lookahead_left + 1;
        if (cost > s->lookahead_left) {
            if (!s->lookahead_said) {
                char ctx[300];
                ctx_of(s, ctx, sizeof ctx);
                amx__finding_sev(s->d, AMX_C_LIMIT_EXCEEDED, AMX_SEV_INFO, s->line_at, ctx,
                                 "from line %u on, lines of blocks animidx does not model are "
                                 "not looked past for an End: each is read as a field",
                                 (unsigned)s->line_no);
                s->lookahead_said = true;
            }
            s->lookahead_left = 0;
            return false;
        }
        s->lookahead_left -= cost;
        const uint8_t *q = p;
        while (q < le && s->seps[*q] && *q != '=')
            q++;
        bool blank = q == le || *q == ';' ||
                     (s->bfme && le - q >= 2 && ((q[0] == '/' && q[1] == '/') ||
                                                 (q[0] == '-' && q[1] == '-')));
        if (!blank) {
            size_t width = indent_width(p, q);
            if (first && width <= own)
                return false;
            if (!first && width <= own)
                return width == own && le - q >= 3 && strncasecmp((const char *)q, "End", 3) == 0 &&
                       (le - q == 3 || s->seps[q[3]] || q[3] == ';');
            first = false;
        }
        p = nl ? nl + 1 : end;
    }
    return false;
}

/* Whether a line of a block whose grammar animidx does not model opens a block. '=' is only a
 * separator to both engines (EA INI.cpp: the separators " \n\r\t="; OpenSAGE IniParser.cs), so
 * `MaxHealth 300` is a field as `MaxHealth = 300` is: only the parse tables tell a block. Those
 * blocks are a lone word (WeaponSet, Prerequisites, FXList and OCL nuggets, AIUpdate's Turret,
 * ...) or one of the few that take a name: ReplaceModule TAG (ThingTemplate.cpp), Campaign's
 * Mission NAME (CampaignManager.cpp), AIData's SideInfo, SkirmishBuildList and Structure
 * (AI.cpp, AIPlayer.cpp), BFME's ThreatBreakdown NAME (OpenSAGE AIUpdateModuleData). Any other
 * line is a field (Campaign's `CampaignNameLabel X`, ControlBarResizer's `AltPosition X:0 Y:5`,
 * BFME's `Scale 1.75`, a horde's `RankInfo ...`). */
static bool opens_generic(ini_state *s)
{
    if (s->nt == 0)
        return false;
    tok f = s->t[0];
    if (f.p[0] == '#' || tok_is(f, "RemoveModule"))
        return false;
    static const char *const with_name[] = { "ReplaceModule", "Mission", "SideInfo",
                                             "SkirmishBuildList", "Structure",
                                             "ThreatBreakdown" };
    if (!s->has_eq && s->nt == 1)
        return true;
    for (size_t i = 0; !s->has_eq && i < sizeof with_name / sizeof *with_name; i++)
        if (tok_is(f, with_name[i]))
            return true;
    /* the named blocks of the many tables animidx does not model (BFME's
     * LivingWorldBuildingIcon holds `Object NAME ... End`): a line without '=' with a body
     * under it, closed by an End at its own indentation */
    return !s->has_eq && body_follows(s);
}

static void read_lines(ini_state *s);

/* The path of an #include written in an included file, made relative to the decoded file (the
 * link pass resolves an include from the file that holds the reference): a "../" for each of
 * the decoded file's directories, then the included file's directory, then the path. NULL when
 * it does not fit. */
static const char *include_from_decoded(ini_state *s, const char *path)
{
    const char *file = s->d->opts->file_name ? s->d->opts->file_name : "";
    const char *inc = s->inc[s->inc_depth - 1].path;
    char out[1024];
    size_t at = 0, n = sizeof out;
    for (const char *p = file; *p; p++)
        if ((*p == '/' || *p == '\\') && at + 3 < n) {
            memcpy(out + at, "../", 3);
            at += 3;
        }
    size_t dir = 0;
    for (size_t i = 0; inc[i]; i++)
        if (inc[i] == '/' || inc[i] == '\\')
            dir = i + 1;
    size_t plen = strlen(path);
    if (at + dir + plen + 1 > n)
        return NULL;
    memcpy(out + at, inc, dir);
    memcpy(out + at + dir, path, plen + 1);
    return amx__strdup(s->d, out);
}

/* LIMIT_EXCEEDED (info, once a file): an #include not read for a limit. */
static void include_limit(ini_state *s, const char *path)
{
    if (s->include_limit_said)
        return;
    s->include_limit_said = true;
    char ctx[300];
    ctx_of(s, ctx, sizeof ctx);
    amx__finding_sev(s->d, AMX_C_LIMIT_EXCEEDED, AMX_SEV_INFO, s->line_at, ctx,
                     "line %u: #include \"%.200s\" is not read: past %d files one inside "
                     "another, %d files or %d MiB read for one file, or the scan's budget "
                     "for #include files (16 MiB and 16 times the INI bytes it decoded); its "
                     "states and names are not checked", (unsigned)s->line_no, path,
                     MAX_INCLUDE_DEPTH, MAX_INCLUDES_READ, (int)(INCLUDE_BYTES_MAX >> 20));
}

/* Reads the file an #include inside a block names in place, as OpenSAGE's ParseIncludedFile
 * does: its lines continue the block, and an End that closes the block ends it. At the top level
 * (`defines_only`) only its #define lines are read: the game loads that file on its own
 * (IniParser.ParseFile: LoadIniFile, so do the scan and its decode of it), and its macros apply
 * to what follows (one table of defines). False when it is not read (no read_include, a limit,
 * a file it cannot read, a cycle): the #include is then a reference only. */
static bool read_include(ini_state *s, const char *path, bool defines_only)
{
    const amx_decode_opts *o = s->d->opts;
    if (!o->read_include)
        return false;
    if (s->inc_depth >= MAX_INCLUDE_DEPTH || s->includes_read >= MAX_INCLUDES_READ ||
        s->include_bytes >= INCLUDE_BYTES_MAX) {
        include_limit(s, path);
        return false;
    }
    const char *file = o->file_name ? o->file_name : "";
    const char *from = s->inc_depth ? s->inc[s->inc_depth - 1].path : file;
    char resolved[1024] = "";
    size_t len = 0;
    const uint8_t *bytes = o->read_include(o->include_user, from, path,
                                           (size_t)(INCLUDE_BYTES_MAX - s->include_bytes), &len,
                                           resolved, sizeof resolved);
    if (!bytes) {
        if (len == SIZE_MAX) /* refused by a limit: the rest of this file's, or the caller's */
            include_limit(s, path);
        return false;
    }
    resolved[sizeof resolved - 1] = '\0';
    /* a file that includes itself (the link pass says so) or a file it is read from: the game
     * would read on for ever */
    if (strcasecmp(resolved, file) == 0)
        return false;
    for (size_t i = 0; i < s->inc_depth; i++)
        if (strcasecmp(resolved, s->inc[i].path) == 0) {
            if (!defines_only) /* a top-level cycle: the link pass says so */
                malformed(s, "#include \"%.200s\" (%.300s) includes a file it is read from: "
                          "an endless #include cycle", path, resolved);
            return false;
        }
    s->includes_read++;
    s->include_bytes += len;
    struct include_frame *f = &s->inc[s->inc_depth];
    f->saved = s->d->r;
    f->path = amx__strdup(s->d, resolved);
    f->line = 0;
    f->depth = s->depth;
    f->defines_only = defines_only;
    f->continuing = s->continuing;
    s->continuing = false;
    s->d->r = amx_reader_make(bytes, len);
    const uint8_t *bom = amx_reader_peek(&s->d->r, 3); /* .NET reads text without it */
    if (bom && bom[0] == 0xEF && bom[1] == 0xBB && bom[2] == 0xBF)
        amx_reader_skip(&s->d->r, 3);
    s->inc_depth++;
    read_lines(s);
    s->inc_depth--;
    s->d->r = f->saved;
    s->continuing = f->continuing;
    return true;
}

static void on_include(ini_state *s)
{
    if (s->nt < 2) {
        malformed(s, "#include without a file");
        return;
    }
    /* the path: the rest of the line, in quotes or not */
    const char *line = span_dup(s, 1, s->nt - 1);
    const char *a = line, *b = line + strlen(line);
    while (a < b && *a == '"')
        a++;
    const char *q = memchr(a, '"', (size_t)(b - a));
    if (q)
        b = q;
    const char *path = amx__strndup(s->d, (const uint8_t *)a, (size_t)(b - a));
    /* the reference (the link pass resolves it through the layers and judges cycles) */
    bool in_defines = s->inc_depth && s->inc[s->inc_depth - 1].defines_only;
    if (in_defines) { /* the file holding this line is decoded on its own, with its #includes */
        read_include(s, path, true);
        return;
    }
    const char *name = s->inc_depth ? include_from_decoded(s, path) : path;
    if (name && s->inc_depth) { /* a fragment read again (in each module that includes it) */
        char key[1100];
        snprintf(key, sizeof key, "I\x1f%.1050s", name);
        if (!first_time(s, key))
            name = NULL;
    }
    uint32_t before = s->d->asset->ref_count;
    if (name)
        amx__ref(s->d, AMX_REF_INCLUDE, name, "#include", (int32_t)s->object, s->line_no, -1);
    if (s->d->asset->ref_count > before)
        s->d->asset->refs[before].state = -1;
    /* inside a block, a fragment (a draw module's states): read in place; at the top level,
     * a file of its own: its macros */
    if (!s->depth) {
        if (s->bfme)
            read_include(s, path, true);
    } else if (!(s->bfme && read_include(s, path, false))) {
        s->include_in_block = true;
    }
}

static void on_define(ini_state *s)
{
    if (s->nt < 3 || s->depth) {
        if (s->depth)
            malformed(s, "#define inside a block");
        return;
    }
    /* the name as kept (a NUL byte in it ends it), looked up as kept */
    char *name = amx_strndup(s->t[1].p, s->t[1].n);
    char *value = amx_strndup(s->t[2].p, s->t[2].n);
    if (!name || !value) {
        free(name);
        free(value);
        s->oom = true;
        return;
    }
    size_t n = strlen(name), h, i = amx__str_table_seek(&s->defines, name, n, &h);
    if (i == SIZE_MAX) {
        free(name);
        free(value);
        s->oom = true;
        return;
    }
    amx__str_entry *e = &s->defines.e[i];
    if (!e->key && s->defines.n >= MAX_DEFINES) {
        free(name);
        free(value);
        if (!s->defines_over_limit) {
            s->defines_over_limit = true;
            char ctx[300];
            ctx_of(s, ctx, sizeof ctx);
            amx__finding(s->d, AMX_C_LIMIT_EXCEEDED, s->line_at, ctx,
                         "more than %d #define macros: the rest are not applied", MAX_DEFINES);
        }
        return;
    }
    /* a second #define of a name replaces the first (as OpenSAGE) */
    if (e->key) {
        free(name);
        free(e->value);
        e->value = value;
        return;
    }
    amx__str_table_set(&s->defines, i, name, n, h, value);
}

/* Top-level blocks whose fields are all one line (the engine's parse tables for them open no
 * block), where a field may be written without '=' ("Delay 10000 20000" in an AudioEvent). */
static bool flat_block(tok t)
{
    static const char *const flat[] = {
        "AudioEvent", "MusicTrack", "DialogEvent", "Locomotor", "CommandButton", "CommandSet",
        "Upgrade", "Science", "ParticleSystem", "MappedImage", "MultiplayerColor", "Armor",
        "Weapon", "SpecialPower", "CrateData", "Rank", "PlayerTemplate",
        "Credits", /* "Blank" is a field without a value (EA Credits.cpp) */
    };
    for (size_t i = 0; i < sizeof flat / sizeof flat[0]; i++)
        if (tok_is(t, flat[i]))
            return true;
    return false;
}

/* Blocks whose fields are written without '=' ("Position X:0 Y:408") and whose parse tables
 * open only the blocks they name (EA ControlBarScheme.cpp m_controlBarSchemeFieldParseTable,
 * parseAnimatingPart; ShellMenuScheme.cpp m_shellMenuSchemeFieldParseTable): the blocks nested
 * in `t`, or NULL when `t` is not one of them. A nested block not named here is flat. */
static const char *const *named_subs(tok t)
{
    static const char *const cbs[] = { "ImagePart", "AnimatingPart", NULL };
    static const char *const anim[] = { "ImagePart", NULL };
    static const char *const shell[] = { "ImagePart", "LinePart", NULL };
    /* BFME's particle systems: a block of modules `Color = DefaultColor ... End` (OpenSAGE
     * FXParticleSystemTemplate.cs, FieldParseTable: ParseBlockContent, ParseModule) */
    static const char *const fx[] = { "System", "Color", "Alpha", "Update", "Physics", "Draw",
                                       "Wind", "EmissionVelocity", "EmissionVolume", "Event",
                                       NULL };
    if (tok_is(t, "FXParticleSystem"))
        return fx;
    if (tok_is(t, "ControlBarScheme"))
        return cbs;
    if (tok_is(t, "AnimatingPart"))
        return anim;
    if (tok_is(t, "ShellMenuScheme"))
        return shell;
    return NULL;
}

/* The nuggets of a BFME Weapon: blocks of one-line fields in a block that is otherwise flat
 * (OpenSAGE WeaponTemplate.cs, FieldParseTable, "Nuggets"; its ClearNuggets is a field without a
 * value). A Zero Hour weapon has none. */
static const char *const weapon_nuggets[] = {
    "ProjectileNugget", "DamageNugget", "MetaImpactNugget", "SpecialModelConditionNugget",
    "ParalyzeNugget", "HordeAttackNugget", "SpawnAndFadeNugget", "AttributeModifierNugget",
    "DamageFieldNugget", "GrabNugget", "DOTNugget", "SlaveAttackNugget", "FireLogicNugget",
    "EmotionWeaponNugget", "OpenGateNugget", "WeaponOCLNugget", "LuaEventNugget",
    "DamageContainedNugget", "StealMoneyNugget", NULL,
};

/* Opens the block of the current line: F_NAMED with its nested blocks, or F_FLAT. */
static void push_named(ini_state *s, const char *const *subs)
{
    size_t depth = s->depth;
    push(s, subs ? F_NAMED : F_FLAT);
    if (s->depth > depth)
        s->stack[s->depth - 1].subs = subs;
}

/* In a tree declared for Generals or Zero Hour (no BFME): every top-level word that is no block
 * of the game's table stops it at load (INI::load, Generals INI.cpp 387-392, GeneralsMD
 * 394-399), a block Zero Hour added among them when the game is Generals. */
static void top_level_word(ini_state *s, tok f)
{
    const struct engine_block *b = engine_block(f);
    int n = (int)(f.n < 100 ? f.n : 100);
    if (b && b->zh && s->game == SAGE_GENERALS) {
        malformed(s, "'%.*s' is a block of Zero Hour, which Generals does not have (the tree is "
                  "declared game = generals): Generals stops at load at an unknown block", n,
                  f.p);
    } else if (!b) {
        const char *meant = misspelt_block(f, s->game);
        char hint[96] = "";
        if (meant)
            snprintf(hint, sizeof hint, " (did you mean %s?)", meant);
        malformed(s, "'%.*s' is no block of %s%s: the game stops at load at an unknown block", n,
                  f.p, game_title(s->game), hint);
    }
}

/* Opens a flat block whose lines starting with one of `subs` open flat blocks of their own. */
static void push_flat(ini_state *s, const char *const *subs)
{
    size_t depth = s->depth;
    push(s, F_FLAT);
    if (s->depth > depth)
        s->stack[s->depth - 1].subs = subs;
}

static void top_level(ini_state *s);
static void in_block(ini_state *s);

/* Reads lines to the end of the file being read (the decoded file, or an included one). */
static void read_lines(ini_state *s)
{
    while (!s->oom && !s->d->out_of_memory && next_line(s)) {
        if (s->nt == 0)
            continue;
        if (s->inc_depth) {
            const struct include_frame *f = &s->inc[s->inc_depth - 1];
            if (f->defines_only) {
                if (tok_is(s->t[0], "#define"))
                    on_define(s);
                else if (tok_is(s->t[0], "#include"))
                    on_include(s);
                continue;
            }
        }
        if (s->skipped_depth) { /* inside blocks past the depth limit: only their nesting */
            if (tok_is_ci(s->t[0], "End"))
                pop(s);
            else if (opens_generic(s))
                s->skipped_depth++;
        } else if (s->depth == 0) {
            top_level(s);
        } else {
            in_block(s);
        }
        if (s->inc_depth && s->depth < s->inc[s->inc_depth - 1].depth)
            return; /* the included text closed the block it was read in */
    }
}

static void top_level(ini_state *s)
{
    tok f = s->t[0];
    if (s->game && !tok_is_ci(f, "End"))
        top_level_word(s, f);
    if (tok_is(f, "#include")) {
        on_include(s);
        return;
    }
    if (tok_is(f, "#define")) {
        on_define(s);
        return;
    }
    if (tok_is_ci(f, "End")) {
        malformed(s, "End outside any block: the game stops at an unknown block 'End'");
        return;
    }
    if (one_line_block(f))
        return;
    /* a block only BFME has: a BFME file (its comments "//" and "--", #include and #define)
     * when nothing else said so */
    if (!s->game && !s->bfme && bfme_block((const uint8_t *)f.p, f.n))
        s->bfme = true;
    bool object = tok_is(f, "Object"), reskin = tok_is(f, "ObjectReskin"),
         child = tok_is(f, "ChildObject");
    if (object || reskin || child) {
        size_t need = object ? 2 : 3;
        if (s->nt < need)
            malformed(s, "%.*s needs %s", (int)f.n, f.p,
                      object ? "a name" : "the new name and the object it copies");
        else
            add_object(s, object ? "Object" : reskin ? "ObjectReskin" : "ChildObject", s->t[1],
                       object ? NULL : &s->t[2]);
        if (!object && s->object >= 0) /* the original must be defined before: the link pass */
            amx__ref(s->d, AMX_REF_INI_OBJECT, s->objects[s->object].variant_of,
                     s->objects[s->object].type, (int32_t)s->object, s->line_no, -1);
        push(s, F_OBJECT);
        return;
    }
    /* A word that is no block stops Zero Hour at load (INI::load: "Unknown block", throw
     * INI_UNKNOWN_TOKEN). Undeclared, said for a misspelling of one of its blocks only: a block
     * of another game of the engine (BFME has many, in files without a mark of its dialect) is
     * no typo. A declared game's words are judged in top_level_word. */
    if (!s->game && !s->bfme && !first_block((const uint8_t *)f.p, f.n) && !engine_block(f)) {
        const char *meant = misspelt_block(f, SAGE_UNDECLARED);
        if (meant)
            malformed(s, "'%.*s' is no block of the game (did you mean %s?): the game stops at "
                      "load at an unknown block", (int)(f.n < 100 ? f.n : 100), f.p, meant);
    }
    const char *const *subs = named_subs(f);
    if (subs)
        push_named(s, subs);
    else if (tok_is(f, "Weapon"))
        push_flat(s, weapon_nuggets);
    else
        push(s, flat_block(f) ? F_FLAT : F_GENERIC);
}

/* The module-tag rules of Zero Hour that stop the game at load in a release build
 * (ThingTemplate::parseModuleName): a module line without its tag (INI::getNextToken throws,
 * rethrown), and, in ReplaceModule, a module with the tag it replaces (throw INI_INVALID_DATA).
 * Two modules of an object with one tag are not judged: ModuleInfo::addModuleInfo checks that
 * only #if defined(_DEBUG) || defined(_INTERNAL); a release build keeps both modules. */
static void check_module_tag(ini_state *s)
{
    tok t0 = s->t[0];
    if (s->nt < 3) {
        if (s->nt == 2)
            malformed(s, "the module %.*s has no tag (%.*s = MODULE TAG): the game stops at "
                      "load", (int)(s->t[1].n < 100 ? s->t[1].n : 100), s->t[1].p, (int)t0.n,
                      t0.p);
        else
            malformed(s, "a %.*s without its module and tag: the game stops at load", (int)t0.n,
                      t0.p);
        return;
    }
    const frame *f = &s->stack[s->depth - 1];
    tok tag = s->t[2];
    if (s->replace_line && f->line == s->replace_line && strcmp(f->what, "ReplaceModule") == 0 &&
        tag.n == s->replace_tag.n && memcmp(tag.p, s->replace_tag.p, tag.n) == 0)
        malformed(s, "the module %.*s keeps the tag %.*s of ReplaceModule (line %u): the module "
                  "that replaces needs a new tag, and the game stops at load",
                  (int)(s->t[1].n < 100 ? s->t[1].n : 100), s->t[1].p,
                  (int)(tag.n < 100 ? tag.n : 100), tag.p, (unsigned)s->replace_line);
}

/* Which draw modules name a model outside any state, by the game: Zero Hour's W3DTreeDraw and
 * W3DPropDraw (GeneralsMD W3DTreeDraw.cpp, W3DPropDraw.cpp; Generals has neither module, so a
 * tree declared game = generals loads no such model), BFME's W3DFloorDraw (OpenSAGE
 * W3dFloorDraw.cs: ModelName is a model reference, as a state's Model). A BFME file's tree and
 * prop modules are not read: how BFME finds their files is not public. */
static int draw_kind_of(const ini_state *s, tok type)
{
    bool zh = !s->bfme && s->game != SAGE_GENERALS;
    if (zh && tok_is(type, "W3DTreeDraw"))
        return DRAW_TREE;
    if (zh && tok_is(type, "W3DPropDraw"))
        return DRAW_PROP;
    if (s->game == SAGE_UNDECLARED && tok_is(type, "W3DFloorDraw"))
        return DRAW_FLOOR;
    return DRAW_STATES;
}

/* Draw / Behavior / Body / ClientUpdate = TYPE TAG: a module of an object, which ends at End.
 * BFME adds ClientBehavior = TYPE TAG (OpenSAGE ObjectDefinition.cs, FieldParseTable:
 * ClientBehaviorModuleData.ParseClientBehavior), which no Zero Hour object has. */
static bool module_line(ini_state *s)
{
    tok t0 = s->t[0];
    /* with or without '=' (a separator only: opens_generic) */
    if (!(s->has_eq || s->nt >= 3) ||
        !(tok_is(t0, "Draw") || tok_is(t0, "Behavior") || tok_is(t0, "Body") ||
          tok_is(t0, "ClientUpdate") || tok_is(t0, "ClientBehavior")))
        return false;
    if (!s->bfme)
        check_module_tag(s);
    if (tok_is(t0, "Draw") && s->nt >= 2) {
        const tok *last = &s->t[s->nt > 2 ? 2 : 1];
        end_module(s);
        s->module = span_dup(s, 1, (size_t)(last - s->t));
        s->draw_kind = draw_kind_of(s, s->t[1]);
        push(s, F_DRAW);
    } else {
        push(s, F_MODULE);
    }
    return true;
}

static void in_block(ini_state *s)
{
    frame *f = &s->stack[s->depth - 1];
    tok t0 = s->t[0];
    if (f->kind == F_SCRIPT) {
        if (tok_is_ci(t0, "EndScript"))
            pop(s);
        return;
    }
    if (tok_is_ci(t0, "End")) {
        pop(s);
        return;
    }
    if (tok_is(t0, "#include")) {
        on_include(s);
        return;
    }
    if (tok_is(t0, "#define")) {
        on_define(s);
        return;
    }
    if (tok_is(t0, "BeginScript")) {
        push(s, F_SCRIPT);
        return;
    }
    const char *kind = NULL;
    switch (f->kind) {
    case F_OBJECT:
        if (module_line(s))
            return;
        if (s->game == SAGE_GENERALS && tok_is(t0, "OverrideableByLikeKind"))
            /* Zero Hour's wrapper (GeneralsMD ThingTemplate.cpp 237-242): no field of a Generals
             * object (Generals ThingTemplate.cpp, s_objectFieldParseTable: AddModule,
             * RemoveModule, ReplaceModule, InheritableModule), so INI::initFromINIMulti throws */
            malformed(s, "OverrideableByLikeKind is a field of Zero Hour's objects, not of "
                      "Generals' (the tree is declared game = generals): Generals stops at load "
                      "at an unknown field");
        if (opens_generic(s)) {
            if (tok_is(t0, "ReplaceModule") && s->nt >= 2) {
                s->replace_tag = s->t[1];
                s->replace_line = s->line_no;
            }
            push(s, F_GENERIC);
        }
        return;
    case F_DRAW:
        /* TransitionState = A B (Zero Hour) has two states; BFME's names one */
        if (is_state_kind(t0, &kind) && !(strcmp(kind, "TransitionState") == 0 && s->nt == 2)) {
            begin_state(s, kind);
            push(s, F_STATE);
            return;
        }
        if (tok_is(t0, "TransitionState") || is_bfme_state_kind(t0, &kind)) {
            begin_bfme_state(s, kind ? kind : "TransitionState");
            push(s, F_BFME_STATE);
            return;
        }
        if (tok_is(t0, "AliasConditionState")) {
            if (s->module_states == 0) {
                state_malformed(s, "AliasConditionState must follow the state it names");
                return;
            }
            char *set = flag_set(s, 1);
            if (!set)
                return;
            check_ignored(s, set);
            if (!set[0] && s->has_default) {
                state_malformed(s, "an AliasConditionState for no flags (NONE) beside a "
                          "DefaultConditionState");
                free(set);
                return;
            }
            add_flag_set(s, set);
            return;
        }
        if (tok_is(t0, "LodOptions")) {
            /* W3DHordeModelDraw's LodOptions = LEVEL ... End (OpenSAGE W3dHordeModelDraw.cs:
             * LodOption.Parse, a block of one-line fields) */
            push(s, F_GENERIC);
            return;
        }
        if (s->draw_kind != DRAW_STATES && tok_is(t0, "ModelName")) {
            s->model_name = (named){ s->nt > 1 ? tokdup(s, expand(s, s->t[1])) : "",
                                     line_tag(s, "ModelName"), s->line_no };
            return;
        }
        if (s->draw_kind == DRAW_TREE && tok_is(t0, "TextureName")) {
            s->texture_name = (named){ s->nt > 1 ? tokdup(s, expand(s, s->t[1])) : "",
                                       line_tag(s, "TextureName"), s->line_no };
            return;
        }
        if (tok_is(t0, "IgnoreConditionStates")) { /* a plain list replaces the last (BitFlags) */
            char *set = flag_set(s, 1);
            if (set) {
                free(s->ignored_flags);
                s->ignored_flags = set;
                s->ignored_line = s->line_no;
            }
        }
        if (s->game == SAGE_GENERALS && (tok_is(t0, "ParticlesAttachedToAnimatedBones") ||
                                         tok_is(t0, "ReceivesDynamicLights")))
            /* fields Zero Hour added to W3DModelDrawModuleData::buildFieldParse; no Generals
             * draw module has them, so INI::initFromINIMulti throws INI_UNKNOWN_TOKEN */
            malformed(s, "%.*s is a field of Zero Hour's W3DModelDraw, not of Generals' (the tree "
                      "is declared game = generals): Generals stops at load at an unknown field",
                      (int)t0.n, t0.p);
        return; /* the module's own fields: one line each */
    case F_STATE: /* the engine's table of state fields: none opens a block */
        state_field(s);
        return;
    case F_BFME_STATE:
        if (tok_is(t0, "Animation")) {
            push(s, F_BFME_ANIM);
            return;
        }
        bfme_state_field(s);
        return;
    case F_BFME_ANIM:
        if (tok_is(t0, "AnimationName") && s->nt > 1)
            add_named(s, s->cur->anims, &s->cur->n_anims, tokdup(s, expand(s, s->t[1])),
                      "AnimationName");
        return;
    default:
        /* the wrappers of an object's modules (InheritableModule, ReplaceModule, ...) */
        if (s->depth >= 2 && s->stack[s->depth - 2].kind == F_OBJECT && module_line(s))
            return;
        if (f->kind == F_FLAT) {
            for (const char *const *k = f->subs; k && *k; k++)
                if (tok_is(t0, *k)) {
                    push_flat(s, NULL);
                    return;
                }
            return;
        }
        if (f->kind == F_NAMED) {
            for (const char *const *k = f->subs; *k; k++)
                if (tok_is(t0, *k)) {
                    push_named(s, named_subs(t0));
                    return;
                }
            /* a lone word still opens a block (every field of these tables has a value; a
             * variant of another game may nest more), any other line is a field */
            if (!s->has_eq && s->nt == 1 && t0.p[0] != '#')
                push(s, F_GENERIC);
            return;
        }
        if (opens_generic(s))
            push(s, F_GENERIC);
        return;
    }
}

/* ---- decode ---- */

static void free_state(ini_state *s)
{
    free(s->objects);
    free(s->states);
    amx__str_table_free(&s->flag_sets);
    free(s->ignored_flags);
    amx__str_table_free(&s->seen);
    amx__str_table_free(&s->defines);
    free(s->def);
    free(s->cur);
    for (size_t i = 0; i < s->n_mstates; i++)
        free(s->bfme_mstates[i].flags);
    for (size_t i = 0; i < s->n_aflags; i++)
        free(s->bfme_aflags[i]);
    free(s->bfme_mstates);
    free(s->bfme_aflags);
    free(s->bfme_anames);
    free(s->bfme_cur_flags);
}

/* Whether the file uses the BFME dialect (then "//" and "--" start comments too). */
static bool bfme_dialect(const uint8_t *data, size_t len)
{
    static const char *const marks[] = { "#include", "#define", "ChildObject",
                                         "ModelConditionState", "W3DScriptedModelDraw",
                                         "W3DHordeModelDraw" };
    for (size_t i = 0; i < sizeof marks / sizeof marks[0]; i++)
        if (len >= strlen(marks[i]) && amx_memmem(data, len, marks[i], strlen(marks[i])))
            return true;
    /* A line that starts with "//" (after spaces and tabs): a comment to BFME (OpenSAGE
     * TokenReader), and to Zero Hour the start of a block or field name that is none, which
     * stops the load (INI::load, initFromINIMulti throw on an unknown token), so no Zero Hour
     * file that loads has one. BFME files without another mark have them (a RotWK mod's FXList
     * file: "//End" lines of commented-out blocks were read as blocks). */
    /* line by line with memchr: a byte-by-byte walk cost 150 M instructions on a Zero Hour
     * mod's 17 MB, a quarter of its decoding */
    for (const uint8_t *p = data, *end = data + len; p < end;) {
        while (p < end && (*p == ' ' || *p == '\t' || *p == '\r'))
            p++;
        if (end - p >= 2 && p[0] == '/' && p[1] == '/')
            return true;
        const uint8_t *nl = p < end ? memchr(p, '\n', (size_t)(end - p)) : NULL;
        if (!nl)
            break;
        p = nl + 1;
    }
    return false;
}

void amx__ini_decode(amx_dec *d)
{
    ini_state *s = calloc(1, sizeof *s);
    if (!s) {
        amx__fatal(d, AMX_C_LIMIT_EXCEEDED, -1, NULL, "out of memory reading the INI");
        return;
    }
    s->d = d;
    s->object = -1;
    s->model_pick_left = MODEL_PICK_BUDGET;
    s->lookahead_left = 4 * amx_reader_left(&d->r) + LOOKAHEAD_EXTRA_BYTES;
    s->defines.fold = true;
    s->def = calloc(1, sizeof *s->def);
    s->cur = calloc(1, sizeof *s->cur);
    if (!s->def || !s->cur) {
        amx__fatal(d, AMX_C_LIMIT_EXCEEDED, -1, NULL, "out of memory reading the INI");
        free_state(s);
        free(s);
        return;
    }
    const char *game = d->opts->game;
    s->game = !game                           ? SAGE_UNDECLARED
              : strcasecmp(game, "generals") == 0 ? SAGE_GENERALS
              : strcasecmp(game, "zh") == 0       ? SAGE_ZH
                                                  : SAGE_UNDECLARED;
    /* a tree declared for Generals or Zero Hour is no BFME tree, whatever its words */
    s->bfme = !s->game && bfme_dialect(d->r.base, d->r.end);
    s->seps = s->game == SAGE_GENERALS ? lex_separates_generals : lex_separates;
    /* A UTF-8 byte order mark: Zero Hour keeps its bytes (INI::readLine makes only bytes 1-31
     * spaces; a char is signed), so they begin the first word, which is then no block it knows:
     * INI::load throws INI_UNKNOWN_TOKEN and the game stops. Said once; the rest is read without
     * it. (BFME: OpenSAGE reads text through .NET, which drops the mark; no engine source.) */
    const uint8_t *bom = amx_reader_peek(&d->r, 3);
    if (bom && bom[0] == 0xEF && bom[1] == 0xBB && bom[2] == 0xBF) {
        amx_reader_skip(&d->r, 3);
        if (!s->bfme) {
            s->line_no = 1;
            malformed(s, "the file begins with a UTF-8 byte order mark (bytes EF BB BF): the game "
                      "reads them as part of the first word, which is then no block it knows, and "
                      "stops at load. Save the file without it (ANSI, or UTF-8 without BOM)");
            s->line_no = 0;
        }
    }
    read_lines(s);
    if (s->depth && s->include_in_block) {
        while (s->depth) /* the included text may hold the End: not judged here */
            pop(s);
    }
    if (s->depth) {
        /* the innermost unclosed block is what the engine complains about */
        frame *f = &s->stack[s->depth - 1];
        uint32_t last = s->line_no;
        s->line_no = f->line;
        malformed(s, "'%s' (line %u) has no End before the end of the file (line %u)", f->what,
                  (unsigned)f->line, (unsigned)last);
        while (s->depth)
            pop(s);
    }
    if (s->oom)
        amx__finding(d, AMX_C_LIMIT_EXCEEDED, -1, NULL, "out of memory reading the INI");
    amx_asset *a = d->asset;
    if (s->n_objects && (a->objects = amx__array(d, s->n_objects, sizeof *a->objects))) {
        memcpy(a->objects, s->objects, s->n_objects * sizeof *a->objects);
        a->object_count = (uint32_t)s->n_objects;
    }
    if (s->n_states && (a->states = amx__array(d, s->n_states, sizeof *a->states))) {
        memcpy(a->states, s->states, s->n_states * sizeof *a->states);
        a->state_count = (uint32_t)s->n_states;
    }
    if (!a->objects)
        a->object_count = 0;
    if (!a->states)
        a->state_count = 0;
    for (uint32_t i = 0; i < a->ref_count; i++) { /* refs name objects and states kept */
        if (a->refs[i].object >= (int32_t)a->object_count)
            a->refs[i].object = -1;
        if (a->refs[i].state >= (int32_t)a->state_count)
            a->refs[i].state = -1;
    }
    free_state(s);
    free(s);
}
