/* Unit tests for the SAGE INI reader (lib/format/ini.c): objects, draw states and the default
 * state's inheritance, ObjectReskin / ChildObject, references with their lines, each
 * INI_MALFORMED rule, the 15-character rule, the BFME dialect (#define, #include, comments),
 * the probe, the real trees of the corpus, and mutation loops. */
#include "test.h"

#include "check_asset.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

static amx_asset *decode_text(const char *text)
{
    amx_decode_opts o = { .file_name = "Data/INI/Object/Test.ini", .format = AMX_FMT_SAGE_INI };
    return test_decode((const uint8_t *)text, strlen(text), &o);
}

/* The same, for a tree declared for `game` ([root PATH] game = generals | zh; NULL: none). */
static amx_asset *decode_game(const char *text, const char *game)
{
    amx_decode_opts o = { .file_name = "Data/INI/Object/Test.ini", .format = AMX_FMT_SAGE_INI,
                          .game = game };
    return test_decode((const uint8_t *)text, strlen(text), &o);
}

static size_t count_code(const amx_asset *a, amx_code code)
{
    size_t n = 0;
    for (uint32_t i = 0; i < a->finding_count; i++)
        n += a->findings[i].code == code;
    return n;
}

/* Prints case i's findings (for a failed check's reader). */
static void show_findings(const amx_asset *a, size_t i)
{
    for (uint32_t k = 0; k < a->finding_count; k++)
        printf("# case %zu: %s\n", i, a->findings[k].message);
}

/* The finding of `code` whose message starts with "line N:". */
static const amx_finding *finding_at(const amx_asset *a, amx_code code, unsigned line)
{
    char want[32];
    snprintf(want, sizeof want, "line %u:", line);
    for (uint32_t i = 0; i < a->finding_count; i++)
        if (a->findings[i].code == code && strncmp(a->findings[i].message, want, strlen(want)) == 0)
            return &a->findings[i];
    return NULL;
}

static const amx_ref *find_ref(const amx_asset *a, amx_ref_kind kind, const char *name,
                               const char *model)
{
    for (uint32_t i = 0; i < a->ref_count; i++) {
        const amx_ref *r = &a->refs[i];
        if (r->kind == kind && strcmp(r->name, name) == 0 &&
            (!model || (r->model && strcmp(r->model, model) == 0)))
            return r;
    }
    return NULL;
}

static const char *TANK =
    "; a tank\n"                                                         /* 1 */
    "Object Tank\n"                                                      /* 2 */
    "  Draw = W3DTankDraw ModuleTag_01\n"                                /* 3 */
    "    DefaultConditionState\n"                                        /* 4 */
    "      Model = AVTank\n"                                             /* 5 */
    "      Animation = AVTank_SKL.AVTank_IDL 10 2\n"                     /* 6 */
    "      WeaponFireFXBone = PRIMARY Muzzle\n"                          /* 7 */
    "      Turret = Turret01 ; cut here = ignored\n"                     /* 8 */
    "      ParticleSysBone = Exhaust SmokeFX\n"                          /* 9 */
    "    End\n"                                                          /* 10 */
    "    ConditionState = REALLYDAMAGED\n"                               /* 11 */
    "      Model = AVTank_D\n"                                           /* 12 */
    "    End\n"                                                          /* 13 */
    "    AliasConditionState = RUBBLE\n"                                 /* 14 */
    "    ConditionState = MOVING DAMAGED\n"                              /* 15 */
    "      Animation = AVTank_SKL.AVTank_MOV\n"                          /* 16 */
    "      HideSubObject = Barrel02 Lights\n"                            /* 17 */
    "    End\n"                                                          /* 18 */
    "    TransitionState = A B\n"                                        /* 19 */
    "      Animation = AVTank_SKL.AVTank_TRN\n"                          /* 20 */
    "    End\n"                                                          /* 21 */
    "    TrackMarks = EXTireTrack.tga\n"                                 /* 22 */
    "  End\n"                                                            /* 23 */
    "  WeaponSet\n"                                                      /* 24 */
    "    Weapon = PRIMARY TankGun\n"                                     /* 25 */
    "  End\n"                                                            /* 26 */
    "End\n"                                                              /* 27 */
    "ObjectReskin TankSkin Tank\n"                                       /* 28 */
    "  Draw = W3DTankDraw ModuleTag_01\n"                                /* 29 */
    "    DefaultConditionState\n"                                        /* 30 */
    "      Model = AVTankSkin\n"                                         /* 31 */
    "    End\n"                                                          /* 32 */
    "  End\n"                                                            /* 33 */
    "End\n";                                                             /* 34 */

static void test_objects_states_refs(void)
{
    amx_asset *a = decode_text(TANK);
    if (!a)
        return;
    CHECK_CLEAN(a);
    CHECK_EQ(a->format, AMX_FMT_SAGE_INI);
    CHECK_EQ(a->object_count, 2);
    if (a->object_count == 2) {
        CHECK_STR(a->objects[0].type, "Object");
        CHECK_STR(a->objects[0].name, "Tank");
        CHECK_EQ(a->objects[0].line, 2);
        CHECK(a->objects[0].variant_of == NULL);
        CHECK_STR(a->objects[1].type, "ObjectReskin");
        CHECK_STR(a->objects[1].name, "TankSkin");
        CHECK_STR(a->objects[1].variant_of, "Tank");
        CHECK_EQ(a->objects[1].line, 28);
    }
    CHECK_EQ(a->state_count, 5);
    if (a->state_count == 5) {
        CHECK_STR(a->states[0].kind, "DefaultConditionState");
        CHECK_STR(a->states[0].model, "AVTank");
        CHECK_STR(a->states[0].module, "W3DTankDraw ModuleTag_01");
        CHECK_EQ(a->states[0].line, 4);
        CHECK_STR(a->states[1].kind, "ConditionState");
        CHECK_STR(a->states[1].flags, "REALLYDAMAGED");
        CHECK_STR(a->states[1].model, "AVTank_D");
        /* the default state's model is inherited */
        CHECK_STR(a->states[2].flags, "MOVING DAMAGED");
        CHECK_STR(a->states[2].model, "AVTank");
        CHECK_STR(a->states[3].kind, "TransitionState");
        CHECK_STR(a->states[3].flags, "A B");
        CHECK_STR(a->states[3].model, "AVTank");
        CHECK_EQ(a->states[4].object, 1);
        CHECK_STR(a->states[4].model, "AVTankSkin");
    }
    /* the default's animation, bones and particle bones are copied into REALLYDAMAGED and
     * checked against its model, with the line where they are written */
    const amx_ref *r = find_ref(a, AMX_REF_W3D_ANIMATION, "AVTank_SKL.AVTank_IDL", "AVTank_D");
    CHECK(r != NULL);
    if (r) {
        CHECK_EQ(r->line, 6);
        CHECK_EQ(r->state, 1);
        CHECK_EQ(r->object, 0);
    }
    CHECK(find_ref(a, AMX_REF_BONE, "Muzzle", "AVTank_D") != NULL);
    CHECK(find_ref(a, AMX_REF_BONE, "Turret01", "AVTank") != NULL);
    CHECK(find_ref(a, AMX_REF_PARTICLE_BONE, "Exhaust", "AVTank_D") != NULL);
    /* the first own Animation line drops the copied ones */
    CHECK(find_ref(a, AMX_REF_W3D_ANIMATION, "AVTank_SKL.AVTank_MOV", "AVTank") != NULL);
    size_t idle_refs = 0;
    for (uint32_t i = 0; i < a->ref_count; i++)
        idle_refs += strcmp(a->refs[i].name, "AVTank_SKL.AVTank_IDL") == 0;
    CHECK_EQ(idle_refs, 2); /* AVTank (default, transition) and AVTank_D: once per model */
    r = find_ref(a, AMX_REF_SUB_OBJECT, "Lights", "AVTank");
    CHECK(r != NULL);
    if (r)
        CHECK_EQ(r->line, 17);
    r = find_ref(a, AMX_REF_W3D_MODEL, "AVTank_D", NULL);
    CHECK(r != NULL);
    if (r) {
        CHECK_EQ(r->line, 12);
        CHECK(r->model == NULL);
    }
    CHECK(find_ref(a, AMX_REF_W3D_MODEL, "EXTireTrack.tga", NULL) == NULL);
    amx_asset_free(a);
}

/* Draw modules that name their model outside any state (docs/formats/sage-ini.md 4b): Zero
 * Hour's W3DTreeDraw (ModelName, TextureName; StumpName is never read by the tree buffer) and
 * W3DPropDraw (ModelName), the last line of each field; BFME's W3DFloorDraw (ModelName). None in
 * a tree declared for Generals (which has no such module), nor a tree's texture in a BFME
 * file; other modules' ModelName lines are not models. */
static const char *TREES =
    "Object Dogwood\n"                                                   /* 1 */
    "  Draw = W3DTreeDraw ModuleTag_01\n"                                /* 2 */
    "    ModelName = PTOld\n"                                            /* 3 */
    "    ModelName = PTDogwod01\n"                                       /* 4 */
    "    TextureName = PTDogwod01.tga\n"                                 /* 5 */
    "    StumpName = PTStump\n"                                          /* 6 */
    "    DoTopple = Yes\n"                                               /* 7 */
    "  End\n"                                                            /* 8 */
    "  Behavior = ToppleUpdate ModuleTag_02\n"                           /* 9 */
    "    StumpName = TreeStump\n"                                        /* 10 */
    "  End\n"                                                            /* 11 */
    "End\n"                                                              /* 12 */
    "Object Barrel\n"                                                    /* 13 */
    "  Draw = W3DPropDraw ModuleTag_01\n"                                /* 14 */
    "    ModelName = PMBarrel01\n"                                       /* 15 */
    "  End\n"                                                            /* 16 */
    "  Draw = W3DDebrisDraw ModuleTag_02\n"                              /* 17 */
    "    ModelName = NotAModelHere\n"                                    /* 18 */
    "  End\n"                                                            /* 19 */
    "  Draw = W3DTreeDraw ModuleTag_03\n"                                /* 20 */
    "    ModelName = PTPalm_HasAVeryLongName\n"                          /* 21 */
    "  End\n"                                                            /* 22 */
    "End\n";                                                             /* 23 */

