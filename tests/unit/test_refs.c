/* Asset references on writer-built trees: present, missing (info without base layers, error
 * with), wrong kind, empty names, the engine's shaders, TGA before DDS (Alamo) and DDS before
 * TGA (W3D), loose files before archive contents, base layers, a CRC-32 collision in MEGs, and
 * resolution done again when a missing file appears and when it goes. */
#include "test.h"
#include "animidx/os.h"

#include "ala_writer.h"
#include "alo_writer.h"
#include "buf.h"
#include "meg_writer.h"
#include "w3d_writer.h"

#include "animidx/index.h"
#include "db_internal.h"
#include "include_files.h"
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
    snprintf(top, sizeof top, "/tmp/amx_refs_test_%d", (int)amx_os_pid());
    snprintf(dbpath, sizeof dbpath, "%s.db", top);
    test_remove_index(top, dbpath);
}

static const char *at(const char *rel)
{
    static char buf[1700];
    snprintf(buf, sizeof buf, "%s/%s", top, rel);
    return buf;
}

static void put(const char *rel, amxw_buf *b)
{
    CHECK_EQ(amxw_write_file(b, at(rel)), 0);
    amxw_buf_free(b);
}

static void put_bytes(const char *rel, const char *bytes)
{
    amxw_buf b = { 0 };
    amxw_bytes(&b, bytes, strlen(bytes));
    put(rel, &b);
}

/* A model whose one sub-mesh uses `shader` with a BaseTexture `texture`, and a proxy. */
static void model(const char *rel, const char *shader, const char *texture, const char *proxy)
{
    static const amxw_alo_bone bones[] = { { .name = "Root", .parent = -1, .visible = 1 } };
    amxw_alo_param param = { .type = AMXW_ALO_TEXTURE, .name = "BaseTexture", .texture = texture };
    amxw_alo_submesh sub = { .shader = shader, .params = &param, .param_count = 1, .vertices = 3,
                             .triangles = 1 };
    amxw_alo_mesh mesh = { .name = "HULL", .submeshes = &sub, .submesh_count = 1 };
    amxw_alo_conn conn = { 0, 0 };
    amxw_alo_proxy px = { .name = proxy, .bone = 0 };
    amxw_alo_spec spec = { .bones = bones, .bone_count = 1, .meshes = &mesh, .mesh_count = 1,
                           .conns = &conn, .conn_count = 1, .proxies = proxy ? &px : NULL,
                           .proxy_count = proxy ? 1 : 0 };
    amxw_buf b = { 0 };
    amxw_alo_model(&b, &spec);
    put(rel, &b);
}

