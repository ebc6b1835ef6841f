/* Binding the way the engines do, on writer-built trees: the naming convention and its traps
 * (a shorter model present, one-letter and multi-word remainders), unrelated roots, base layers
 * (and changing them), loose files over archive members, XML animation overrides onto a model
 * with another rig (own and inherited), W3D files with their own hierarchy, and the naming
 * rules' unit cases. */
#include "test.h"
#include "animidx/os.h"

#include "ala_writer.h"
#include "alo_writer.h"
#include "buf.h"
#include "meg_writer.h"
#include "w3d_writer.h"

#include "animidx/config.h"
#include "animidx/index.h"
#include "resolve.h"

#include <sqlite3.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char top[256], dbpath[300];

static void fresh(void)
{
    snprintf(top, sizeof top, "/tmp/amx_bind_test_%d", (int)amx_os_pid());
    snprintf(dbpath, sizeof dbpath, "%s.db", top);
    test_remove_index(top, dbpath);
}

static const char *at(const char *rel)
{
    static char bufs[4][1400];
    static int k;
    k = (k + 1) % 4;
    snprintf(bufs[k], sizeof bufs[k], "%s/%s", top, rel);
    return bufs[k];
}

static void put(const char *rel, amxw_buf *b)
{
    CHECK_EQ(amxw_write_file(b, at(rel)), 0);
    amxw_buf_free(b);
}

static void put_text(const char *rel, const char *text)
{
    amxw_buf b = { 0 };
    amxw_bytes(&b, text, strlen(text));
    put(rel, &b);
}

static const char *const RIG_A[] = { "Root", "Hull", "Turret", "Muzzle_A", "Muzzle_B" };
static const char *const RIG_B[] = { "Root", "Hull", "Turret", "Muzzle_B", "Muzzle_A" };
static const uint32_t IDX[] = { 0, 1, 2, 3, 4 };

static void model(const char *rel, const char *const *bones)
{
    amxw_buf b = { 0 };
    amxw_alo_simple(&b, 5, bones, 1, 12, 1);
    put(rel, &b);
}

static void clip(const char *rel, const char *const *bones)
{
    amxw_buf b = { 0 };
    amxw_ala_simple(&b, 2, 10, 30.0f, 5, bones, IDX, 2);
    put(rel, &b);
}

AMX_PRINTF(2, 3)
static int64_t q_int(amx_db *db, const char *fmt, ...)
{
    char sql[2048];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(sql, sizeof sql, fmt, ap);
    va_end(ap);
    sqlite3_stmt *s = NULL;
    int64_t v = -1;
    if (sqlite3_prepare_v2(amx_db_handle(db), sql, -1, &s, NULL) == SQLITE_OK &&
        sqlite3_step(s) == SQLITE_ROW)
        v = sqlite3_column_int64(s, 0);
    else
        printf("# query failed: %s: %s\n", sql, sqlite3_errmsg(amx_db_handle(db)));
    sqlite3_finalize(s);
    return v;
}

/* Findings of `code` on the file whose path ends with `file`. */
static int64_t findings(amx_db *db, const char *file, const char *code)
{
    return q_int(db, "SELECT count(*) FROM findings i JOIN files f ON f.id = i.file_id "
                     "WHERE f.path LIKE '%%%s' AND i.code LIKE '%s'", file, code);
}

/* The message of the first finding of `code` on `file` ("" when none). */
static const char *message(amx_db *db, const char *file, const char *code)
{
    static char msg[4096];
    msg[0] = '\0';
    char sql[1024];
    snprintf(sql, sizeof sql, "SELECT i.message || ' | ' || i.context FROM findings i JOIN "
             "files f ON f.id = i.file_id WHERE f.path LIKE '%%%s' AND i.code = '%s' ORDER BY i.id",
             file, code);
    sqlite3_stmt *s = NULL;
    if (sqlite3_prepare_v2(amx_db_handle(db), sql, -1, &s, NULL) == SQLITE_OK &&
        sqlite3_step(s) == SQLITE_ROW)
        snprintf(msg, sizeof msg, "%s", (const char *)sqlite3_column_text(s, 0));
    sqlite3_finalize(s);
    return msg;
}

static amx_db *open_db(void)
{
    amx_db *db = NULL;
    char err[512];
    CHECK_EQ(amx_db_open(dbpath, 0, &db, err, sizeof err), AMX_OK);
    return db;
}

/* Scans top/<root> with the given bases (NULL list: keep what the index recorded). */
static void scan(amx_db *db, const char *root, const char *const *bases, size_t n, bool set)
{
    char r[1400], b[8][1400];
    const char *bp[8];
    snprintf(r, sizeof r, "%s/%s", top, root);
    for (size_t i = 0; i < n && i < 8; i++) {
        snprintf(b[i], sizeof b[i], "%s/%s", top, bases[i]);
        bp[i] = b[i];
    }
    amx_scan_opts o = { .root = r, .jobs = 2, .bases = bp, .base_count = n, .set_bases = set };
    amx_scan_stats st;
    char err[512] = "";
    amx_status s = amx_scan(db, &o, &st, err, sizeof err);
    if (s)
        printf("# scan of %s failed: %s\n", root, err);
    CHECK_EQ(s, AMX_OK);
}

/* The engine's name rules, read backwards from clip names: only the types of the game's table,
 * and the numbers as the engine spells them. */
static void test_names(void)
{
    const amx_alamo_game F = AMX_ALAMO_FOC, E = AMX_ALAMO_EAW;
    amx_alamo_anim_name n[8];
    CHECK_EQ(amx_alamo_anim_names("X_IDLE_00", F, n, 8), 1);
    CHECK_STR(n[0].model, "X");
    CHECK_STR(n[0].type, "IDLE");
    CHECK(n[0].number_loaded && n[0].number == 0);
    /* a multi-word type of the table; its last word (BEGIN) is no type */
    CHECK_EQ(amx_alamo_anim_names("Unit_TURNL_BEGIN_01", F, n, 8), 1);
    CHECK_STR(n[0].model, "Unit");
    CHECK_STR(n[0].type, "TURNL_BEGIN");
    CHECK_EQ(n[0].number, 1u);
    /* DEPLOYED_CA_DIE, CA_DIE, DIE: three models may load it */
    CHECK_EQ(amx_alamo_anim_names("T_DEPLOYED_CA_DIE_00", F, n, 8), 3);
    CHECK_STR(n[0].model, "T");
    CHECK_STR(n[1].model, "T_DEPLOYED");
    CHECK_STR(n[2].model, "T_DEPLOYED_CA");
    /* the traps of real mods: the shorter model is never the target */
    CHECK_EQ(amx_alamo_anim_names("Ei_trooper_snow_idle_00", F, n, 8), 1);
    CHECK_STR(n[0].model, "Ei_trooper_snow");
    CHECK_EQ(amx_alamo_anim_names("X_Heavy_attack_00", F, n, 8), 1);
    CHECK_STR(n[0].model, "X_Heavy");
    CHECK_EQ(amx_alamo_anim_names("STRIKECRUISER_D_DIE_00", F, n, 8), 1);
    CHECK_STR(n[0].model, "STRIKECRUISER_D");
    CHECK_EQ(amx_alamo_anim_names("EV_SOVEREIGN_DIE_die_00", F, n, 8), 1);
    CHECK_STR(n[0].model, "EV_SOVEREIGN_DIE");
    /* words outside the table are no types (issue 22: TRANSITION, FLY, DESCEND, UP, BACK) */
    CHECK_EQ(amx_alamo_anim_names("X_TRANSITION_00", F, n, 8), 0);
    CHECK_EQ(amx_alamo_anim_names("EotH_FelAscent_Descend_00", F, n, 8), 0);
    CHECK_EQ(amx_alamo_anim_names("Ei_Thrawn_stand_up_00", F, n, 8), 0);
    CHECK_EQ(amx_alamo_anim_names("Mi_Rocket_Trooper_knocked_back_00", F, n, 8), 0);
    /* Forces of Corruption's types are not Empire at War's */
    CHECK_EQ(amx_alamo_anim_names("X_HEAL_00", F, n, 8), 1);
    CHECK_EQ(amx_alamo_anim_names("X_HEAL_00", E, n, 8), 0);
    CHECK_EQ(amx_alamo_anim_names("X_POWERUP_00", E, n, 8), 1);
    const char *const *types;
    CHECK_EQ(amx_alamo_anim_types(F, &types), 119u);
    CHECK_EQ(amx_alamo_anim_types(E, NULL), 104u);
    CHECK_STR(types[0], "IDLE");
    CHECK_STR(types[103], "POWERUP");
    CHECK_STR(types[118], "HEAL");
    /* numbers: two digits, then 100 and up; _0 and _000 are never tried */
    CHECK_EQ(amx_alamo_anim_names("X_IDLE_0", F, n, 8), 1);
    CHECK(!n[0].number_loaded);
    CHECK_EQ(amx_alamo_anim_names("X_IDLE_000", F, n, 8), 1);
    CHECK(!n[0].number_loaded);
    CHECK_EQ(amx_alamo_anim_names("X_IDLE_100", F, n, 8), 1);
    CHECK(n[0].number_loaded && n[0].number == 100);
    CHECK_EQ(amx_alamo_anim_names("X_IDLE_07", F, n, 8), 1);
    CHECK(n[0].number_loaded && n[0].number == 7);
    /* names no model loads */
    CHECK_EQ(amx_alamo_anim_names("VSF_Tie_Aggressor_Hyperspace_In", F, n, 8), 0);
    CHECK_EQ(amx_alamo_anim_names("BC_HYDROPONICS_D_DIE00", F, n, 8), 0);
    CHECK_EQ(amx_alamo_anim_names("X_D_00", F, n, 8), 0);
    CHECK_EQ(amx_alamo_anim_names("IDLE_00", F, n, 8), 0);     /* no model */
    CHECK_EQ(amx_alamo_anim_names("X_7_00", F, n, 8), 0);
    CHECK_EQ(amx_alamo_anim_names("_00", F, n, 8), 0);
    CHECK_EQ(amx_alamo_anim_names("", F, n, 8), 0);
    CHECK_EQ(amx_alamo_anim_names("X_IDLE_00", F, n, 0), 0);
    /* near misses: the type with its underscores dropped is the engine's */
    CHECK(amx_alamo_anim_near_miss("CIS_Crab_Droid_Attack_Idle_00", F, &n[0]));
    CHECK_STR(n[0].model, "CIS_Crab_Droid");
    CHECK_STR(n[0].type, "ATTACKIDLE");
    CHECK(amx_alamo_anim_near_miss("V_Ground_MOVE_START_00", F, &n[0]));
    CHECK_STR(n[0].type, "MOVESTART");
    CHECK(!amx_alamo_anim_near_miss("X_IDLE_00", F, &n[0]));
    CHECK(!amx_alamo_anim_near_miss("X_TURNL_BEGIN_00", F, &n[0])); /* a type as it is */
    CHECK(amx_alamo_anim_type_known(F, "turnl_begin", 11));
    CHECK(!amx_alamo_anim_type_known(F, "ATTACK_IDLE", 11));
    CHECK(amx_alamo_anim_type_known(F, "PAD_SELL", 8));
    CHECK(!amx_alamo_anim_type_known(E, "PAD_SELL", 8));
    amx_alamo_game g;
    CHECK(amx_alamo_game_parse("EaW", &g) && g == AMX_ALAMO_EAW);
    CHECK(amx_alamo_game_parse("foc", &g) && g == AMX_ALAMO_FOC);
    CHECK(!amx_alamo_game_parse("mp1", &g));
}