static void test_stateless_draw_models(void)
{
    amx_asset *a = decode_text(TREES);
    if (!a)
        return;
    const amx_ref *r = find_ref(a, AMX_REF_W3D_MODEL, "PTDogwod01", NULL);
    CHECK(r != NULL);
    if (r) {
        CHECK_EQ(r->line, 4);
        CHECK_STR(r->tag, "ModelName");
        CHECK_EQ(r->object, 0);
        CHECK_EQ(r->state, -1);
        CHECK(r->model == NULL);
    }
    CHECK(find_ref(a, AMX_REF_W3D_MODEL, "PTOld", NULL) == NULL); /* replaced by line 4 */
    r = find_ref(a, AMX_REF_TEXTURE, "PTDogwod01.tga", NULL);
    CHECK(r != NULL);
    if (r) {
        CHECK_EQ(r->line, 5);
        CHECK_STR(r->tag, "TextureName");
        CHECK_EQ(r->object, 0);
    }
    CHECK(find_ref(a, AMX_REF_W3D_MODEL, "PTStump", NULL) == NULL);
    CHECK(find_ref(a, AMX_REF_W3D_MODEL, "TreeStump", NULL) == NULL);
    r = find_ref(a, AMX_REF_W3D_MODEL, "PMBarrel01", NULL);
    CHECK(r != NULL);
    if (r) {
        CHECK_EQ(r->line, 15);
        CHECK_EQ(r->object, 1);
    }
    CHECK(find_ref(a, AMX_REF_W3D_MODEL, "NotAModelHere", NULL) == NULL);
    /* a name no W3D file can hold: W3D_NAME_TOO_LONG at its line, no reference */
    CHECK(find_ref(a, AMX_REF_W3D_MODEL, "PTPalm_HasAVeryLongName", NULL) == NULL);
    const amx_finding *f = finding_at(a, AMX_C_W3D_NAME_TOO_LONG, 21);
    CHECK(f != NULL);
    if (f)
        CHECK_STR(f->context, "ModelName of 'Barrel', line 21");
    CHECK_EQ(a->ref_count, 3);
    CHECK_EQ(a->state_count, 0);
    amx_asset_free(a);
    /* Generals: neither module exists, nothing is loaded */
    a = decode_game(TREES, "generals");
    if (a) {
        CHECK_EQ(a->ref_count, 0);
        amx_asset_free(a);
    }
    a = decode_game(TREES, "zh");
    if (a) {
        CHECK_EQ(a->ref_count, 3);
        amx_asset_free(a);
    }
    /* BFME: the floor's model (a #define'd name expanded), not a tree's */
    a = decode_text("#define FLOOR MBFloor01\n"                          /* 1 */
                    "Object Bib\n"                                       /* 2 */
                    "  Draw = W3DFloorDraw ModuleTag_01\n"               /* 3 */
                    "    ModelName = FLOOR\n"                            /* 4 */
                    "  End\n"                                            /* 5 */
                    "  Draw = W3DTreeDraw ModuleTag_02\n"                /* 6 */
                    "    ModelName = PTBirch\n"                          /* 7 */
                    "    TextureName = PTBirch.tga\n"                    /* 8 */
                    "  End\n"                                            /* 9 */
                    "End\n");
    if (a) {
        r = find_ref(a, AMX_REF_W3D_MODEL, "MBFloor01", NULL);
        CHECK(r != NULL);
        if (r)
            CHECK_EQ(r->line, 4);
        CHECK_EQ(a->ref_count, 1);
        amx_asset_free(a);
    }
    /* a floor in a tree declared for Zero Hour is no module of the game */
    a = decode_game("Object Bib\n  Draw = W3DFloorDraw ModuleTag_01\n    ModelName = MBFloor01\n"
                    "  End\nEnd\n", "zh");
    if (a) {
        CHECK_EQ(a->ref_count, 0);
        amx_asset_free(a);
    }
}

/* Each rule that stops the game at load, with its line. */
static void test_malformed(void)
{
    static const struct { const char *text; unsigned line; const char *says; } cases[] = {
        { "Object A\n  Draw = W3DModelDraw M\n    ConditionState = NONE\n      Model = M\n    End\n  End\n",
          1, "has no End" },
        { "Object A\n  Draw = W3DModelDraw M\n    ConditionState = NONE\n      Animation = "
          "X.Y\n    End\n  End\nEnd\n", 3, "without a Model" },
        { "Object A\n  Draw = W3DModelDraw M\n    ConditionState = DAMAGED\n      Model = M\n"
          "    End\n  End\nEnd\n", 3, "must be for NONE" },
        { "Object A\n  Draw = W3DModelDraw M\n    ConditionState = NONE\n      Model = M\n"
          "    End\n    DefaultConditionState\n      Model = M\n    End\n  End\nEnd\n", 6,
          "must be the module's first state" },
        { "Object A\n  Draw = W3DModelDraw M\n    DefaultConditionState\n      Model = M\n"
          "    End\n    DefaultConditionState\n      Model = M\n    End\n  End\nEnd\n", 6,
          "a second DefaultConditionState" },
        { "Object A\n  Draw = W3DModelDraw M\n    ConditionState = NONE\n      Model = M\n"
          "    End\n    ConditionState = B A\n      Model = M\n    End\n    ConditionState = A B"
          "\n      Model = M\n    End\n  End\nEnd\n", 9, "a second state for the condition flags 'A B'" },
        { "Object A\n  Draw = W3DModelDraw M\n    ConditionState = NONE\n      Model = M\n"
          "    End\n    ConditionState = A\n      Model = M\n    End\n    AliasConditionState = "
          "A\n  End\nEnd\n", 9, "a second state" },
        { "Object A\n  Draw = W3DModelDraw M\n    DefaultConditionState\n      Model = M\n"
          "      Animation = H.A\n      IdleAnimation = H.B\n    End\n  End\nEnd\n", 3,
          "Animation and IdleAnimation" },
        { "Object A\n  Draw = W3DModelDraw M\n    DefaultConditionState\n      Model = M\n"
          "    End\n    TransitionState = X x\n    End\n  End\nEnd\n", 6, "itself" },
        { "Object A\n  Draw = W3DModelDraw M\n    DefaultConditionState\n      Model = M\n"
          "      AnimationMode = LOOP\n    End\n    TransitionState = X Y\n    End\n  End\nEnd\n",
          7, "ONCE or ONCE_BACKWARDS" },
        { "Object A\n  Draw = W3DModelDraw M\n    AliasConditionState = A\n  End\nEnd\n", 3,
          "must follow" },
        { "Object A\n  Draw = W3DModelDraw M\n    DefaultConditionState\n      Model = M\n"
          "      WeaponFireFXBone = QUATERNARY Muzzle\n    End\n  End\nEnd\n", 5, "weapon slot" },
        { "Object A\nEnd\nEnd\n", 3, "End outside any block" },
        /* a state, or an alias, for a flag the module ignores (W3DModelDraw.cpp
         * parseConditionState); a state before the IgnoreConditionStates line is not */
        { "Object A\n  Draw = W3DModelDraw M\n    DefaultConditionState\n      Model = M\n"
          "    End\n    ConditionState = MOVING\n      Model = N\n    End\n"
          "    IgnoreConditionStates = PREORDER Moving\n    ConditionState = RUBBLE MOVING\n"
          "      Model = O\n    End\n  End\nEnd\n", 10, "the flag MOVING is in the module's "
          "IgnoreConditionStates (line 9)" },
        { "Object A\n  Draw = W3DModelDraw M\n    DefaultConditionState\n      Model = M\n"
          "    End\n    IgnoreConditionStates = RUBBLE\n    ConditionState = DAMAGED\n"
          "      Model = N\n    End\n    AliasConditionState = REALLYDAMAGED RUBBLE\n  End\nEnd\n",
          10, "the flag RUBBLE is in the module's IgnoreConditionStates (line 6)" },
        /* a UTF-8 byte order mark begins the first word (INI::readLine keeps bytes >= 128) */
        { "\357\273\277Object A\nEnd\n", 1, "UTF-8 byte order mark" },
        { "\357\273\277; c\nObject A\nEnd\n", 1, "ANSI, or UTF-8 without BOM" },
        /* a misspelt block (INI::load: "Unknown block") */
        { "Object A\nEnd\nObjcet B\n  KindOf = X\nEnd\n", 3, "'Objcet' is no block of the game "
          "(did you mean Object?)" },
        { "Weapon W\nEnd\nweapon V\nEnd\n", 3, "did you mean Weapon?" },
        { "Armor A\nEnd\nArmour B\nEnd\n", 3, "did you mean Armor?" },
        /* a module line without its tag (ThingTemplate::parseModuleName: getNextToken throws,
         * release builds included), also in a wrapper and in an ObjectReskin's Draw */
        { "Object A\n  Behavior = SlowDeathBehavior ModuleTag_01\n  End\n"
          "  Behavior = SlowDeathBehavior ; ModuleTag_02\n  End\nEnd\n", 4,
          "the module SlowDeathBehavior has no tag" },
        { "Object A\n  AddModule\n    Body = ActiveBody\n      MaxHealth = 1\n    End\n  End\n"
          "End\n", 3, "the module ActiveBody has no tag" },
        { "Object A\nEnd\nObjectReskin B A\n  Draw =\n  End\nEnd\n", 4,
          "a Draw without its module and tag" },
        /* ReplaceModule's module keeps the tag it replaces (parseModuleName: "ReplaceModule
         * must specify a new, unique tag", throw INI_INVALID_DATA) */
        { "Object A\n  Behavior = SlowDeathBehavior ModuleTag_05\n  End\n"
          "  ReplaceModule ModuleTag_05\n    Behavior = SlowDeathBehavior ModuleTag_05\n"
          "    End\n  End\nEnd\n", 5, "keeps the tag ModuleTag_05 of ReplaceModule (line 4)" },
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        amx_asset *a = decode_text(cases[i].text);
        if (!a)
            continue;
        const amx_finding *f = finding_at(a, AMX_C_INI_MALFORMED, cases[i].line);
        if (!f)
            printf("# case %zu: no INI_MALFORMED at line %u\n", i, cases[i].line);
        CHECK(f != NULL);
        if (f) {
            CHECK_EQ(f->severity, AMX_SEV_ERROR);
            if (!strstr(f->message, cases[i].says))
                printf("# case %zu: '%s' does not say '%s'\n", i, f->message, cases[i].says);
            CHECK(strstr(f->message, cases[i].says) != NULL);
        }
        if (count_code(a, AMX_C_INI_MALFORMED) != 1)
            show_findings(a, i);
        CHECK_EQ(count_code(a, AMX_C_INI_MALFORMED), 1);
        amx_asset_free(a);
    }
}

/* Module tags Zero Hour does not stop at in a release build: two modules of an object with one
 * tag (ModuleInfo::addModuleInfo checks it only #if defined(_DEBUG) || defined(_INTERNAL)), a
 * reskin's Draw with the tag of the original's (parseModuleName drops the copied module first),
 * AddModule, ReplaceModule with a new tag, tags differing in case only, a BFME module line. */