static void particle(const char *rel, const char *name)
{
    amxw_buf b = { 0 };
    amxw_alo_particle(&b, name, 1, false);
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

/* The resolution of the reference named `name` of file `file`, with its target's path. */
static const char *resolution(amx_db *db, const char *file, const char *name)
{
    static char out[1200];
    snprintf(out, sizeof out, "(none)");
    char sql[1024];
    snprintf(sql, sizeof sql, "SELECT coalesce(r.resolution, '?') || ' ' || coalesce(t.path, '-') "
             "FROM refs r JOIN files f ON f.id = r.file_id LEFT JOIN files t ON t.id = r.target_id "
             "WHERE f.path LIKE '%%%s' AND r.name = '%s' ORDER BY r.id", file, name);
    sqlite3_stmt *s = NULL;
    if (sqlite3_prepare_v2(amx_db_handle(db), sql, -1, &s, NULL) == SQLITE_OK &&
        sqlite3_step(s) == SQLITE_ROW)
        snprintf(out, sizeof out, "%s", (const char *)sqlite3_column_text(s, 0));
    sqlite3_finalize(s);
    return out;
}

static int64_t findings(amx_db *db, const char *file, const char *code, const char *sev)
{
    return q_int(db, "SELECT count(*) FROM findings i JOIN files f ON f.id = i.file_id WHERE "
                     "f.path LIKE '%%%s' AND i.code = '%s' AND i.severity LIKE '%s'", file, code,
                 sev ? sev : "%");
}

static amx_db *open_db(void)
{
    amx_db *db = NULL;
    char err[512];
    CHECK_EQ(amx_db_open(dbpath, 0, &db, err, sizeof err), AMX_OK);
    return db;
}

/* Scans `root` (with base layer `base` when not NULL); returns the clips the link pass linked. */
static uint64_t scan(amx_db *db, const char *root, const char *base)
{
    char r[1400], b[1400];
    snprintf(r, sizeof r, "%s/%s", top, root);
    snprintf(b, sizeof b, "%s/%s", top, base ? base : "");
    const char *bp[1] = { b };
    amx_scan_opts o = { .root = r, .jobs = 2, .bases = bp, .base_count = base ? 1 : 0,
                        .set_bases = base != NULL };
    char err[512] = "";
    amx_scan_stats stats;
    amx_status st = amx_scan(db, &o, &stats, err, sizeof err);
    if (st)
        printf("# scan of %s: %s\n", root, err);
    CHECK_EQ(st, AMX_OK);
    return stats.clips_linked;
}

#define M "Mod/Data/Art/Models/"
#define T "Mod/Data/Art/Textures/"

static void test_rules(void)
{
    fresh();
    model(M "SHIP.ALO", "MeshBumpColorize.fx", "ship.tga", "P_SMOKE_ALT1");   /* all present */
    model(M "GONE.ALO", "Custom.fx", "gone.tga", "P_GONE");                  /* all missing */
    model(M "WRONG.ALO", "MeshGloss.fx", "None", "SHIP");                    /* proxy: a model */
    model(M "EMPTY.ALO", "", "", NULL);                                      /* empty names */
    model(M "DDS.ALO", "Custom.fx", "dds_only.tga", NULL);                   /* .dds for .tga */
    particle(M "P_SMOKE.ALO", "P_SMOKE");
    put_bytes(T "ship.tga", "tga");
    put_bytes(T "dds_only.dds", "dds");
    put_bytes(T "p_particle_master.tga", "tga");
    put_bytes(T "p_particle_depth_master.tga", "tga");
    put_bytes("Mod/Data/Art/Shaders/Custom.fx", "float4 x;");
    put_bytes("Mod/Data/XML/Units.xml",
              "<Units>\n<SpaceUnit Name=\"S\">\n<Space_Model_Name>SHIP.ALO</Space_Model_Name>\n"
              "<GUI_Model_Name>P_SMOKE.ALO</GUI_Model_Name>\n"
              "<Galactic_Model_Name>Ship_Galactic.alo</Galactic_Model_Name>\n"
              "<Damaged_Smoke_Asset_Name>P_SMOKE.ALO</Damaged_Smoke_Asset_Name>\n"
              "<Land_Model_Name/>\n</SpaceUnit>\n</Units>\n");
    amx_db *db = open_db();
    scan(db, "Mod", NULL);
    /* present: texture, an engine shader, the particle a proxy's _ALT name stands for */
    CHECK_STR(resolution(db, "SHIP.ALO", "ship.tga"), "found Data/Art/Textures/ship.tga");
    CHECK_STR(resolution(db, "SHIP.ALO", "MeshBumpColorize.fx"), "builtin -");
    CHECK_STR(resolution(db, "SHIP.ALO", "P_SMOKE_ALT1"), "found Data/Art/Models/P_SMOKE.ALO");
    CHECK_EQ(findings(db, "SHIP.ALO", "REFERENCE%", NULL), 0);
    /* a shader the mod ships, in the engine's shader folder */
    CHECK_STR(resolution(db, "DDS.ALO", "Custom.fx"), "found Data/Art/Shaders/Custom.fx");
    /* .dds for .tga */
    CHECK_STR(resolution(db, "DDS.ALO", "dds_only.tga"), "found Data/Art/Textures/dds_only.dds");
    /* missing: one finding per name, info without a base layer, saying so */
    CHECK_STR(resolution(db, "GONE.ALO", "gone.tga"), "missing -");
    CHECK_EQ(findings(db, "GONE.ALO", "REFERENCE_NOT_FOUND", "info"), 2); /* texture, proxy */
    CHECK_EQ(q_int(db, "SELECT count(*) FROM findings WHERE message LIKE '%%gone.tga'' is in "
                       "no file of this tree: the engine looks for DATA/ART/TEXTURES/GONE.TGA, "
                       "DATA/ART/TEXTURES/GONE.DDS (a .tga it does not find, it looks for as .dds)'"),
             1);
    /* how to declare base layers is said once by the command, in no message */
    CHECK_EQ(q_int(db, "SELECT count(*) FROM findings WHERE message LIKE '%%base layer%%'"), 0);
    /* wrong kind: a proxy that finds a model; a GUI model that finds a particle */
    CHECK_STR(resolution(db, "WRONG.ALO", "SHIP"), "wrong-kind Data/Art/Models/SHIP.ALO");
    CHECK_EQ(findings(db, "WRONG.ALO", "REFERENCE_WRONG_KIND", "error"), 1);
    CHECK_STR(resolution(db, "WRONG.ALO", "None"), "skipped -");
    CHECK_STR(resolution(db, "Units.xml", "P_SMOKE.ALO"), "wrong-kind Data/Art/Models/P_SMOKE.ALO");
    CHECK_EQ(findings(db, "Units.xml", "REFERENCE_WRONG_KIND", "error"), 1); /* GUI, not the smoke */
    CHECK(q_int(db, "SELECT count(*) FROM findings WHERE code = 'REFERENCE_WRONG_KIND' AND "
                    "context = 'GUI_Model_Name of ''S'', line 4'") == 1);
    CHECK_STR(resolution(db, "Units.xml", "SHIP.ALO"), "found Data/Art/Models/SHIP.ALO");
    CHECK_EQ(findings(db, "Units.xml", "REFERENCE_NOT_FOUND", "info"), 1); /* Ship_Galactic */
    CHECK_STR(resolution(db, "Units.xml", ""), "skipped -"); /* an empty tag clears */
    /* empty names where one is needed */
    CHECK_EQ(findings(db, "EMPTY.ALO", "REFERENCE_EMPTY", "warning"), 2);
    /* the missing texture appears: resolved again, the finding goes */
    put_bytes(T "gone.dds", "dds");
    scan(db, "Mod", NULL);
    CHECK_STR(resolution(db, "GONE.ALO", "gone.tga"), "found Data/Art/Textures/gone.dds");
    CHECK_EQ(findings(db, "GONE.ALO", "REFERENCE_NOT_FOUND", NULL), 1);
    /* and a TGA beside it wins (the engine tries TGA before DDS) */
    put_bytes(T "gone.tga", "tga");
    scan(db, "Mod", NULL);
    CHECK_STR(resolution(db, "GONE.ALO", "gone.tga"), "found Data/Art/Textures/gone.tga");
    /* it goes again: missing again */
    CHECK(unlink(at(T "gone.tga")) == 0);
    CHECK(unlink(at(T "gone.dds")) == 0);
    scan(db, "Mod", NULL);
    CHECK_STR(resolution(db, "GONE.ALO", "gone.tga"), "missing -");
    CHECK_EQ(findings(db, "GONE.ALO", "REFERENCE_NOT_FOUND", NULL), 2);
    CHECK_EQ(q_int(db, "SELECT count(*) FROM refs WHERE linked = 0"), 0);
    amx_db_close(db);
}

/* Base layers: a reference the mod does not satisfy is an error once the game is declared, and
 * resolves when the game has the file: loose files of every layer before archive contents. */
static void test_layers_and_archives(void)
{
    fresh();
    model(M "SHIP.ALO", "MeshGloss.fx", "game.tga", "P_GAME");
    model(M "LOST.ALO", "MeshGloss.fx", "nowhere.tga", NULL);
    put_bytes("Game/Data/Art/Textures/game.tga", "tga");
    amxw_buf p = { 0 }, meg = { 0 };
    amxw_alo_particle(&p, "P_GAME", 1, false);
    amxw_meg_file files[] = { { "DATA\\ART\\MODELS\\P_GAME.ALO", p.data, p.len } };
    amxw_meg(&meg, 1, files, 1);
    put("Game/Data/Particles.meg", &meg);
    amxw_buf_free(&p);
    amx_db *db = open_db();
    scan(db, "Mod", "Game");
    CHECK_STR(resolution(db, "SHIP.ALO", "game.tga"), "found Data/Art/Textures/game.tga");
    CHECK_STR(resolution(db, "SHIP.ALO", "P_GAME"),
              "found Data/Particles.meg#DATA/ART/MODELS/P_GAME.ALO");
    CHECK_EQ(findings(db, "LOST.ALO", "REFERENCE_NOT_FOUND", "error"), 1);
    CHECK_EQ(q_int(db, "SELECT count(*) FROM findings WHERE code = 'REFERENCE_NOT_FOUND' AND "
                       "message LIKE '%%base layers%%/Game%%'"), 1);
    /* a loose copy in the mod beats the game's archive */
    particle(M "P_GAME.ALO", "P_GAME");
    scan(db, "Mod", NULL);
    CHECK_STR(resolution(db, "SHIP.ALO", "P_GAME"), "found Data/Art/Models/P_GAME.ALO");
    /* without the base layer the mod's own files still resolve; the rest becomes info */
    scan(db, "Mod", NULL);
    amx_db_close(db);
    db = open_db();
    char r[1400];
    snprintf(r, sizeof r, "%s/Mod", top);
    amx_scan_opts o = { .root = r, .jobs = 1, .set_bases = true };
    char err[512];
    CHECK_EQ(amx_scan(db, &o, NULL, err, sizeof err), AMX_OK);
    CHECK_STR(resolution(db, "SHIP.ALO", "game.tga"), "missing -");
    CHECK_EQ(findings(db, "LOST.ALO", "REFERENCE_NOT_FOUND", "info"), 1);
    amx_db_close(db);
}

/* Two MEG members whose names hash to the same CRC-32: the one a reference finds may not be
 * what the game loads. */
static void test_crc_collision(void)
{
    /* no two short real names collide: the second member is given the first one's CRC */
    fresh();
    model(M "SHIP.ALO", "MeshGloss.fx", "hit.tga", NULL);
    amxw_buf meg = { 0 };
    amxw_meg_file files[] = { { "DATA\\ART\\TEXTURES\\HIT.TGA", (const uint8_t *)"tga", 3 },
                              { "DATA\\ART\\TEXTURES\\OTHER.TGA", (const uint8_t *)"tga", 3 } };
    amxw_meg(&meg, 1, files, 2);
    put("Mod/Data/Textures.meg", &meg);
    amx_db *db = open_db();
    scan(db, "Mod", NULL);
    CHECK_STR(resolution(db, "SHIP.ALO", "hit.tga"), "found Data/Textures.meg#DATA/ART/TEXTURES/HIT.TGA");
    CHECK_EQ(findings(db, "SHIP.ALO", "ARCHIVE_CRC_COLLISION", NULL), 0);
    CHECK_EQ(q_int(db, "SELECT name_crc FROM files WHERE path LIKE '%%HIT.TGA'"),
             amx__name_crc("DATA\\ART\\TEXTURES\\HIT.TGA"));
    sqlite3_exec(amx_db_handle(db),
                 "UPDATE files SET name_crc = (SELECT name_crc FROM files WHERE path LIKE '%HIT.TGA') "
                 "WHERE path LIKE '%OTHER.TGA'; UPDATE refs SET linked = 0",
                 NULL, NULL, NULL);
    char err[512];
    CHECK_EQ(amx_link(db, NULL, err, sizeof err), AMX_OK);
    CHECK_EQ(findings(db, "SHIP.ALO", "ARCHIVE_CRC_COLLISION", "warning"), 1);
    CHECK_EQ(q_int(db, "SELECT count(*) FROM findings WHERE code = 'ARCHIVE_CRC_COLLISION' AND "
                       "message LIKE '%%Textures.meg#DATA/ART/TEXTURES/OTHER.TGA%%'"), 1);
    amx_db_close(db);
}

/* W3D meshes: ART/TEXTURES, the DDS variant first. */
static void test_w3d_textures(void)
{
    fresh();
    amxw_buf b = { 0 };
    amxw_w3d_mesh mesh = { .name = "BOX", .container = "BOX", .textures = (const char *const[]){
                               "box.tga", "lid.tga" }, .texture_count = 2 };
    amxw_w3d_mesh_write(&b, &mesh);
    put("Gen/Art/W3D/box.w3d", &b);
    put_bytes("Gen/Art/Textures/box.dds", "dds");
    put_bytes("Gen/Art/Textures/box.tga", "tga");
    amx_db *db = open_db();
    scan(db, "Gen", NULL);
    CHECK_STR(resolution(db, "box.w3d", "box.tga"), "found Art/Textures/box.dds");
    CHECK_STR(resolution(db, "box.w3d", "lid.tga"), "missing -");
    CHECK_EQ(q_int(db, "SELECT count(*) FROM findings WHERE code = 'REFERENCE_NOT_FOUND' AND "
                       "message LIKE '%%ART/TEXTURES/LID.DDS, ART/TEXTURES/LID.TGA, "
                       "ART/COMPILEDTEXTURES/LI/LID.DDS, ART/COMPILEDTEXTURES/LI/LID.TGA%%'"), 1);
    amx_db_close(db);

    /* BFME 2 packs them as Art/CompiledTextures/<first two letters>/<name>.dds */
    fresh();
    amxw_w3d_mesh troll = { .name = "GADUZ", .container = "GADUZ", .textures =
                                (const char *const[]){ "gaduz.tga", "gaduzdrum.tga" },
                            .texture_count = 2 };
    amxw_w3d_mesh_write(&b, &troll);
    put("Mod/Art/W3D/ga/gaduz.w3d", &b);
    put_bytes("Mod/Art/CompiledTextures/ga/gaduz.dds", "dds");
    put_bytes("Mod/Art/CompiledTextures/gu/gaduzdrum.dds", "dds"); /* not where it is looked for */
    db = open_db();
    scan(db, "Mod", NULL);
    CHECK_STR(resolution(db, "gaduz.w3d", "gaduz.tga"), "found Art/CompiledTextures/ga/gaduz.dds");
    CHECK_STR(resolution(db, "gaduz.w3d", "gaduzdrum.tga"), "missing -");
    CHECK_EQ(q_int(db, "SELECT count(*) FROM findings WHERE code = 'REFERENCE_NOT_FOUND' AND "
                       "message LIKE '%%ART/COMPILEDTEXTURES/GA/GADUZDRUM.DDS%%the tree has "
                       "Art/CompiledTextures/gu/gaduzdrum.dds%%'"), 1);
    amx_db_close(db);

    /* Zero Hour looks in Data/<language>/Art/Textures/ first (EnglishZH.big holds such
     * textures): found there, and named where a texture is missing. Data/INI and Data/Scripts
     * are no language. */
    fresh();
    amxw_w3d_mesh sign = { .name = "SIGN", .container = "SIGN", .textures =
                               (const char *const[]){ "sign.tga", "box.tga", "nowhere.tga" },
                           .texture_count = 3 };
    amxw_w3d_mesh_write(&b, &sign);
    put("Gen/Art/W3D/sign.w3d", &b);
    put_bytes("Gen/Data/English/Art/Textures/sign.tga", "tga");
    put_bytes("Gen/Data/English/Art/Textures/box.dds", "dds");
    put_bytes("Gen/Art/Textures/box.dds", "dds");
    put_bytes("Gen/Data/INI/GameData.ini", "; nothing\n");
    put_bytes("Gen/Data/Scripts/x.scb", "scb");
    db = open_db();
    scan(db, "Gen", NULL);
    CHECK_STR(resolution(db, "sign.w3d", "sign.tga"), "found Data/English/Art/Textures/sign.tga");
    CHECK_STR(resolution(db, "sign.w3d", "box.tga"), "found Data/English/Art/Textures/box.dds");
    CHECK_STR(resolution(db, "sign.w3d", "nowhere.tga"), "missing -");
    CHECK_EQ(q_int(db, "SELECT count(*) FROM findings WHERE code = 'REFERENCE_NOT_FOUND' AND "
                       "message LIKE '%%looks for DATA/ENGLISH/ART/TEXTURES/NOWHERE.DDS, "
                       "ART/TEXTURES/NOWHERE.DDS, DATA/ENGLISH/ART/TEXTURES/NOWHERE.TGA, "
                       "ART/TEXTURES/NOWHERE.TGA, ART/COMPILEDTEXTURES/%%'"), 1);
    CHECK_EQ(q_int(db, "SELECT count(*) FROM findings WHERE message LIKE '%%DATA/INI/%%' OR "
                       "message LIKE '%%DATA/SCRIPTS/%%'"), 0);
    amx_db_close(db);
}

/* A W3D file with a hierarchy SKL of two pivots, an animation of SKL that moves pivot 2 (one
 * bone finding) and a mesh that uses `texture`. */
static void w3d_unit(const char *rel, const char *texture)
{
    amxw_buf b = { 0 };
    amxw_w3d_pivot piv[2] = { { .name = "ROOT", .parent = 0xFFFFFFFFu, .rotation = { 0, 0, 0, 1 } },
                              { .name = "TURRET", .parent = 0, .rotation = { 0, 0, 0, 1 } } };
    amxw_w3d_hierarchy_write(&b, &(amxw_w3d_hierarchy){ .name = "SKL", .pivots = piv,
                                                       .pivot_count = 2 }, NULL);
    static const float xs[] = { 0, 1 };
    amxw_w3d_channel ch = { .first = 0, .last = 1, .vector_len = 1, .type = 0, .pivot = 2,
                            .data = xs, .data_count = 2 };
    amxw_w3d_anim_write(&b, &(amxw_w3d_anim){ .name = "SKL.MOVE", .hierarchy = "SKL", .frames = 2,
                                              .fps = 15, .channels = &ch, .channel_count = 1 },
                        NULL);
    if (texture) {
        amxw_w3d_mesh mesh = { .name = "HULL", .container = "SKL",
                               .textures = (const char *const[]){ texture }, .texture_count = 1 };
        amxw_w3d_mesh_write(&b, &mesh);
    }
    put(rel, &b);
}

/* The link pass relinks what changed of a file: its clips (and their findings) when a skeleton
 * they may bind to changes, its references when a file they may name appears. The other part
 * keeps its rows and findings, none lost and none doubled. */
static void test_relink_what_changed(void)
{
    fresh();
    w3d_unit("Gen/Art/W3D/unit.w3d", "lid.tga");
    amx_db *db = open_db();
    CHECK_EQ(scan(db, "Gen", NULL), 1);
    CHECK_EQ(findings(db, "unit.w3d", "BONE_NOT_IN_SKELETON", "error"), 1);
    CHECK_EQ(findings(db, "unit.w3d", "REFERENCE_NOT_FOUND", "info"), 1);
    /* another file defines SKL: the clips of SKL are linked again (each file's own SKL wins) */
    w3d_unit("Gen/Art/W3D/other.w3d", NULL);
    CHECK_EQ(scan(db, "Gen", NULL), 2);
    CHECK_EQ(findings(db, "unit.w3d", "BONE_NOT_IN_SKELETON", "error"), 1);
    CHECK_EQ(findings(db, "unit.w3d", "REFERENCE_NOT_FOUND", "info"), 1);
    CHECK_EQ(findings(db, "unit.w3d", "DUPLICATE_NAME", NULL), 1);
    CHECK_EQ(q_int(db, "SELECT count(*) FROM clip_bindings b JOIN clips c ON c.id = b.clip_id "
                       "JOIN files f ON f.id = c.file_id WHERE f.path = 'Art/W3D/unit.w3d'"), 1);
    int64_t binding = q_int(db, "SELECT b.rowid FROM clip_bindings b JOIN clips c ON "
                                "c.id = b.clip_id JOIN files f ON f.id = c.file_id WHERE "
                                "f.path = 'Art/W3D/unit.w3d'");
    /* the texture appears: the reference is resolved again, the clip is not linked again */
    put_bytes("Gen/Art/Textures/lid.dds", "dds");
    CHECK_EQ(scan(db, "Gen", NULL), 0);
    CHECK_STR(resolution(db, "unit.w3d", "lid.tga"), "found Art/Textures/lid.dds");
    CHECK_EQ(findings(db, "unit.w3d", "REFERENCE_NOT_FOUND", NULL), 0);
    CHECK_EQ(findings(db, "unit.w3d", "BONE_NOT_IN_SKELETON", "error"), 1);
    CHECK_EQ(q_int(db, "SELECT b.rowid FROM clip_bindings b JOIN clips c ON c.id = b.clip_id "
                       "JOIN files f ON f.id = c.file_id WHERE f.path = 'Art/W3D/unit.w3d'"),
             binding);
    amx_db_close(db);
}

/* Paths longer than the engine takes: 259 characters for textures, 255 for animations. */
static void test_too_long(void)
{
    fresh();
    char tex[300], dir[300], rel[1200];
    memset(tex, 'T', 236);
    snprintf(tex + 236, sizeof tex - 236, ".tga"); /* DATA/ART/TEXTURES/ + 240 = 258: fits */
    model(M "FITS.ALO", "MeshGloss.fx", tex, NULL);
    memset(tex, 'T', 238);
    snprintf(tex + 238, sizeof tex - 238, ".tga"); /* 18 + 242 = 260: one too many */
    model(M "LONG.ALO", "MeshGloss.fx", tex, NULL);
    /* a clip at DATA/ART/MODELS/<dir>/SHIP_IDLE_00.ALA: 16 + 226 + 1 + 16 = 259 > 255 */
    memset(dir, 'D', 226);
    dir[226] = '\0';
    snprintf(rel, sizeof rel, M "%s/SHIP.ALO", dir);
    model(rel, "MeshGloss.fx", "ship.tga", NULL);
    static const char *const bone[] = { "Root" };
    amxw_buf b = { 0 };
    amxw_ala_simple(&b, 2, 10, 30.0f, 1, bone, NULL, 1);
    snprintf(rel, sizeof rel, M "%s/SHIP_IDLE_00.ALA", dir);
    put(rel, &b);
    dir[222] = '\0'; /* 255: loads */
    snprintf(rel, sizeof rel, M "%s/SHIP.ALO", dir);
    model(rel, "MeshGloss.fx", "ship.tga", NULL);
    amxw_ala_simple(&b, 2, 10, 30.0f, 1, bone, NULL, 1);
    snprintf(rel, sizeof rel, M "%s/SHIP_IDLE_00.ALA", dir);
    put(rel, &b);
    amx_db *db = open_db();
    scan(db, "Mod", NULL);
    CHECK_EQ(findings(db, "FITS.ALO", "REFERENCE_PATH_TOO_LONG", NULL), 0);
    CHECK_STR(resolution(db, "FITS.ALO", "MeshGloss.fx"), "builtin -");
    CHECK_EQ(findings(db, "LONG.ALO", "REFERENCE_PATH_TOO_LONG", "error"), 1);
    CHECK(q_int(db, "SELECT count(*) FROM refs WHERE resolution = 'too-long'") == 1);
    CHECK_EQ(q_int(db, "SELECT count(*) FROM findings i JOIN files f ON f.id = i.file_id WHERE "
                       "i.code = 'REFERENCE_PATH_TOO_LONG' AND f.path LIKE '%%_IDLE_00.ALA' AND "
                       "i.severity = 'error' AND i.message LIKE '%%259 characters%%at most 255%%'"),
             1);
    CHECK_EQ(q_int(db, "SELECT count(*) FROM findings WHERE code = 'REFERENCE_PATH_TOO_LONG'"), 2);
    amx_db_close(db);
}

/* Past AMX_MAX_REFS references in one file, one LIMIT_EXCEEDED says the rest are not recorded
 * (issue 21: each reference past the limit added one of its own). */
static void test_reference_limit(void)
{
    static const char head[] = "<Units><Unit Name=\"U\">", tag[] = "<Model_Name>M.alo</Model_Name>",
                      tail[] = "</Unit></Units>\n";
    size_t refs = 1000050, tl = sizeof tag - 1;
    size_t len = sizeof head - 1 + refs * tl + sizeof tail - 1;
    char *x = malloc(len + 1);
    CHECK(x != NULL);
    if (!x)
        return;
    char *p = x;
    memcpy(p, head, sizeof head - 1);
    p += sizeof head - 1;
    for (size_t i = 0; i < refs; i++, p += tl)
        memcpy(p, tag, tl);
    memcpy(p, tail, sizeof tail);
    amx_asset *a = NULL;
    amx_decode_opts o = { .file_name = "Data/XML/Huge.xml" };
    CHECK_EQ(amx_decode((const uint8_t *)x, len, &o, &a), AMX_OK);
    int limits = 0;
    for (uint32_t i = 0; a && i < a->finding_count; i++)
        limits += a->findings[i].code == AMX_C_LIMIT_EXCEEDED;
    CHECK_EQ(limits, 1);
    CHECK_EQ(a ? a->ref_count : 0, 1000000u);
    CHECK_EQ(a ? a->findings_dropped : 1, 0u);
    amx_asset_free(a);
    free(x);
}

/* ---- SAGE INI (docs/formats/sage-ini.md) ---- */

#define P(name) { .name = name, .parent = 0, .rotation = { 0, 0, 0, 1 } }

/* A W3D model file: hierarchy `skl` of `pivots` (pivot 0 ROOTTRANSFORM added), an HLOD `hlod`
 * on it with sub-objects `subs` (on pivot 0). */
static void w3d_model(const char *rel, const char *skl, const char *const *pivots, size_t np,
                      const char *hlod, const char *const *subs, size_t ns)
{
    amxw_buf b = { 0 };
    amxw_w3d_pivot piv[16] = { { .name = "ROOTTRANSFORM", .parent = 0xFFFFFFFFu,
                                 .rotation = { 0, 0, 0, 1 } } };
    for (size_t i = 0; i < np && i < 15; i++)
        piv[i + 1] = (amxw_w3d_pivot){ .name = pivots[i], .parent = 0, .rotation = { 0, 0, 0, 1 } };
    if (skl)
        amxw_w3d_hierarchy_write(&b, &(amxw_w3d_hierarchy){ .name = skl, .pivots = piv,
                                                           .pivot_count = (uint32_t)np + 1 }, NULL);
    amxw_w3d_sub_object so[16];
    for (size_t i = 0; i < ns && i < 16; i++)
        so[i] = (amxw_w3d_sub_object){ .name = subs[i], .bone = 0 };
    amxw_w3d_lod lod = { .max_screen_size = 1, .objects = so, .object_count = (uint32_t)ns };
    if (hlod)
        amxw_w3d_hlod_write(&b, &(amxw_w3d_hlod){ .name = hlod, .hierarchy = skl ? skl : "",
                                                  .lods = &lod, .lod_count = 1 }, NULL);
    put(rel, &b);
}

/* A W3D file holding animation `name` of hierarchy `skl` (one channel on pivot 1). */
static void w3d_anim(const char *rel, const char *name, const char *skl)
{
    amxw_buf b = { 0 };
    static const float xs[] = { 0, 1 };
    amxw_w3d_channel ch = { .first = 0, .last = 1, .vector_len = 1, .type = 0, .pivot = 1,
                            .data = xs, .data_count = 2 };
    amxw_w3d_anim_write(&b, &(amxw_w3d_anim){ .name = name, .hierarchy = skl, .frames = 2,
                                              .fps = 15, .channels = &ch, .channel_count = 1 },
                        NULL);
    put(rel, &b);
}

/* The finding of `code` on INI line `line` of `file` (its severity), or "" when none. */
static const char *ini_finding(amx_db *db, const char *file, const char *code, int line)
{
    static char out[64];
    out[0] = '\0';
    char sql[1024];
    snprintf(sql, sizeof sql, "SELECT i.severity FROM findings i JOIN files f ON f.id = i.file_id "
             "WHERE f.path LIKE '%%%s' AND i.code = '%s' AND i.context LIKE '%%, line %d'",
             file, code, line);
    sqlite3_stmt *s = NULL;
    if (sqlite3_prepare_v2(amx_db_handle(db), sql, -1, &s, NULL) == SQLITE_OK &&
        sqlite3_step(s) == SQLITE_ROW)
        snprintf(out, sizeof out, "%s", (const char *)sqlite3_column_text(s, 0));
    sqlite3_finalize(s);
    return out;
}

static const char *const TANK_PIVOTS[] = { "TURRET", "MUZZLE01", "MUZZLE02", "EXHAUST" };
static const char *const TANK_SUBS[] = { "AVTANK.HULL", "AVTANK.LIGHTS", "AVTANK.BARREL02" };

static const char *TANK_INI =
    "Object Tank\n"                                                       /* 1 */
    "  Draw = W3DTankDraw ModuleTag_01\n"                                 /* 2 */
    "    DefaultConditionState\n"                                         /* 3 */
    "      Model = AVTank\n"                                              /* 4 */
    "      Animation = AVTank.AVTank_IDL\n"                               /* 5 */
    "      WeaponFireFXBone = PRIMARY Muzzle\n"                           /* 6 */
    "      WeaponMuzzleFlash = PRIMARY MuzzleFX\n"                        /* 7 */
    "      Turret = Turret\n"                                             /* 8 */
    "      ParticleSysBone = Exhaust SmokeFX\n"                           /* 9 */
    "      HideSubObject = Lights Barrel02 Antenna\n"                     /* 10 */
    "    End\n"                                                           /* 11 */
    "    ConditionState = REALLYDAMAGED\n"                                /* 12 */
    "      Model = AVTank_D\n"                                            /* 13 */
    "    End\n"                                                           /* 14 */
    "    ConditionState = RUBBLE\n"                                       /* 15 */
    "      Model = AVTankGone\n"                                          /* 16 */
    "    End\n"                                                           /* 17 */
    "    ConditionState = MOVING\n"                                       /* 18 */
    "      Animation = AVTank.AVTank_MOV\n"                               /* 19 */
    "      Animation = AVStatic.AVStatic\n"                               /* 20 */
    "    End\n"                                                           /* 21 */
    "    ConditionState = FIRING_A\n"                                     /* 22 */
    "      Model = AVOther\n"                                             /* 23 */
    "      Animation = AVTank.AVTank_IDL\n"                               /* 24 */
    "    End\n"                                                           /* 25 */
    "  End\n"                                                             /* 26 */
    "End\n"                                                               /* 27 */
    "ObjectReskin TankSkin Tank\n"                                        /* 28 */
    "End\n"                                                               /* 29 */
    "ObjectReskin EarlySkin LaterTank\n"                                  /* 30 */
    "End\n"                                                               /* 31 */
    "ObjectReskin StrangerSkin NowhereTank\n"                             /* 32 */
    "End\n"                                                               /* 33 */
    "Object LaterTank\n"                                                  /* 34 */
    "End\n";                                                              /* 35 */

typedef struct model_clips {
    int ini, header;
    char ini_via[300], ini_clip[64];
} model_clips;

static void model_clip(const amx_clip_row *r, void *user)
{
    model_clips *m = user;
    if (r->how && strcmp(r->how, "ini") == 0) {
        m->ini++;
        snprintf(m->ini_via, sizeof m->ini_via, "%s", r->via ? r->via : "");
        snprintf(m->ini_clip, sizeof m->ini_clip, "%s", r->clip);
    } else if (r->how && strcmp(r->how, "w3d-header") == 0) {
        m->header++;
    }
}

/* A list file's entries (a <File> of GameObjectFiles.xml, HardPointDataFiles.xml, ...) are the
 * XML files the game loads: DATA/XML/<entry>, through the layers, any case, '\' or '/'. One the
 * tree does not hold is REFERENCE_NOT_FOUND (info without a base layer, error with one; the
 * message names where the tree has a file of that name), one that is no XML is
 * REFERENCE_UNUSABLE (ModVerify FILE00: "missing file in an XML file list"). */
static void test_xml_file_lists(void)
{
    fresh();
    static const char *const units = "<?xml version=\"1.0\"?>\n<Units>\n"
                                     "  <SpaceUnit Name=\"A\"><Space_Model_Name>a.alo"
                                     "</Space_Model_Name></SpaceUnit>\n</Units>\n";
    put_bytes("Mod/Data/XML/Units/A.xml", units);
    put_bytes("Mod/Data/XML/Units/Moved.xml", units);
    put_bytes("Mod/Data/XML/Notes.xml", "just some notes\n");
    put_bytes("Game/Data/XML/Base_Units.xml", units);
    put_bytes("Mod/Data/XML/GameObjectFiles.xml",
              "<?xml version=\"1.0\"?>\n"                                          /* 1 */
              "<Game_Object_Files>\n"                                              /* 2 */
              "  <File>Units\\A.xml</File>\n"                                       /* 3 */
              "  <File> units/a.XML </File>\n"                                      /* 4 */
              "  <File>Units\\Missing.xml</File>\n"                                 /* 5 */
              "  <File>Moved.xml</File>\n"                                          /* 6 */
              "  <File>Notes.xml</File>\n"                                          /* 7 */
              "  <File>Base_Units.xml</File>\n"                                     /* 8 */
              "  <!-- <File>Commented.xml</File> -->\n"                             /* 9 */
              "  <Group><File>Nested.xml</File></Group>\n"                          /* 10 */
              "</Game_Object_Files>\n");                                           /* 11 */
    amx_db *db = open_db();
    scan(db, "Mod", NULL);
    const char *list = "GameObjectFiles.xml";
    CHECK_EQ(q_int(db, "SELECT count(*) FROM refs WHERE kind = 'xml-file'"), 6);
    CHECK_STR(resolution(db, list, "Units\\A.xml"), "found Data/XML/Units/A.xml");
    CHECK_STR(resolution(db, list, "units/a.XML"), "found Data/XML/Units/A.xml");
    CHECK_STR(ini_finding(db, list, "REFERENCE_NOT_FOUND", 5), "info");
    CHECK_EQ(q_int(db, "SELECT count(*) FROM findings WHERE code = 'REFERENCE_NOT_FOUND' AND "
                       "context = 'File, line 6' AND message LIKE 'XML file ''Moved.xml'' is in "
                       "no file of this tree: the engine looks for DATA/XML/MOVED.XML; the tree "
                       "has Data/XML/Units/Moved.xml, where the engine does not look'"), 1);
    CHECK_EQ(q_int(db, "SELECT count(*) FROM findings WHERE code = 'REFERENCE_UNUSABLE' AND "
                       "context = 'File, line 7' AND message LIKE '%%which is not XML%%'"), 1);
    CHECK_STR(ini_finding(db, list, "REFERENCE_NOT_FOUND", 8), "info");
    /* lines 3 and 4 name one file: it is loaded twice (test_xml_duplicate_objects) */
    CHECK_EQ(q_int(db, "SELECT count(*) FROM findings WHERE code = 'DUPLICATE_OBJECT' AND "
                       "context = 'File, line 4'"), 1);
    CHECK_EQ(q_int(db, "SELECT count(*) FROM findings i JOIN files f ON f.id = i.file_id WHERE "
                       "f.path LIKE '%%GameObjectFiles.xml'"), 5);
    /* with the game as a base layer: its file is found, the missing ones are errors */
    scan(db, "Mod", "Game");
    CHECK_STR(resolution(db, list, "Base_Units.xml"), "found Data/XML/Base_Units.xml");
    CHECK_STR(ini_finding(db, list, "REFERENCE_NOT_FOUND", 5), "error");
    CHECK_STR(ini_finding(db, list, "REFERENCE_NOT_FOUND", 8), "");
    /* the missing file appears: found by the next scan */
    put_bytes("Mod/Data/XML/Units/Missing.xml", units);
    scan(db, "Mod", "Game");
    CHECK_STR(resolution(db, list, "Units\\Missing.xml"), "found Data/XML/Units/Missing.xml");
    CHECK_EQ(findings(db, list, "REFERENCE_NOT_FOUND", NULL), 1); /* Moved.xml */
    amx_db_close(db);
}

/* Moves a file of the test tree (both paths relative to it). */
static void move_file(const char *from, const char *to)
{
    char a[1700];
    snprintf(a, sizeof a, "%s", at(from));
    CHECK_EQ(rename(a, at(to)), 0);
}

/* The XML_NOT_LISTED findings of the index, "path|message" lines sorted (for comparing an
 * index made step by step with one made fresh). */
static char *not_listed(amx_db *db)
{
    sqlite3_stmt *s = NULL;
    size_t cap = 4096, at = 0;
    char *out = calloc(1, cap);
    CHECK_EQ(sqlite3_prepare_v2(amx_db_handle(db), "SELECT f.path || '|' || i.message FROM "
                                "findings i JOIN files f ON f.id = i.file_id WHERE i.code = "
                                "'XML_NOT_LISTED' ORDER BY 1", -1, &s, NULL), SQLITE_OK);
    while (out && sqlite3_step(s) == SQLITE_ROW) {
        const char *t = (const char *)sqlite3_column_text(s, 0);
        size_t n = strlen(t);
        if (at + n + 2 > cap) {
            char *g = realloc(out, cap = (at + n + 2) * 2);
            if (!g)
                break;
            out = g;
        }
        memcpy(out + at, t, n);
        at += n;
        out[at++] = '\n';
        out[at] = '\0';
    }
    sqlite3_finalize(s);
    return out;
}

/* The game loads only the XML files its list files name: a file of game objects of the kinds
 * the listed files hold that no list names is never read (a new unit file not added to
 * GameObjectFiles.xml, a leftover copy), XML_NOT_LISTED. A file of another kind (Factions.xml,
 * read by its fixed name) is not judged, nor is a tree without list files; a base layer's list
 * counts for a mod that has none, and a mod's own list replaces the base's. Each step's index is
 * the one a fresh scan makes. */
static void test_xml_not_listed(void)
{
    fresh();
    static const char *const ships = "<?xml version=\"1.0\"?>\n<SpaceUnits>\n"
                                     "  <SpaceUnit Name=\"A\"/>\n  <SpaceUnit Name=\"B\"/>\n"
                                     "  <UniqueUnit Name=\"C\"/>\n</SpaceUnits>\n";
    put_bytes("Mod/Data/XML/Units/Listed.xml", ships);
    put_bytes("Mod/Data/XML/Units/New_Ships.xml", ships);
    put_bytes("Mod/Data/XML/Factions.xml", "<?xml version=\"1.0\"?>\n<Factions>\n"
                                           "  <Faction Name=\"Empire\"/>\n</Factions>\n");
    put_bytes("Mod/Data/XML/HardPoints/HP_Old.xml", "<?xml version=\"1.0\"?>\n<HardPoints>\n"
                                                    "  <HardPoint Name=\"HP\"/>\n</HardPoints>\n");
    amx_db *db = open_db();
    /* no list file: nothing judged */
    scan(db, "Mod", NULL);
    CHECK_EQ(q_int(db, "SELECT count(*) FROM findings WHERE code = 'XML_NOT_LISTED'"), 0);
    put_bytes("Mod/Data/XML/GameObjectFiles.xml", "<?xml version=\"1.0\"?>\n"
              "<Game_Object_Files>\n  <File>Units\\Listed.xml</File>\n</Game_Object_Files>\n");
    scan(db, "Mod", NULL);
    char *got = not_listed(db);
    CHECK_STR(got, "Data/XML/Units/New_Ships.xml|no list file names this file, so the game never "
                   "loads its 3 objects (2 SpaceUnit, 1 UniqueUnit); Data/XML/GameObjectFiles.xml "
                   "names 1 file holding such objects: add <File>Units\\New_Ships.xml</File> "
                   "there, or delete the file if it is a leftover\n");
    CHECK_EQ(q_int(db, "SELECT count(*) FROM findings WHERE code = 'XML_NOT_LISTED' AND "
                       "severity = 'warning'"), 1);
    free(got);
    /* the hardpoint list: the old copy of a listed hardpoint file is judged too */
    put_bytes("Mod/Data/XML/HardPoints/HP.xml", "<?xml version=\"1.0\"?>\n<HardPoints>\n"
                                                "  <HardPoint Name=\"HP2\"/>\n</HardPoints>\n");
    put_bytes("Mod/Data/XML/HardPointDataFiles.xml", "<?xml version=\"1.0\"?>\n<Hard_Point_Files>"
              "\n  <File>HardPoints\\HP.xml</File>\n</Hard_Point_Files>\n");
    scan(db, "Mod", NULL);
    CHECK_EQ(q_int(db, "SELECT count(*) FROM findings i JOIN files f ON f.id = i.file_id WHERE "
                       "i.code = 'XML_NOT_LISTED' AND f.path = 'Data/XML/HardPoints/HP_Old.xml' "
                       "AND i.message LIKE '%%HardPointDataFiles.xml names 1 file%%'"), 1);
    /* the file is added to the list: no finding */
    put_bytes("Mod/Data/XML/GameObjectFiles.xml", "<?xml version=\"1.0\"?>\n"
              "<Game_Object_Files>\n  <File>Units\\Listed.xml</File>\n"
              "  <File>UNITS/new_ships.XML</File>\n</Game_Object_Files>\n");
    scan(db, "Mod", NULL);
    got = not_listed(db);
    CHECK_STR(got, "Data/XML/HardPoints/HP_Old.xml|no list file names this file, so the game "
                   "never loads its 1 object (1 HardPoint); Data/XML/HardPointDataFiles.xml names "
                   "1 file holding such objects: add <File>HardPoints\\HP_Old.xml</File> there, "
                   "or delete the file if it is a leftover\n");
    free(got);
    /* the mod's lists go; the game's, a base layer, lists only Listed.xml: the game's list is
     * the one the game reads for the mod */
    remove(at("Mod/Data/XML/GameObjectFiles.xml"));
    remove(at("Mod/Data/XML/HardPointDataFiles.xml"));
    put_bytes("Game/Data/XML/GameObjectFiles.xml", "<?xml version=\"1.0\"?>\n"
              "<Game_Object_Files>\n  <File>Units\\Listed.xml</File>\n</Game_Object_Files>\n");
    scan(db, "Mod", "Game");
    got = not_listed(db);
    if (!(got && strstr(got, "Data/XML/Units/New_Ships.xml|") && !strstr(got, "HP_Old")))
        printf("# got: %s\n", got ? got : "(null)");
    CHECK(got && strstr(got, "Data/XML/Units/New_Ships.xml|") && !strstr(got, "HP_Old") &&
          strstr(got, "Data/XML/GameObjectFiles.xml names 1 file"));
    /* a fresh index of the same trees says the same */
    amx_db_close(db);
    test_remove_index(NULL, dbpath);
    db = open_db();
    scan(db, "Mod", "Game");
    char *fresh_got = not_listed(db);
    CHECK_STR(fresh_got, got);
    free(got);
    free(fresh_got);
    /* the daemon's move of the unlisted file to another directory (its row kept, nothing
     * decoded again): the finding follows it, with the entry for its new place */
    char r[1400], err[512];
    snprintf(r, sizeof r, "%s/Mod", top);
    char real[AMX_PATH_MAX];
    CHECK_EQ(amx_os_canonical(r, real, sizeof real), 0);
    move_file("Mod/Data/XML/Units/New_Ships.xml", "Mod/Data/XML/New_Ships.xml");
    uint64_t moved = 0;
    CHECK_EQ(amx_index_rename(db, real, "Data/XML/Units/New_Ships.xml", "Data/XML/New_Ships.xml",
                              &moved, err, sizeof err), AMX_OK);
    CHECK_EQ(moved, 1);
    got = not_listed(db);
    CHECK(got && strstr(got, "Data/XML/New_Ships.xml|") && strstr(got, "<File>New_Ships.xml<") &&
          !strstr(got, "Units"));
    free(got);
    /* without the base layer: no list in the stack, nothing judged */
    amx_scan_opts o = { .root = r, .jobs = 1, .set_bases = true };
    CHECK_EQ(amx_scan(db, &o, NULL, err, sizeof err), AMX_OK);
    CHECK_EQ(q_int(db, "SELECT count(*) FROM findings WHERE code = 'XML_NOT_LISTED'"), 0);

    amx_db_close(db);
}

/* The game object files GameObjectFiles.xml loads, as the game reads them (ModVerify's engine
 * model, GameObjectTypeGameManager.Initialization.cs): a name defined twice (any case), and a
 * file listed twice, are the engine's "defined multiple times" assertion; a path .\DATA\XML\...
 * of more than 127 characters crashes the game at start. A definition in a base layer counts
 * against the mod's; the finding goes on the mod's definition. */
static void test_xml_duplicate_objects(void)
{
    fresh();
    put_bytes("Mod/Data/XML/A.xml", "<?xml version=\"1.0\"?>\n<Units>\n"          /* 1-2 */
                                    "  <SpaceUnit Name=\"Ship\"/>\n"                 /* 3 */
                                    "  <SpaceUnit Name=\"Only_A\"/>\n</Units>\n");  /* 4 */
    put_bytes("Mod/Data/XML/B.xml", "<?xml version=\"1.0\"?>\n<Units>\n"
                                    "  <SpaceUnit Name=\"Only_B\"/>\n"               /* 3 */
                                    "  <UniqueUnit Name=\"SHIP\"/>\n</Units>\n");   /* 4 */
    char longname[200];
    memset(longname, 'x', 113);
    memcpy(longname + 113, ".xml", 5); /* .\DATA\XML\ + 117 characters = 128 */
    char list[1200];
    snprintf(list, sizeof list, "<?xml version=\"1.0\"?>\n<Game_Object_Files>\n"   /* 1-2 */
             "  <File>A.xml</File>\n"                                                /* 3 */
             "  <File>B.xml</File>\n"                                                /* 4 */
             "  <File>a.XML</File>\n"                                                /* 5 */
             "  <File>%s</File>\n"                                                   /* 6 */
             "</Game_Object_Files>\n", longname);
    put_bytes("Mod/Data/XML/GameObjectFiles.xml", list);
    amx_db *db = open_db();
    scan(db, "Mod", NULL);
    CHECK_EQ(q_int(db, "SELECT count(*) FROM findings WHERE code = 'DUPLICATE_OBJECT'"), 2);
    CHECK_EQ(q_int(db, "SELECT count(*) FROM findings i JOIN files f ON f.id = i.file_id WHERE "
                       "i.code = 'DUPLICATE_OBJECT' AND f.path = 'Data/XML/B.xml' AND "
                       "i.severity = 'warning' AND i.context = 'UniqueUnit ''SHIP'', line 4' AND "
                       "i.message LIKE 'game object ''SHIP'' is defined again: first at "
                       "Data/XML/A.xml:3, in a file Data/XML/GameObjectFiles.xml loads before "
                       "this one.%%'"), 1);
    CHECK_EQ(q_int(db, "SELECT count(*) FROM findings i JOIN files f ON f.id = i.file_id WHERE "
                       "i.code = 'DUPLICATE_OBJECT' AND f.path = 'Data/XML/GameObjectFiles.xml' "
                       "AND i.context = 'File, line 5' AND i.message LIKE 'a.XML is listed again "
                       "(first at line 3)%%'"), 1);
    CHECK_EQ(q_int(db, "SELECT count(*) FROM findings WHERE code = 'REFERENCE_PATH_TOO_LONG' AND "
                       "context = 'File, line 6' AND message LIKE '%%, 128 characters, and "
                       "accepts at most 127%%'"), 1);
    /* the copy goes: no duplicate left */
    put_bytes("Mod/Data/XML/B.xml", "<?xml version=\"1.0\"?>\n<Units>\n"
                                    "  <SpaceUnit Name=\"Only_B\"/>\n</Units>\n");
    scan(db, "Mod", NULL);
    CHECK_EQ(q_int(db, "SELECT count(*) FROM findings WHERE code = 'DUPLICATE_OBJECT' AND "
                       "context LIKE 'UniqueUnit%%'"), 0);
    /* a base layer's file the mod's list loads after the mod's own: the mod's is reported */
    put_bytes("Game/Data/XML/Base.xml", "<?xml version=\"1.0\"?>\n<Units>\n"
                                        "  <SpaceUnit Name=\"Only_B\"/>\n</Units>\n");
    put_bytes("Mod/Data/XML/GameObjectFiles.xml", "<?xml version=\"1.0\"?>\n"
              "<Game_Object_Files>\n  <File>B.xml</File>\n  <File>Base.xml</File>\n"
              "</Game_Object_Files>\n");
    scan(db, "Mod", "Game");
    CHECK_EQ(q_int(db, "SELECT count(*) FROM findings i JOIN files f ON f.id = i.file_id WHERE "
                       "i.code = 'DUPLICATE_OBJECT' AND f.path = 'Data/XML/B.xml' AND "
                       "i.context = 'SpaceUnit ''Only_B'', line 3' AND i.message LIKE '%%defined "
                       "again at Data/XML/Base.xml:3, in a file Data/XML/GameObjectFiles.xml "
                       "loads after this one.%%'"), 1);
    CHECK_EQ(q_int(db, "SELECT count(*) FROM findings WHERE code = 'DUPLICATE_OBJECT'"), 1);
    amx_db_close(db);
}

/* Every finding of the link pass on an INI, with its code, severity and INI line; the bone
 * lookup rules; the default state's bones checked against a state's own model. */
static void test_sage_ini(void)
{
    fresh();
    w3d_model("Gen/Art/W3D/AVTank.w3d", "AVTANK", TANK_PIVOTS, 4, "AVTANK", TANK_SUBS, 3);
    /* the damaged model: same pivot names, hierarchy of another name; no EXHAUST pivot */
    static const char *const d_pivots[] = { "TURRET", "MUZZLE01", "MUZZLE02", "EXHAUST" };
    w3d_model("Gen/Art/W3D/AVTank_D.w3d", "AVTANK_D", d_pivots, 4, "AVTANK_D", TANK_SUBS, 3);
    /* another model with other pivots, and without turret or muzzle */
    static const char *const o_pivots[] = { "WHEEL", "EXHAUST" };
    w3d_model("Gen/Art/W3D/AVOther.w3d", "AVOTHER", o_pivots, 2, "AVOTHER", NULL, 0);
    w3d_anim("Gen/Art/W3D/AVTank_IDL.w3d", "AVTANK_IDL", "AVTANK");
    w3d_anim("Gen/Art/W3D/AVTank_MOV.w3d", "AVTANK_MOVX", "AVTANK");
    w3d_model("Gen/Art/W3D/AVStatic.w3d", "AVSTATIC", o_pivots, 2, "AVSTATIC", NULL, 0);
    put_bytes("Gen/Data/INI/Object/Tank.ini", TANK_INI);
    amx_db *db = open_db();
    scan(db, "Gen", NULL);
    const char *ini = "Tank.ini";
    CHECK_STR(resolution(db, ini, "AVTank"), "found Art/W3D/AVTank.w3d");
    CHECK_STR(resolution(db, ini, "AVTank.AVTank_IDL"), "found Art/W3D/AVTank_IDL.w3d");
    /* a model no file holds: info without a base layer */
    CHECK_STR(ini_finding(db, ini, "REFERENCE_NOT_FOUND", 16), "info");
    /* an animation file holding another animation; a static model named as an animation */
    CHECK_STR(ini_finding(db, ini, "REFERENCE_WRONG_KIND", 19), "error");
    CHECK_STR(ini_finding(db, ini, "REFERENCE_WRONG_KIND", 20), "error");
    CHECK_EQ(q_int(db, "SELECT count(*) FROM findings WHERE code = 'REFERENCE_WRONG_KIND' AND "
                       "message LIKE '%%holds the animation ''AVTANK.AVTANK_MOVX''%%'"), 1);
    CHECK_EQ(q_int(db, "SELECT count(*) FROM findings WHERE code = 'REFERENCE_WRONG_KIND' AND "
                       "message LIKE '%%AVStatic.w3d, which holds no animation%%'"), 1);
    /* the idle animation (hierarchy AVTANK) copied into REALLYDAMAGED plays on AVTANK_D: the
     * pivots are the same, only the name differs (info); on AVOTHER they differ (error) */
    CHECK_EQ(q_int(db, "SELECT count(*) FROM findings WHERE code = "
                       "'ANIMATION_HIERARCHY_MISMATCH' AND severity = 'info' AND context LIKE "
                       "'Animation of ''Tank'' (ConditionState REALLYDAMAGED), line 5'"), 1);
    CHECK_STR(ini_finding(db, ini, "ANIMATION_HIERARCHY_MISMATCH", 24), "error");
    /* bones: Muzzle finds MUZZLE01 (weapon bones try NAME01 first); MuzzleFX nothing; Turret
     * the bone; Exhaust the particle bone; Lights and Barrel02 sub-objects by their suffix */
    CHECK_STR(resolution(db, ini, "Muzzle"), "found Art/W3D/AVTank.w3d");
    CHECK_STR(resolution(db, ini, "Turret"), "found Art/W3D/AVTank.w3d");
    CHECK_STR(resolution(db, ini, "Lights"), "found Art/W3D/AVTank.w3d");
    CHECK_STR(resolution(db, ini, "Barrel02"), "found Art/W3D/AVTank.w3d");
    CHECK_EQ(q_int(db, "SELECT count(*) FROM findings WHERE code = 'MODEL_BONE_NOT_FOUND' AND "
                       "severity = 'warning' AND context = 'WeaponMuzzleFlash of ''Tank'' "
                       "(DefaultConditionState), line 7' AND message LIKE '%%bone ''MuzzleFX'' is "
                       "not in model ''AVTank''%%numbered (the model has Muzzle01)%%tries only "
                       "MuzzleFX01, MuzzleFX02%%'"), 1);
    CHECK_EQ(q_int(db, "SELECT count(*) FROM findings WHERE code = 'MODEL_BONE_NOT_FOUND' AND "
                       "context LIKE 'HideSubObject of ''Tank'' (%%), line 10' AND message LIKE "
                       "'%%sub-object ''Antenna''%%'"), 3); /* AVTank, AVTank_D, AVTank (MOVING) */
    /* the default's bones and sub-objects on AVOTHER, which has none of them but EXHAUST:
     * Muzzle, MuzzleFX, Turret, Lights, Barrel02, Antenna */
    CHECK_EQ(q_int(db, "SELECT count(*) FROM findings WHERE code = 'MODEL_BONE_NOT_FOUND' AND "
                       "context LIKE '%%(ConditionState FIRING_A), line %%'"), 6);
    CHECK_EQ(q_int(db, "SELECT count(*) FROM findings WHERE context LIKE "
                       "'ParticleSysBone of %%(ConditionState FIRING_A)%%'"), 0);
    /* reskins: defined before (fine), defined only after (error), defined nowhere (info) */
    CHECK_STR(ini_finding(db, ini, "INI_MALFORMED", 28), "");
    CHECK_STR(ini_finding(db, ini, "INI_MALFORMED", 30), "error");
    CHECK_STR(ini_finding(db, ini, "INI_MALFORMED", 32), "info");
    CHECK_EQ(q_int(db, "SELECT count(*) FROM object_states"), 5);
    CHECK_EQ(q_int(db, "SELECT count(*) FROM game_objects"), 5);
    /* clips --model: what plays on AVTank, by the INI (the idle animation of the default state;
     * MOVING's animations found no animation) and by the W3D header of its hierarchy */
    model_clips mc = { 0 };
    char err[256];
    CHECK_EQ(amx_query_clips_for_model(db, "avtank", model_clip, &mc, err, sizeof err), AMX_OK);
    CHECK_EQ(mc.ini, 1);
    CHECK_EQ(mc.header, 2);
    CHECK_STR(mc.ini_via, "object 'Tank' (DefaultConditionState), Data/INI/Object/Tank.ini:5");
    CHECK_STR(mc.ini_clip, "AVTANK_IDL");
    mc = (model_clips){ 0 };
    CHECK_EQ(amx_query_clips_for_model(db, "AVTank_D", model_clip, &mc, err, sizeof err), AMX_OK);
    CHECK_EQ(mc.ini, 1); /* the default's animation, copied into REALLYDAMAGED */
    CHECK_STR(mc.ini_via, "object 'Tank' (ConditionState REALLYDAMAGED), Data/INI/Object/"
                          "Tank.ini:5");
    amx_db_close(db);
}

/* A weapon slot's barrel bones are looked up together (W3DModelDraw.cpp,
 * validateWeaponBarrelInfo): barrel i takes each of the slot's FireFX, Recoil, MuzzleFlash and
 * Launch names followed by i (01, 02, ...), the barrels ending at the first i none of them has;
 * the plain names are tried only when there is no barrel 1. A plain bone beside a numbered one
 * of the same slot is never used: the muzzle flash of a tank whose fire bone is MUZZLE01 but
 * whose flash is a plain MUZZLEFX never shows. Each name alone (NAME01 or NAME) found both. */
static void test_sage_weapon_slot(void)
{
    fresh();
    static const char *const pivots[] = { "MUZZLE01", "MUZZLE02", "MUZZLEFX", "RECOIL",
                                          "LAUNCH04", "GUN" };
    static const char *const subs[] = { "AVGUN.HULL", "AVGUN.FLASH01" };
    w3d_model("Gen/Art/W3D/AVGun.w3d", "AVGUN", pivots, 6, "AVGUN", subs, 2);
    put_bytes("Gen/Data/INI/Object/Gun.ini",
              "Object Gun\n"                                                 /* 1 */
              "  Draw = W3DModelDraw ModuleTag_01\n"                         /* 2 */
              "    DefaultConditionState\n"                                  /* 3 */
              "      Model = AVGun\n"                                        /* 4 */
              "      WeaponFireFXBone = PRIMARY Muzzle\n"                    /* 5 */
              "      WeaponMuzzleFlash = PRIMARY MuzzleFX\n"                 /* 6 */
              "      WeaponRecoilBone = PRIMARY Recoil\n"                    /* 7 */
              "      WeaponFireFXBone = SECONDARY MuzzleFX\n"                /* 8 */
              "      WeaponRecoilBone = SECONDARY Recoil\n"                  /* 9 */
              "      WeaponFireFXBone = TERTIARY Muzzle\n"                   /* 10 */
              "      WeaponLaunchBone = TERTIARY Launch\n"                   /* 11 */
              "      WeaponHideShowBone = TERTIARY Gun\n"                    /* 12 */
              "    End\n"                                                    /* 13 */
              "    ConditionState = FIRING_B\n"                              /* 14 */
              "      WeaponFireFXBone = PRIMARY None\n"                      /* 15 */
              "    End\n"                                                    /* 16 */
              "    ConditionState = FIRING_C\n"                              /* 17 */
              "      WeaponFireFXBone = PRIMARY Flash\n"                     /* 18 */
              "      WeaponFireFXBone = SECONDARY Barrel\n"                  /* 19 */
              "    End\n"                                                    /* 20 */
              "  End\n"                                                      /* 21 */
              "End\n");                                                      /* 22 */
    amx_db *db = open_db();
    scan(db, "Gen", NULL);
    const char *ini = "Gun.ini";
    /* PRIMARY in the default state: MUZZLE01 makes its barrels numbered, so the plain MUZZLEFX
     * and RECOIL are never used */
    CHECK_EQ(q_int(db, "SELECT count(*) FROM findings WHERE code = 'MODEL_BONE_NOT_FOUND' AND "
                       "severity = 'warning' AND context = 'WeaponMuzzleFlash of ''Gun'' "
                       "(DefaultConditionState), line 6' AND message LIKE '%%bone ''MuzzleFX'' "
                       "is not in model ''AVGun''%%the PRIMARY weapon''s barrel bones are "
                       "numbered (the model has Muzzle01), so the engine tries only MuzzleFX01, "
                       "MuzzleFX02, ...%%never a plain MuzzleFX'"), 1);
    CHECK_EQ(q_int(db, "SELECT count(*) FROM findings WHERE code = 'MODEL_BONE_NOT_FOUND' AND "
                       "context = 'WeaponRecoilBone of ''Gun'' (DefaultConditionState), line 7'"),
             1);
    /* SECONDARY: none of its names has a NAME01, so the plain MUZZLEFX and RECOIL are used;
     * TERTIARY: barrels 1 and 2 by MUZZLE01/02 and no LAUNCH01/02, barrel 3 none: LAUNCH04 is
     * past the barrels' end and never used; the hide/show bone is looked up alone */
    CHECK_EQ(q_int(db, "SELECT count(*) FROM findings WHERE code = 'MODEL_BONE_NOT_FOUND' AND "
                       "context LIKE '%%(DefaultConditionState), line %%'"), 3);
    CHECK_STR(ini_finding(db, ini, "MODEL_BONE_NOT_FOUND", 8), "");
    CHECK_STR(ini_finding(db, ini, "MODEL_BONE_NOT_FOUND", 9), "");
    CHECK_EQ(q_int(db, "SELECT count(*) FROM findings WHERE code = 'MODEL_BONE_NOT_FOUND' AND "
                       "context = 'WeaponLaunchBone of ''Gun'' (DefaultConditionState), line 11' "
                       "AND message LIKE '%%numbered (the model has Muzzle01)%%'"), 1);
    CHECK_STR(ini_finding(db, ini, "MODEL_BONE_NOT_FOUND", 12), "");
    /* FIRING_B drops PRIMARY's fire bone: no name of the slot is numbered, and the state's copies
     * of MuzzleFX and Recoil find the plain bones (the default state's are still said) */
    CHECK_EQ(q_int(db, "SELECT count(*) FROM findings WHERE code = 'MODEL_BONE_NOT_FOUND' AND "
                       "context LIKE '%%(ConditionState FIRING_B)%%'"), 0);
    CHECK_EQ(q_int(db, "SELECT count(*) FROM refs WHERE name = 'MuzzleFX' AND "
                       "tag = 'WeaponMuzzleFlash'"), 3);
    /* FIRING_C: the sub-object AVGUN.FLASH01 numbers PRIMARY (Flash01), so MuzzleFX and Recoil
     * are still plain names never used (their rows there are new: the slot differs), and
     * SECONDARY's Barrel is in no form */
    CHECK_EQ(q_int(db, "SELECT count(*) FROM findings WHERE code = 'MODEL_BONE_NOT_FOUND' AND "
                       "context LIKE '%%(ConditionState FIRING_C)%%' AND message LIKE "
                       "'%%numbered (the model has Flash01)%%'"), 2);
    CHECK_EQ(q_int(db, "SELECT count(*) FROM findings WHERE code = 'MODEL_BONE_NOT_FOUND' AND "
                       "context = 'WeaponFireFXBone of ''Gun'' (ConditionState FIRING_C), line 19' "
                       "AND message LIKE '%%tries Barrel01, Barrel02, ..., then Barrel,%%'"), 1);
    CHECK_EQ(q_int(db, "SELECT count(*) FROM refs WHERE name = 'Launch' AND "
                       "slot = 'TERTIARY Muzzle Launch'"), 1);
    /* the model gains MUZZLEFX01 and RECOIL01: the next scan checks the INI's rows again (their
     * slot read back from refs), and PRIMARY's flash and recoil bones are found */
    static const char *const pivots2[] = { "MUZZLE01", "MUZZLE02", "MUZZLEFX01", "RECOIL01",
                                           "LAUNCH04", "GUN" };
    w3d_model("Gen/Art/W3D/AVGun.w3d", "AVGUN", pivots2, 6, "AVGUN", subs, 2);
    scan(db, "Gen", NULL);
    CHECK_EQ(q_int(db, "SELECT count(*) FROM findings WHERE code = 'MODEL_BONE_NOT_FOUND' AND "
                       "context LIKE '%%(DefaultConditionState), line %%'"), 1); /* Launch */
    CHECK_STR(ini_finding(db, ini, "MODEL_BONE_NOT_FOUND", 6), "");
    CHECK_STR(ini_finding(db, ini, "MODEL_BONE_NOT_FOUND", 11), "warning");
    amx_db_close(db);
}

/* "ParticleSysBone = None FX" is Zero Hour's way to put a particle system at the object's origin
 * (299 lines of the corpus mod, the retail infantry's InfantryDustTrails): the engine looks the
 * bone up (W3DModelDraw::recalcBonesForClientParticleSystems, Get_Bone_Index), finds none and
 * uses the origin, as meant. It is no missing bone; a real name that no pivot has still is. */
static void test_sage_particle_none(void)
{
    fresh();
    w3d_model("Gen/Art/W3D/AVTank.w3d", "AVTANK", TANK_PIVOTS, 4, "AVTANK", TANK_SUBS, 3);
    put_bytes("Gen/Data/INI/Object/Dust.ini",
              "Object Dust\n"                                                /* 1 */
              "  Draw = W3DModelDraw ModuleTag_01\n"                         /* 2 */
              "    DefaultConditionState\n"                                  /* 3 */
              "      Model = AVTank\n"                                       /* 4 */
              "      ParticleSysBone = None InfantryDustTrails\n"            /* 5 */
              "      ParticleSysBone = NONE SmokeFX\n"                       /* 6 */
              "      ParticleSysBone = Nozzle SmokeFX\n"                     /* 7 */
              "    End\n"                                                    /* 8 */
              "  End\n"                                                      /* 9 */
              "End\n");                                                      /* 10 */
    amx_db *db = open_db();
    scan(db, "Gen", NULL);
    CHECK_STR(ini_finding(db, "Dust.ini", "MODEL_BONE_NOT_FOUND", 5), "");
    CHECK_STR(ini_finding(db, "Dust.ini", "MODEL_BONE_NOT_FOUND", 6), "");
    CHECK_STR(ini_finding(db, "Dust.ini", "MODEL_BONE_NOT_FOUND", 7), "warning");
    CHECK_EQ(findings(db, "Dust.ini", "MODEL_BONE_NOT_FOUND", NULL), 1);
    amx_db_close(db);
}

/* A BFME AnimationState plays on the model its flags select among the ModelConditionStates, not on
 * the default model (test_ini's test_bfme_anim_model): a building's damage animation, made for
 * the damaged model's hierarchy, was an ANIMATION_HIERARCHY_MISMATCH error against the default
 * model's (retail BFME 2 barricade.ini, MordorFortressBarricadeExpansion: REALLYDAMAGED plays
 * MBFBarric_D2SK.MBFBarric_D2AN, the default model is MBFBarric). */
static void test_sage_bfme_anim_model(void)
{
    fresh();
    static const char *const whole[] = { "WALL", "GATE" };
    static const char *const broken[] = { "RUBBLE01", "RUBBLE02", "RUBBLE03" };
    w3d_model("Gen/Art/W3D/MBFBarric.w3d", "MBFBARRIC", whole, 2, "MBFBARRIC", NULL, 0);
    w3d_model("Gen/Art/W3D/MBFBarric_D2.w3d", "MBFBARRIC_D2SK", broken, 3, "MBFBARRIC_D2",
              NULL, 0);
    w3d_anim("Gen/Art/W3D/MBFBarric_D2AN.w3d", "MBFBARRIC_D2AN", "MBFBARRIC_D2SK");
    put_bytes("Gen/Data/INI/Object/Barricade.ini",
              "Object Barricade\n"                                          /* 1 */
              "  Draw = W3DScriptedModelDraw ModuleTag_Draw\n"              /* 2 */
              "    DefaultModelConditionState\n"                            /* 3 */
              "      Model = MBFBarric\n"                                   /* 4 */
              "    End\n"                                                   /* 5 */
              "    ModelConditionState = REALLYDAMAGED\n"                   /* 6 */
              "      Model = MBFBarric_D2\n"                                /* 7 */
              "    End\n"                                                   /* 8 */
              "    AnimationState = REALLYDAMAGED\n"                        /* 9 */
              "      Animation = Rubble\n"                                  /* 10 */
              "        AnimationName = MBFBarric_D2SK.MBFBarric_D2AN\n"     /* 11 */
              "      End\n"                                                 /* 12 */
              "    End\n"                                                   /* 13 */
              "    AnimationState = DAMAGED\n"                              /* 14 */
              "      Animation = Shake\n"                                   /* 15 */
              "        AnimationName = MBFBarric_D2SK.MBFBarric_D2AN\n"     /* 16 */
              "      End\n"                                                 /* 17 */
              "    End\n"                                                   /* 18 */
              "  End\n"                                                     /* 19 */
              "End\n");                                                     /* 20 */
    amx_db *db = open_db();
    scan(db, "Gen", NULL);
    CHECK_STR(ini_finding(db, "Barricade.ini", "ANIMATION_HIERARCHY_MISMATCH", 11), "");
    /* DAMAGED selects no model state: the default model, whose hierarchy it is not */
    CHECK_STR(ini_finding(db, "Barricade.ini", "ANIMATION_HIERARCHY_MISMATCH", 16), "error");
    CHECK_EQ(findings(db, "Barricade.ini", "ANIMATION_HIERARCHY_MISMATCH", NULL), 1);
    CHECK_EQ(findings(db, "Barricade.ini", "REFERENCE_NOT_FOUND", NULL), 0);
    amx_db_close(db);
}

/* A BFME ranger's W3D files under root/Art/W3D: model GURanger (hierarchy GURANGER_SKL, 2
 * pivots), model IUOther (IUOTHER_SKL, 3 pivots), animation GURANGER_IDLA of GURANGER_SKL, and
 * GURANGER_RUNA made for IUOTHER_SKL. */
static void ranger_w3d(const char *root)
{
    static const char *const ranger[] = { "ROOTB", "BAT" };
    static const char *const other[] = { "PELVIS", "SPINE", "HEAD" };
    char p[4][256];
    snprintf(p[0], sizeof p[0], "%s/Art/W3D/GURanger.w3d", root);
    snprintf(p[1], sizeof p[1], "%s/Art/W3D/IUOther.w3d", root);
    snprintf(p[2], sizeof p[2], "%s/Art/W3D/GURanger_IDLA.w3d", root);
    snprintf(p[3], sizeof p[3], "%s/Art/W3D/GURanger_RUNA.w3d", root);
    w3d_model(p[0], "GURANGER_SKL", ranger, 2, "GURANGER", NULL, 0);
    w3d_model(p[1], "IUOTHER_SKL", other, 3, "IUOTHER", NULL, 0);
    w3d_anim(p[2], "GURANGER_IDLA", "GURANGER_SKL");
    w3d_anim(p[3], "GURANGER_RUNA", "IUOTHER_SKL");
}

/* BFME: an #include inside a block is read in place (OpenSAGE ParseIncludedFile), so a draw
 * module's animation states kept in an .inc fragment are checked on the model of the object
 * that includes them: the path from the including file's directory, found without case; an
 * #include in the fragment from the fragment's directory. Their references and findings point at
 * the #include line of the decoded file. A changed, added or removed fragment decodes its
 * includers again, by a whole scan and by one of the fragment alone (the daemon's). A cycle of
 * fragments is INI_MALFORMED; a path out of the root is not read. */
static void test_sage_bfme_include_read(void)
{
    fresh();
    ranger_w3d("Gen");
    put_bytes("Gen/Data/INI/Object/Men/ranger.ini",
              "Object GondorRanger\n"                                       /* 1 */
              "  Draw = W3DScriptedModelDraw ModuleTag_Draw\n"              /* 2 */
              "    DefaultModelConditionState\n"                            /* 3 */
              "      Model = GURanger\n"                                    /* 4 */
              "    End\n"                                                   /* 5 */
              "    #include \"..\\..\\Includes\\RangerAnims.inc\"\n"       /* 6 */
              "  End\n"                                                     /* 7 */
              "  #include \"..\\..\\..\\..\\..\\outside.inc\"\n"          /* 8 */
              "End\n");                                                     /* 9 */
    put_bytes("Gen/Data/INI/includes/rangeranims.inc",
              "; the ranger's animations\n"
              "IdleAnimationState\n"
              "  Animation = Idle\n"
              "    AnimationName = GURanger_SKL.GURanger_IDLA\n"
              "  End\n"
              "End\n"
              "AnimationState = MOVING\n"
              "  Animation = Run\n"
              "    AnimationName = IUOther_SKL.GURanger_RUNA\n"
              "  End\n"
              "End\n"
              "#include \"Nested.inc\"\n");
    put_bytes("Gen/Data/INI/includes/nested.inc",
              "AnimationState = ATTACKING\n"
              "  Animation = Shoot\n"
              "    AnimationName = GURanger_SKL.GURanger_ATKA\n"
              "  End\n"
              "End\n");
    put_bytes("Gen/outside.inc", "AnimationState = DYING\nEnd\n");
    put_bytes("Gen/Data/INI/Object/cycle.ini",
              "Object Looped\n  Draw = W3DScriptedModelDraw M\n"
              "    #include \"..\\includes\\loop1.inc\"\n  End\nEnd\n");
    put_bytes("Gen/Data/INI/includes/loop1.inc", "#include \"loop2.inc\"\n");
    put_bytes("Gen/Data/INI/includes/loop2.inc", "#include \"LOOP1.inc\"\n");
    amx_db *db = open_db();
    scan(db, "Gen", NULL);
    CHECK_STR(resolution(db, "ranger.ini", "..\\..\\Includes\\RangerAnims.inc"),
              "found Data/INI/includes/rangeranims.inc");
    CHECK_STR(resolution(db, "ranger.ini", "../../../../Data/INI/includes/Nested.inc"),
              "found Data/INI/includes/nested.inc");
    CHECK_STR(resolution(db, "ranger.ini", "GURanger_SKL.GURanger_IDLA"),
              "found Art/W3D/GURanger_IDLA.w3d");
    /* the fragment's states play on the includer's model */
    CHECK_STR(ini_finding(db, "ranger.ini", "ANIMATION_HIERARCHY_MISMATCH", 6), "error");
    CHECK_STR(ini_finding(db, "ranger.ini", "REFERENCE_NOT_FOUND", 6), "info");
    CHECK_EQ(q_int(db, "SELECT count(*) FROM findings i JOIN files f ON f.id = i.file_id WHERE "
                       "f.path LIKE '%%ranger.ini' AND i.message LIKE '%%GURanger_ATKA%%' AND "
                       "i.context LIKE 'AnimationName (nested.inc line 3) of %%, line 6'"), 1);
    CHECK_EQ(findings(db, "ranger.ini", "INI_MALFORMED", NULL), 0);
    /* the #include out of the root is a reference the link pass judges, not read */
    CHECK_EQ(findings(db, "ranger.ini", "REFERENCE_NOT_FOUND", NULL), 2);
    CHECK_EQ(q_int(db, "SELECT count(*) FROM refs r JOIN files f ON f.id = r.file_id WHERE "
                       "f.path LIKE '%%ranger.ini' AND r.name LIKE '%%DYING%%'"), 0);
    CHECK_EQ(q_int(db, "SELECT count(*) FROM findings i JOIN files f ON f.id = i.file_id WHERE "
                       "f.path LIKE '%%cycle.ini' AND i.code = 'INI_MALFORMED' AND i.message "
                       "LIKE '%%endless #include cycle%%' AND i.context LIKE '%%line 3 (line 1 "
                       "of the #included Data/INI/includes/loop2.inc)'"), 1);

    /* the nested fragment changes: its includer is decoded again */
    put_bytes("Gen/Data/INI/includes/nested.inc",
              "; fixed\nAnimationState = ATTACKING\n  Animation = Shoot\n"
              "    AnimationName = GURanger_SKL.GURanger_IDLA\n  End\nEnd\n");
    scan(db, "Gen", NULL);
    CHECK_EQ(findings(db, "ranger.ini", "REFERENCE_NOT_FOUND", NULL), 1);
    CHECK_EQ(q_int(db, "SELECT count(*) FROM refs r JOIN files f ON f.id = r.file_id WHERE "
                       "f.path LIKE '%%ranger.ini' AND r.name LIKE '%%ATKA'"), 0);
    /* ... and goes */
    CHECK_EQ(remove(at("Gen/Data/INI/includes/nested.inc")), 0);
    scan(db, "Gen", NULL);
    CHECK_STR(resolution(db, "ranger.ini", "../../../../Data/INI/includes/Nested.inc"),
              "missing -");
    CHECK_EQ(findings(db, "ranger.ini", "REFERENCE_NOT_FOUND", NULL), 2);

    /* a scan of the fragment alone (the daemon's, on its change) decodes its includer too */
    put_bytes("Gen/Data/INI/includes/rangeranims.inc",
              "IdleAnimationState\n  Animation = Idle\n"
              "    AnimationName = GURanger_SKL.GURanger_IDLA\n  End\nEnd\n");
    char r[1400], err[512] = "";
    snprintf(r, sizeof r, "%s/Gen", top);
    amx_scan_opts o = { .root = r, .scope = "Data/INI/includes/rangeranims.inc", .jobs = 1 };
    amx_scan_stats st;
    CHECK_EQ(amx_scan(db, &o, &st, err, sizeof err), AMX_OK);
    CHECK_STR(ini_finding(db, "ranger.ini", "ANIMATION_HIERARCHY_MISMATCH", 6), "");
    CHECK_EQ(q_int(db, "SELECT count(*) FROM refs r JOIN files f ON f.id = r.file_id WHERE "
                       "f.path LIKE '%%ranger.ini' AND r.kind = 'w3d-animation'"), 1);
    amx_db_close(db);
}

/* BFME names an animation with its hierarchy (GUAragorn_SKL.GUAragorn_IDLE) or without it
 * (GUAragorn_IDLE, retail BFME 2 writes both for one animation): alone, the name is the file
 * NAME.w3d and the animation NAME in it, whatever hierarchy its header gives, and that hierarchy
 * is the one judged against the model's. Zero Hour looks a name without '.' up as nothing
 * (BAD_VALUE, test_ini.c). */
static void test_sage_bfme_bare_animation_name(void)
{
    fresh();
    ranger_w3d("Gen");
    w3d_anim("Gen/Art/W3D/GURanger_WALK.w3d", "GURANGER_STEP", "GURANGER_SKL");
    put_bytes("Gen/Data/INI/Object/ranger.ini",
              "Object GondorRanger\n"                                       /* 1 */
              "  Draw = W3DScriptedModelDraw ModuleTag_Draw\n"              /* 2 */
              "    DefaultModelConditionState\n"                            /* 3 */
              "      Model = GURanger\n"                                    /* 4 */
              "    End\n"                                                   /* 5 */
              "    IdleAnimationState\n"                                    /* 6 */
              "      Animation = Idle\n"                                    /* 7 */
              "        AnimationName = GURanger_IDLA\n"                     /* 8 */
              "      End\n"                                                 /* 9 */
              "    End\n"                                                   /* 10 */
              "    AnimationState = MOVING\n"                               /* 11 */
              "      Animation = Run\n"                                     /* 12 */
              "        AnimationName = gurANGER_runa\n"                     /* 13 */
              "      End\n"                                                 /* 14 */
              "      Animation = Walk\n"                                    /* 15 */
              "        AnimationName = GURanger_WALK\n"                     /* 16 */
              "      End\n"                                                 /* 17 */
              "    End\n"                                                   /* 18 */
              "    AnimationState = ATTACKING\n"                            /* 19 */
              "      Animation = Shoot\n"                                   /* 20 */
              "        AnimationName = GURanger_ATKA\n"                     /* 21 */
              "      End\n"                                                 /* 22 */
              "      Animation = Long\n"                                    /* 23 */
              "        AnimationName = GURanger_ATKA_LONG\n"                /* 24 */
              "      End\n"                                                 /* 25 */
              "    End\n"                                                   /* 26 */
              "  End\n"                                                     /* 27 */
              "End\n");                                                     /* 28 */
    amx_db *db = open_db();
    scan(db, "Gen", NULL);
    CHECK_STR(resolution(db, "ranger.ini", "GURanger_IDLA"), "found Art/W3D/GURanger_IDLA.w3d");
    CHECK_STR(ini_finding(db, "ranger.ini", "REFERENCE_WRONG_KIND", 8), "");
    CHECK_STR(ini_finding(db, "ranger.ini", "ANIMATION_HIERARCHY_MISMATCH", 8), "");
    /* the header's hierarchy, of other pivots than the model's */
    CHECK_STR(resolution(db, "ranger.ini", "gurANGER_runa"), "found Art/W3D/GURanger_RUNA.w3d");
    CHECK_STR(ini_finding(db, "ranger.ini", "ANIMATION_HIERARCHY_MISMATCH", 13), "error");
    CHECK_EQ(q_int(db, "SELECT count(*) FROM findings WHERE code = "
                       "'ANIMATION_HIERARCHY_MISMATCH' AND message LIKE "
                       "'%%made for hierarchy IUOTHER_SKL%%'"), 1);
    /* the file of that name holds another animation */
    CHECK_STR(resolution(db, "ranger.ini", "GURanger_WALK"),
              "wrong-kind Art/W3D/GURanger_WALK.w3d");
    CHECK_STR(ini_finding(db, "ranger.ini", "REFERENCE_WRONG_KIND", 16), "error");
    CHECK_EQ(q_int(db, "SELECT count(*) FROM findings WHERE code = 'REFERENCE_WRONG_KIND' AND "
                       "message LIKE '%%holds the animation ''GURANGER_SKL.GURANGER_STEP''%%"
                       "without its hierarchy%%'"), 1);
    /* no file of that name: not found (no base layer: info); past 15 characters: no W3D name */
    CHECK_STR(ini_finding(db, "ranger.ini", "REFERENCE_NOT_FOUND", 21), "info");
    CHECK_EQ(q_int(db, "SELECT count(*) FROM findings WHERE code = 'REFERENCE_NOT_FOUND' AND "
                       "message LIKE '%%looked for ART/W3D/GURANGER_ATKA.W3D%%'"), 1);
    CHECK_EQ(findings(db, "ranger.ini", "W3D_NAME_TOO_LONG", NULL), 1);
    CHECK_STR(resolution(db, "ranger.ini", "GURanger_ATKA_LONG"), "(none)");
    CHECK_EQ(findings(db, "ranger.ini", "BAD_VALUE", NULL), 0);
    /* the file appears: the reference to it is resolved again */
    w3d_anim("Gen/Art/W3D/guranger_atka.w3d", "GURANGER_ATKA", "GURANGER_SKL");
    scan(db, "Gen", NULL);
    CHECK_STR(resolution(db, "ranger.ini", "GURanger_ATKA"), "found Art/W3D/guranger_atka.w3d");
    CHECK_EQ(findings(db, "ranger.ini", "REFERENCE_NOT_FOUND", NULL), 0);
    amx_db_close(db);
}

/* A BFME mod packed in a .big archive: an INI member's #include inside a block reads the
 * fragment beside it in the same archive (the engine reads an archive's files as loose ones),
 * so the fragment's states play on the including object's model; a fragment past the archive's
 * top, or absent, is a reference only. A new archive with the fragment changed decodes the
 * member again. */
static void test_sage_bfme_include_in_big(void)
{
    fresh();
    ranger_w3d("Mod");
    static const char ini[] =
        "Object GondorRanger\n"                                       /* 1 */
        "  Draw = W3DScriptedModelDraw ModuleTag_Draw\n"              /* 2 */
        "    DefaultModelConditionState\n"                            /* 3 */
        "      Model = GURanger\n"                                    /* 4 */
        "    End\n"                                                   /* 5 */
        "    #include \"..\\Includes\\RangerAnims.inc\"\n"           /* 6 */
        "    #include \"..\\..\\..\\..\\outside.inc\"\n"             /* 7 */
        "  End\n"                                                     /* 8 */
        "End\n";                                                      /* 9 */
    static const char anims[] =
        "IdleAnimationState\n  Animation = Idle\n    AnimationName = GURanger_IDLA\n  End\nEnd\n"
        "AnimationState = MOVING\n  Animation = Run\n"
        "    AnimationName = IUOther_SKL.GURanger_RUNA\n  End\nEnd\n";
    static const char fixed[] =
        "IdleAnimationState\n  Animation = Idle\n    AnimationName = GURanger_IDLA\n  End\nEnd\n";
    for (int round = 0; round < 2; round++) {
        amxw_buf big = { 0 };
        const char *frag = round ? fixed : anims;
        amxw_big_file files[] = {
            { "Data\\INI\\Object\\ranger.ini", (const uint8_t *)ini, sizeof ini - 1 },
            { "data\\ini\\includes\\rangeranims.inc", (const uint8_t *)frag, strlen(frag) },
        };
        amxw_big(&big, files, 2, NULL, NULL);
        put("Mod/!Mod.big", &big);
        amx_db *db = open_db();
        scan(db, "Mod", NULL);
        /* the fragment's animations, against the includer's model */
        CHECK_STR(resolution(db, "ranger.ini", "GURanger_IDLA"), "found Art/W3D/GURanger_IDLA.w3d");
        CHECK_EQ(q_int(db, "SELECT count(*) FROM refs r JOIN files f ON f.id = r.file_id WHERE "
                           "f.path LIKE '%%ranger.ini' AND r.kind = 'w3d-animation' AND "
                           "r.model = 'GURanger'"), round ? 1 : 2);
        CHECK_STR(ini_finding(db, "ranger.ini", "ANIMATION_HIERARCHY_MISMATCH", 6),
                  round ? "" : "error");
        CHECK_EQ(q_int(db, "SELECT count(*) FROM findings i JOIN files f ON f.id = i.file_id "
                           "WHERE f.path LIKE '%%ranger.ini' AND i.context LIKE "
                           "'AnimationName (rangeranims.inc line 8) of %%, line 6'"), round ? 0 : 1);
        /* the include itself is found in the archive; the one past its top is not read */
        CHECK_STR(resolution(db, "ranger.ini", "..\\Includes\\RangerAnims.inc"),
                  "found !Mod.big#data/ini/includes/rangeranims.inc");
        CHECK_EQ(findings(db, "ranger.ini", "INI_MALFORMED", NULL), 0);
        CHECK_EQ(findings(db, "ranger.ini", "REFERENCE_NOT_FOUND", NULL), 1);
        amx_db_close(db);
    }
}

/* A scan killed after it wrote an INI file but before its link pass leaves the file's
 * references in their pending blob; a fragment the file includes that changes before the next
 * scan must still decode the file again: the includers are looked for after that scan's link
 * pass, which inserts the blob's rows (before it, the file was missed and kept the old
 * fragment's states). The killed scan's writes are made here as its writer makes them. */
static void test_sage_include_after_kill(void)
{
    fresh();
    static const char *const ranger =
        "Object Ranger\n  Draw = W3DScriptedModelDraw M\n"
        "    DefaultModelConditionState\n      Model = GURanger\n    End\n"
        "    #include \"..\\includes\\anims.inc\"\n  End\nEnd\n";
    put_bytes("Gen/Data/INI/Object/ranger.ini", ranger);
    put_bytes("Gen/Data/INI/includes/anims.inc",
              "AnimationState = MOVING\n  Animation = Run\n"
              "    AnimationName = GURanger_SKL.GURanger_RUNA\n  End\nEnd\n");
    amx_db *db = open_db();
    scan(db, "Gen", NULL);
    char changed[600];
    snprintf(changed, sizeof changed, "; changed\n%s", ranger);
    put_bytes("Gen/Data/INI/Object/ranger.ini", changed);
    /* the killed scan: ranger.ini decoded and written, its references in the blob */
    char root[1400], abs[1600], err[512] = "";
    snprintf(abs, sizeof abs, "%s/Gen", top);
    CHECK_EQ(amx_os_canonical(abs, root, sizeof root), 0);
    snprintf(abs, sizeof abs, "%s/Data/INI/Object/ranger.ini", root);
    amx__include_files inc = { .root = root, .file = "Data/INI/Object/ranger.ini",
                               .file_abs = abs };
    amx_decode_opts o = { .file_name = "Data/INI/Object/ranger.ini", .format = AMX_FMT_SAGE_INI,
                          .read_include = amx__include_read, .include_user = &inc };
    amx_asset *a = NULL;
    CHECK_EQ(amx_decode((const uint8_t *)changed, strlen(changed), &o, &a), AMX_OK);
    amx_os_stat st;
    CHECK_EQ(amx_os_path_stat(abs, &st), 0);
    amx__file_meta m = { .root_id = q_int(db, "SELECT id FROM roots"),
                         .path = "Data/INI/Object/ranger.ini", .size = st.size,
                         .mtime_ns = st.mtime_ns };
    int64_t id = 0;
    CHECK_EQ(amx__db_begin(db, err, sizeof err), AMX_OK);
    CHECK_EQ(amx__db_put(db, &m, a, NULL, &id, err, sizeof err), AMX_OK);
    CHECK_EQ(amx__db_commit(db, err, sizeof err), AMX_OK);
    amx_asset_free(a);
    amx__include_files_free(&inc);
    CHECK_EQ(q_int(db, "SELECT count(*) FROM ini_refs_pending WHERE file_id = %lld",
                   (long long)id), 1);
    /* the fragment changes; the next scan */
    put_bytes("Gen/Data/INI/includes/anims.inc",
              "; changed too\nAnimationState = MOVING\n  Animation = Run\n"
              "    AnimationName = GURanger_SKL.GURanger_RUNB\n  End\nEnd\n");
    scan(db, "Gen", NULL);
    CHECK_EQ(q_int(db, "SELECT count(*) FROM ini_refs_pending"), 0);
    CHECK_STR(resolution(db, "ranger.ini", "GURanger_SKL.GURanger_RUNB"), "missing -");
    CHECK_STR(resolution(db, "ranger.ini", "GURanger_SKL.GURanger_RUNA"), "(none)");
    amx_db_close(db);
}

/* The #include files a scan reads in place take at most 16 MiB and 16 times the bytes of the
 * files it read: 20 files of a hundred bytes, each including one 1 MiB fragment, read it 16
 * times; the other 4 say LIMIT_EXCEEDED and keep the #include as a reference. (Without the
 * budget a tree of tiny files including one large file cost that file's size per file.) */
static void test_sage_include_budget(void)
{
    fresh();
    size_t big = (size_t)1 << 20;
    char *frag = malloc(big + 1);
    if (!frag)
        return;
    for (size_t at = 0; at < big; at += 64) { /* comment lines of 64 bytes */
        memset(frag + at, 'x', 63);
        frag[at] = ';';
        frag[at + 63] = '\n';
    }
    frag[big] = '\0';
    put_bytes("Gen/Data/INI/includes/big.inc", frag);
    free(frag);
    char rel[128];
    for (int i = 0; i < 20; i++) {
        snprintf(rel, sizeof rel, "Gen/Data/INI/Object/o%02d.ini", i);
        put_bytes(rel, "Object O\n  Draw = W3DScriptedModelDraw M\n"
                       "    #include \"..\\includes\\big.inc\"\n  End\nEnd\n");
    }
    amx_db *db = open_db();
    scan(db, "Gen", NULL);
    CHECK_EQ(q_int(db, "SELECT count(*) FROM findings WHERE code = 'LIMIT_EXCEEDED' AND "
                       "message LIKE '%%#include%%is not read%%'"), 4);
    CHECK_EQ(q_int(db, "SELECT count(*) FROM refs WHERE kind = 'include'"), 20);
    amx_db_close(db);
}

/* The engine loads Data/INI/Object/'s files in the order of its FilenameList, a std::set ordered
 * by rts::less_than_nocase<AsciiString> (AsciiString::compareNoCase: _stricmp, which compares the
 * lower-case letters): '_' (0x5F) sorts before every letter, and the '\' of a subdirectory path
 * before the digits. Ordered by the upper-cased path, Chem_Sys.ini came after ChemicalGeneral.ini
 * ('_' after 'I'): a reskin in ChemicalGeneral.ini of an object of Chem_Sys.ini was a false "defined
 * only after it" error, and the reverse, which stops the game, was missed. (Real names: fist-c/INI
 * has Chem_GLASystem.ini, Flam_ChinaSystem.ini and Nuke_ChinaSystem.ini beside ChemicalGeneral.ini,
 * FlameGeneral.ini and NukeGeneral.ini.) */
static void test_sage_load_order(void)
{
    fresh();
    put_bytes("Gen/Data/INI/Object/Chem_Sys.ini",
              "Object PoisonField\nEnd\n"                                     /* 1-2 */
              "ObjectReskin EarlyCopy ChemTank\nEnd\n");                      /* 3-4 */
    put_bytes("Gen/Data/INI/Object/ChemicalGeneral.ini",
              "Object ChemTank\nEnd\n"                                        /* 1-2 */
              "ObjectReskin PoisonField2 PoisonField\nEnd\n");                /* 3-4 */
    put_bytes("Gen/Data/INI/Object/Sub2/Later.ini", "Object InSub2\nEnd\n");
    put_bytes("Gen/Data/INI/Object/Sub/Reskins.ini",
              "ObjectReskin SubCopy InSub2\nEnd\n");                          /* 1-2 */
    amx_db *db = open_db();
    scan(db, "Gen", NULL);
    CHECK_STR(ini_finding(db, "ChemicalGeneral.ini", "INI_MALFORMED", 3), "");
    CHECK_STR(ini_finding(db, "Chem_Sys.ini", "INI_MALFORMED", 3), "error");
    /* "Sub2\Later.ini" before "Sub\Reskins.ini": '2' (0x32) before '\' (0x5C) */
    CHECK_STR(ini_finding(db, "Reskins.ini", "INI_MALFORMED", 1), "");
    amx_db_close(db);
}

/* Scans `root` with its [root] section saying `game = game`. */
static void scan_config(amx_db *db, const char *root, const char *game)
{
    char r[1400], text[3000], err[512] = "";
    snprintf(r, sizeof r, "%s/%s", top, root);
    snprintf(text, sizeof text, "[root %s]\ngame = %s\n", r, game);
    amx_config cfg;
    CHECK_EQ(amx_config_init(&cfg), 0);
    CHECK_EQ(amx_config_load_string(&cfg, text, "animidx.ini", err, sizeof err), 0);
    amx_scan_opts o = { .root = r, .jobs = 2, .config = &cfg };
    amx_status st = amx_scan(db, &o, NULL, err, sizeof err);
    if (st)
        printf("# scan of %s: %s\n", root, err);
    CHECK_EQ(st, AMX_OK);
    amx_config_finish(&cfg);
}

/* [root PATH] game = generals | zh: the INI rules of the game the tree is declared for
 * (ini.c), and where Generals looks files up (no language directory for .w3d files, textures in
 * Art/Textures/ before Data/<language>/Art/Textures/: Generals W3DFileSystem.cpp); a changed
 * game decodes the root's INI files again and resolves its references again, unchanged as the
 * files are. */
static void test_sage_declared_game(void)
{
    fresh();
    put_bytes("Gen/Data/INI/Weather.ini", "Weather\n  SnowEnabled = No\nEnd\n");
    put_bytes("Gen/Data/INI/Object/Tank.ini",
              "Object Tank\n  Draw = W3DModelDraw ModuleTag_01\n    DefaultConditionState\n"
              "      Model = AVTank\n    End\n    ConditionState = RUBBLE\n      Model = AVGerman\n"
              "    End\n  End\nEnd\n");
    w3d_model("Gen/Data/German/Art/W3D/AVTank.w3d", "AVTANK", TANK_PIVOTS, 4, "AVTANK", TANK_SUBS,
              3);
    w3d_model("Gen/Art/W3D/AVTank.w3d", "AVTANK", TANK_PIVOTS, 4, "AVTANK", TANK_SUBS, 3);
    w3d_model("Gen/Data/German/Art/W3D/AVGerman.w3d", "AVGERMAN", TANK_PIVOTS, 4, "AVGERMAN",
              NULL, 0);
    w3d_unit("Gen/Art/W3D/unit.w3d", "sign.tga");
    put_bytes("Gen/Data/German/Art/Textures/sign.tga", "tga");
    put_bytes("Gen/Art/Textures/sign.tga", "tga");
    amx_db *db = open_db();
    scan(db, "Gen", NULL);
    CHECK_EQ(findings(db, "Weather.ini", "INI_MALFORMED", NULL), 0);
    CHECK_STR(resolution(db, "Tank.ini", "AVTank"), "found Data/German/Art/W3D/AVTank.w3d");
    CHECK_STR(resolution(db, "Tank.ini", "AVGerman"), "found Data/German/Art/W3D/AVGerman.w3d");
    CHECK_STR(resolution(db, "unit.w3d", "sign.tga"), "found Data/German/Art/Textures/sign.tga");
    scan_config(db, "Gen", "generals");
    CHECK_EQ(q_int(db, "SELECT count(*) FROM roots WHERE game = 'generals'"), 1);
    CHECK_EQ(findings(db, "Weather.ini", "INI_MALFORMED", "error"), 1);
    CHECK_EQ(findings(db, "", "INI_MALFORMED", NULL), 1);
    CHECK_STR(resolution(db, "Tank.ini", "AVTank"), "found Art/W3D/AVTank.w3d");
    CHECK_STR(resolution(db, "Tank.ini", "AVGerman"), "missing -");
    CHECK_EQ(q_int(db, "SELECT count(*) FROM findings WHERE code = 'REFERENCE_NOT_FOUND' AND "
                       "message LIKE '%%looked for ART/W3D/AVGERMAN.W3D, ART/W3D/AV/AVGERMAN.W3D'"),
             1);
    CHECK_STR(resolution(db, "unit.w3d", "sign.tga"), "found Art/Textures/sign.tga");
    scan_config(db, "Gen", "zh");
    CHECK_EQ(findings(db, "", "INI_MALFORMED", NULL), 0);
    CHECK_STR(resolution(db, "Tank.ini", "AVGerman"), "found Data/German/Art/W3D/AVGerman.w3d");
    CHECK_STR(resolution(db, "unit.w3d", "sign.tga"), "found Data/German/Art/Textures/sign.tga");
    CHECK_EQ(findings(db, "", "REFERENCE_NOT_FOUND", NULL), 0);
    scan(db, "Gen", NULL); /* no game said: as before */
    CHECK_EQ(q_int(db, "SELECT count(*) FROM roots WHERE game IS NULL"), 1);
    CHECK_EQ(findings(db, "", "INI_MALFORMED", NULL), 0);
    CHECK_STR(resolution(db, "Tank.ini", "AVTank"), "found Data/German/Art/W3D/AVTank.w3d");
    amx_db_close(db);
}

/* The 15-character rule on a real case: the file exists, its HLOD name is cut to 15. */
static void test_sage_name_length(void)
{
    fresh();
    w3d_model("Gen/Art/W3D/usa_airb_dirtD_d.w3d", NULL, NULL, 0, "USA_AIRB_DIRTD_", NULL, 0);
    put_bytes("Gen/Data/INI/Object/Dirt.ini",
              "Object Dirt\n  Draw = W3DModelDraw M\n    DefaultConditionState\n"
              "      Model = usa_airb_dirtD_d\n    End\n  End\nEnd\n");
    amx_db *db = open_db();
    scan(db, "Gen", NULL);
    CHECK_EQ(findings(db, "Dirt.ini", "W3D_NAME_TOO_LONG", "error"), 1);
    CHECK_EQ(findings(db, "Dirt.ini", "REFERENCE_NOT_FOUND", NULL), 0);
    CHECK_EQ(findings(db, "Dirt.ini", "REFERENCE_WRONG_KIND", NULL), 0);
    amx_db_close(db);
}

/* Zero Hour looks a .w3d file up in Data/<language>/Art/W3D/ before Art/W3D/: the language's
 * file wins (its contents are what is checked), a file only there is found, and a missing
 * model's message names the language directory too. */
static void test_sage_language(void)
{
    fresh();
    w3d_model("Gen/Data/German/Art/W3D/AVTank.w3d", "AVTANK", TANK_PIVOTS, 4, "AVTANK", TANK_SUBS,
              3);
    w3d_model("Gen/Art/W3D/AVTank.w3d", "AVTANK", TANK_PIVOTS, 4, "NOTTANK", NULL, 0);
    w3d_anim("Gen/Data/German/Art/W3D/AVTank_IDL.w3d", "AVTANK_IDL", "AVTANK");
    put_bytes("Gen/Data/INI/Object/Lang.ini",
              "Object Lang\n  Draw = W3DModelDraw ModuleTag_01\n    DefaultConditionState\n"
              "      Model = AVTank\n      Animation = AVTank.AVTank_IDL\n    End\n"
              "    ConditionState = RUBBLE\n      Model = AVGone\n    End\n  End\nEnd\n");
    amx_db *db = open_db();
    scan(db, "Gen", NULL);
    CHECK_STR(resolution(db, "Lang.ini", "AVTank"), "found Data/German/Art/W3D/AVTank.w3d");
    CHECK_STR(resolution(db, "Lang.ini", "AVTank.AVTank_IDL"),
              "found Data/German/Art/W3D/AVTank_IDL.w3d");
    CHECK_EQ(findings(db, "Lang.ini", "REFERENCE_WRONG_KIND", NULL), 0);
    CHECK_EQ(q_int(db, "SELECT count(*) FROM findings WHERE code = 'REFERENCE_NOT_FOUND' AND "
                       "message LIKE '%%looked for DATA/GERMAN/ART/W3D/AVGONE.W3D, "
                       "ART/W3D/AVGONE.W3D, ART/W3D/AV/AVGONE.W3D'"), 1);
    /* incremental: the missing model appears in a language directory the index did not have
     * (a new language): the next scan finds it; it goes again: missing again */
    w3d_model("Gen/Data/French/Art/W3D/AVGone.w3d", "AVGONE", TANK_PIVOTS, 4, "AVGONE", NULL, 0);
    scan(db, "Gen", NULL);
    CHECK_STR(resolution(db, "Lang.ini", "AVGone"), "found Data/French/Art/W3D/AVGone.w3d");
    CHECK_EQ(findings(db, "Lang.ini", "REFERENCE_NOT_FOUND", NULL), 0);
    CHECK_STR(resolution(db, "Lang.ini", "AVTank"), "found Data/German/Art/W3D/AVTank.w3d");
    CHECK_EQ(remove(at("Gen/Data/French/Art/W3D/AVGone.w3d")), 0);
    scan(db, "Gen", NULL);
    CHECK_STR(resolution(db, "Lang.ini", "AVGone"), "missing -");
    CHECK_EQ(findings(db, "Lang.ini", "REFERENCE_NOT_FOUND", "info"), 1);
    amx_db_close(db);
}

/* With a base layer, what no layer has is an error; a W3D that appears, changes or goes
 * re-resolves the INI references to it (not the others); a changed INI re-resolves itself. */
static void test_sage_incremental(void)
{
    fresh();
    w3d_model("Game/Art/W3D/AVTank.w3d", "AVTANK", TANK_PIVOTS, 4, "AVTANK", TANK_SUBS, 3);
    put_bytes("Mod/Data/INI/Object/Tank.ini",
              "Object Tank\n  Draw = W3DModelDraw M\n    DefaultConditionState\n"
              "      Model = AVTank\n      Animation = AVTank.AVTank_IDL\n"
              "      WeaponFireFXBone = PRIMARY Barrel\n    End\n"
              "    ConditionState = DAMAGED\n      Model = AVTank_D\n    End\n  End\nEnd\n");
    put_bytes("Mod/Data/INI/Object/Other.ini",
              "Object Other\n  Draw = W3DModelDraw M\n    DefaultConditionState\n"
              "      Model = Unrelated\n    End\n  End\nEnd\n");
    amx_db *db = open_db();
    scan(db, "Mod", "Game");
    const char *ini = "Tank.ini";
    CHECK_STR(resolution(db, ini, "AVTank"), "found Art/W3D/AVTank.w3d");
    CHECK_STR(ini_finding(db, ini, "REFERENCE_NOT_FOUND", 5), "error");
    CHECK_STR(ini_finding(db, ini, "REFERENCE_NOT_FOUND", 9), "error");
    CHECK_STR(ini_finding(db, ini, "MODEL_BONE_NOT_FOUND", 6), "warning");
    int64_t other = q_int(db, "SELECT i.rowid FROM findings i JOIN files f ON f.id = i.file_id "
                              "WHERE f.path LIKE '%%Other.ini'");
    /* the animation appears in the mod: its reference is found; the model's finding stays */
    w3d_anim("Mod/Art/W3D/AVTank_IDL.w3d", "AVTANK_IDL", "AVTANK");
    scan(db, "Mod", NULL);
    CHECK_STR(resolution(db, ini, "AVTank.AVTank_IDL"), "found Art/W3D/AVTank_IDL.w3d");
    CHECK_STR(ini_finding(db, ini, "REFERENCE_NOT_FOUND", 5), "");
    CHECK_EQ(q_int(db, "SELECT count(*) FROM refs WHERE linked = 0"), 0);
    CHECK_STR(ini_finding(db, ini, "REFERENCE_NOT_FOUND", 9), "error");
    /* the other INI names none of it: not linked again, its finding is the same row */
    CHECK_EQ(q_int(db, "SELECT i.rowid FROM findings i JOIN files f ON f.id = i.file_id "
                       "WHERE f.path LIKE '%%Other.ini'"), other);
    /* the model changes in the game: a BARREL01 pivot appears, the bone is found */
    static const char *const more[] = { "TURRET", "BARREL01" };
    w3d_model("Game/Art/W3D/AVTank.w3d", "AVTANK", more, 2, "AVTANK", NULL, 0);
    scan(db, "Mod", NULL);
    CHECK_STR(ini_finding(db, ini, "MODEL_BONE_NOT_FOUND", 6), "");
    CHECK_STR(resolution(db, ini, "Barrel"), "found Art/W3D/AVTank.w3d");
    /* the animation goes: missing again */
    CHECK(unlink(at("Mod/Art/W3D/AVTank_IDL.w3d")) == 0);
    scan(db, "Mod", NULL);
    CHECK_STR(ini_finding(db, ini, "REFERENCE_NOT_FOUND", 5), "error");
    /* the INI changes: its references are those of the new text */
    put_bytes("Mod/Data/INI/Object/Tank.ini",
              "Object Tank\n  Draw = W3DModelDraw M\n    DefaultConditionState\n"
              "      Model = AVTank\n    End\n  End\nEnd\n");
    scan(db, "Mod", NULL);
    CHECK_EQ(findings(db, ini, "%", NULL), 0);
    CHECK_EQ(q_int(db, "SELECT count(*) FROM refs r JOIN files f ON f.id = r.file_id WHERE "
                       "f.path LIKE '%%Tank.ini'"), 1);
    amx_db_close(db);
}

/* Every reference and finding of the index, one line each, sorted, without row ids: what an
 * index must hold however its scans went. */
static char *index_rows(amx_db *db)
{
    static const char *const sql =
        "SELECT group_concat(x, char(10)) FROM (SELECT f.path || '|' || r.kind || '|' || r.tag || "
        "'|' || r.name || '|' || r.key || '|' || coalesce(r.line, '-') || '|' || "
        "coalesce(r.offset, '-') || '|' || coalesce(t.path, '-') || '|' || "
        "coalesce(r.resolution, '-') || '|' || r.linked || '|' || coalesce(r.model, '-') || '|' || "
        "coalesce(r.model_key, '-') || '|' || coalesce(r.via_key, '-') || '|' || "
        "coalesce(o.name, '-') || '|' || coalesce(st.kind || ' ' || st.flags, '-') AS x "
        "FROM refs r JOIN files f ON f.id = r.file_id LEFT JOIN files t ON t.id = r.target_id "
        "LEFT JOIN game_objects o ON o.id = r.object_id "
        "LEFT JOIN object_states st ON st.id = r.state_id UNION ALL "
        "SELECT f.path || '|' || i.origin || '|' || i.code || '|' || i.severity || '|' || "
        "i.message || '|' || coalesce(i.context, '') FROM findings i "
        "JOIN files f ON f.id = i.file_id ORDER BY 1)";
    sqlite3_stmt *s = NULL;
    char *out = NULL;
    if (sqlite3_prepare_v2(amx_db_handle(db), sql, -1, &s, NULL) == SQLITE_OK &&
        sqlite3_step(s) == SQLITE_ROW && sqlite3_column_text(s, 0))
        out = strdup((const char *)sqlite3_column_text(s, 0));
    sqlite3_finalize(s);
    return out ? out : strdup("");
}

static int polls_left;

static bool cancel_after(void *user)
{
    (void)user;
    return polls_left-- <= 0;
}

/* An INI file's references wait in one blob from its scan to the link pass, which inserts them
 * resolved: a scan stopped at any point leaves each INI file with its blob or its resolved rows,
 * never both, and the next scan completes the index to what a scan that was never stopped
 * writes; so does the link pass of an index whose scan wrote blobs and stopped before it (a
 * crash: tests/e2e/test_corpus_index.py kills scans). A damaged blob is dropped and its file
 * decoded again by the next scan. */
static void test_sage_interrupted(void)
{
    fresh();
    w3d_model("Game/Art/W3D/AVTank.w3d", "AVTANK", TANK_PIVOTS, 4, "AVTANK", TANK_SUBS, 3);
    w3d_anim("Mod/Art/W3D/AVTank_IDL.w3d", "AVTANK_IDL", "AVTANK");
    char rel[128], text[600], reskin[64];
    for (int i = 0; i < 12; i++) {
        snprintf(rel, sizeof rel, "Mod/Data/INI/Object/Tank%02d.ini", i);
        reskin[0] = '\0';
        if (i)
            snprintf(reskin, sizeof reskin, "ObjectReskin Copy%02d Tank00\nEnd\n", i);
        snprintf(text, sizeof text,
                 "Object Tank%02d\n  Draw = W3DModelDraw M\n    DefaultConditionState\n"
                 "      Model = AVTank\n      Animation = AVTank.AVTank_IDL\n"
                 "      WeaponFireFXBone = PRIMARY Barrel\n      ParticleSysBone = Muzzle01 Fx\n"
                 "    End\n    ConditionState = DAMAGED\n      Model = AVTank_D%d\n    End\n"
                 "  End\nEnd\n%s", i, i, reskin);
        put_bytes(rel, text);
    }
    put_bytes("Mod/Data/INI/Object/a.ini", "#include \"..\\includes\\b.inc\"\nObject A\nEnd\n");
    put_bytes("Mod/Data/INI/includes/b.inc", "#include \"..\\Object\\a.ini\"\n");
    amx_db *db = open_db();
    scan(db, "Mod", "Game");
    CHECK_EQ(q_int(db, "SELECT count(*) FROM ini_refs_pending"), 0);
    CHECK_EQ(q_int(db, "SELECT count(*) FROM refs WHERE linked = 0 OR resolution IS NULL"), 0);
    /* per tank: model, animation, bone, particle bone, the damaged model, and the animation and
     * bones again on it (the state's copy of the default state's); 11 reskins, 2 includes */
    CHECK_EQ(q_int(db, "SELECT count(*) FROM refs r JOIN files f ON f.id = r.file_id WHERE "
                       "f.format = 'sage-ini'"), 12 * 8 + 11 + 2);
    CHECK_STR(resolution(db, "Tank03.ini", "Barrel"), "missing Art/W3D/AVTank.w3d");
    CHECK_STR(resolution(db, "Tank03.ini", "Tank00"), "found Data/INI/Object/Tank00.ini");
    CHECK_STR(ini_finding(db, "a.ini", "INI_MALFORMED", 1), "error");
    char *want = index_rows(db);
    amx_db_close(db);
    CHECK(strstr(want, "Tank11.ini|w3d-animation|Animation|AVTank.AVTank_IDL|") != NULL);

    /* stopped after 0, 1, 2, ... polls, each time on a new index, then scanned to the end */
    bool some_pending = false, completed = false;
    for (int stop = 0; stop < 200 && !completed; stop++) {
        test_remove_index(NULL, dbpath);
        db = open_db();
        char r[1400], b[1400], err[512] = "";
        snprintf(r, sizeof r, "%s/Mod", top);
        snprintf(b, sizeof b, "%s/Game", top);
        const char *bp[1] = { b };
        amx_scan_opts o = { .root = r, .jobs = 2, .bases = bp, .base_count = 1,
                            .set_bases = true, .cancelled = cancel_after };
        amx_scan_stats st;
        polls_left = stop;
        amx_status rc = amx_scan(db, &o, &st, err, sizeof err);
        completed = rc == AMX_OK;
        CHECK(rc == AMX_OK || rc == AMX_E_CANCELLED);
        /* an INI file has its blob or its rows */
        CHECK_EQ(q_int(db, "SELECT count(*) FROM ini_refs_pending p WHERE EXISTS (SELECT 1 FROM "
                           "refs r WHERE r.file_id = p.file_id)"), 0);
        CHECK_EQ(q_int(db, "SELECT count(*) FROM refs WHERE resolution IS NULL"), 0);
        some_pending |= q_int(db, "SELECT count(*) FROM ini_refs_pending") > 0;
        CHECK_EQ(q_int(db, "SELECT count(*) FROM pragma_integrity_check WHERE "
                           "integrity_check != 'ok'"), 0);
        scan(db, "Mod", "Game");
        CHECK_EQ(q_int(db, "SELECT count(*) FROM ini_refs_pending"), 0);
        char *got = index_rows(db);
        if (strcmp(got, want) != 0) {
            printf("# stopped after %d polls, then scanned:\n%s\n# never stopped:\n%s\n", stop,
                   got, want);
            CHECK(!"the completed index is what an uninterrupted scan writes");
            stop = 200;
        }
        free(got);
        amx_db_close(db);
    }
    CHECK(completed);
    (void)some_pending; /* a stop lands before or after the link pass: both are checked */

    /* the blob of an unchanged file damaged, another file changed: the link pass drops the
     * blob and the next scan decodes that file again */
    test_remove_index(NULL, dbpath);
    db = open_db();
    scan(db, "Mod", "Game");
    int64_t tank5 = q_int(db, "SELECT id FROM files WHERE path LIKE '%%Tank05.ini'");
    char sql[200];
    snprintf(sql, sizeof sql, "INSERT INTO ini_refs_pending(file_id, refs) VALUES (%lld, x'0107')",
             (long long)tank5);
    CHECK_EQ(sqlite3_exec(amx_db_handle(db), sql, NULL, NULL, NULL), SQLITE_OK);
    put_bytes("Mod/Data/INI/Object/Tank07.ini",
              "Object Tank07\n  Draw = W3DModelDraw M\n    DefaultConditionState\n"
              "      Model = AVTank\n    End\n  End\nEnd\n");
    /* (the base layer's scan links first: Tank05.ini is decoded again in this scan or the
     * next) */
    amx_scan_stats st = { 0 }, st2 = { 0 };
    char r[1400], b[1400], err[512] = "";
    snprintf(r, sizeof r, "%s/Mod", top);
    snprintf(b, sizeof b, "%s/Game", top);
    const char *bp[1] = { b };
    amx_scan_opts o = { .root = r, .jobs = 1, .bases = bp, .base_count = 1, .set_bases = true };
    CHECK_EQ(amx_scan(db, &o, &st, err, sizeof err), AMX_OK);
    CHECK_EQ(q_int(db, "SELECT count(*) FROM ini_refs_pending"), 0);
    CHECK_EQ(amx_scan(db, &o, &st2, err, sizeof err), AMX_OK);
    CHECK_EQ(st.files_decoded + st2.files_decoded, 2); /* Tank07.ini, Tank05.ini */
    CHECK_EQ(q_int(db, "SELECT count(*) FROM refs r JOIN files f ON f.id = r.file_id WHERE "
                       "f.path LIKE '%%Tank07.ini'"), 1);
    char *now = index_rows(db);
    amx_db_close(db);
    test_remove_index(NULL, dbpath);
    db = open_db();
    scan(db, "Mod", "Game");
    char *fresh_rows = index_rows(db);
    CHECK_STR(now, fresh_rows);
    amx_db_close(db);
    free(now);
    free(fresh_rows);
    free(want);
}

/* A blob of pending references is read back as written; a damaged one (cut anywhere, a byte
 * changed) is an error or a list of references within the blob, never a read out of bounds. */
static void test_pending_blob(void)
{
    amx__byte_buf b = { 0 };
    amx__pending_refs_begin(&b);
    amx__pending_ref in[3] = {
        { .kind = AMX_REF_W3D_ANIMATION, .object_id = 7, .state_id = 300, .line = 12,
          .offset = -1, .tag = "Animation", .name = "AVTank.AVTank_IDL", .key = "AVTANK_IDL",
          .model = "AVTank", .model_key = "AVTANK" },
        { .kind = AMX_REF_INCLUDE, .object_id = -1, .state_id = -1, .line = 0, .offset = 99,
          .tag = "#include", .name = "", .key = "", .model = NULL, .model_key = NULL },
        { .kind = AMX_REF_BONE, .object_id = 7, .state_id = 301, .line = 14, .offset = -1,
          .tag = "WeaponMuzzleFlash", .name = "MuzzleFX", .key = "AVTANK", .model = "AVTank",
          .model_key = "AVTANK", .slot = "PRIMARY Muzzle MuzzleFX" },
    };
    for (int i = 0; i < 3; i++)
        CHECK_EQ(amx__pending_refs_add(&b, &in[i]), 0);
    amx__pending_refs out;
    CHECK_EQ(amx__pending_refs_read(b.data, b.len, &out), 0);
    CHECK_EQ(out.n, 3);
    if (out.n == 3) {
        CHECK(out.refs[0].slot == NULL && out.refs[1].slot == NULL);
        CHECK_EQ(out.refs[2].kind, AMX_REF_BONE);
        CHECK_STR(out.refs[2].name, "MuzzleFX");
        CHECK_STR(out.refs[2].model_key, "AVTANK");
        CHECK_STR(out.refs[2].slot, "PRIMARY Muzzle MuzzleFX");
        CHECK_EQ(out.refs[0].kind, AMX_REF_W3D_ANIMATION);
        CHECK_EQ(out.refs[0].object_id, 7);
        CHECK_EQ(out.refs[0].state_id, 300);
        CHECK_EQ(out.refs[0].line, 12);
        CHECK_EQ(out.refs[0].offset, -1);
        CHECK_STR(out.refs[0].tag, "Animation");
        CHECK_STR(out.refs[0].name, "AVTank.AVTank_IDL");
        CHECK_STR(out.refs[0].key, "AVTANK_IDL");
        CHECK_STR(out.refs[0].model, "AVTank");
        CHECK_STR(out.refs[0].model_key, "AVTANK");
        CHECK_EQ(out.refs[1].kind, AMX_REF_INCLUDE);
        CHECK_EQ(out.refs[1].object_id, -1);
        CHECK_EQ(out.refs[1].line, 0);
        CHECK_EQ(out.refs[1].offset, 99);
        CHECK_STR(out.refs[1].name, "");
        CHECK(out.refs[1].model == NULL && out.refs[1].model_key == NULL);
    }
    amx__pending_refs_free(&out);
    /* every shorter cut (each copy on the heap, so ASan sees a read past it) */
    int cut_read = 0;
    for (size_t len = 0; len < b.len; len++) {
        uint8_t *copy = malloc(len ? len : 1);
        memcpy(copy, b.data, len);
        if (amx__pending_refs_read(copy, len, &out) == 0)
            cut_read++;
        amx__pending_refs_free(&out);
        free(copy);
    }
    /* valid cuts: the version alone (no reference), the first reference alone, the first two */
    CHECK_EQ(cut_read, 3);
    for (size_t i = 0; i < b.len; i++)
        for (int v = 0; v < 256; v += 51) {
            uint8_t *copy = malloc(b.len);
            memcpy(copy, b.data, b.len);
            copy[i] = (uint8_t)v;
            if (amx__pending_refs_read(copy, b.len, &out) == 0)
                for (size_t k = 0; k < out.n; k++)
                    CHECK(strlen(out.refs[k].name) < b.len && strlen(out.refs[k].tag) < b.len &&
                          (!out.refs[k].slot || strlen(out.refs[k].slot) < b.len));
            amx__pending_refs_free(&out);
            free(copy);
        }
    amx__byte_buf_free(&b);
}

/* BFME: #include inside the layer, a cycle, a path out of the layer. */
static void test_sage_include(void)
{
    fresh();
    put_bytes("Gen/Data/INI/Object/a.ini", "#include \"..\\includes\\b.inc\"\nObject A\nEnd\n");
    put_bytes("Gen/Data/INI/includes/b.inc", "#include \"..\\Object\\a.ini\"\n");
    put_bytes("Gen/Data/INI/Object/c.ini", "#include \"..\\..\\..\\..\\outside.ini\"\n"
                                           "#include \"missing.inc\"\nObject C\nEnd\n");
    amx_db *db = open_db();
    scan(db, "Gen", NULL);
    CHECK_STR(resolution(db, "a.ini", "..\\includes\\b.inc"), "found Data/INI/includes/b.inc");
    CHECK_STR(ini_finding(db, "a.ini", "INI_MALFORMED", 1), "error");
    CHECK_STR(ini_finding(db, "c.ini", "REFERENCE_NOT_FOUND", 1), "error");
    CHECK_STR(ini_finding(db, "c.ini", "REFERENCE_NOT_FOUND", 2), "info");
    amx_db_close(db);
}

/* A model with one sub-mesh per texture (shader `shader`) and the given proxies. */
static void model_many(const char *rel, const char *shader, const char *const *textures,
                       size_t nt, const char *const *proxies, size_t np)
{
    static const amxw_alo_bone bones[] = { { .name = "Root", .parent = -1, .visible = 1 } };
    amxw_alo_param params[8];
    amxw_alo_submesh subs[8];
    amxw_alo_proxy px[8];
    for (size_t i = 0; i < nt && i < 8; i++) {
        params[i] = (amxw_alo_param){ .type = AMXW_ALO_TEXTURE, .name = "BaseTexture",
                                      .texture = textures[i] };
        subs[i] = (amxw_alo_submesh){ .shader = shader, .params = &params[i], .param_count = 1,
                                      .vertices = 3, .triangles = 1 };
    }
    for (size_t i = 0; i < np && i < 8; i++)
        px[i] = (amxw_alo_proxy){ .name = proxies[i], .bone = 0 };
    amxw_alo_mesh mesh = { .name = "HULL", .submeshes = subs, .submesh_count = (uint32_t)nt };
    amxw_alo_conn conn = { 0, 0 };
    amxw_alo_spec spec = { .bones = bones, .bone_count = 1, .meshes = &mesh, .mesh_count = 1,
                           .conns = &conn, .conn_count = 1, .proxies = px,
                           .proxy_count = (uint32_t)np };
    amxw_buf b = { 0 };
    amxw_alo_model(&b, &spec);
    put(rel, &b);
}

typedef struct missing_seen {
    int rows;
    char files[16][300], names[16][300];   /* files: "-" for none (SAGE INI) */
    int64_t refs[16], spellings[16];
    char resolution[16][16];
} missing_seen;

static void missing_cb(const amx_missing_row *m, void *user)
{
    missing_seen *x = user;
    if (x->rows < 16) {
        snprintf(x->files[x->rows], sizeof x->files[x->rows], "%s", m->file ? m->file : "-");
        snprintf(x->names[x->rows], sizeof x->names[x->rows], "%s", m->name);
        snprintf(x->resolution[x->rows], sizeof x->resolution[x->rows], "%s", m->resolution);
        x->refs[x->rows] = m->references;
        x->spellings[x->rows] = (int64_t)m->spelling_count;
    }
    x->rows++;
}

/* The entry of refs --missing for `file` (its index in x), or -1. */
static int missing_entry(const missing_seen *x, const char *file)
{
    for (int i = 0; i < x->rows && i < 16; i++)
        if (strcmp(x->files[i], file) == 0)
            return i;
    return -1;
}

/* One missing file is one entry and one finding per referrer, whatever its spellings (issue 22:
 * _ALT/_LOD, .tga/.dds, a drive prefix, case); messages say where the tree has a file the
 * engine does not look at, and the engine's .tga/.dds rule; a file of the right name that does
 * not decode is REFERENCE_UNUSABLE; the stock game's shaders are built in. */
static void test_one_file_per_missing(void)
{
    fresh();
    static const char *const tex[] = { "fact.tga", "FACT.dds", "C:\\Projects\\Art\\Textures\\fact.tga",
                                       "only_tga.dds" };
    static const char *const px[] = { "P_STEAM_SMALL01_ALT0", "P_STEAM_SMALL01_LOD1_ALT1",
                                       "P_STEAM_SMALL01" };
    model_many(M "EB_LIGHTFACTORY.ALO", "MeshAdditiveVColor.fx", tex, 4, px, 3);
    put_bytes(T "only_tga.tga", "tga");
    /* shaders the stock game has (the four issue 22 found missing from the list) and one the
     * tree has where the engine does not look */
    model(M "SHADED.ALO", "MeshAlphaGloss.fx", "None", NULL);
    model(M "OFFSET.ALO", "MeshAdditiveOffset.FX", "None", NULL);
    model(M "REFLECT.ALO", "MeshBumpReflectColorize.fx", "None", NULL);
    model(M "ASIDE.ALO", "Custom2.fx", "None", NULL);
    put_bytes("Mod/Data/Shaders/Custom2.fx", "float4 x;");
    put_bytes(M "Empty.ALO", "");
    put_bytes("Mod/Data/XML/Units.xml",
              "<Units>\n<SpaceUnit Name=\"S\">\n"
              "<Galactic_Model_Name>W_planet_Asteroids.alo</Galactic_Model_Name>\n"
              "<GUI_Model_Name>W_PLANET_ASTEROIDS.ALO</GUI_Model_Name>\n"
              "<Space_Model_Name>Empty.alo</Space_Model_Name>\n"
              "<Land_Model_Name>Dup.alo</Land_Model_Name>\n"
              "<GUI_Model_Name>Dup.alo</GUI_Model_Name>\n"
              "</SpaceUnit>\n</Units>\n");
    amx_db *db = open_db();
    scan(db, "Mod", NULL);
    /* the factory: one finding for the texture (three spellings), one for the particle (three),
     * one for the .dds of which only the .tga is there */
    CHECK_EQ(findings(db, "EB_LIGHTFACTORY.ALO", "REFERENCE_NOT_FOUND", "info"), 3);
    /* led by the spelling named first in the file */
    CHECK_EQ(q_int(db, "SELECT count(*) FROM findings WHERE message LIKE 'particle system "
                       "''P_STEAM_SMALL01_ALT0'' (also named %%''P_STEAM_SMALL01_LOD1_ALT1''%%; "
                       "named in 2 more places) is in no file of this tree: the engine looks for "
                       "DATA/ART/MODELS/P_STEAM_SMALL01, DATA/ART/MODELS/P_STEAM_SMALL01.ALO' AND "
                       "message LIKE '%%''P_STEAM_SMALL01''%%'"), 1);
    CHECK_EQ(q_int(db, "SELECT count(*) FROM findings WHERE message LIKE 'texture ''fact.tga'' "
                       "(also named %%''FACT.dds''%%; named in 2 more places) is in no file%%' AND "
                       "message LIKE '%%''C:\\Projects\\Art\\Textures\\fact.tga''%%'"), 1);
    CHECK_EQ(q_int(db, "SELECT count(*) FROM findings WHERE message LIKE 'texture ''only_tga.dds'' "
                       "is in no file of this tree: the engine looks for DATA/ART/TEXTURES/ONLY_TGA.DDS; "
                       "the tree has Data/Art/Textures/only_tga.tga, but the engine looks for a .dds "
                       "in place of a .tga it does not find, never for a .tga in place of a .dds'"), 1);
    /* built in: no finding, and the reference says so */
    CHECK_STR(resolution(db, "EB_LIGHTFACTORY.ALO", "MeshAdditiveVColor.fx"), "builtin -");
    CHECK_STR(resolution(db, "SHADED.ALO", "MeshAlphaGloss.fx"), "builtin -");
    CHECK_STR(resolution(db, "OFFSET.ALO", "MeshAdditiveOffset.FX"), "builtin -");
    CHECK_STR(resolution(db, "REFLECT.ALO", "MeshBumpReflectColorize.fx"), "builtin -");
    /* a shader the tree has, where the engine does not look */
    CHECK(q_int(db, "SELECT count(*) FROM findings WHERE message LIKE 'shader ''Custom2.fx'' is in "
                    "no file of this tree: the engine looks for CUSTOM2.FX, DATA/ART/SHADERS/"
                    "CUSTOM2.FX%%; the tree has Data/Shaders/Custom2.fx, where the engine does "
                    "not look'") == 1);
    /* the XML: one finding for the planet named twice, and the empty model unusable */
    CHECK_EQ(findings(db, "Units.xml", "REFERENCE_NOT_FOUND", "info"), 2);
    /* one text named by two tags of two kinds is one spelling, not "also named" itself */
    CHECK_EQ(q_int(db, "SELECT count(*) FROM findings WHERE message LIKE '%%''Dup.alo'' (named in "
                       "1 more place) is in no file of this tree%%'"), 1);
    CHECK_EQ(findings(db, "Units.xml", "REFERENCE_UNUSABLE", "error"), 1);
    CHECK_STR(resolution(db, "Units.xml", "Empty.alo"), "unusable Data/Art/Models/Empty.ALO");
    CHECK(q_int(db, "SELECT count(*) FROM findings WHERE code = 'REFERENCE_UNUSABLE' AND message "
                    "LIKE 'model ''Empty.alo'' finds Data/Art/Models/Empty.ALO, which does not "
                    "decode%%: the engine stops there and loads nothing'") == 1);
    /* refs --missing: one entry per file, with every spelling */
    missing_seen x = { 0 };
    char err[512];
    CHECK_EQ(amx_query_missing(db, NULL, false, missing_cb, &x, err, sizeof err), AMX_OK);
    int i = missing_entry(&x, "DATA/ART/TEXTURES/FACT.DDS");
    CHECK(i >= 0 && x.refs[i] == 3 && x.spellings[i] == 3);
    i = missing_entry(&x, "DATA/ART/MODELS/P_STEAM_SMALL01.ALO");
    CHECK(i >= 0 && x.refs[i] == 3 && x.spellings[i] == 3);
    i = missing_entry(&x, "DATA/ART/MODELS/W_PLANET_ASTEROIDS.ALO");
    CHECK(i >= 0 && x.refs[i] == 2 && x.spellings[i] == 2);
    i = missing_entry(&x, "DATA/ART/MODELS/EMPTY.ALO");
    CHECK(i >= 0 && strcmp(x.resolution[i], "unusable") == 0);
    CHECK_EQ(x.rows, 7); /* and ONLY_TGA.DDS, CUSTOM2.FX, DUP.ALO */
    amx_db_close(db);
}

/* Zero Hour's tree and prop draw modules (W3DTreeBuffer::addTreeType, W3DPropBuffer::addPropType:
 * Create_Render_Obj of ModelName, as a state's Model) and a tree's texture
 * (W3DTreeBuffer::updateTexture: Art/Terrain/<TextureName>, then Art/Textures/<TextureName>,
 * through TheFileSystem: no language directory, no .dds for a .tga); BFME's floor model. Found,
 * missing (info alone, error over a base layer), wrong kind; a texture that appears is found at
 * the next scan. */
static void test_sage_tree_prop(void)
{
    fresh();
    w3d_model("Game/Art/W3D/PTDogwod01.w3d", NULL, NULL, 0, "PTDOGWOD01", NULL, 0);
    w3d_model("Game/Art/W3D/PMBarrel.w3d", NULL, NULL, 0, "PMBARREL", NULL, 0);
    w3d_model("Game/Art/W3D/PTWrong.w3d", NULL, NULL, 0, "PTOTHER", NULL, 0);
    put_bytes("Game/Art/Terrain/PTDogwod01.tga", "tga");
    put_bytes("Game/Art/Textures/PTPine.tga", "tga");
    put_bytes("Game/Art/Textures/PTDds.dds", "dds");
    put_bytes("Game/Data/English/Art/Textures/PTLang.tga", "tga");
    put_bytes("Mod/Data/INI/Object/Nature.ini",
              "Object Dogwood\n"                                                /* 1 */
              "  Draw = W3DTreeDraw ModuleTag_01\n"                             /* 2 */
              "    ModelName = PTDogwod01\n"                                    /* 3 */
              "    TextureName = PTDogwod01.tga\n"                              /* 4 */
              "  End\n"                                                         /* 5 */
              "End\n"                                                           /* 6 */
              "Object Pine\n"                                                   /* 7 */
              "  Draw = W3DTreeDraw ModuleTag_01\n"                             /* 8 */
              "    ModelName = PTWrong\n"                                       /* 9 */
              "    TextureName = PTPine.tga\n"                                  /* 10 */
              "  End\n"                                                         /* 11 */
              "End\n"                                                           /* 12 */
              "Object Oak\n"                                                    /* 13 */
              "  Draw = W3DTreeDraw ModuleTag_01\n"                             /* 14 */
              "    ModelName = PTOak\n"                                         /* 15 */
              "    TextureName = PTOak.tga\n"                                   /* 16 */
              "  End\n"                                                         /* 17 */
              "End\n"                                                           /* 18 */
              "Object Odd\n"                                                    /* 19 */
              "  Draw = W3DTreeDraw ModuleTag_01\n"                             /* 20 */
              "    ModelName = PTDogwod01\n"                                    /* 21 */
              "    TextureName = PTDds.tga\n"                                   /* 22 */
              "  End\n"                                                         /* 23 */
              "  Draw = W3DTreeDraw ModuleTag_02\n"                             /* 24 */
              "    ModelName = PTDogwod01\n"                                    /* 25 */
              "    TextureName = PTLang.tga\n"                                  /* 26 */
              "  End\n"                                                         /* 27 */
              "End\n"                                                           /* 28 */
              "Object Barrel\n"                                                 /* 29 */
              "  Draw = W3DPropDraw ModuleTag_01\n"                             /* 30 */
              "    ModelName = PMBarrel\n"                                      /* 31 */
              "  End\n"                                                         /* 32 */
              "End\n");                                                         /* 33 */
    put_bytes("Mod/Data/INI/Object/Bib.ini",
              "#define BIB MBFloor01\n"
              "Object Bib\n  Draw = W3DFloorDraw ModuleTag_01\n    ModelName = BIB\n"
              "  End\nEnd\n");
    amx_db *db = open_db();
    scan(db, "Game", NULL);
    scan(db, "Mod", "Game");
    const char *ini = "Nature.ini";
    CHECK_STR(resolution(db, ini, "PTDogwod01"), "found Art/W3D/PTDogwod01.w3d");
    CHECK_STR(resolution(db, ini, "PTDogwod01.tga"), "found Art/Terrain/PTDogwod01.tga");
    CHECK_STR(resolution(db, ini, "PTPine.tga"), "found Art/Textures/PTPine.tga");
    CHECK_STR(resolution(db, ini, "PMBarrel"), "found Art/W3D/PMBarrel.w3d");
    /* a model file of another render object */
    CHECK_STR(ini_finding(db, ini, "REFERENCE_WRONG_KIND", 9), "error");
    /* missing, over a base layer: errors, with the paths the engine opens */
    CHECK_STR(ini_finding(db, ini, "REFERENCE_NOT_FOUND", 15), "error");
    CHECK_STR(ini_finding(db, ini, "REFERENCE_NOT_FOUND", 16), "error");
    CHECK_EQ(q_int(db, "SELECT count(*) FROM findings WHERE code = 'REFERENCE_NOT_FOUND' AND "
                       "context = 'TextureName of ''Oak'', line 16' AND message LIKE '%%texture "
                       "''PTOak.tga''%%looked for ART/TERRAIN/PTOAK.TGA, ART/TEXTURES/PTOAK.TGA'"),
             1);
    /* no .dds for a .tga, no language directory */
    CHECK_STR(ini_finding(db, ini, "REFERENCE_NOT_FOUND", 22), "error");
    CHECK_STR(ini_finding(db, ini, "REFERENCE_NOT_FOUND", 26), "error");
    CHECK_STR(resolution(db, "Bib.ini", "MBFloor01"), "missing -");
    CHECK_STR(ini_finding(db, "Bib.ini", "REFERENCE_NOT_FOUND", 4), "error");
    CHECK_EQ(findings(db, ini, "REFERENCE_NOT_FOUND", NULL), 4);
    /* refs --missing: a tree's texture is grouped by kind and name, as the INI's other names */
    missing_seen x = { 0 };
    char err[512];
    CHECK_EQ(amx_query_missing(db, NULL, false, missing_cb, &x, err, sizeof err), AMX_OK);
    bool texture_row = false;
    for (int i = 0; i < x.rows && i < 16; i++)
        if (strcmp(x.names[i], "PTOak.tga") == 0) {
            texture_row = true;
            CHECK_STR(x.files[i], "-");
        }
    CHECK(texture_row);
    /* the texture appears: found at the next scan; without the base layer, missing is info */
    put_bytes("Mod/Art/Terrain/PTOak.tga", "tga");
    scan(db, "Mod", "Game");
    CHECK_STR(resolution(db, ini, "PTOak.tga"), "found Art/Terrain/PTOak.tga");
    CHECK_EQ(findings(db, ini, "REFERENCE_NOT_FOUND", NULL), 3);
    char r[1400];
    snprintf(r, sizeof r, "%s/Mod", top);
    amx_scan_opts o = { .root = r, .jobs = 1, .set_bases = true };
    CHECK_EQ(amx_scan(db, &o, NULL, err, sizeof err), AMX_OK);
    CHECK_STR(ini_finding(db, ini, "REFERENCE_NOT_FOUND", 15), "info");
    CHECK_STR(ini_finding(db, ini, "REFERENCE_NOT_FOUND", 3), "info");
    amx_db_close(db);
}

/* SAGE INI references name no one file: refs --missing lists them by kind and name, as before
 * issue 22 (two animations of one hierarchy are two entries, not one "file"). */
static void test_sage_missing(void)
{
    fresh();
    w3d_model("Gen/Art/W3D/AVTank.w3d", "AVTANK", TANK_PIVOTS, 4, "AVTANK", TANK_SUBS, 3);
    put_bytes("Gen/Data/INI/Object/Ghost.ini",
              "Object Ghost\n  Draw = W3DModelDraw ModuleTag_01\n    DefaultConditionState\n"
              "      Model = AVTank\n      Animation = AVTank.AVTank_GoneA\n    End\n"
              "    ConditionState = FIRING_A\n      Animation = AVTank.AVTank_GoneB\n    End\n"
              "  End\nEnd\n");
    put_bytes("Gen/Data/INI/Object/Ghost2.ini",
              "Object Ghost2\n  Draw = W3DModelDraw ModuleTag_01\n    DefaultConditionState\n"
              "      Model = AVTank\n      Animation = avtank.avtank_gonea\n    End\n  End\nEnd\n");
    amx_db *db = open_db();
    scan(db, "Gen", NULL);
    missing_seen x = { 0 };
    char err[512];
    CHECK_EQ(amx_query_missing(db, NULL, false, missing_cb, &x, err, sizeof err), AMX_OK);
    CHECK_EQ(x.rows, 2);
    CHECK_STR(x.files[0], "-");
    CHECK_STR(x.names[0], "AVTank.AVTank_GoneA"); /* two spellings of one name, two files */
    CHECK_EQ(x.refs[0], 2);
    CHECK_EQ(x.spellings[0], 2);
    CHECK_STR(x.files[1], "-");
    CHECK_STR(x.names[1], "AVTank.AVTank_GoneB");
    amx_db_close(db);
}

/* Game objects and draw states written 16 to a statement with the ids the writer gives them:
 * every reference points at its own object and state (the one drawing the model it names), in
 * a fresh index, after a rescan of the changed file, and when no id is left above the largest
 * (SQLite then picks each, one statement each). */
static void test_sage_state_ids(void)
{
    fresh();
    char ini[8192];
    size_t at = 0;
    for (int i = 0; i < 40; i++)
        at += (size_t)snprintf(ini + at, sizeof ini - at,
                               "Object O%d\n  Draw = W3DModelDraw M\n    DefaultConditionState\n"
                               "      Model = M%d\n    End\n  End\nEnd\n", i, i);
    put_bytes("Gen/Data/INI/Object/Many.ini", ini);
    put_bytes("Gen/Data/INI/Object/Few.ini",
              "Object F\n  Draw = W3DModelDraw M\n    DefaultConditionState\n"
              "      Model = FM\n    End\n  End\nEnd\n");
    amx_db *db = open_db();
    scan(db, "Gen", NULL);
    const char *own = "SELECT count(*) FROM refs r JOIN object_states s ON s.id = r.state_id AND "
                      "s.file_id = r.file_id AND s.object_id = r.object_id AND s.model = r.name "
                      "WHERE r.kind = 'w3d-model'";
    const char *object = "SELECT count(*) FROM refs r JOIN game_objects o ON o.id = r.object_id "
                         "AND o.file_id = r.file_id AND o.name = 'O' || substr(r.name, 2) "
                         "WHERE r.kind = 'w3d-model' AND r.name LIKE 'M%'";
    CHECK_EQ(q_int(db, "SELECT count(*) FROM object_states"), 41);
    CHECK_EQ(q_int(db, "%s", own), 41);
    CHECK_EQ(q_int(db, "%s", object), 40);
    CHECK_EQ(q_int(db, "SELECT max(id) - min(id) FROM object_states"), 40);
    CHECK_EQ(q_int(db, "SELECT max(id) - min(id) FROM game_objects"), 40);
    /* the 40 states again, after the other file's, and then past an id at the top */
    ini[at - 1] = ' ';
    put_bytes("Gen/Data/INI/Object/Many.ini", ini);
    scan(db, "Gen", NULL);
    CHECK_EQ(q_int(db, "SELECT count(*) FROM object_states"), 41);
    CHECK_EQ(q_int(db, "%s", own), 41);
    CHECK_EQ(q_int(db, "%s", object), 40);
    CHECK(sqlite3_exec(amx_db_handle(db),
                       "INSERT INTO game_objects(id, file_id, type, name, name_key, line) "
                       "SELECT 9223372036854775807, id, 'Object', 'Top', 'TOP', 0 "
                       "FROM files WHERE path LIKE '%Few.ini'", NULL, NULL, NULL) == SQLITE_OK);
    CHECK(sqlite3_exec(amx_db_handle(db),
                       "INSERT INTO object_states(id, file_id, module, kind, flags, model, "
                       "model_key, line) SELECT 9223372036854775807, id, '', '', '', '', '', 0 "
                       "FROM files WHERE path LIKE '%Few.ini'", NULL, NULL, NULL) == SQLITE_OK);
    ini[at - 1] = '\n';
    put_bytes("Gen/Data/INI/Object/Many.ini", ini);
    scan(db, "Gen", NULL);
    CHECK_EQ(q_int(db, "SELECT count(*) FROM object_states"), 42);
    CHECK_EQ(q_int(db, "SELECT count(*) FROM object_states WHERE id <= 41"), 1); /* new ids */
    CHECK_EQ(q_int(db, "SELECT count(*) FROM game_objects WHERE id <= 41"), 1);
    CHECK_EQ(q_int(db, "%s", own), 41);
    CHECK_EQ(q_int(db, "%s", object), 40);
    amx_db_close(db);
}

/* An index of schema 18 (refs with foreign keys on object_id and state_id, and refs_state;
 * object_states with one on object_id, and object_states_object) is upgraded in place by
 * migrations 0019 and 0020: every reference and state keeps its id and its columns, the three
 * foreign keys and the two indexes are gone, the other indexes are there, and deleting the
 * file still deletes its references, states and objects. */
static void test_migration_owner_keys(void)
{
    fresh();
    sqlite3 *raw = NULL;
    CHECK(sqlite3_open(dbpath, &raw) == SQLITE_OK);
    int before = -1;
    for (int i = 0; i < amx__migration_count; i++)
        if (strstr(amx__migrations[i].name, "refs_without_owner_keys"))
            before = i;
    CHECK(before > 0);
    CHECK(amx__db_register(raw) == SQLITE_OK); /* 0008 packs tracks with an SQL function */
    for (int i = 0; i < before; i++)
        CHECK(sqlite3_exec(raw, amx__migrations[i].sql, NULL, NULL, NULL) == SQLITE_OK);
    char sql[4096];
    snprintf(sql, sizeof sql,
             "PRAGMA user_version = %d;"
             "INSERT INTO roots(id, path) VALUES (1, '/mod');"
             "INSERT INTO files(id, root_id, path, dir_key, stem_key, size, mtime_ns, format, "
             "decoder_version, status, indexed_at) VALUES "
             "(3, 1, 'Tank.ini', '', 'TANK', 10, 1, 'sage-ini', 1, 'ok', 0),"
             "(4, 1, 'AVTank.w3d', '', 'AVTANK', 10, 1, 'w3d', 1, 'ok', 0);"
             "INSERT INTO game_objects(id, file_id, type, name, name_key, line) VALUES "
             "(5, 3, 'Object', 'Tank', 'TANK', 1);"
             "INSERT INTO object_states(id, file_id, object_id, module, kind, flags, model, "
             "model_key, line) VALUES (6, 3, 5, 'W3DModelDraw M', 'DefaultConditionState', '', "
             "'AVTank', 'AVTANK', 3);"
             "INSERT INTO refs(id, file_id, object_id, kind, tag, name, key, line, offset, "
             "target_id, resolution, linked, state_id, model, model_key, via_key) VALUES "
             "(8, 3, 5, 'w3d-model', 'Model', 'AVTank', 'AVTANK', 4, 40, 4, 'found', 1, 6, "
             "NULL, NULL, NULL),"
             "(9, 3, 5, 'w3d-animation', 'Animation', 'AVTank.AVTank_IDL', 'AVTANK.AVTANK_IDL', "
             "5, NULL, NULL, 'missing', 1, 6, 'AVTank', 'AVTANK', 'AVTANK');",
             amx__migrations[before - 1].version);
    CHECK(sqlite3_exec(raw, sql, NULL, NULL, NULL) == SQLITE_OK);
    sqlite3_close(raw);

    amx_db *db = NULL;
    char err[512] = "";
    CHECK_EQ(amx_db_open(dbpath, 0, &db, err, sizeof err), AMX_OK);
    if (!db) {
        printf("# %s\n", err);
        return;
    }
    CHECK_EQ(q_int(db, "SELECT count(*) FROM pragma_foreign_key_list('refs')"), 2);
    CHECK_EQ(q_int(db, "SELECT count(*) FROM pragma_foreign_key_list('refs') WHERE \"from\" IN "
                       "('file_id', 'target_id') AND \"table\" = 'files'"), 2);
    CHECK_EQ(q_int(db, "SELECT count(*) FROM sqlite_schema WHERE name = 'refs_state'"), 0);
    CHECK_EQ(q_int(db, "SELECT count(*) FROM sqlite_schema WHERE type = 'index' AND "
                       "tbl_name = 'refs' AND name IN ('refs_file', 'refs_key', 'refs_object', "
                       "'refs_target', 'refs_unlinked', 'refs_via_key', 'refs_model_key', "
                       "'refs_unresolved')"), 8);
    CHECK_EQ(q_int(db, "SELECT count(*) FROM pragma_foreign_key_list('object_states') WHERE "
                       "\"from\" = 'file_id' AND \"table\" = 'files'"), 1);
    CHECK_EQ(q_int(db, "SELECT count(*) FROM pragma_foreign_key_list('object_states')"), 1);
    CHECK_EQ(q_int(db, "SELECT count(*) FROM sqlite_schema WHERE name = 'object_states_object'"),
             0);
    CHECK_EQ(q_int(db, "SELECT count(*) FROM sqlite_schema WHERE name = 'object_states_file'"), 1);
    CHECK_EQ(q_int(db, "SELECT count(*) FROM object_states WHERE id = 6 AND file_id = 3 AND "
                       "object_id = 5 AND module = 'W3DModelDraw M' AND "
                       "kind = 'DefaultConditionState' AND flags = '' AND model = 'AVTank' AND "
                       "model_key = 'AVTANK' AND line = 3"), 1);
    CHECK_EQ(q_int(db, "SELECT count(*) FROM refs WHERE id = 8 AND file_id = 3 AND "
                       "object_id = 5 AND kind = 'w3d-model' AND tag = 'Model' AND "
                       "name = 'AVTank' AND key = 'AVTANK' AND line = 4 AND offset = 40 AND "
                       "target_id = 4 AND resolution = 'found' AND linked = 1 AND state_id = 6 "
                       "AND model IS NULL AND model_key IS NULL AND via_key IS NULL"), 1);
    CHECK_EQ(q_int(db, "SELECT count(*) FROM refs WHERE id = 9 AND name = 'AVTank.AVTank_IDL' "
                       "AND offset IS NULL AND target_id IS NULL AND resolution = 'missing' AND "
                       "state_id = 6 AND model = 'AVTank' AND model_key = 'AVTANK' AND "
                       "via_key = 'AVTANK'"), 1);
    /* the target's file goes: its references keep their row, without target */
    CHECK(sqlite3_exec(amx_db_handle(db), "DELETE FROM files WHERE id = 4", NULL, NULL, NULL) ==
          SQLITE_OK);
    CHECK_EQ(q_int(db, "SELECT count(*) FROM refs WHERE target_id IS NULL"), 2);
    CHECK(sqlite3_exec(amx_db_handle(db), "DELETE FROM files WHERE id = 3", NULL, NULL, NULL) ==
          SQLITE_OK);
    CHECK_EQ(q_int(db, "SELECT count(*) FROM refs"), 0);
    CHECK_EQ(q_int(db, "SELECT count(*) FROM object_states"), 0);
    CHECK_EQ(q_int(db, "SELECT count(*) FROM game_objects"), 0);
    amx_db_close(db);
}

int main(void)
{
    test_run("test_rules", test_rules);
    test_run("test_layers_and_archives", test_layers_and_archives);
    test_run("test_crc_collision", test_crc_collision);
    test_run("test_w3d_textures", test_w3d_textures);
    test_run("test_sage_language", test_sage_language);
    test_run("test_too_long", test_too_long);
    test_run("test_reference_limit", test_reference_limit);
    test_run("test_one_file_per_missing", test_one_file_per_missing);
    test_run("test_relink_what_changed", test_relink_what_changed);
    test_run("test_xml_file_lists", test_xml_file_lists);
    test_run("test_xml_not_listed", test_xml_not_listed);
    test_run("test_xml_duplicate_objects", test_xml_duplicate_objects);
    test_run("test_sage_ini", test_sage_ini);
    test_run("test_sage_weapon_slot", test_sage_weapon_slot);
    test_run("test_sage_name_length", test_sage_name_length);
    test_run("test_sage_particle_none", test_sage_particle_none);
    test_run("test_sage_bfme_anim_model", test_sage_bfme_anim_model);
    test_run("test_sage_bfme_include_read", test_sage_bfme_include_read);
    test_run("test_sage_bfme_bare_animation_name", test_sage_bfme_bare_animation_name);
    test_run("test_sage_bfme_include_in_big", test_sage_bfme_include_in_big);
    test_run("test_sage_include_budget", test_sage_include_budget);
    test_run("test_sage_include_after_kill", test_sage_include_after_kill);
    test_run("test_sage_load_order", test_sage_load_order);
    test_run("test_sage_declared_game", test_sage_declared_game);
    test_run("test_sage_incremental", test_sage_incremental);
    test_run("test_sage_include", test_sage_include);
    test_run("test_sage_interrupted", test_sage_interrupted);
    test_run("test_pending_blob", test_pending_blob);
    test_run("test_sage_missing", test_sage_missing);
    test_run("test_sage_tree_prop", test_sage_tree_prop);
    test_run("test_sage_state_ids", test_sage_state_ids);
    test_run("test_migration_owner_keys", test_migration_owner_keys);
    fresh(); /* removes the last test's tree and database */
    return test_done();
}