/* A clip binds to the model its name gives, in its directory, and to nothing else. */
static void test_convention_traps(void)
{
    fresh();
    model("Mod/Data/Art/Models/X.ALO", RIG_A);
    model("Mod/Data/Art/Models/Ei_trooper.ALO", RIG_A);
    model("Mod/Data/Art/Models/STRIKECRUISER.ALO", RIG_A);
    clip("Mod/Data/Art/Models/X_Heavy_attack_00.ALA", RIG_B);        /* X_Heavy, not X */
    clip("Mod/Data/Art/Models/Ei_trooper_snow_idle_00.ALA", RIG_B);  /* Ei_trooper_snow */
    clip("Mod/Data/Art/Models/STRIKECRUISER_D_DIE_00.ALA", RIG_B);   /* STRIKECRUISER_D */
    clip("Mod/Data/Art/Models/X_IDLE_00.ALA", RIG_A);
    amx_db *db = open_db();
    scan(db, "Mod", NULL, 0, false);
    CHECK_EQ(findings(db, "", "BONE%"), 0);
    CHECK_EQ(findings(db, "X_Heavy_attack_00.ALA", "SKELETON_NOT_FOUND"), 1);
    CHECK(strstr(message(db, "X_Heavy_attack_00.ALA", "SKELETON_NOT_FOUND"), "'X_Heavy' (type ATTACK)"));
    CHECK(strstr(message(db, "X_Heavy_attack_00.ALA", "SKELETON_NOT_FOUND"), "DATA/ART/MODELS"));
    CHECK(strstr(message(db, "X_Heavy_attack_00.ALA", "SKELETON_NOT_FOUND"), "of this tree"));
    CHECK(!strstr(message(db, "X_Heavy_attack_00.ALA", "SKELETON_NOT_FOUND"), "base layer"));
    CHECK(strstr(message(db, "Ei_trooper_snow_idle_00.ALA", "SKELETON_NOT_FOUND"), "'Ei_trooper_snow'"));
    CHECK(strstr(message(db, "STRIKECRUISER_D_DIE_00.ALA", "SKELETON_NOT_FOUND"), "'STRIKECRUISER_D'"));
    CHECK_EQ(findings(db, "", "SKELETON_NOT_FOUND"), 3);
    CHECK_EQ(q_int(db, "SELECT count(*) FROM clip_bindings"), 1);
    CHECK_EQ(q_int(db, "SELECT count(*) FROM clips WHERE skeleton_key = 'X_HEAVY' AND skeleton_id IS NULL"), 1);
    /* the missing model appears (with another rig): the clip binds to it and is checked */
    model("Mod/Data/Art/Models/X_Heavy.ALO", RIG_A);
    scan(db, "Mod", NULL, 0, false);
    CHECK_EQ(findings(db, "X_Heavy_attack_00.ALA", "SKELETON_NOT_FOUND"), 0);
    CHECK_EQ(findings(db, "X_Heavy_attack_00.ALA", "BONE_INDEX_MISMATCH"), 2);
    CHECK(strstr(message(db, "X_Heavy_attack_00.ALA", "BONE_INDEX_MISMATCH"),
                 "skeleton 'X_Heavy' (Data/Art/Models/X_Heavy.ALO)"));
    amx_db_close(db);
}

/* The link pass's findings of the index, one line each ("path|code|message"), sorted: what an
 * incremental scan must leave equal to a fresh one's. */
static char *link_findings(amx_db *db)
{
    sqlite3_stmt *s = NULL;
    size_t cap = 1 << 16, at = 0;
    char *out = calloc(1, cap);
    if (out && sqlite3_prepare_v2(amx_db_handle(db),
                                  "SELECT f.path || '|' || i.code || '|' || i.message FROM findings i "
                                  "JOIN files f ON f.id = i.file_id WHERE i.origin = 'link' "
                                  "ORDER BY 1", -1, &s, NULL) == SQLITE_OK)
        while (sqlite3_step(s) == SQLITE_ROW && at + 4096 < cap)
            at += (size_t)snprintf(out + at, cap - at, "%s\n", (const char *)sqlite3_column_text(s, 0));
    sqlite3_finalize(s);
    return out;
}

/* The index equals a fresh scan's of the same tree, in every link finding. */
static void check_fresh(amx_db *db, const char *root)
{
    char *now = link_findings(db);
    char fresh_db[400];
    snprintf(fresh_db, sizeof fresh_db, "%s.fresh", dbpath);
    char cmd[1400];
    snprintf(cmd, sizeof cmd, "rm -f '%s' '%s-wal' '%s-shm'", fresh_db, fresh_db, fresh_db);
    CHECK(system(cmd) == 0);
    amx_db *f = NULL;
    char err[512];
    CHECK_EQ(amx_db_open(fresh_db, 0, &f, err, sizeof err), AMX_OK);
    char r[1400];
    snprintf(r, sizeof r, "%s/%s", top, root);
    amx_scan_opts o = { .root = r, .jobs = 1 };
    CHECK_EQ(amx_scan(f, &o, NULL, err, sizeof err), AMX_OK);
    char *want = link_findings(f);
    if (now && want && strcmp(now, want) != 0)
        printf("# incremental:\n%s# fresh:\n%s", now, want);
    CHECK(now && want && strcmp(now, want) == 0);
    free(now);
    free(want);
    amx_db_close(f);
    CHECK(system(cmd) == 0);
}