static void test_module_tags(void)
{
    static const char *const ok[] = {
        "Object A\n  Behavior = SlowDeathBehavior ModuleTag_05\n  End\n"
        "  Behavior = SlowDeathBehavior ModuleTag_05\n  End\n"
        "  Draw = W3DModelDraw ModuleTag_05\n  End\nEnd\n",
        "Object A\n  Draw = W3DModelDraw ModuleTag_01\n  End\nEnd\n"
        "ObjectReskin B A\n  Draw = W3DModelDraw ModuleTag_01\n  End\nEnd\n",
        "Object A\n  Behavior = SlowDeathBehavior ModuleTag_05\n  End\n"
        "  AddModule\n    Behavior = FXListDie ModuleTag_06\n    End\n  End\n"
        "  ReplaceModule ModuleTag_05\n    Behavior = SlowDeathBehavior ModuleTag_05b\n"
        "    End\n  End\n  ReplaceModule ModuleTag_06\n"
        "    Behavior = FXListDie moduletag_06\n    End\n  End\nEnd\n",
        "Object A\n  ReplaceModule ModuleTag_05\n    Behavior = X ModuleTag_06\n    End\n  End\n"
        "  AddModule\n    Behavior = X ModuleTag_05\n    End\n  End\nEnd\n",
        "#define T ModuleTag_01\nObject A\n  Behavior = SlowDeathBehavior\n  End\nEnd\n",
    };
    for (size_t i = 0; i < sizeof ok / sizeof ok[0]; i++) {
        amx_asset *a = decode_text(ok[i]);
        if (!a)
            continue;
        if (count_code(a, AMX_C_INI_MALFORMED))
            show_findings(a, i);
        CHECK_EQ(count_code(a, AMX_C_INI_MALFORMED), 0);
        amx_asset_free(a);
    }
}

/* A W3D name field holds 15 characters: a longer model or animation part never matches. */
static void test_name_length(void)
{
    amx_asset *a = decode_text(
        "Object A\n"
        "  Draw = W3DModelDraw M\n"
        "    DefaultConditionState\n"
        "      Model = usa_airb_dirtD_d\n"                   /* 16 characters */
        "      Animation = NBNMissle_A3ENS.NBNMissle_A3ENSS\n" /* 15 . 16 */
        "    End\n"
        "    ConditionState = DAMAGED\n"
        "      Model = ABCDEFGHIJKLMNO\n"                    /* 15: fine */
        "      Animation = NBNMissle_A3ENS.NBNMissle_A3ENS\n"
        "    End\n"
        "  End\n"
        "End\n");
    if (!a)
        return;
    CHECK_EQ(count_code(a, AMX_C_W3D_NAME_TOO_LONG), 2);
    const amx_finding *f = finding_at(a, AMX_C_W3D_NAME_TOO_LONG, 4);
    CHECK(f && strstr(f->message, "'usa_airb_dirtD_d' has 16 characters"));
    f = finding_at(a, AMX_C_W3D_NAME_TOO_LONG, 5);
    CHECK(f && strstr(f->message, "'NBNMissle_A3ENSS' has 16"));
    CHECK(find_ref(a, AMX_REF_W3D_MODEL, "usa_airb_dirtD_d", NULL) == NULL);
    CHECK(find_ref(a, AMX_REF_W3D_MODEL, "ABCDEFGHIJKLMNO", NULL) != NULL);
    CHECK(find_ref(a, AMX_REF_W3D_ANIMATION, "NBNMissle_A3ENS.NBNMissle_A3ENS", NULL) != NULL);
    amx_asset_free(a);
}

static void test_bfme(void)
{
    amx_asset *a = decode_text(
        "#define HERO_MODEL GUHero_SKN\n"                                  /* 1 */
        "Object Hero // a BFME comment\n"                                  /* 2 */
        "\tDraw = W3DScriptedModelDraw ModuleTag_DRAW\n"                   /* 3 */
        "\t\tDefaultModelConditionState\n"                                 /* 4 */
        "\t\t\tModel = HERO_MODEL -- also a comment\n"                     /* 5 */
        "\t\tEnd\n"                                                        /* 6 */
        "\t\tAnimationState = MOVING\n"                                    /* 7 */
        "\t\t\tAnimation = Walk\n"                                         /* 8 */
        "\t\t\t\tAnimationName = GUHero_SKL.GUHero_WLKA\n"                 /* 9 */
        "\t\t\tEnd\n"                                                      /* 10 */
        "\t\t\tBeginScript\n"                                              /* 11 */
        "\t\t\t\tif x then End end\n"                                      /* 12 */
        "\t\t\tEndScript\n"                                                /* 13 */
        "\t\tEnd\n"                                                        /* 14 */
        "\tEnd\n"                                                          /* 15 */
        "\t#include \"..\\includes\\Stun.inc\"\n"                          /* 16 */
        "End\n"                                                            /* 17 */
        "ChildObject HeroMP Hero\n"                                        /* 18 */
        "End\n");                                                          /* 19 */
    if (!a)
        return;
    CHECK_CLEAN(a);
    CHECK_EQ(a->object_count, 2);
    if (a->object_count == 2) {
        CHECK_STR(a->objects[1].type, "ChildObject");
        CHECK_STR(a->objects[1].variant_of, "Hero");
    }
    CHECK(find_ref(a, AMX_REF_W3D_MODEL, "GUHero_SKN", NULL) != NULL);
    const amx_ref *r = find_ref(a, AMX_REF_W3D_ANIMATION, "GUHero_SKL.GUHero_WLKA", "GUHero_SKN");
    CHECK(r != NULL);
    if (r)
        CHECK_EQ(r->line, 9);
    r = find_ref(a, AMX_REF_INCLUDE, "..\\includes\\Stun.inc", NULL);
    CHECK_EQ(count_code(a, AMX_C_INI_MALFORMED), 0);
    CHECK(r != NULL);
    if (r) {
        CHECK_EQ(r->line, 16);
        CHECK_EQ(r->object, 0);
    }
    amx_asset_free(a);
    /* the Zero Hour state rules are not judged in a BFME file: a state without a model */
    a = decode_text("#define X 1\nObject A\n  Draw = W3DModelDraw M\n    ConditionState = DAMAGED\n"
                    "    End\n  End\nEnd\n");
    if (a) {
        CHECK_EQ(count_code(a, AMX_C_INI_MALFORMED), 0);
        amx_asset_free(a);
    }
    /* a block of another game of the engine (BFME's ExperienceLevel) is no misspelling */
    a = decode_text("Object A\nEnd\nExperienceLevel L\n  RequiredExperience = 0\nEnd\n"
                    "StanceTemplate S\nEnd\n");
    if (a) {
        CHECK_EQ(count_code(a, AMX_C_INI_MALFORMED), 0);
        amx_asset_free(a);
    }
    a = decode_text("Object A\n  Draw = W3DModelDraw M\n    ConditionState = DAMAGED\n"
                    "    End\n  End\nEnd\n");
    if (a) {
        CHECK_EQ(count_code(a, AMX_C_INI_MALFORMED), 2); /* no model; not NONE first */
        amx_asset_free(a);
    }
}

/* Blocks of BFME objects that animidx must see open and close, else an End closes the block
 * around them and the rest of the object is lost. Found on retail BFME 2 1.06 and RotWK mod
 * objects (MordorArcher, AngmarThrallMaster). ClientBehavior = TYPE TAG is a module (OpenSAGE
 * ObjectDefinition.cs FieldParseTable): here it comes before the draw module, whose states were
 * then read as unknown blocks (no state, no reference) and the object's End as a stray one. */
/* A state keeps 256 names of each list (animations, particle bones, sub-objects); past them one
 * LIMIT_EXCEEDED says the rest are not checked. The count past the list once read the entry after
 * it: a NULL name (the next list's first), or past the state (the sub-objects): a crash the fuzz
 * harness found once #include lines could repeat a file's states. */
static void test_list_limit(void)
{
    size_t cap = 64 * 1024, at = 0;
    char *text = malloc(cap);
    if (!text)
        return;
    at += (size_t)snprintf(text + at, cap - at, "Object Many\n  Draw = W3DModelDraw M\n"
                           "    DefaultConditionState\n      Model = AVMany\n");
    for (int i = 0; i < 300; i++)
        at += (size_t)snprintf(text + at, cap - at, "      Animation = AVMany.A%d\n"
                               "      ParticleSysBone = Bone%d Fx\n      HideSubObject = Sub%d\n",
                               i, i, i);
    at += (size_t)snprintf(text + at, cap - at, "    End\n    ConditionState = DAMAGED\n"
                           "    End\n  End\nEnd\n");
    amx_asset *a = decode_game(text, "zh");
    free(text);
    if (!a)
        return;
    CHECK_EQ(count_code(a, AMX_C_LIMIT_EXCEEDED), 3);
    size_t anims = 0, bones = 0, subs = 0;
    for (uint32_t i = 0; i < a->ref_count; i++) {
        anims += a->refs[i].kind == AMX_REF_W3D_ANIMATION && a->refs[i].state == 0;
        bones += a->refs[i].kind == AMX_REF_PARTICLE_BONE && a->refs[i].state == 0;
        subs += a->refs[i].kind == AMX_REF_SUB_OBJECT && a->refs[i].state == 0;
    }
    CHECK_EQ(anims, 256);
    CHECK_EQ(bones, 256);
    CHECK_EQ(subs, 256);
    CHECK(find_ref(a, AMX_REF_W3D_ANIMATION, "AVMany.A255", NULL) != NULL);
    CHECK(find_ref(a, AMX_REF_W3D_ANIMATION, "AVMany.A256", NULL) == NULL);
    amx_asset_free(a);
}

/* The files of test_bfme_include_read's tree: a name (as resolved, relative to the root) and its
 * text; the #include paths are taken from the directory of the file they are in. */
static const char *const include_tree[][2] = {
    { "Data/INI/Includes/anims.inc",
      "\xEF\xBB\xBF; a fragment: the animation states of a draw module\n"  /* 1 */
      "AnimationState = MOVING\n"                                         /* 2 */
      "  Animation = Walk\n"                                              /* 3 */
      "    AnimationName = GUHero_SKL.GUHero_WLKA\n"                      /* 4 */
      "  End\n"                                                           /* 5 */
      "End\n"                                                             /* 6 */
      "#include \"More\\idle.inc\"\n"                                     /* 7 */
      "ModelConditionState = BROKEN\n"                                    /* 8 */
      "  Model = GUHero_Broken_Model_Name\n"                              /* 9: 24 characters */
      "End\n" },
    { "Data/INI/Includes/More/idle.inc",
      "IdleAnimationState\n  Animation = Idle\n    AnimationName = HERO_SKL.GUHero_IDLA\n"
      "  End\nEnd\n" },
    { "Data/INI/Includes/loop.inc", "#include \"loop2.inc\"\n" },
    { "Data/INI/Includes/loop2.inc", "\n\n#include \"LOOP.inc\"\n" },
    { "Data/INI/Includes/macros.inc",
      "#define HERO_IDLE GUHero_SKL.GUHero_IDLB\nObject NotReadHere\nEnd\n" },
    { "Data/INI/Includes/closes.inc",
      "AnimationState = Y\n  Animation = B\n    AnimationName = GUHero_SKL.GUHero_CLSA\n  End\n"
      "End\nEnd\nAnimationState = IGNORED\nEnd\n" },
};