/* Only the types of the table load (issue 22): a clip named with another word binds to nothing
 * and says which readings would load; the table is the root's game's. */
static void test_engine_table(void)
{
    fresh();
    model("Mod/Data/Art/Models/X.ALO", RIG_A);
    model("Mod/Data/Art/Models/Ei_Thrawn.ALO", RIG_A);
    model("Mod/Data/Art/Models/EotH_FelAscent.ALO", RIG_A);
    model("Mod/Data/Art/Models/EotH_FelAscent_Descend.ALO", RIG_B);
    clip("Mod/Data/Art/Models/X_TRANSITION_00.ALA", RIG_A);
    clip("Mod/Data/Art/Models/Ei_Thrawn_stand_up_00.ALA", RIG_A);
    clip("Mod/Data/Art/Models/EotH_FelAscent_Descend_00.ALA", RIG_B);
    clip("Mod/Data/Art/Models/X_IDEL_00.ALA", RIG_A);
    clip("Mod/Data/Art/Models/X_HEAL_00.ALA", RIG_A);
    clip("Mod/Data/Art/Models/Mi_Thrawn_knocked_back_00.ALA", RIG_A);
    amx_db *db = open_db();
    scan(db, "Mod", NULL, 0, false);
    /* no binding through a word outside the table, and no model looked for */
    CHECK_EQ(q_int(db, "SELECT count(*) FROM clip_bindings b JOIN clips c ON c.id = b.clip_id "
                       "WHERE c.name <> 'X_HEAL_00'"), 0);
    CHECK_EQ(findings(db, "", "SKELETON_NOT_FOUND"), 0);
    CHECK_EQ(findings(db, "", "BONE%"), 0);
    CHECK_EQ(findings(db, "", "CLIP_NOT_LOADED_BY_NAME"), 5);
    const char *m = message(db, "X_TRANSITION_00.ALA", "CLIP_NOT_LOADED_BY_NAME");
    CHECK(strstr(m, "Forces of Corruption loads <MODEL>_<TYPE>_<NN>.ALA for the 119 types"));
    CHECK(strstr(m, "'X' is a model here, and TRANSITION is no type of Forces of Corruption"));
    CHECK(strstr(m, "its 5 bones fit skeletons 'Ei_Thrawn', 'EotH_FelAscent', 'X'") ||
          strstr(m, "fit skeleton"));
    m = message(db, "Ei_Thrawn_stand_up_00.ALA", "CLIP_NOT_LOADED_BY_NAME");
    CHECK(strstr(m, "'Ei_Thrawn' is a model here, and stand_up is no type"));
    m = message(db, "EotH_FelAscent_Descend_00.ALA", "CLIP_NOT_LOADED_BY_NAME");
    CHECK(strstr(m, "'EotH_FelAscent' is a model here, and Descend is no type"));
    CHECK(strstr(m, "'EotH_FelAscent_Descend' is a model of its own: its animations are "
                    "EotH_FelAscent_Descend_<TYPE>_<NN>.ALA"));
    CHECK(strstr(m, "fit skeleton 'EotH_FelAscent_Descend' by index and name"));
    m = message(db, "X_IDEL_00.ALA", "CLIP_NOT_LOADED_BY_NAME");
    CHECK(strstr(m, "'X' is a model here: did you mean X_IDLE_00 (type IDLE)?"));
    /* no model prefixes it: no reading offered */
    m = message(db, "Mi_Thrawn_knocked_back_00.ALA", "CLIP_NOT_LOADED_BY_NAME");
    CHECK(!strstr(m, "is a model"));
    CHECK_EQ(q_int(db, "SELECT count(*) FROM clip_bindings b JOIN clips c ON c.id = b.clip_id "
                       "WHERE c.name = 'X_HEAL_00' AND b.how = 'name' AND b.via = 'type HEAL'"), 1);
    /* Empire at War's table has no HEAL: the root's game decides, and a change binds again */
    amx_config cfg;
    CHECK_EQ(amx_config_init(&cfg), 0);
    char ini[1600], err[512] = "", mod[1400];
    snprintf(mod, sizeof mod, "%s/Mod", top);
    snprintf(ini, sizeof ini, "[root %s]\ngame = eaw\n", mod);
    CHECK_EQ(amx_config_load_string(&cfg, ini, "animidx.ini", err, sizeof err), 0);
    amx_scan_opts o = { .root = mod, .jobs = 2, .config = &cfg };
    CHECK_EQ(amx_scan(db, &o, NULL, err, sizeof err), AMX_OK);
    CHECK_EQ(q_int(db, "SELECT count(*) FROM roots WHERE game = 'eaw'"), 1);
    CHECK_EQ(q_int(db, "SELECT count(*) FROM clip_bindings"), 0);
    CHECK(strstr(message(db, "X_HEAL_00.ALA", "CLIP_NOT_LOADED_BY_NAME"),
                 "Empire at War loads <MODEL>_<TYPE>_<NN>.ALA for the 104 types"));
    amx_config_finish(&cfg);
    scan(db, "Mod", NULL, 0, false); /* no game said: Forces of Corruption again */
    CHECK_EQ(q_int(db, "SELECT count(*) FROM roots WHERE game IS NULL"), 1);
    CHECK_EQ(findings(db, "X_HEAL_00.ALA", "CLIP_NOT_LOADED_BY_NAME"), 0);
    CHECK_EQ(q_int(db, "SELECT count(*) FROM clip_bindings"), 1);
    check_fresh(db, "Mod");
    amx_db_close(db);
}

/* The engine loads NN = 00, 01, ... and stops at the first missing number (issue 22): clips after
 * a gap bind to nothing, and the warning names the missing file and the file that misspells it;
 * one-digit and zero-padded numbers are never tried. Incremental scans equal fresh ones. */
static void test_numbering(void)
{
    fresh();
    model("Mod/Data/Art/Models/W_PEDISTAL_FACTION_10.ALO", RIG_A);
    model("Mod/Data/Art/Models/X.ALO", RIG_A);
    clip("Mod/Data/Art/Models/W_PEDISTALFACTION_10_IDLE_00.ala", RIG_A);
    clip("Mod/Data/Art/Models/W_PEDISTAL_FACTION_10_IDLE_01.ALA", RIG_A);
    clip("Mod/Data/Art/Models/W_PEDISTAL_FACTION_10_IDLE_02.ALA", RIG_A);
    clip("Mod/Data/Art/Models/W_PEDISTAL_FACTION_10_IDLE_03.ALA", RIG_A);
    clip("Mod/Data/Art/Models/X_IDLE_0.ALA", RIG_A);
    clip("Mod/Data/Art/Models/X_DIE_000.ALA", RIG_A);
    clip("Mod/Data/Art/Models/X_MOVE_00.ALA", RIG_A);
    clip("Mod/Data/Art/Models/X_MOVE_01.ALA", RIG_A);
    amx_db *db = open_db();
    scan(db, "Mod", NULL, 0, false);
    CHECK_EQ(findings(db, "", "ANIMATION_NOT_REACHED"), 5);
    CHECK_EQ(findings(db, "W_PEDISTAL_FACTION_10_IDLE_02.ALA", "ANIMATION_NOT_REACHED"), 1);
    const char *m = message(db, "W_PEDISTAL_FACTION_10_IDLE_03.ALA", "ANIMATION_NOT_REACHED");
    CHECK(strstr(m, "DATA/ART/MODELS/W_PEDISTAL_FACTION_10_IDLE_00.ALA is missing"));
    CHECK(strstr(m, "(did you mean Data/Art/Models/W_PEDISTALFACTION_10_IDLE_00.ala?)"));
    CHECK(strstr(message(db, "X_IDLE_0.ALA", "ANIMATION_NOT_REACHED"), "name it X_IDLE_00"));
    CHECK(strstr(message(db, "X_DIE_000.ALA", "ANIMATION_NOT_REACHED"), "name it X_DIE_00"));
    CHECK_EQ(q_int(db, "SELECT count(*) FROM clip_bindings b JOIN clips c ON c.id = b.clip_id "
                       "WHERE c.name LIKE 'W_PEDISTAL_FACTION_10_IDLE%%'"), 0);
    CHECK_EQ(q_int(db, "SELECT count(*) FROM clip_bindings b JOIN clips c ON c.id = b.clip_id "
                       "WHERE c.name LIKE 'X_MOVE_0_'"), 2);
    CHECK_EQ(findings(db, "W_PEDISTAL_FACTION_10_IDLE_01.ALA", "SKELETON_NOT_FOUND"), 0);
    /* the misspelt file's own model does not exist */
    CHECK_EQ(findings(db, "W_PEDISTALFACTION_10_IDLE_00.ala", "SKELETON_NOT_FOUND"), 1);
    /* _00 appears: the clips after it bind */
    clip("Mod/Data/Art/Models/W_PEDISTAL_FACTION_10_IDLE_00.ALA", RIG_A);
    scan(db, "Mod", NULL, 0, false);
    CHECK_EQ(findings(db, "W_PEDISTAL_FACTION_10_IDLE", "ANIMATION_NOT_REACHED"), 0);
    CHECK_EQ(q_int(db, "SELECT count(*) FROM clip_bindings b JOIN clips c ON c.id = b.clip_id "
                       "WHERE c.name LIKE 'W_PEDISTAL_FACTION_10_IDLE%%'"), 4);
    check_fresh(db, "Mod");
    /* _01 goes: _02 and _03 are after a gap again, and nothing misspells _01 */
    CHECK(unlink(at("Mod/Data/Art/Models/W_PEDISTAL_FACTION_10_IDLE_01.ALA")) == 0);
    scan(db, "Mod", NULL, 0, false);
    CHECK_EQ(findings(db, "W_PEDISTAL_FACTION_10_IDLE", "ANIMATION_NOT_REACHED"), 0);
    CHECK_EQ(findings(db, "", "ANIMATION_NOT_REACHED"), 4);
    m = message(db, "W_PEDISTAL_FACTION_10_IDLE_02.ALA", "ANIMATION_NOT_REACHED");
    CHECK(strstr(m, "W_PEDISTAL_FACTION_10_IDLE_01.ALA is missing") && !strstr(m, "did you mean"));
    check_fresh(db, "Mod");
    /* the misspelt one appears under _01's name less its underscores: named */
    clip("Mod/Data/Art/Models/W_PEDISTAL_FACTION10_IDLE_01.ALA", RIG_A);
    scan(db, "Mod", NULL, 0, false);
    CHECK(strstr(message(db, "W_PEDISTAL_FACTION_10_IDLE_03.ALA", "ANIMATION_NOT_REACHED"),
                 "did you mean Data/Art/Models/W_PEDISTAL_FACTION10_IDLE_01.ALA?"));
    check_fresh(db, "Mod");
    /* a file at _01 that does not load as an animation stops the engine too */
    model("Mod/Data/Art/Models/W_PEDISTAL_FACTION_10_IDLE_01.ALA", RIG_A);
    scan(db, "Mod", NULL, 0, false);
    CHECK(strstr(message(db, "W_PEDISTAL_FACTION_10_IDLE_02.ALA", "ANIMATION_NOT_REACHED"),
                 "W_PEDISTAL_FACTION_10_IDLE_01.ALA does not load as an animation"));
    check_fresh(db, "Mod");
    amx_db_close(db);
}