static const uint8_t *include_from_tree(void *user, const char *from, const char *path,
                                        size_t max_len, size_t *len, char *resolved,
                                        size_t cap)
{
    int *reads = user;
    char want[512];
    const char *slash = strrchr(from, '/');
    size_t at = slash ? (size_t)(slash - from) + 1 : 0;
    snprintf(want, sizeof want, "%.*s", (int)at, from);
    for (const char *p = path; *p && at + 1 < sizeof want; p++) /* "..\" climbs */
        if (p[0] == '.' && p[1] == '.' && (p[2] == '\\' || p[2] == '/')) {
            while (at && want[at - 1] == '/')
                at--;
            while (at && want[at - 1] != '/')
                at--;
            want[at] = '\0';
            p += 2;
        } else {
            want[at++] = *p == '\\' ? '/' : *p;
            want[at] = '\0';
        }
    /* a chain of files deeper than the decoder reads: chain/N.inc includes chain/N+1.inc */
    static char chain[64];
    if (strncmp(want, "Data/INI/chain/", 15) == 0) {
        snprintf(resolved, cap, "%s", want);
        snprintf(chain, sizeof chain, "AnimationState = S%d\nEnd\n#include \"%d.inc\"\n",
                 atoi(want + 15), atoi(want + 15) + 1);
        *len = strlen(chain);
        ++*reads;
        if (*len > max_len)
            *len = SIZE_MAX;
        return *len <= max_len ? (const uint8_t *)chain : NULL;
    }
    for (size_t i = 0; i < sizeof include_tree / sizeof *include_tree; i++)
        if (strcasecmp(include_tree[i][0], want) == 0) {
            snprintf(resolved, cap, "%s", include_tree[i][0]);
            *len = strlen(include_tree[i][1]);
            ++*reads;
            if (*len > max_len)
                *len = SIZE_MAX;
            return *len <= max_len ? (const uint8_t *)include_tree[i][1] : NULL;
        }
    return NULL;
}

/* An #include inside a block is read in place (OpenSAGE ParseIncludedFile): a draw module's
 * states kept in a fragment belong to the module that includes it, their references point at
 * the #include line, and the decoder's findings in them say the line of the fragment. The
 * include path is taken from the file the line is in; the references of nested #include lines
 * are made relative to the decoded file (the link pass resolves them from it). A fragment that
 * includes one it is read from is INI_MALFORMED; past 16 files one inside another the rest is a
 * reference only (LIMIT_EXCEEDED info). At the top level, and without read_include, nothing is
 * read. */
static void test_bfme_include_read(void)
{
    static const char *const text =
        "Object Hero\n"                                                   /* 1 */
        "  Draw = W3DScriptedModelDraw ModuleTag_DRAW\n"                  /* 2 */
        "    DefaultModelConditionState\n"                                /* 3 */
        "      Model = GUHero_SKN\n"                                      /* 4 */
        "    End\n"                                                       /* 5 */
        "    #include \"..\\includes\\ANIMS.inc\"\n"                      /* 6 */
        "    AnimationState = DYING\n"                                    /* 7 */
        "      Animation = Die\n"                                         /* 8 */
        "        AnimationName = GUHero_SKL.GUHero_DIEA\n"                /* 9 */
        "      End\n"                                                     /* 10 */
        "    End\n"                                                       /* 11 */
        "    #include \"..\\includes\\loop.inc\"\n"                       /* 12 */
        "  End\n"                                                         /* 13 */
        "End\n"                                                           /* 14 */
        "#include \"..\\includes\\anims.inc\"\n"                          /* 15 */
        "Object Deep\n"                                                   /* 16 */
        "  Draw = W3DScriptedModelDraw M\n"                               /* 17 */
        "    #include \"..\\chain\\0.inc\"\n"                             /* 18 */
        "  End\n"                                                         /* 19 */
        "End\n";                                                          /* 20 */
    int reads = 0;
    amx_decode_opts o = { .file_name = "Data/INI/Object/hero.ini", .format = AMX_FMT_SAGE_INI,
                          .read_include = include_from_tree, .include_user = &reads };
    amx_asset *a = test_decode((const uint8_t *)text, strlen(text), &o);
    if (!a)
        return;
    /* anims.inc, idle.inc, loop.inc, loop2.inc, loop.inc again (the cycle: not read on);
     * chain/0..15.inc; anims.inc and idle.inc for their macros (line 15) */
    CHECK_EQ(reads, 5 + 16 + 2);
    const amx_ref *r = find_ref(a, AMX_REF_W3D_ANIMATION, "GUHero_SKL.GUHero_WLKA", "GUHero_SKN");
    CHECK(r != NULL);
    if (r) {
        CHECK_EQ(r->line, 6);
        CHECK_EQ(r->object, 0);
        CHECK_STR(r->tag, "AnimationName (anims.inc line 4)"); /* the fragment's own line */
    }
    r = find_ref(a, AMX_REF_W3D_ANIMATION, "HERO_SKL.GUHero_IDLA", "GUHero_SKN");
    CHECK(r != NULL && r->line == 6);
    r = find_ref(a, AMX_REF_W3D_ANIMATION, "GUHero_SKL.GUHero_DIEA", "GUHero_SKN");
    CHECK(r != NULL && r->line == 9); /* the includer's own lines go on after the fragment */
    r = find_ref(a, AMX_REF_INCLUDE, "../../../Data/INI/Includes/More\\idle.inc", NULL);
    CHECK(r != NULL && r->line == 6);
    CHECK(find_ref(a, AMX_REF_INCLUDE, "..\\includes\\ANIMS.inc", NULL) != NULL);
    /* the 15-character rule, in the fragment: judged with its state, at the #include line */
    const amx_finding *f = finding_at(a, AMX_C_W3D_NAME_TOO_LONG, 6);
    CHECK(f != NULL);
    f = finding_at(a, AMX_C_INI_MALFORMED, 12);
    CHECK(f != NULL);
    if (f) {
        CHECK(strstr(f->message, "endless #include cycle") != NULL);
        CHECK(strstr(f->context, "(line 3 of the #included Data/INI/Includes/loop2.inc)") != NULL);
    }
    CHECK_EQ(count_code(a, AMX_C_INI_MALFORMED), 1);
    f = finding_at(a, AMX_C_LIMIT_EXCEEDED, 18);
    CHECK(f != NULL && f->severity == AMX_SEV_INFO);
    CHECK_EQ(a->object_count, 2);
    /* chain/0..15.inc add a state each; the top-level #include (line 15) is not read */
    size_t deep = 0, moving = 0;
    for (uint32_t i = 0; i < a->state_count; i++) {
        deep += a->states[i].object == 1;
        moving += a->states[i].flags && strcmp(a->states[i].flags, "MOVING") == 0;
    }
    CHECK_EQ(deep, 16);
    CHECK_EQ(moving, 1);
    amx_asset_free(a);

    /* a top-level #include: its macros apply to what follows, its blocks are its own file's; an
     * End in a fragment that closes the block it is read in ends its reading */
    static const char *const text2 =
        "#include \"..\\includes\\macros.inc\"\n"                      /* 1 */
        "Object Villain\n"                                                /* 2 */
        "  Draw = W3DScriptedModelDraw M\n"                               /* 3 */
        "    DefaultModelConditionState\n"                                /* 4 */
        "      Model = GUVillain\n"                                       /* 5 */
        "    End\n"                                                       /* 6 */
        "    AnimationState = X\n"                                        /* 7 */
        "      Animation = A\n"                                           /* 8 */
        "        AnimationName = HERO_IDLE\n"                             /* 9 */
        "      End\n"                                                     /* 10 */
        "    End\n"                                                       /* 11 */
        "    #include \"..\\includes\\closes.inc\"\n"                   /* 12 */
        "End\n";                                                          /* 13 */
    a = test_decode((const uint8_t *)text2, strlen(text2), &o);
    if (a) {
        CHECK_CLEAN(a);
        CHECK_EQ(a->object_count, 1);
        r = find_ref(a, AMX_REF_W3D_ANIMATION, "GUHero_SKL.GUHero_IDLB", "GUVillain");
        CHECK(r != NULL && r->line == 9);
        r = find_ref(a, AMX_REF_W3D_ANIMATION, "GUHero_SKL.GUHero_CLSA", "GUVillain");
        CHECK(r != NULL && r->line == 12);
        for (uint32_t i = 0; i < a->state_count; i++)
            CHECK(!a->states[i].flags || strcmp(a->states[i].flags, "IGNORED") != 0);
        amx_asset_free(a);
    }

    /* without read_include the fragment is a reference only */
    o.read_include = NULL;
    a = test_decode((const uint8_t *)text, strlen(text), &o);
    if (a) {
        CHECK(find_ref(a, AMX_REF_W3D_ANIMATION, "GUHero_SKL.GUHero_WLKA", NULL) == NULL);
        CHECK(find_ref(a, AMX_REF_INCLUDE, "..\\includes\\ANIMS.inc", NULL) != NULL);
        CHECK_EQ(count_code(a, AMX_C_INI_MALFORMED), 0);
        amx_asset_free(a);
    }
}

static void test_bfme_blocks(void)
{
    amx_asset *a = decode_text(
        "Object Orc\n"                                                      /* 1 */
        "\tClientBehavior = AnimationSoundClientBehavior ModuleTag_Audio\n"  /* 2 */
        "\t\tMaxUpdateRangeCap = 800\n"                                     /* 3 */
        "\tEnd\n"                                                           /* 4 */
        "\tDraw = W3DScriptedModelDraw ModuleTag_01\n"                       /* 5 */
        "\t\tDefaultModelConditionState\n"                                  /* 6 */
        "\t\t\tModel = MUOrc_SKN\n"                                         /* 7 */
        "\t\tEnd\n"                                                         /* 8 */
        "\t\tAnimationState = MOVING\n"                                     /* 9 */
        "\t\t\tAnimation = Run\n"                                           /* 10 */
        "\t\t\t\tAnimationName = MUOrc_SKL.MUOrc_RUNA\n"                     /* 11 */
        "\t\t\tEnd\n"                                                       /* 12 */
        "\t\tEnd\n"                                                         /* 13 */
        "\tEnd\n"                                                           /* 14 */
        "End\n"                                                             /* 15 */
        "ChildObject Orc2 Orc\n"                                            /* 16 */
        "End\n");                                                           /* 17 */
    if (!a)
        return;
    if (a->finding_count)
        show_findings(a, 0);
    CHECK_CLEAN(a);
    CHECK_EQ(count_code(a, AMX_C_INI_MALFORMED), 0);
    CHECK_EQ(a->object_count, 2);
    CHECK_EQ(a->state_count, 2);
    if (a->state_count == 2) {
        CHECK_STR(a->states[0].kind, "DefaultModelConditionState");
        CHECK_STR(a->states[0].model, "MUOrc_SKN");
        CHECK_STR(a->states[1].kind, "AnimationState");
        CHECK_STR(a->states[1].flags, "MOVING");
        CHECK_EQ(a->states[1].object, 0);
    }
    const amx_ref *r = find_ref(a, AMX_REF_W3D_ANIMATION, "MUOrc_SKL.MUOrc_RUNA", "MUOrc_SKN");
    CHECK(r != NULL);
    if (r)
        CHECK_EQ(r->line, 11);
    amx_asset_free(a);
    /* W3DHordeModelDraw's LodOptions = LEVEL ... End (OpenSAGE W3dHordeModelDraw.cs) is a block
     * of the draw module: its End closed the module, and the states after it were lost (retail
     * MordorArcher: 22 INI_MALFORMED, 0 states) */
    a = decode_text(
        "Object Archer\n"                                                   /* 1 */
        "\tDraw = W3DHordeModelDraw ModuleTag_01\n"                          /* 2 */
        "\t\tLodOptions\t= LOW\n"                                            /* 3 */
        "\t\t\tAllowMultipleModels\t= ALLOW_MULTIPLE_MODELS_LOW\n"             /* 4 */
        "\t\tEnd\n"                                                         /* 5 */
        "\t\tLodOptions = HIGH\n"                                           /* 6 */
        "\t\t\tMaxRandomTextures = 4\n"                                     /* 7 */
        "\t\tEnd\n"                                                         /* 8 */
        "\t\tDefaultModelConditionState\n"                                  /* 9 */
        "\t\t\tModel = MUArchr_SKN\n"                                       /* 10 */
        "\t\tEnd\n"                                                         /* 11 */
        "\t\tAnimationState = MOVING\n"                                     /* 12 */
        "\t\t\tAnimation = Run\n"                                           /* 13 */
        "\t\t\t\tAnimationName = MUArchr_SKL.MUArchr_RUNB\n"                 /* 14 */
        "\t\t\tEnd\n"                                                       /* 15 */
        "\t\tEnd\n"                                                         /* 16 */
        "\tEnd\n"                                                           /* 17 */
        "End\n");                                                           /* 18 */
    if (!a)
        return;
    if (a->finding_count)
        show_findings(a, 1);
    CHECK_CLEAN(a);
    CHECK_EQ(a->state_count, 2);
    if (a->state_count == 2) {
        CHECK_STR(a->states[0].module, "W3DHordeModelDraw ModuleTag_01");
        CHECK_STR(a->states[0].model, "MUArchr_SKN");
        CHECK_EQ(a->states[1].line, 12);
    }
    r = find_ref(a, AMX_REF_W3D_ANIMATION, "MUArchr_SKL.MUArchr_RUNB", "MUArchr_SKN");
    CHECK(r != NULL);
    if (r)
        CHECK_EQ(r->line, 14);
    amx_asset_free(a);
    /* a BFME Weapon's nuggets are blocks (OpenSAGE WeaponTemplate.cs); ClearNuggets is a field
     * without a value. The first nugget's End closed the weapon, and the weapon's End was a stray
     * one (a RotWK mod's Weapon_EM.ini: one per weapon with a nugget) */
    a = decode_text(
        "Weapon DrakeBreath\n"                                              /* 1 */
        "  AttackRange = 60.0\n"                                            /* 2 */
        "  ClearNuggets\n"                                                  /* 3 */
        "  DamageNugget ; a basic nugget\n"                                 /* 4 */
        "    Damage = 500\n"                                                /* 5 */
        "  End\n"                                                           /* 6 */
        "  ParalyzeNugget\n"                                                /* 7 */
        "    Radius = 80\n"                                                 /* 8 */
        "  End\n"                                                           /* 9 */
        "End\n"                                                             /* 10 */
        "Object After\n"                                                    /* 11 */
        "End\n");                                                           /* 12 */
    if (!a)
        return;
    if (a->finding_count)
        show_findings(a, 2);
    CHECK_CLEAN(a);
    CHECK_EQ(a->object_count, 1);
    if (a->object_count == 1)
        CHECK_EQ(a->objects[0].line, 11);
    amx_asset_free(a);
    /* a file with no other mark of the dialect whose lines start with "//": BFME comments (to
     * Zero Hour an unknown block or field, which stops its load). Its "//End" and "// End" lines
     * were read as blocks: "'//' has no End" (a RotWK mod's FXList file) */
    a = decode_text(
        "FXList FX_Blink\n"                                                 /* 1 */
        "  ParticleSystem\n"                                                /* 2 */
        "    Name = BlinkFlare\n"                                           /* 3 */
        "  End\n"                                                           /* 4 */
        " //ParticleSystem\n"                                               /* 5 */
        " //   Name = BlinkFog\n"                                           /* 6 */
        " // End\n"                                                         /* 7 */
        "End\n"                                                             /* 8 */
        "//FXList FX_Old\n"                                                 /* 9 */
        "//End\n"                                                           /* 10 */
        "Object After -- a comment too\n"                                   /* 11 */
        "End\n");                                                           /* 12 */
    if (!a)
        return;
    if (a->finding_count)
        show_findings(a, 3);
    CHECK_CLEAN(a);
    CHECK_EQ(a->object_count, 1);
    if (a->object_count == 1) {
        CHECK_STR(a->objects[0].name, "After");
        CHECK_EQ(a->objects[0].line, 11);
    }
    amx_asset_free(a);
}

/* A BFME AnimationState draws no model: it plays on the model of the ModelConditionState the
 * object's flags select, each list being matched on its own (BFME 2: Zero Hour's
 * SparseMatchFinder, the most flags then the fewest others; RotWK, per Open-BFME: the first state
 * whose flags are all set). Its animations were checked against the default model, so a
 * building's damage animation (retail BFME 2 barricade.ini: REALLYDAMAGED plays
 * MBBarcade_D2.MBBarcade_D2 on the REALLYDAMAGED model MBBarcade_D2) was a hierarchy mismatch
 * against MBBarcade. Asked with the state's own flags: the model both rules choose, none when they
 * differ (then the animation is only looked up). */
static void test_bfme_anim_model(void)
{
    amx_asset *a = decode_text(
        "Object Barricade\n"                                                /* 1 */
        "  Draw = W3DScriptedModelDraw ModuleTag_Draw\n"                    /* 2 */
        "    DefaultModelConditionState\n"                                  /* 3 */
        "      Model = MBBarcade\n"                                         /* 4 */
        "    End\n"                                                         /* 5 */
        "    AnimationState = RUBBLE\n"                                     /* 6 */
        "      Animation = Fall\n"                                          /* 7 */
        "        AnimationName = MBBarcade_D3.MBBarcade_D3\n"               /* 8 */
        "      End\n"                                                       /* 9 */
        "      ParticleSysBone = Smoke01 SmokeRubble\n"                     /* 10 */
        "    End\n"                                                         /* 11 */
        "    ModelConditionState = REALLYDAMAGED\n"                         /* 12 */
        "      Model = MBBarcade_D2\n"                                      /* 13 */
        "    End\n"                                                         /* 14 */
        "    ModelConditionState = RUBBLE\n"                                /* 15 */
        "      Model = MBBarcade_D3\n"                                      /* 16 */
        "    End\n"                                                         /* 17 */
        "    ModelConditionState = DAMAGED\n"                               /* 18 */
        "      Model = MBBarcade_D1\n"                                      /* 19 */
        "    End\n"                                                         /* 20 */
        "    ModelConditionState = DAMAGED SNOW\n"                          /* 21 */
        "      Model = MBBarcade_S1\n"                                      /* 22 */
        "    End\n"                                                         /* 23 */
        "    AnimationState = REALLYDAMAGED\n"                              /* 24 */
        "      Animation = Rubble\n"                                        /* 25 */
        "        AnimationName = MBBarcade_D2.MBBarcade_D2\n"               /* 26 */
        "      End\n"                                                       /* 27 */
        "    End\n"                                                         /* 28 */
        "    AnimationState = SNOW DAMAGED\n"                               /* 29 */
        "      Animation = Shake\n"                                         /* 30 */
        "        AnimationName = MBBarcade_S1.MBBarcade_S1\n"               /* 31 */
        "      End\n"                                                       /* 32 */
        "    End\n"                                                         /* 33 */
        "    IdleAnimationState\n"                                          /* 34 */
        "      Animation = Idle\n"                                          /* 35 */
        "        AnimationName = MBBarcade.MBBarcade_IDL\n"                 /* 36 */
        "      End\n"                                                       /* 37 */
        "    End\n"                                                         /* 38 */
        "    TransitionState = TRANS_RUBBLE\n"                              /* 39 */
        "      Animation = T\n"                                             /* 40 */
        "        AnimationName = MBBarcade.MBBarcade_TRN\n"                 /* 41 */
        "      End\n"                                                       /* 42 */
        "    End\n"                                                         /* 43 */
        "  End\n"                                                           /* 44 */
        "End\n");                                                           /* 45 */
    if (!a)
        return;
    CHECK_CLEAN(a);
    /* the state's own model, though the model state comes after it */
    const amx_ref *r = find_ref(a, AMX_REF_W3D_ANIMATION, "MBBarcade_D3.MBBarcade_D3", NULL);
    CHECK(r != NULL);
    if (r) {
        CHECK(r->model != NULL);
        if (r->model)
            CHECK_STR(r->model, "MBBarcade_D3");
        CHECK_EQ(r->line, 8);
        CHECK(r->state >= 0 && (uint32_t)r->state < a->state_count);
        if (r->state >= 0 && (uint32_t)r->state < a->state_count)
            CHECK_EQ(a->states[r->state].line, 6);
    }
    r = find_ref(a, AMX_REF_PARTICLE_BONE, "Smoke01", "MBBarcade_D3");
    CHECK(r != NULL);
    if (r)
        CHECK_EQ(r->line, 10);
    r = find_ref(a, AMX_REF_W3D_ANIMATION, "MBBarcade_D2.MBBarcade_D2", NULL);
    CHECK(r != NULL);
    if (r && r->model)
        CHECK_STR(r->model, "MBBarcade_D2");
    /* DAMAGED SNOW: BFME 2 picks the DAMAGED SNOW model, RotWK the DAMAGED one (first whose flags
     * are all set): not known, so no model */
    r = find_ref(a, AMX_REF_W3D_ANIMATION, "MBBarcade_S1.MBBarcade_S1", NULL);
    CHECK(r != NULL);
    if (r)
        CHECK(r->model == NULL || r->model[0] == '\0');
    /* no flags: the default model */
    r = find_ref(a, AMX_REF_W3D_ANIMATION, "MBBarcade.MBBarcade_IDL", "MBBarcade");
    CHECK(r != NULL);
    r = find_ref(a, AMX_REF_W3D_ANIMATION, "MBBarcade.MBBarcade_TRN", "MBBarcade");
    CHECK(r != NULL);
    amx_asset_free(a);

    /* a module of 2,100 model and 2,000 animation states: each animation state's model is chosen
     * among all model states, 4,200,000 comparisons, past the 4,000,000 a file allows (a hostile
     * file of thousands of each cost their square: 15,000 of each took 5.8 s, now 0.2 s). The
     * first 1,903 states (2,101 comparisons each, the default state included) find their model;
     * past the limit, one LIMIT_EXCEEDED and none. */
    size_t cap = 1u << 20, n = 0;
    char *big = malloc(cap);
    if (!big)
        return;
    n += (size_t)snprintf(big + n, cap - n, "Object A\n  Draw = W3DScriptedModelDraw M\n"
                          "    DefaultModelConditionState\n      Model = X\n    End\n");
    for (int i = 0; i < 2100 && n < cap - 200; i++)
        n += (size_t)snprintf(big + n, cap - n, "    ModelConditionState = F%d\n"
                              "      Model = M%d\n    End\n", i, i);
    for (int i = 0; i < 2000 && n < cap - 200; i++)
        n += (size_t)snprintf(big + n, cap - n, "    AnimationState = F%d\n      Animation = a\n"
                              "        AnimationName = H%d.A%d\n      End\n    End\n", i, i, i);
    n += (size_t)snprintf(big + n, cap - n, "  End\nEnd\n");
    a = decode_text(big);
    free(big);
    if (!a)
        return;
    CHECK_EQ(count_code(a, AMX_C_LIMIT_EXCEEDED), 1);
    CHECK(find_ref(a, AMX_REF_W3D_ANIMATION, "H0.A0", "M0") != NULL);
    CHECK(find_ref(a, AMX_REF_W3D_ANIMATION, "H1902.A1902", "M1902") != NULL);
    r = find_ref(a, AMX_REF_W3D_ANIMATION, "H1903.A1903", NULL);
    CHECK(r != NULL && (!r->model || !r->model[0]));
    r = find_ref(a, AMX_REF_W3D_ANIMATION, "H1999.A1999", NULL);
    CHECK(r != NULL && (!r->model || !r->model[0]));
    amx_asset_free(a);
}