/* CLIP_NOT_LOADED_BY_NAME names the skeletons its bones fit: a skeleton that appears or goes
 * has it said again, as a fresh scan would (issue 21: the message was not refreshed). */
static void test_fit_refresh(void)
{
    fresh();
    clip("Mod/Data/Art/Models/Odd_Name.ALA", RIG_A);
    model("Mod/Data/Art/Models/Other.ALO", RIG_B);
    amx_db *db = open_db();
    scan(db, "Mod", NULL, 0, false);
    CHECK(strstr(message(db, "Odd_Name.ALA", "CLIP_NOT_LOADED_BY_NAME"),
                 "no indexed skeleton fits all its bones"));
    model("Mod/Data/Art/AAA.ALO", RIG_A);
    scan(db, "Mod", NULL, 0, false);
    CHECK(strstr(message(db, "Odd_Name.ALA", "CLIP_NOT_LOADED_BY_NAME"),
                 "its 5 bones fit skeleton 'AAA' by index and name"));
    check_fresh(db, "Mod");
    CHECK(unlink(at("Mod/Data/Art/AAA.ALO")) == 0);
    scan(db, "Mod", NULL, 0, false);
    CHECK(strstr(message(db, "Odd_Name.ALA", "CLIP_NOT_LOADED_BY_NAME"),
                 "no indexed skeleton fits all its bones"));
    check_fresh(db, "Mod");
    /* a skeleton changed to fit */
    model("Mod/Data/Art/Models/Other.ALO", RIG_A);
    scan(db, "Mod", NULL, 0, false);
    CHECK(strstr(message(db, "Odd_Name.ALA", "CLIP_NOT_LOADED_BY_NAME"), "fit skeleton 'Other'"));
    check_fresh(db, "Mod");
    amx_db_close(db);
}

/* Counts findings (the writer's models name textures no tree has: those are left out). */
static void cb_count(const amx_issue_row *r, void *user)
{
    int *c = user;
    if (strncmp(r->code, "REFERENCE_", 10) == 0)
        return;
    c[0]++;
    if (strstr(r->root, "/Game"))
        c[1]++;
}

/* Two roots of one index never bind to each other; a base layer does, and its own findings
 * stay out of the issues unless asked; layers changed or dropped re-bind. */
static void test_layers(void)
{
    fresh();
    model("Game/Data/Art/Models/U.ALO", RIG_A);
    clip("Game/Data/Art/Models/G_IDLE_00.ALA", RIG_A);           /* the base's own problem */
    clip("Mod/Data/Art/Models/U_DIE_00.ALA", RIG_A);
    clip("Other/Data/Art/Models/U_MOVE_00.ALA", RIG_A);
    amx_db *db = open_db();
    scan(db, "Game", NULL, 0, false);
    scan(db, "Other", NULL, 0, false);
    scan(db, "Mod", NULL, 0, false);
    /* unrelated roots */
    CHECK_EQ(findings(db, "U_DIE_00.ALA", "SKELETON_NOT_FOUND"), 1);
    CHECK_EQ(findings(db, "U_MOVE_00.ALA", "SKELETON_NOT_FOUND"), 1);
    CHECK_EQ(q_int(db, "SELECT count(*) FROM clip_bindings"), 0);
    /* Mod sits on Game */
    const char *bases[] = { "Game" };
    scan(db, "Mod", bases, 1, true);
    CHECK_EQ(findings(db, "U_DIE_00.ALA", "SKELETON_NOT_FOUND"), 0);
    CHECK_EQ(q_int(db, "SELECT count(*) FROM clip_bindings b JOIN clips c ON c.id = b.clip_id "
                       "WHERE c.name = 'U_DIE_00' AND b.how = 'name'"), 1);
    CHECK_EQ(findings(db, "U_MOVE_00.ALA", "SKELETON_NOT_FOUND"), 1); /* Other stays alone */
    CHECK_EQ(q_int(db, "SELECT count(*) FROM root_layers"), 1);
    /* Game was scanned for itself first: it stays a target; a root first met as a base is one */
    CHECK_EQ(q_int(db, "SELECT count(*) FROM roots WHERE role = 'base'"), 0);
    /* issues: a base's own findings are hidden unless asked (the index closed before it is
     * removed: Windows keeps an open file) */
    amx_db_close(db);
    fresh();
    model("Game/Data/Art/Models/U.ALO", RIG_A);
    clip("Game/Data/Art/Models/G_IDLE_00.ALA", RIG_A);
    clip("Mod/Data/Art/Models/U_DIE_00.ALA", RIG_B);
    db = open_db();
    scan(db, "Mod", bases, 1, true);   /* scans Game as a base layer first */
    CHECK_EQ(q_int(db, "SELECT count(*) FROM roots WHERE role = 'base' AND path LIKE '%%/Game'"), 1);
    CHECK_EQ(findings(db, "U_DIE_00.ALA", "BONE_INDEX_MISMATCH"), 2);
    CHECK(strstr(message(db, "U_DIE_00.ALA", "BONE_INDEX_MISMATCH"), "in base layer"));
    int got[2] = { 0, 0 };
    char err[512];
    amx_issue_filter f = { 0 };
    CHECK_EQ(amx_query_issues(db, NULL, &f, cb_count, got, err, sizeof err), AMX_OK);
    CHECK_EQ(got[0], 2);          /* the mod's two bone findings */
    CHECK_EQ(got[1], 0);
    got[0] = got[1] = 0;
    f.include_base = true;
    CHECK_EQ(amx_query_issues(db, NULL, &f, cb_count, got, err, sizeof err), AMX_OK);
    CHECK_EQ(got[0], 3);          /* and the base's SKELETON_NOT_FOUND */
    CHECK_EQ(got[1], 1);
    amx_summary sum;
    CHECK_EQ(amx_query_summary(db, NULL, false, &sum, err, sizeof err), AMX_OK);
    CHECK_EQ(sum.findings[AMX_SEV_ERROR], 2);
    CHECK_EQ(sum.clips_unbound, 0);
    /* a scan with no declaration keeps the recorded layers */
    scan(db, "Mod", NULL, 0, false);
    CHECK_EQ(findings(db, "U_DIE_00.ALA", "BONE_INDEX_MISMATCH"), 2);
    /* --no-base: the layers go, the clip loses its model */
    scan(db, "Mod", NULL, 0, true);
    CHECK_EQ(q_int(db, "SELECT count(*) FROM root_layers"), 0);
    CHECK_EQ(findings(db, "U_DIE_00.ALA", "BONE_INDEX_MISMATCH"), 0);
    CHECK_EQ(findings(db, "U_DIE_00.ALA", "SKELETON_NOT_FOUND"), 1);
    /* the Game root scanned for itself becomes a target */
    scan(db, "Game", NULL, 0, false);
    CHECK_EQ(q_int(db, "SELECT count(*) FROM roots WHERE role = 'base'"), 0);
    amx_db_close(db);
}

/* A layer declared in the configuration: [root PATH] base = ... */
static void test_config_layers(void)
{
    fresh();
    model("Game/Data/Art/Models/U.ALO", RIG_A);
    clip("Mod/Data/Art/Models/U_DIE_00.ALA", RIG_A);
    amx_config cfg;
    CHECK_EQ(amx_config_init(&cfg), 0);
    char ini[3000], err[512] = "";
    snprintf(ini, sizeof ini, "[root %s/Mod]\nbase = %s/Game\n", top, top);
    CHECK_EQ(amx_config_load_string(&cfg, ini, "animidx.ini", err, sizeof err), 0);
    CHECK_STR(err, "");
    char mod[1400];
    snprintf(mod, sizeof mod, "%s/Mod", top);
    const amx_root_bases *rb = amx_config_bases(&cfg, mod);
    CHECK(rb && rb->count == 1);
    amx_db *db = open_db();
    amx_scan_opts o = { .root = mod, .jobs = 1, .config = &cfg };
    CHECK_EQ(amx_scan(db, &o, NULL, err, sizeof err), AMX_OK);
    CHECK_EQ(findings(db, "U_DIE_00.ALA", "SKELETON_NOT_FOUND"), 0);
    CHECK_EQ(q_int(db, "SELECT count(*) FROM clip_bindings"), 1);
    /* a base that is not there is an error naming it */
    amx_config_finish(&cfg);
    CHECK_EQ(amx_config_init(&cfg), 0);
    snprintf(ini, sizeof ini, "[root %s/Mod]\nbase = %s/Gone\n", top, top);
    CHECK_EQ(amx_config_load_string(&cfg, ini, "animidx.ini", err, sizeof err), 0);
    CHECK_EQ(amx_scan(db, &o, NULL, err, sizeof err), AMX_E_IO);
    CHECK(strstr(err, "base layer") && strstr(err, "Gone"));
    amx_config_finish(&cfg);
    amx_db_close(db);
}

/* Loose files are found before archive contents, in every layer. */
static void test_loose_over_archive(void)
{
    fresh();
    amxw_buf a = { 0 }, b = { 0 }, m = { 0 };
    amxw_alo_simple(&a, 5, RIG_A, 1, 12, 1);
    amxw_alo_simple(&b, 5, RIG_B, 1, 12, 1);
    /* the base game: X in its MEG (rig B) */
    amxw_meg_file files[] = { { "DATA\\ART\\MODELS\\X.ALO", b.data, b.len } };
    amxw_meg(&m, 1, files, 1);
    put("Game/Data/Models.meg", &m);
    clip("Mod/Data/Art/Models/X_IDLE_00.ALA", RIG_A);
    amx_db *db = open_db();
    const char *bases[] = { "Game" };
    scan(db, "Mod", bases, 1, true);
    /* only the archived model: the clip is checked against it */
    CHECK_EQ(findings(db, "X_IDLE_00.ALA", "BONE_INDEX_MISMATCH"), 2);
    CHECK(strstr(message(db, "X_IDLE_00.ALA", "BONE_INDEX_MISMATCH"), "Models.meg#DATA/ART/MODELS/X.ALO"));
    /* a loose copy in the base game beats its own archive */
    put("Game/Data/Art/Models/X.ALO", &a);
    scan(db, "Mod", NULL, 0, false);
    CHECK_EQ(findings(db, "X_IDLE_00.ALA", "BONE%"), 0);
    CHECK_EQ(q_int(db, "SELECT count(*) FROM clip_bindings b JOIN skeletons s ON s.id = b.skeleton_id "
                       "JOIN files f ON f.id = s.file_id WHERE f.path = 'Data/Art/Models/X.ALO'"), 1);
    /* and the mod's own loose model beats the base's loose one */
    amxw_alo_simple(&b, 5, RIG_B, 1, 12, 1);
    put("Mod/Data/Art/Models/X.ALO", &b);
    scan(db, "Mod", NULL, 0, false);
    CHECK_EQ(findings(db, "X_IDLE_00.ALA", "BONE_INDEX_MISMATCH"), 2);
    CHECK(!strstr(message(db, "X_IDLE_00.ALA", "BONE_INDEX_MISMATCH"), "base layer"));
    amx_db_close(db);
}

static const char *UNITS_XML =
    "<?xml version=\"1.0\"?>\n"
    "<Units>\n"
    "  <GroundVehicle Name=\"Tank\">\n"
    "    <Land_Model_Name>Tank_A.alo</Land_Model_Name>\n"
    "    <Land_Model_Anim_Override_Name>Tank_Set.alo</Land_Model_Anim_Override_Name>\n"
    "  </GroundVehicle>\n"
    "  <GroundVehicle Name=\"Hero_Tank\">\n"
    "    <Variant_Of_Existing_Type> Tank </Variant_Of_Existing_Type>\n"
    "    <Land_Model_Name>Tank_B.ALO</Land_Model_Name>\n"
    "  </GroundVehicle>\n"
    "  <GroundVehicle Name=\"Plain_Tank\">\n"
    "    <Variant_Of_Existing_Type>Tank</Variant_Of_Existing_Type>\n"
    "    <Land_Model_Name>Tank_C.alo</Land_Model_Name>\n"
    "    <Land_Model_Anim_Override_Name/>\n"
    "  </GroundVehicle>\n"
    "</Units>\n";

/* A game object that plays another model's animations: the clips are checked against the
 * object's model too, with the XML file and line in the finding's context; a variant inherits
 * the override unless it clears it. */