/* The lexer reads tokens in the file's bytes: bytes 1-31 are spaces (a tab or CR between the
 * words of a state's flags, a module's name or an #include path reads as one space), '=' runs
 * separate, ';' ends the line even inside a word, a NUL ends a name, and in BFME only a
 * doubled '/' or '-' is a comment. */
/* '=' is only a separator to both engines (EA INI.cpp, OpenSAGE IniParser.cs): a field without
 * it is a field, a module line without it a module, and only a lone word (or the few blocks
 * that take a name) opens a block. Before, every line without '=' opened one. */
static void test_fields_without_equals(void)
{
    amx_asset *a = decode_text("Object AmericaVehicleBlackHawk\n"                /* 1 */
                               "  BuildCost 100\n"                                /* 2 */
                               "  Draw  W3DModelDraw ModuleTag_01\n"              /* 3 */
                               "    DefaultConditionState\n"                      /* 4 */
                               "      Model AVBlckhwk\n"                          /* 5 */
                               "      Animation AVBlckhwk.AVBlckhwk\n"            /* 6 */
                               "    End\n"                                        /* 7 */
                               "  End\n"                                          /* 8 */
                               "  Behavior SpawnBehavior ModuleTag_02\n"          /* 9 */
                               "    SpawnTemplateName AmericaInfantryRanger\n"    /* 10 */
                               "  End\n"                                          /* 11 */
                               "  ReplaceModule ModuleTag_02\n"                   /* 12 */
                               "    Behavior SlowDeathBehavior ModuleTag_03\n"    /* 13 */
                               "    End\n"                                        /* 14 */
                               "  End\n"                                          /* 15 */
                               "End\n"                                            /* 16 */
                               "Object Second\n"                                  /* 17 */
                               "  Scale 1.75\n"                                   /* 18 */
                               "End\n");                                          /* 19 */
    CHECK(a != NULL);
    if (!a)
        return;
    CHECK_EQ(count_code(a, AMX_C_INI_MALFORMED), 0);
    CHECK_EQ(count_code(a, AMX_C_LIMIT_EXCEEDED), 0);
    CHECK_EQ(a->object_count, 2);
    if (a->object_count == 2)
        CHECK_STR(a->objects[1].name, "Second");
    CHECK_EQ(a->state_count, 1);
    CHECK(find_ref(a, AMX_REF_W3D_MODEL, "AVBlckhwk", NULL) != NULL);
    CHECK(find_ref(a, AMX_REF_W3D_ANIMATION, "AVBlckhwk.AVBlckhwk", NULL) != NULL);
    show_findings(a, 0);
    amx_asset_free(a);

    /* Zero Hour's own Campaign.ini (CampaignManager.cpp: only Mission opens a block) and
     * ControlBarResizer.ini (AltPosition, AltSize: one-line fields) */
    a = decode_text("Campaign TRAINING\n  CampaignNameLabel CAMPAIGN:TRAINING\n"
                    "  FirstMission Mission01\n  Mission Mission01\n    Map Maps\\x.map\n"
                    "  End\nEnd\nCampaign USA\n  FirstMission M1\nEnd\n"
                    "ControlBarResizer ControlBar\n  AltPosition X:0 Y:518\n"
                    "  AltSize X:800 Y:82\nEnd\n");
    CHECK(a != NULL);
    if (a) {
        CHECK_EQ(count_code(a, AMX_C_INI_MALFORMED), 0);
        show_findings(a, 1);
        amx_asset_free(a);
    }
    /* a block the game reads still needs its End */
    a = decode_text("Object A\n  WeaponSet\n    Weapon PRIMARY Gun\nEnd\n");
    CHECK(a != NULL);
    if (a) {
        CHECK_EQ(count_code(a, AMX_C_INI_MALFORMED), 1);
        amx_asset_free(a);
    }
}

/* The blocks of tables animidx does not model (BFME's living world, particle systems, the
 * blocks of one line): their nested blocks are read as the game reads them, so a real file
 * gives no INI_MALFORMED and no game object of its nested `Object NAME` blocks. */
static void test_unmodelled_blocks(void)
{
    /* BFME 2's LivingWorldBuildingIcons.ini: `Object NAME` blocks inside an icon, closed by an
     * End at their indentation; `Scale 1.0` beside them stays a field */
    amx_asset *a = decode_text("#define HOLD 0.16\n"                                /* 1 */
                               "LivingWorldBuildingIcon LWBIcon_MenFortress\n"    /* 2 */
                               "\tOnSelectedSound = WorldFortressSelect\n"        /* 3 */
                               "\tObject Building\n"                              /* 4 */
                               "\t\tModel\t\t= LWSMoWFort\n"                      /* 5 */
                               "\t\tScale 1.0\n"                                  /* 6 */
                               "\tEnd\n"                                          /* 7 */
                               "\t; a comment between\n"                          /* 8 */
                               "\tObject ProducingUnit\n"                         /* 9 */
                               "\n"                                               /* 10 */
                               "\t\tModel\t\t= LWSMoWFort\n"                      /* 11 */
                               "\tEnd\n"                                          /* 12 */
                               "End\n"                                            /* 13 */
                               "AudioLowMHz = 300\n"                              /* 14 */
                               "ReallyLowMHz = 400\n"                             /* 15 */
                               "Object Real\n"                                    /* 16 */
                               "End\n");                                          /* 17 */
    CHECK(a != NULL);
    if (!a)
        return;
    CHECK_EQ(count_code(a, AMX_C_INI_MALFORMED), 0);
    CHECK_EQ(a->object_count, 1);
    if (a->object_count == 1)
        CHECK_STR(a->objects[0].name, "Real");
    show_findings(a, 0);
    amx_asset_free(a);

    /* BFME's FXParticleSystem: modules opened by `Color = DefaultColor` (with '=') */
    static const char fx[] = "FXParticleSystem AODLightLenzflare\n"
                             "  System\n    Priority = HIGH_OR_ABOVE\n  End\n"
                             "  Color = DefaultColor\n    Color1 = R:73 G:85 B:72 0\n  End\n"
                             "  Physics = DefaultPhysics\n  End\n"
                             "  Draw = DefaultDraw\n  End\n"
                             "End\n";
    a = decode_text(fx);
    CHECK(a != NULL);
    if (a) {
        CHECK_EQ(count_code(a, AMX_C_INI_MALFORMED), 0);
        show_findings(a, 1);
        amx_asset_free(a);
    }
    /* ... whose own End still counts */
    char cut[sizeof fx];
    memcpy(cut, fx, sizeof fx);
    cut[strlen(cut) - 4] = '\0'; /* "End\n" */
    a = decode_text(cut);
    CHECK(a != NULL);
    if (a) {
        CHECK_EQ(count_code(a, AMX_C_INI_MALFORMED), 1);
        CHECK(finding_at(a, AMX_C_INI_MALFORMED, 1) != NULL);
        amx_asset_free(a);
    }

    /* a field of a Zero Hour block followed by a deeper line is no block without an End at
     * its indentation (a mod's object: `UpgradeCameo3 = X`, then a module indented deeper) */
    a = decode_text("AIData\n  SideInfo America\n    ResourceGatherersEasy = 1\n  End\n"
                    "  Unknown Word\n      Deeper = 1\n  Other = 2\nEnd\nObject B\nEnd\n");
    CHECK(a != NULL);
    if (a) {
        CHECK_EQ(count_code(a, AMX_C_INI_MALFORMED), 0);
        CHECK_EQ(a->object_count, 1);
        amx_asset_free(a);
    }

    /* hostile: staircases of lines, each deeper than the last, without '=' and without End:
     * each is looked past (256 lines) for its End only while the budget (linear in the file)
     * lasts; then said once, and read as a field */
    enum { STEPS = 3000, HIGHEST = 500 };
    size_t cap = (size_t)STEPS * (HIGHEST + 16) + 64, at = 0;
    char *stairs = malloc(cap);
    CHECK(stairs != NULL);
    if (!stairs)
        return;
    at += (size_t)snprintf(stairs + at, cap - at, "AIData\n");
    for (int i = 0; i < STEPS; i++) {
        int depth = 1 + i % HIGHEST; /* then down to 1 and up again */
        memset(stairs + at, ' ', (size_t)depth);
        at += (size_t)depth;
        at += (size_t)snprintf(stairs + at, cap - at, "Step %d\n", i);
    }
    at += (size_t)snprintf(stairs + at, cap - at, "End\n");
    a = decode_text(stairs);
    CHECK(a != NULL);
    if (a) {
        CHECK_EQ(count_code(a, AMX_C_INI_MALFORMED), 0);
        CHECK_EQ(count_code(a, AMX_C_LIMIT_EXCEEDED), 1);
        amx_asset_free(a);
    }
    free(stairs);
}