static void test_xml_override(void)
{
    fresh();
    model("Mod/Data/Art/Models/Tank_A.ALO", RIG_A);
    model("Mod/Data/Art/Models/Tank_B.ALO", RIG_B);   /* re-rigged, still on the old set */
    model("Mod/Data/Art/Models/Tank_C.ALO", RIG_B);
    clip("Mod/Data/Art/Models/Tank_Set_IDLE_00.ALA", RIG_A);
    put_text("Mod/Data/XML/Units.xml", UNITS_XML);
    amx_db *db = open_db();
    scan(db, "Mod", NULL, 0, false);
    CHECK_EQ(q_int(db, "SELECT count(*) FROM game_objects"), 3);
    CHECK_EQ(q_int(db, "SELECT count(*) FROM game_objects WHERE variant = 'Tank' AND variant_key = 'TANK'"), 2);
    CHECK_EQ(q_int(db, "SELECT count(*) FROM refs WHERE kind = 'anim-override' AND key = 'TANK_SET' AND line = 5"), 1);
    /* no model Tank_Set: bound through the XML only, to Tank_A (fits) and Tank_B (does not) */
    CHECK_EQ(findings(db, "Tank_Set_IDLE_00.ALA", "SKELETON_NOT_FOUND"), 0);
    CHECK_EQ(q_int(db, "SELECT count(*) FROM clip_bindings WHERE how = 'xml-override'"), 2);
    CHECK_EQ(findings(db, "Tank_Set_IDLE_00.ALA", "BONE_INDEX_MISMATCH"), 2);
    const char *m = message(db, "Tank_Set_IDLE_00.ALA", "BONE_INDEX_MISMATCH");
    CHECK(strstr(m, "skeleton 'Tank_B' (Data/Art/Models/Tank_B.ALO)"));
    CHECK(strstr(m, "via Data/XML/Units.xml:5"));
    CHECK(strstr(m, "inherited by 'Hero_Tank'"));
    /* Plain_Tank clears the override: Tank_C is not checked */
    CHECK_EQ(q_int(db, "SELECT count(*) FROM clip_bindings b JOIN skeletons s ON s.id = b.skeleton_id "
                       "WHERE s.name = 'Tank_C'"), 0);
    /* the variant gets its own override: it no longer plays Tank_Set's clips */
    put_text("Mod/Data/XML/Units.xml",
             "<Units>\n<GroundVehicle Name=\"Tank\">\n<Land_Model_Name>Tank_A.alo</Land_Model_Name>\n"
             "<Land_Model_Anim_Override_Name>Tank_Set.alo</Land_Model_Anim_Override_Name>\n"
             "</GroundVehicle>\n<GroundVehicle Name=\"Hero_Tank\">\n"
             "<Variant_Of_Existing_Type>Tank</Variant_Of_Existing_Type>\n"
             "<Land_Model_Name>Tank_B.ALO</Land_Model_Name>\n"
             "<Land_Model_Anim_Override_Name>Hero_Set</Land_Model_Anim_Override_Name>\n"
             "</GroundVehicle>\n</Units>\n");
    scan(db, "Mod", NULL, 0, false);
    CHECK_EQ(findings(db, "Tank_Set_IDLE_00.ALA", "BONE%"), 0);
    CHECK_EQ(q_int(db, "SELECT count(*) FROM clip_bindings WHERE how = 'xml-override'"), 1);
    /* the override goes: the clip no model loads by its own name says so */
    put_text("Mod/Data/XML/Units.xml", "<Units/>\n");
    scan(db, "Mod", NULL, 0, false);
    CHECK_EQ(findings(db, "Tank_Set_IDLE_00.ALA", "SKELETON_NOT_FOUND"), 1);
    /* a model a game object uses lists it */
    put_text("Mod/Data/XML/Units.xml", UNITS_XML);
    scan(db, "Mod", NULL, 0, false);
    CHECK_EQ(q_int(db, "SELECT count(*) FROM refs WHERE kind = 'model-or-particle' AND key = 'TANK_B'"), 1);
    amx_db_close(db);
}

/* Units.xml with game object V0 playing set Deep_Set, its model inherited through a chain of
 * `depth` Variant_Of_Existing_Type links (V0 -> V1 -> ... -> V<depth>, which names Deep.alo). */
static void variant_chain(int depth)
{
    size_t cap = 200 + (size_t)depth * 160, at = 0;
    char *x = malloc(cap);
    CHECK(x != NULL);
    if (!x)
        return;
    at += (size_t)snprintf(x + at, cap - at, "<Units>\n<GroundVehicle Name=\"V0\">"
                           "<Land_Model_Anim_Override_Name>Deep_Set</Land_Model_Anim_Override_Name>"
                           "<Variant_Of_Existing_Type>V1</Variant_Of_Existing_Type></GroundVehicle>\n");
    for (int i = 1; i < depth; i++)
        at += (size_t)snprintf(x + at, cap - at, "<GroundVehicle Name=\"V%d\"><Variant_Of_Existing_"
                               "Type>V%d</Variant_Of_Existing_Type></GroundVehicle>\n", i, i + 1);
    snprintf(x + at, cap - at, "<GroundVehicle Name=\"V%d\"><Land_Model_Name>Deep.alo"
             "</Land_Model_Name></GroundVehicle>\n</Units>\n", depth);
    put_text("Mod/Data/XML/Units.xml", x);
    free(x);
}

/* A model inherited through a long Variant_Of_Existing_Type chain is found (issue 21: past 16
 * links the clip's bone errors became a SKELETON_NOT_FOUND warning); a chain the walk's limit
 * cuts is a LIMIT_EXCEEDED, never a SKELETON_NOT_FOUND. */
static void test_variant_depth(void)
{
    fresh();
    model("Mod/Data/Art/Models/Deep.ALO", RIG_B);
    clip("Mod/Data/Art/Models/Deep_Set_IDLE_00.ALA", RIG_A);
    variant_chain(17);
    amx_db *db = open_db();
    scan(db, "Mod", NULL, 0, false);
    CHECK_EQ(findings(db, "Deep_Set_IDLE_00.ALA", "SKELETON_NOT_FOUND"), 0);
    CHECK_EQ(findings(db, "Deep_Set_IDLE_00.ALA", "BONE_INDEX_MISMATCH"), 2);
    CHECK(strstr(message(db, "Deep_Set_IDLE_00.ALA", "BONE_INDEX_MISMATCH"), "Land_Model_Anim_Override_Name of 'V0'"));
    CHECK_EQ(findings(db, "", "LIMIT_EXCEEDED"), 0);
    /* deeper than the walk follows: said, and nothing claimed about the skeleton */
    variant_chain(300);
    scan(db, "Mod", NULL, 0, false);
    CHECK_EQ(findings(db, "Deep_Set_IDLE_00.ALA", "BONE%"), 0);
    CHECK_EQ(findings(db, "Deep_Set_IDLE_00.ALA", "SKELETON_NOT_FOUND"), 0);
    CHECK_EQ(findings(db, "Deep_Set_IDLE_00.ALA", "LIMIT_EXCEEDED"), 1);
    CHECK(strstr(message(db, "Deep_Set_IDLE_00.ALA", "LIMIT_EXCEEDED"),
                 "chain of game object 'V0' is deeper than 256"));
    /* a cycle ends the walk: no model, no limit */
    put_text("Mod/Data/XML/Units.xml",
             "<Units><GroundVehicle Name=\"V0\"><Land_Model_Anim_Override_Name>Deep_Set"
             "</Land_Model_Anim_Override_Name><Variant_Of_Existing_Type>V1</Variant_Of_Existing_Type>"
             "</GroundVehicle><GroundVehicle Name=\"V1\"><Variant_Of_Existing_Type>V0"
             "</Variant_Of_Existing_Type></GroundVehicle></Units>\n");
    scan(db, "Mod", NULL, 0, false);
    CHECK_EQ(findings(db, "Deep_Set_IDLE_00.ALA", "LIMIT_EXCEEDED"), 0);
    CHECK_EQ(findings(db, "Deep_Set_IDLE_00.ALA", "SKELETON_NOT_FOUND"), 1);
    amx_db_close(db);
}

/* Malformed XML is a finding with its line; what could be read is kept. */
static void test_xml_malformed(void)
{
    fresh();
    put_text("Mod/Data/XML/Bad.xml",
             "<Units>\n<Unit Name=\"A\">\n<Land_Model_Name>A.alo</Land_Model_Name>\n"
             "<Note>fish & chips</Note>\n</Unit>\n<Unit Name=\"B\"><Space_Model_Name>B.alo"
             "</Space_Model_Name></Unit>\n");
    amx_db *db = open_db();
    scan(db, "Mod", NULL, 0, false);
    CHECK_EQ(findings(db, "Bad.xml", "XML_MALFORMED"), 1);
    CHECK(strstr(message(db, "Bad.xml", "XML_MALFORMED"), "line 4"));
    CHECK_EQ(q_int(db, "SELECT count(*) FROM refs WHERE key IN ('A', 'B')"), 2);
    amx_db_close(db);
}

/* A W3D model binds to the hierarchy in its own file before a same-named one elsewhere, and two
 * hierarchies of one name in a tree are a DUPLICATE_NAME warning listing both files. */