static void test_lexer(void)
{
    static const char zh[] =
        "Object\tTank\r\n"                                                  /* 1 */
        "  Draw ==\x01 W3DModelDraw\tModuleTag_01\r\n"                       /* 2 */
        "    DefaultConditionState\n"                                       /* 3 */
        "      Model = AV-Tank//x\n"                                        /* 4 */
        "    End\n"                                                         /* 5 */
        "    ConditionState = MOVING\t\x1f" "DAMAGED;cut\n"                 /* 6 */
        "      Model = AVTank_D\n"                                          /* 7 */
        "      Animation = AVTank_SKL.AVTank_IDL;x\n"                       /* 8 */
        "      ParticleSysBone = Ex\0haust FX\n"                            /* 9 */
        "    End\n"                                                         /* 10 */
        "  End\n"                                                           /* 11 */
        "End\n";                                                            /* 12 */
    amx_decode_opts o = { .file_name = "Data/INI/Object/Test.ini", .format = AMX_FMT_SAGE_INI };
    amx_asset *a = test_decode((const uint8_t *)zh, sizeof zh - 1, &o);
    if (!a)
        return;
    CHECK_EQ(count_code(a, AMX_C_INI_MALFORMED), 0);
    CHECK_EQ(a->object_count, 1);
    if (a->object_count == 1)
        CHECK_STR(a->objects[0].name, "Tank");
    CHECK_EQ(a->state_count, 2);
    if (a->state_count == 2) {
        CHECK_STR(a->states[0].module, "W3DModelDraw ModuleTag_01");
        CHECK_STR(a->states[0].model, "AV-Tank//x"); /* not a comment in Zero Hour */
        CHECK_STR(a->states[1].flags, "MOVING  DAMAGED");
    }
    CHECK(find_ref(a, AMX_REF_W3D_ANIMATION, "AVTank_SKL.AVTank_IDL", "AVTank_D") != NULL);
    CHECK(find_ref(a, AMX_REF_PARTICLE_BONE, "Ex", "AVTank_D") != NULL);
    amx_asset_free(a);
    /* BFME: no engine source; OpenSAGE's reader drops the mark */
    a = decode_text("\357\273\277#define M X\nObject A\nEnd\n");
    if (a) {
        CHECK_EQ(count_code(a, AMX_C_INI_MALFORMED), 0);
        CHECK_EQ(a->object_count, 1);
        amx_asset_free(a);
    }
    a = decode_text("#define M X\nObject A // c\n  Draw = W3DScriptedModelDraw M-1 --c\n"
                    "    DefaultModelConditionState\n      Model = GU/Hero-SKN-//c\n    End\n"
                    "  End\n  #include \"..\\inc\\b\tc.inc\" -- c\nEnd\n");
    if (!a)
        return;
    CHECK_EQ(a->state_count, 1);
    if (a->state_count == 1) {
        CHECK_STR(a->states[0].module, "W3DScriptedModelDraw M-1");
        CHECK_STR(a->states[0].model, "GU/Hero-SKN-");
    }
    CHECK(find_ref(a, AMX_REF_INCLUDE, "..\\inc\\b c.inc", NULL) != NULL);
    amx_asset_free(a);
}

static void test_probe(void)
{
    /* a misspelt first block (one edit, or case, from a block of the engine's table) in a file
     * with a line "End": the game stops at load on it, and the decoder says so; without an End
     * line, or a word of 3 letters, it is no INI (0 of this machine's 4,360 .ini and 4,069
     * .txt/.cfg/.conf/.md files were taken either way) */
    static const char *yes[] = { "Object A\nEnd\n", "; c\n\nWeapon W\nEnd\n",
                                 "\357\273\277FXList F\nEnd\n" /* a UTF-8 BOM */,
                                 "#define A 1\nObject B\nEnd\n", "#include \"x.inc\"\n\tObject B\n",
                                 "#define A 1\n" /* macros only */,
                                 "#define A 1\n-- c\n// c\n; c\nObject B\nEnd\n",
                                 "Objcet A\n  KindOf = X\nEnd\n", "weapon W\n  END ; c\n",
                                 "Armour A\n\tEnd\r\n", "ObjectReskn A B\nend",
                                 /* blocks only BFME has: with an End, or of one line */
                                 "ExperienceLevel L\n  RequiredExperience = 0\nEnd\n",
                                 "FXParticleSystem F\n  System\n  End\nEND\n",
                                 "AudioLowMHz = 300\n", "BenchProfile P 1 2\n" };
    static const char *no[] = { "[index]\ndatabase = x\n", "Objects\n", "<xml/>", "Object",
                                "hello world\n", "Objects are defined in\nObject.ini\n",
                                "Objcet A\n  Ending = X\n", "Rnk A\nEnd\n",
                                "Objects X\nThe End.\n",
                                /* a word that is a block of BFME, in a text without End */
                                "Fire at will,\nsoldiers.\n", "Fire\nthe End.\n",
                                /* C, C++, resource scripts: no block of the game follows */
                                "#include <stdio.h>\nObject x;\n", "#ifndef A\n#define A 1\n",
                                "#include \"windres.h\"\nIDI ICON \"a.ico\"\nBEGIN\nEND\n",
                                "// c\n#include \"x.h\"\nint main(void)\n{\n}\n" };
    for (size_t i = 0; i < sizeof yes / sizeof yes[0]; i++)
        CHECK_EQ(amx_probe((const uint8_t *)yes[i], strlen(yes[i])), AMX_FMT_SAGE_INI);
    for (size_t i = 0; i < sizeof no / sizeof no[0]; i++)
        CHECK(amx_probe((const uint8_t *)no[i], strlen(no[i])) != AMX_FMT_SAGE_INI);
    const uint8_t nul[] = "Object A\0End\n";
    CHECK(amx_probe(nul, sizeof nul) != AMX_FMT_SAGE_INI);
    /* a prefix that cannot tell (comments only, a first word cut, a BFME block before its
     * End): a longer one may; one that can, or binary, no */
    static const char *more[] = { "; header\n// more\n", "; c\nModifierLi", "Fire\n  X = 1\n" };
    static const char *enough[] = { "Object A\nEnd\n", "hello world\n", "<xml/>" };
    for (size_t i = 0; i < sizeof more / sizeof more[0]; i++)
        CHECK(amx_probe_wants_more((const uint8_t *)more[i], strlen(more[i])));
    for (size_t i = 0; i < sizeof enough / sizeof enough[0]; i++)
        CHECK(!amx_probe_wants_more((const uint8_t *)enough[i], strlen(enough[i])));
    CHECK(!amx_probe_wants_more(nul, sizeof nul));
}

/* The real trees: every file parses with no INI_MALFORMED (the game loads them). */
static void test_corpus(void)
{
    static const struct { const char *file; uint32_t objects, states; } files[] = {
        { "mods/Generals_Rebalanced/Data/INI/Object/AmericaVehicle.ini", 0, 0 },
        { "mods/Generals_Rebalanced/Data/INI/Default/Object.ini", 1, 0 },
        { "mods/Generals_Rebalanced/Data/INI/SoundEffects.ini", 0, 0 },
        { "mods/BFME2_sample/Data/INI/Object/Men/Heroes/aragorn.ini", 2, 7 },
    };
    for (size_t i = 0; i < sizeof files / sizeof files[0]; i++) {
        char path[4096];
        snprintf(path, sizeof path, "%s/%s", test_corpus_dir(), files[i].file);
        size_t n = 0;
        unsigned char *data = test_read_file(path, &n);
        if (!data) {
            printf("# %s not there: skipped\n", path);
            continue;
        }
        amx_decode_opts o = { .file_name = files[i].file };
        amx_asset *a = test_decode(data, n, &o);
        if (a) {
            CHECK_EQ(a->format, AMX_FMT_SAGE_INI);
            CHECK_EQ(count_code(a, AMX_C_INI_MALFORMED), 0);
            if (files[i].objects)
                CHECK_EQ(a->object_count, files[i].objects);
            if (files[i].states)
                CHECK_EQ(a->state_count, files[i].states);
            printf("# %s: %u objects, %u states, %u references\n", files[i].file,
                   a->object_count, a->state_count, a->ref_count);
            mutate_stats st = { 0 };
            amx_decode_opts m = { .format = AMX_FMT_SAGE_INI };
            if (n < 200000) {
                mutate_all(data, n, 997, &m, &st);
                CHECK_EQ(st.violations, 0);
            }
            amx_asset_free(a);
        }
        free(data);
    }
}

static void test_mutations(void)
{
    /* undeclared, and in a tree declared for Generals (its own lexer and block table) */
    static const char *const games[] = { NULL, "generals" };
    for (size_t g = 0; g < 2; g++) {
        mutate_stats st = { 0 };
        amx_decode_opts o = { .format = AMX_FMT_SAGE_INI, .game = games[g] };
        mutate_all((const unsigned char *)TANK, strlen(TANK), 1, &o, &st);
        CHECK_EQ(st.violations, 0);
        CHECK(st.decodes > 3 * strlen(TANK));
        printf("# mutate sample INI (%s): %zu decodes, ok %zu, partial %zu, error %zu\n",
               games[g] ? games[g] : "undeclared", st.decodes, st.statuses[0], st.statuses[1],
               st.statuses[2]);
    }
}

/* Bounds: deep nesting, many defines and very long lines cost what the file justifies. */
static void test_bounds(void)
{
    size_t depth = 5000, n = 0;
    char *deep = malloc(depth * 8 + 64);
    if (!deep)
        return;
    n += (size_t)sprintf(deep, "Object A\n");
    for (size_t i = 0; i < depth; i++)
        n += (size_t)sprintf(deep + n, "  B\n");
    for (size_t i = 0; i < depth; i++)
        n += (size_t)sprintf(deep + n, "End\n");
    n += (size_t)sprintf(deep + n, "End\n");
    amx_asset *a = decode_text(deep);
    if (a) {
        CHECK_EQ(count_code(a, AMX_C_LIMIT_EXCEEDED), 1);
        CHECK_EQ(count_code(a, AMX_C_INI_MALFORMED), 0);
        amx_asset_free(a);
    }
    free(deep);
    char *lng = malloc(5000);
    if (!lng)
        return;
    memset(lng, 'x', 4000);
    memcpy(lng, "Object ", 7);
    strcpy(lng + 4000, "\nEnd\n");
    a = decode_text(lng);
    if (a) {
        CHECK_EQ(count_code(a, AMX_C_BAD_VALUE), 1);
        amx_asset_free(a);
    }
    free(lng);
}