static void test_w3d_own_hierarchy(void)
{
    fresh();
    amxw_w3d_pivot piv[20];
    char names[20][8];
    memset(piv, 0, sizeof piv);
    for (int i = 0; i < 20; i++) {
        snprintf(names[i], sizeof names[i], "P%02d", i);
        piv[i].name = names[i];
        piv[i].parent = i ? 0 : 0xFFFFFFFFu;
        piv[i].rotation[3] = 1.0f;
    }
    amxw_buf own = { 0 }, small = { 0 };
    amxw_w3d_hierarchy big_h = { .name = "X", .pivots = piv, .pivot_count = 20 };
    amxw_w3d_hierarchy_write(&own, &big_h, NULL);
    amxw_w3d_sub_object objs[] = { { "X.BODY", 18 } };
    amxw_w3d_lod lod = { .max_screen_size = 1.0f, .objects = objs, .object_count = 1 };
    amxw_w3d_hlod hlod = { .name = "X", .hierarchy = "X", .lods = &lod, .lod_count = 1 };
    amxw_w3d_hlod_write(&own, &hlod, NULL);
    put("Mod/Art/W3D/X_DUMY.W3D", &own);
    amxw_w3d_hierarchy small_h = { .name = "X", .pivots = piv, .pivot_count = 16 };
    amxw_w3d_hierarchy_write(&small, &small_h, NULL);
    put("Mod/Art/W3D/X.W3D", &small);
    amx_db *db = open_db();
    scan(db, "Mod", NULL, 0, false);
    CHECK_EQ(findings(db, "X_DUMY.W3D", "INDEX_OUT_OF_RANGE"), 0);
    CHECK_EQ(q_int(db, "SELECT count(*) FROM skeleton_refs r JOIN skeletons s ON s.id = r.skeleton_id "
                       "JOIN files f ON f.id = s.file_id WHERE f.path = 'Art/W3D/X_DUMY.W3D' AND "
                       "r.how = 'own file'"), 1);
    CHECK_EQ(findings(db, "X_DUMY.W3D", "DUPLICATE_NAME"), 1);
    CHECK_EQ(findings(db, "/X.W3D", "DUPLICATE_NAME"), 1);
    CHECK(strstr(message(db, "/X.W3D", "DUPLICATE_NAME"), "Art/W3D/X_DUMY.W3D"));
    /* the duplicate goes: so does the warning */
    CHECK(unlink(at("Mod/Art/W3D/X.W3D")) == 0);
    scan(db, "Mod", NULL, 0, false);
    CHECK_EQ(findings(db, "", "DUPLICATE_NAME"), 0);
    amx_db_close(db);
}

/* The resolve rules: reference keys, model paths, layer stacks. */
static void test_resolve_rules(void)
{
    char key[AMX_REF_KEY_MAX];
    amx__ref_key(AMX_REF_MODEL, "Units\\X.Damaged.alo", key, sizeof key);
    CHECK_STR(key, "X");
    amx__ref_key(AMX_REF_ANIM_OVERRIDE, "MilitiaInfantry.alo", key, sizeof key);
    CHECK_STR(key, "MILITIAINFANTRY");
    amx__ref_key(AMX_REF_ANIM_OVERRIDE, "A.B.alo", key, sizeof key);
    CHECK_STR(key, "A.B");
    amx__ref_key(AMX_REF_MODEL, "", key, sizeof key);
    CHECK_STR(key, "");
    char lk[2][AMX_LKEY_MAX];
    CHECK_EQ(amx__model_lkeys("EV_Aggressor.ALO", lk), 1);
    CHECK_STR(lk[0], "DATA/ART/MODELS/EV_AGGRESSOR.ALO");
    CHECK_EQ(amx__model_lkeys("Units\\X.FOO.BAR", lk), 2);
    CHECK_STR(lk[0], "DATA/ART/MODELS/UNITS/X.FOO.BAR");
    CHECK_STR(lk[1], "DATA/ART/MODELS/UNITS/X.ALO");
    CHECK_EQ(amx__model_lkeys("X", lk), 2);
    CHECK_STR(lk[1], "DATA/ART/MODELS/X.ALO");
    CHECK_EQ(amx__model_lkeys("  ", lk), 0);
    CHECK_STR(amx__override_model_tag("Space_Model_Anim_Override_Name"), "Space_Model_Name");
    CHECK(amx__override_model_tag("Land_Model_Name") == NULL);
    /* 1 on 2 and 3; 2 on 4; 3 back on 1 (a cycle is cut) */
    int64_t b1[] = { 2, 3 }, b2[] = { 4 }, b3[] = { 1 };
    amx__root_layers roots[] = { { 1, b1, 2 }, { 2, b2, 1 }, { 3, b3, 1 } };
    int64_t out[8];
    CHECK_EQ(amx__layer_stack(roots, 3, 1, out, 8), 4);
    CHECK(out[0] == 1 && out[1] == 2 && out[2] == 3 && out[3] == 4);
    CHECK_EQ(amx__layer_stack(roots, 3, 3, out, 8), 4);
    CHECK(out[0] == 3 && out[1] == 1 && out[2] == 2 && out[3] == 4);
    CHECK_EQ(amx__layer_stack(roots, 3, 9, out, 8), 1);
    CHECK_EQ(amx__layer_stack(roots, 3, 1, out, 2), 2);
    CHECK(amx__lookup_rank(5, false) < amx__lookup_rank(0, true));
    char pre[256];
    amx__root_lkey_prefix("/games/FoC/Data", pre, sizeof pre);
    CHECK_STR(pre, "DATA/");
    amx__root_lkey_prefix("/games/FoC/data/Art/Models", pre, sizeof pre);
    CHECK_STR(pre, "DATA/ART/MODELS/");
    amx__root_lkey_prefix("/srv/Data/mods/X", pre, sizeof pre); /* a Data above the mod */
    CHECK_STR(pre, "");
    amx__root_lkey_prefix("/mods/X", pre, sizeof pre);
    CHECK_STR(pre, "");
    amx__root_lkey_prefix("/Data/x/Data/Art", pre, sizeof pre);
    CHECK_STR(pre, "DATA/ART/");
    CHECK_EQ(amx__name_crc("DATA/ART/MODELS/X.ALO"), amx__name_crc("data\\art\\models\\x.alo"));
    char tk[AMX_MAX_TEXTURE_LKEYS][AMX_LKEY_MAX];
    CHECK_EQ(amx__texture_lkeys("Rep_Aurek.tga", false, NULL, tk, 8), 2);
    CHECK_STR(tk[0], "DATA/ART/TEXTURES/REP_AUREK.TGA");
    CHECK_STR(tk[1], "DATA/ART/TEXTURES/REP_AUREK.DDS");
    CHECK_EQ(amx__texture_lkeys("Art\\Textures\\a.b.tga", false, NULL, tk, 8), 4);
    CHECK_STR(tk[0], "ART/TEXTURES/A.B.TGA");
    CHECK_STR(tk[1], "DATA/ART/TEXTURES/A.B.TGA");
    CHECK_STR(tk[2], "ART/TEXTURES/A.DDS");
    CHECK_STR(tk[3], "DATA/ART/TEXTURES/A.DDS");
    CHECK_EQ(amx__texture_lkeys("autwins.tga", true, NULL, tk, 8), 4);
    CHECK_STR(tk[0], "ART/TEXTURES/AUTWINS.DDS");
    CHECK_STR(tk[1], "ART/TEXTURES/AUTWINS.TGA");
    CHECK_STR(tk[2], "ART/COMPILEDTEXTURES/AU/AUTWINS.DDS"); /* BFME 2 */
    CHECK_STR(tk[3], "ART/COMPILEDTEXTURES/AU/AUTWINS.TGA");
    CHECK_EQ(amx__texture_lkeys("a", true, NULL, tk, 8), 1); /* no two characters: no BFME 2 folder */
    CHECK_STR(tk[0], "ART/TEXTURES/A");
    /* Zero Hour's language directories, each spelling there before ART/TEXTURES/ */
    amx__languages langs = { .count = 2, .prefix = { "DATA/ENGLISH/", "DATA/GERMAN/" } };
    CHECK_EQ(amx__texture_lkeys("Art\\Sign.tga", true, &langs, tk, AMX_MAX_TEXTURE_LKEYS), 8);
    CHECK_STR(tk[0], "DATA/ENGLISH/ART/TEXTURES/SIGN.DDS");
    CHECK_STR(tk[1], "DATA/GERMAN/ART/TEXTURES/SIGN.DDS");
    CHECK_STR(tk[2], "ART/TEXTURES/SIGN.DDS");
    CHECK_STR(tk[3], "DATA/ENGLISH/ART/TEXTURES/SIGN.TGA");
    CHECK_STR(tk[5], "ART/TEXTURES/SIGN.TGA");
    CHECK_STR(tk[6], "ART/COMPILEDTEXTURES/SI/SIGN.DDS");
    CHECK_EQ(amx__texture_lkeys("Sign.tga", false, &langs, tk, 8), 2); /* Alamo: none of them */
    CHECK_STR(tk[0], "DATA/ART/TEXTURES/SIGN.TGA");
    langs = (amx__languages){ .count = AMX_MAX_LANGUAGES,
                              .prefix = { "DATA/A/", "DATA/B/", "DATA/C/", "DATA/D/" } };
    _Static_assert(AMX_MAX_LANGUAGES == 4, "four names above"); /* the most there can be fit */
    CHECK_EQ(amx__texture_lkeys("Sign.tga", true, &langs, tk, AMX_MAX_TEXTURE_LKEYS),
             AMX_MAX_TEXTURE_LKEYS);
    CHECK_STR(tk[AMX_MAX_TEXTURE_LKEYS - 1], "ART/COMPILEDTEXTURES/SI/SIGN.TGA");
    CHECK_EQ(amx__shader_lkeys("Custom.fx", tk, 8), 6);
    CHECK_STR(tk[0], "CUSTOM.FX");
    CHECK_STR(tk[1], "DATA/ART/SHADERS/CUSTOM.FX");
    CHECK_STR(tk[5], "DATA/ART/SHADERS/TERRAIN/CUSTOM.FXO");
    CHECK(amx__shader_builtin("MeshBumpColorize.fx"));
    CHECK(amx__shader_builtin("meshgloss.FXO"));
    CHECK(!amx__shader_builtin("Custom.fx"));
    char proxy[64];
    amx__proxy_name("P_smoke_tiny01_ALT1", proxy, sizeof proxy);
    CHECK_STR(proxy, "P_smoke_tiny01");
    amx__proxy_name("P_fire_LOD1_ALT2", proxy, sizeof proxy);
    CHECK_STR(proxy, "P_fire");
    amx__proxy_name("P_fire_ALT", proxy, sizeof proxy); /* nothing after _ALT: kept */
    CHECK_STR(proxy, "P_fire_ALT");
    amx__proxy_name("P_fire_alt1", proxy, sizeof proxy); /* case-sensitive, as the engine */
    CHECK_STR(proxy, "P_fire_alt1");
    CHECK(amx__lookup_rank(0, false) < amx__lookup_rank(1, false));
}

/* A hierarchy of 3 pivots named `name` (with `pivots` pivots), or an animation of it. */
static void w3d_hierarchy(amxw_buf *b, const char *name, uint32_t pivots)
{
    static const char *const pn[] = { "ROOT", "A", "B", "C", "D", "E" };
    amxw_w3d_pivot piv[6];
    memset(piv, 0, sizeof piv);
    for (uint32_t i = 0; i < pivots && i < 6; i++)
        piv[i] = (amxw_w3d_pivot){ .name = pn[i], .parent = i ? 0 : 0xFFFFFFFFu,
                                   .rotation = { 0, 0, 0, 1 } };
    amxw_w3d_hierarchy_write(b, &(amxw_w3d_hierarchy){ .name = name, .pivots = piv,
                                                       .pivot_count = pivots }, NULL);
}

static void w3d_anim(amxw_buf *b, const char *hierarchy)
{
    static const float xs[] = { 0, 1 };
    amxw_w3d_channel ch = { .first = 0, .last = 1, .vector_len = 1, .type = 0, .pivot = 2,
                            .data = xs, .data_count = 2 };
    char name[64];
    snprintf(name, sizeof name, "%s.ANIM", hierarchy);
    amxw_w3d_anim_write(b, &(amxw_w3d_anim){ .name = name, .hierarchy = hierarchy, .frames = 2,
                                             .fps = 15, .channels = &ch, .channel_count = 1 },
                        NULL);
}

/* How clip `clip` is bound and the path of the skeleton's file ("how|via|path"). */
static const char *bound_to(amx_db *db, const char *clip)
{
    static char out[1200];
    snprintf(out, sizeof out, "(unbound)");
    sqlite3_stmt *s = NULL;
    if (sqlite3_prepare_v2(amx_db_handle(db),
                           "SELECT b.how || '|' || b.via || '|' || f.path FROM clip_bindings b "
                           "JOIN clips c ON c.id = b.clip_id JOIN skeletons k ON k.id = b.skeleton_id "
                           "JOIN files f ON f.id = k.file_id JOIN files cf ON cf.id = c.file_id "
                           "WHERE cf.path = ?1", -1, &s, NULL) == SQLITE_OK) {
        sqlite3_bind_text(s, 1, clip, -1, SQLITE_STATIC);
        if (sqlite3_step(s) == SQLITE_ROW)
            snprintf(out, sizeof out, "%s", (const char *)sqlite3_column_text(s, 0));
    }
    sqlite3_finalize(s);
    return out;
}

/* The hierarchy a W3D animation finds, step by step: its directory, its tree (loose files
 * before the tree's archives), then the base layers; and in many directories that each hold a
 * hierarchy of one name, each animation its own directory's (an index seek each). */
static void test_w3d_lookup_order(void)
{
    fresh();
    amxw_buf b = { 0 }, member = { 0 }, big = { 0 };
    w3d_anim(&b, "H");
    put("Mod/Art/Anims/H_A.W3D", &b);
    w3d_hierarchy(&b, "H", 3);
    put("Mod/Art/Other/H.W3D", &b);
    w3d_hierarchy(&member, "H", 3);
    amxw_big_file files[] = { { "Art\\Packed\\H.W3D", member.data, member.len } };
    amxw_big(&big, files, 1, NULL, NULL);
    put("Mod/Pack.big", &big);
    amxw_buf_free(&member);
    w3d_hierarchy(&b, "H", 3);
    put("Game/Art/H.W3D", &b);
    const char *base[] = { "Game" };
    amx_db *db = open_db();
    scan(db, "Mod", base, 1, true);
    CHECK_STR(bound_to(db, "Art/Anims/H_A.W3D"), "w3d-header|same tree|Art/Other/H.W3D");
    /* the tree's archive before the base layer's loose file */
    CHECK(unlink(at("Mod/Art/Other/H.W3D")) == 0);
    scan(db, "Mod", NULL, 0, false);
    CHECK(strstr(bound_to(db, "Art/Anims/H_A.W3D"), "w3d-header|same tree|Pack.big#") != NULL);
    CHECK(unlink(at("Mod/Pack.big")) == 0);
    scan(db, "Mod", NULL, 0, false);
    CHECK_STR(bound_to(db, "Art/Anims/H_A.W3D"), "w3d-header|base layer|Art/H.W3D");
    /* one in the animation's own directory wins over all of them */
    w3d_hierarchy(&b, "H", 3);
    put("Mod/Art/Anims/H.W3D", &b);
    scan(db, "Mod", NULL, 0, false);
    CHECK_STR(bound_to(db, "Art/Anims/H_A.W3D"), "w3d-header|same directory|Art/Anims/H.W3D");
    amx_db_close(db);

    /* 60 directories, each with H and an animation of it */
    fresh();
    char rel[128];
    for (int i = 0; i < 60; i++) {
        snprintf(rel, sizeof rel, "Mod/D%02d/H.W3D", i);
        w3d_hierarchy(&b, "H", 3);
        put(rel, &b);
        snprintf(rel, sizeof rel, "Mod/D%02d/H_A.W3D", i);
        w3d_anim(&b, "H");
        put(rel, &b);
    }
    db = open_db();
    scan(db, "Mod", NULL, 0, false);
    int own = 0;
    for (int i = 0; i < 60; i++) {
        char want[160];
        snprintf(rel, sizeof rel, "D%02d/H_A.W3D", i);
        snprintf(want, sizeof want, "w3d-header|same directory|D%02d/H.W3D", i);
        own += strcmp(bound_to(db, rel), want) == 0;
    }
    CHECK_EQ(own, 60);
    /* each of the 60 hierarchies is a DUPLICATE_NAME naming at most 8 others */
    CHECK_EQ(findings(db, "", "DUPLICATE_NAME"), 60);
    CHECK(strstr(message(db, "D00/H.W3D", "DUPLICATE_NAME"), "D01/H.W3D") != NULL);
    CHECK(strstr(message(db, "D00/H.W3D", "DUPLICATE_NAME"), "and others") != NULL);
    CHECK(strstr(message(db, "D00/H.W3D", "DUPLICATE_NAME"), "D09/H.W3D") == NULL);
    amx_db_close(db);
}

int main(void)
{
    test_run("test_names", test_names);
    test_run("test_convention_traps", test_convention_traps);
    test_run("test_engine_table", test_engine_table);
    test_run("test_numbering", test_numbering);
    test_run("test_fit_refresh", test_fit_refresh);
    test_run("test_layers", test_layers);
    test_run("test_config_layers", test_config_layers);
    test_run("test_loose_over_archive", test_loose_over_archive);
    test_run("test_xml_override", test_xml_override);
    test_run("test_variant_depth", test_variant_depth);
    test_run("test_xml_malformed", test_xml_malformed);
    test_run("test_w3d_own_hierarchy", test_w3d_own_hierarchy);
    test_run("test_w3d_lookup_order", test_w3d_lookup_order);
    test_run("test_resolve_rules", test_resolve_rules);
    fresh(); /* removes the last test's tree and database */
    return test_done();
}