/* Blocks whose fields are written without '=' and whose parse tables open only the nested
 * blocks they name: Credits (EA Credits.cpp m_creditsFieldParseTable: "Blank" is a field with no
 * value), ControlBarScheme (ControlBarScheme.cpp: ImagePart, AnimatingPart, and ImagePart in an
 * AnimatingPart) and ShellMenuScheme (ShellMenuScheme.cpp: ImagePart, LinePart). Real mods' files
 * (commy2/zerohour Credits.ini, FireRainV ControlBarScheme.ini) were INI_MALFORMED. */
static void test_schemes_and_credits(void)
{
    static const char *ok[] = {
        "Credits\n  ScrollRate = 2\n  Style = MINORTITLE\n  Text = \"A\"\n  Blank\n  Blank\n"
        "  Text = GUI:B\nEnd\n",
        "ControlBarScheme America8x6\n  ScreenCreationRes X:800 Y:600\n  Side America\n"
        "  QueueButtonImage SCBigButton\n  MoneyUL X:360 Y:438\n  ImagePart\n"
        "    Position X:0 Y:408\n    Size X:800 Y:191\n    ImageName InGameUIAmericaBase\n"
        "    Layer 4\n  End\n  AnimatingPart\n    Animation SLIDE_RIGHT\n    Duration 500\n"
        "    FinalPos X:10 Y:20\n    ImagePart\n      Position X:1 Y:2\n      Layer 3\n    End\n"
        "  End\n  PowerPurchaseImage GeneralsPowerWindow_American\nEnd\n"
        "Object After\nEnd\n",
        "ShellMenuScheme Default\n  ImagePart\n    Position X:0 Y:0\n    Size X:800 Y:600\n"
        "    ImageName MainMenuBackdrop\n  End\n  LinePart\n    StartPosition X:5 Y:5\n"
        "    EndPosition X:90 Y:5\n    Color R:255 G:255 B:255 A:255\n    Width 2\n  End\nEnd\n",
    };
    for (size_t i = 0; i < sizeof ok / sizeof ok[0]; i++) {
        amx_asset *a = decode_text(ok[i]);
        if (!a)
            continue;
        if (a->finding_count)
            show_findings(a, i);
        CHECK_EQ(a->finding_count, 0);
        if (i == 1) {
            CHECK_EQ(a->object_count, 1); /* the scheme's End closed it: Object is top-level */
            if (a->object_count == 1)
                CHECK_STR(a->objects[0].name, "After");
        }
        amx_asset_free(a);
    }
    /* a missing End is still one */
    amx_asset *a = decode_text("ControlBarScheme A\n  Side America\n  ImagePart\n"
                               "    Layer 4\nEnd\n");
    if (a) {
        const amx_finding *f = finding_at(a, AMX_C_INI_MALFORMED, 1);
        CHECK(f != NULL);
        if (f)
            CHECK(strstr(f->message, "'ControlBarScheme' (line 1) has no End") != NULL);
        CHECK_EQ(count_code(a, AMX_C_INI_MALFORMED), 1);
        amx_asset_free(a);
    }
}


/* A tree declared for Generals or Zero Hour ([root PATH] game): every top-level word that is no
 * block of the game's table stops it at load (INI::load), Zero Hour's 5 added blocks included
 * for Generals (INI.cpp theTypeTable: Generals 57 blocks, Zero Hour 62); Generals' objects have
 * no OverrideableByLikeKind (ThingTemplate.cpp); Generals' readLine makes only isspace() bytes
 * spaces. Undeclared, only misspellings of Zero Hour's blocks are judged, as before. */
static void test_declared_game(void)
{
    static const char *const GAMES[] = { NULL, "generals", "zh", "GENERALS" };
    static const struct {
        const char *text;
        unsigned line;       /* the finding's line (0: none in any game) */
        int want[4];         /* INI_MALFORMED count: undeclared, generals, zh, GENERALS */
        const char *says[4]; /* what the finding says (NULL: not checked) */
    } cases[] = {
        /* Zero Hour's own blocks */
        { "Weather\n  SnowEnabled = Yes\nEnd\n", 1, { 0, 1, 0, 1 },
          { NULL, "'Weather' is a block of Zero Hour, which Generals does not have", NULL, NULL } },
        { "MultiplayerStartingMoneyChoice\n  Value = 5000\nEnd\n", 1, { 0, 1, 0, 1 },
          { 0 } },
        { "ChallengeGenerals\nEnd\n", 1, { 0, 1, 0, 1 }, { 0 } },
        { "ScriptAction X\nEnd\n", 1, { 0, 1, 0, 1 }, { 0 } },
        { "ScriptCondition X\nEnd\n", 1, { 0, 1, 0, 1 }, { 0 } },
        /* blocks of both: never judged */
        { "Armor A\n  Armor = DEFAULT 100%\nEnd\nBenchProfile X\nReallyLowMHz 400\n", 0,
          { 0, 0, 0, 0 }, { 0 } },
        /* a word of no table: judged only in a declared game */
        { "Armor A\nEnd\nFooBar X\nEnd\n", 3, { 0, 1, 1, 1 },
          { NULL, "'FooBar' is no block of Generals: the game stops", "'FooBar' is no block of "
            "Zero Hour: the game stops", NULL } },
        /* a misspelling: the declared game's table says what was meant */
        { "Weathr\nEnd\n", 1, { 1, 1, 1, 1 },
          { "(did you mean Weather?)", "'Weathr' is no block of Generals: the game",
            "'Weathr' is no block of Zero Hour (did you mean Weather?)", NULL } },
        { "Objcet A\nEnd\n", 1, { 1, 1, 1, 1 },
          { NULL, "no block of Generals (did you mean Object?)", NULL, NULL } },
        /* BFME's words are no blocks of a declared game */
        { "ChildObject B A\nEnd\n", 1, { 0, 1, 1, 1 }, { 0 } },
        /* nor are the two fields Zero Hour added to W3DModelDraw one of a Generals draw */
        { "Object A\n  Draw = W3DTankDraw ModuleTag_01\n    ParticlesAttachedToAnimatedBones = Yes"
          "\n    ReceivesDynamicLights = No\n    DefaultConditionState\n      Model = X\n"
          "    End\n  End\nEnd\n", 3, { 0, 2, 0, 2 },
          { NULL, "ParticlesAttachedToAnimatedBones is a field of Zero Hour's W3DModelDraw, not "
            "of Generals'", NULL, NULL } },
        /* Zero Hour's module wrapper is no field of a Generals object */
        { "Object A\n  OverrideableByLikeKind\n    Behavior = X ModuleTag_01\n    End\n  End\n"
          "End\n", 2, { 0, 1, 0, 1 },
          { NULL, "OverrideableByLikeKind is a field of Zero Hour's objects, not of Generals'",
            NULL, NULL } },
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        for (size_t g = 0; g < 4; g++) {
            amx_asset *a = decode_game(cases[i].text, GAMES[g]);
            CHECK(a != NULL);
            if (!a)
                continue;
            if (count_code(a, AMX_C_INI_MALFORMED) != (size_t)cases[i].want[g]) {
                printf("# game %s\n", GAMES[g] ? GAMES[g] : "(none)");
                show_findings(a, i);
            }
            CHECK_EQ(count_code(a, AMX_C_INI_MALFORMED), (size_t)cases[i].want[g]);
            if (cases[i].want[g]) {
                const amx_finding *f = finding_at(a, AMX_C_INI_MALFORMED, cases[i].line);
                CHECK(f != NULL);
                if (f && cases[i].says[g] && !strstr(f->message, cases[i].says[g]))
                    printf("# case %zu, game %zu: %s\n", i, g, f->message);
                CHECK(!f || !cases[i].says[g] || strstr(f->message, cases[i].says[g]));
                /* Generals never suggests a block it does not have */
                CHECK(!f || g != 1 || !strstr(f->message, "mean Weather"));
            }
            amx_asset_free(a);
        }
    /* the lexer: a control byte 1-8 or 14-31 is a space to Zero Hour, part of a word to
     * Generals (isspace), whose object is then named with it; tab, VT, FF, CR are spaces to
     * both */
    const char *text = "Object Tank\x1a\v\f\r\n  Draw = W3DModelDraw\x01ModuleTag_01\n"
                       "    DefaultConditionState\n      Model = AVTank\n    End\n  End\nEnd\n";
    for (size_t g = 0; g < 3; g++) {
        amx_asset *a = decode_game(text, GAMES[g]);
        CHECK(a != NULL);
        if (!a)
            continue;
        CHECK_EQ(a->object_count, 1);
        if (a->object_count == 1)
            CHECK_STR(a->objects[0].name, g == 1 ? "Tank\x1a" : "Tank");
        /* Generals reads "W3DModelDraw\x01ModuleTag_01" as one word: a module without a tag */
        CHECK_EQ(count_code(a, AMX_C_INI_MALFORMED), g == 1 ? 1 : 0);
        CHECK(g != 1 || finding_at(a, AMX_C_INI_MALFORMED, 2) != NULL);
        amx_asset_free(a);
    }
}

int main(void)
{
    test_run("test_objects_states_refs", test_objects_states_refs);
    test_run("test_malformed", test_malformed);
    test_run("test_stateless_draw_models", test_stateless_draw_models);
    test_run("test_module_tags", test_module_tags);
    test_run("test_name_length", test_name_length);
    test_run("test_bfme", test_bfme);
    test_run("test_list_limit", test_list_limit);
    test_run("test_bfme_include_read", test_bfme_include_read);
    test_run("test_bfme_blocks", test_bfme_blocks);
    test_run("test_bfme_anim_model", test_bfme_anim_model);
    test_run("test_lexer", test_lexer);
    test_run("test_fields_without_equals", test_fields_without_equals);
    test_run("test_unmodelled_blocks", test_unmodelled_blocks);
    test_run("test_declared_game", test_declared_game);
    test_run("test_probe", test_probe);
    test_run("test_schemes_and_credits", test_schemes_and_credits);
    test_run("test_corpus", test_corpus);
    test_run("test_mutations", test_mutations);
    test_run("test_bounds", test_bounds);
    return test_done();
}
