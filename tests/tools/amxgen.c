/*
 * amxgen: the project's sample writer as a command. Writes synthetic Alamo files (no game
 * assets needed) for the README demo, the benchmark and the end-to-end tests.
 *
 *   amxgen demo DIR                       a small Data tree with matched, mismatched and
 *                                         broken files, a particle system, a MEG archive and
 *                                         a MechWarrior 3 anim.zbd
 *   amxgen assets DIR                     the textures and the particle the writer's models
 *                                         and particles name, in DIR/Data/Art
 *   amxgen mp-pak FILE                    a Metroid Prime PAK: a skeleton, a character set and
 *                                         three animations (one bad bone id, one unplayed)
 *   amxgen bench DIR [--models N] [--vertices V] [--seed S] [--bad B]
 *                                         a large tree: N models, each with 2 clips (each
 *                                         clip naming B bones its model does not have)
 *   amxgen mod DIR [--models N] [--seed S]
 *                                         a tree shaped like a real mod (see cmd_mod)
 *   amxgen w3d-pair DIR [--name H]        W3D hierarchy H (DIR/H.w3d, 3 pivots) and an animation
 *                                         of it (DIR/H_anim.w3d)
 *   amxgen w3d-model FILE --name NAME [--pivots a,b,c] [--extra N]
 *                                         W3D hierarchy NAME with those pivots and an HLOD NAME
 *                                         (N more bones and sub-objects: the bomb set)
 *   amxgen model FILE --bones a,b,c [--meshes N] [--vertices V]
 *   amxgen clip FILE --bones a,b,c [--indices 0,1,2] [--format 1|2] [--frames F] [--fps R]
 *   amxgen particle FILE NAME [--emitters N]
 *   amxgen meg FILE [--version 1|2|3] NAME=SRCFILE...
 *   amxgen big FILE NAME=SRCFILE...       a Generals/BFME BIG archive (BIGF)
 *
 * Hostile inputs (issue 16; bench/bombs.sh, tests/e2e/test_hostile.py):
 *   amxgen ala-constant FILE [--frames N] [--bones K]
 *                                         a tiny ALA (format 2) that claims N frames of K bones
 *                                         with constant channels: no per-frame data at all
 *   amxgen tree DIR [--bones N] [--clips K] a model TREE.ALO of N bones and K clips
 *                                         TREE_IDLE_NN.ALA whose bone 0 does not match, so the
 *                                         report draws the bone tree against each of them
 */
#include "ala_writer.h"
#include "alo_writer.h"
#include "buf.h"
#include "meg_writer.h"
#include "mp_writer.h"
#include "mw3_writer.h"
#include "w3d_writer.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int die(const char *msg, const char *detail)
{
    fprintf(stderr, "amxgen: %s%s\n", msg, detail ? detail : "");
    return 2;
}

static int save(amxw_buf *b, const char *path)
{
    int rc = amxw_write_file(b, path);
    amxw_buf_free(b);
    if (rc) {
        fprintf(stderr, "amxgen: %s: %s\n", path, strerror(-rc));
        return 1;
    }
    return 0;
}

static char *join(const char *dir, const char *name)
{
    size_t n = strlen(dir) + strlen(name) + 2;
    char *p = malloc(n);
    if (p)
        snprintf(p, n, "%s/%s", dir, name);
    return p;
}

static int write_model(const char *dir, const char *name, const char *const *bones, uint32_t nbones,
                       uint32_t meshes, uint32_t vertices, uint32_t seed)
{
    amxw_buf b = { 0 };
    amxw_alo_simple(&b, nbones, bones, meshes, vertices, seed);
    char *p = join(dir, name);
    int rc = p ? save(&b, p) : 1;
    free(p);
    return rc;
}

static int write_clip(const char *dir, const char *name, int format, uint32_t frames, float fps,
                      const char *const *bones, const uint32_t *indices, uint32_t nbones, uint32_t seed)
{
    amxw_buf b = { 0 };
    amxw_ala_simple(&b, format, frames, fps, nbones, bones, indices, seed);
    char *p = join(dir, name);
    int rc = p ? save(&b, p) : 1;
    free(p);
    return rc;
}

/* A Metroid Prime 1 PAK: skeleton C1000001 (bone ids 3 root, 4, 5, 6; compressed), a
 * character set 5A000001 (compressed) whose character "Samus" plays A0000001 and A0000002,
 * A0000001 animating bones 3 and 4, A0000002 bone 9 (not in the skeleton), and A0000003, which
 * no character plays. */
static void write_mp_pak(amxw_buf *out)
{
    static const amxw_mp_bone bones[] = {
        { .id = 3, .parent = 97, .pos = { 0, 0, 0 } },
        { .id = 4, .parent = 3, .pos = { 0, 0, 1 } },
        { .id = 5, .parent = 4, .pos = { 0, 0, 2 } },
        { .id = 6, .parent = 3, .pos = { 1, 0, 1 } },
    };
    static const char *const names[] = { "root", "spine", "head", "arm" };
    static const uint32_t name_ids[] = { 3, 4, 5, 6 };
    amxw_buf cinf = { 0 }, ancs = { 0 }, a1 = { 0 }, a2 = { 0 }, a3 = { 0 };
    amxw_mp_cinf(&cinf, &(amxw_mp_cinf_spec){ .game = 1, .bones = bones, .bone_count = 4,
                                              .names = names, .name_ids = name_ids, .name_count = 4 },
                 NULL);
    static const amxw_mp_character chars[] = {
        { .idx = 0, .name = "Samus", .cmdl = 0xD0000001u, .cskr = 0xE0000001u, .cinf = 0xC1000001u },
    };
    static const amxw_mp_set_anim set[] = {
        { "idle", { .type = 0, .anim_id = 0xA0000001u, .anim_idx = 0, .name = "idle" } },
        { "hurt", { .type = 0, .anim_id = 0xA0000002u, .anim_idx = 1, .name = "hurt" } },
    };
    amxw_mp_ancs(&ancs, &(amxw_mp_ancs_spec){ .game = 1, .chars = chars, .char_count = 1,
                                              .anims = set, .anim_count = 2 },
                 NULL);
    static const float rot[] = { 1, 0, 0, 0, 0.7071068f, 0.7071068f, 0, 0, 0, 1, 0, 0 };
    static const float trans[] = { 0, 0, 0, 0, 0, 0.5f, 0, 0, 1 };
    static const amxw_mp_v0_channel ok[] = { { .bone_id = 3, .rot = rot, .trans = trans },
                                             { .bone_id = 4, .rot = rot } };
    static const amxw_mp_v0_channel bad[] = { { .bone_id = 3, .rot = rot }, { .bone_id = 9, .rot = rot } };
    amxw_mp_anim(&a1, &(amxw_mp_anim_spec){ .game = 1, .format = 0, .root_bone_id = 3, .frames = 3,
                                            .v0 = ok, .channel_count = 2 }, NULL);
    amxw_mp_anim(&a2, &(amxw_mp_anim_spec){ .game = 1, .format = 0, .root_bone_id = 3, .frames = 3,
                                            .v0 = bad, .channel_count = 2 }, NULL);
    amxw_mp_anim(&a3, &(amxw_mp_anim_spec){ .game = 1, .format = 0, .root_bone_id = 3, .frames = 3,
                                            .v0 = ok, .channel_count = 1 }, NULL);
    amxw_mp_resource res[] = {
        { AMXW_FOURCC('C', 'I', 'N', 'F'), 0xC1000001u, cinf.data, cinf.len, true, "Samus" },
        { AMXW_FOURCC('A', 'N', 'C', 'S'), 0x5A000001u, ancs.data, ancs.len, true, "Samus" },
        { AMXW_FOURCC('A', 'N', 'I', 'M'), 0xA0000001u, a1.data, a1.len, false, NULL },
        { AMXW_FOURCC('A', 'N', 'I', 'M'), 0xA0000002u, a2.data, a2.len, true, NULL },
        { AMXW_FOURCC('A', 'N', 'I', 'M'), 0xA0000003u, a3.data, a3.len, false, NULL },
    };
    amxw_mp_pak(out, res, 5, NULL);
    amxw_buf_free(&cinf);
    amxw_buf_free(&ancs);
    amxw_buf_free(&a1);
    amxw_buf_free(&a2);
    amxw_buf_free(&a3);
}

/* What the writer's models and particles name, so that every reference resolves: the textures
 * of their meshes (mesh N's texture is MESH_NN.tga), the particles' textures, and the particle
 * system of the models' proxy (P_SMOKE_01). */
static int cmd_assets(const char *root)
{
    char *models = join(root, "Data/Art/Models");
    if (!models)
        return 1;
    int rc = 0;
    amxw_buf b = { 0 };
    char *p;
    static const char *const textures[] = { "MESH_00.tga", "MESH_01.tga", "MESH_02.tga",
                                            "p_particle_master.tga", "p_particle_depth_master.tga" };
    for (size_t i = 0; i < sizeof textures / sizeof textures[0]; i++) {
        static const uint8_t tga_header[18] = { 0, 0, 2, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 1, 0, 32, 8 };
        char name[96];
        snprintf(name, sizeof name, "Data/Art/Textures/%s", textures[i]);
        amxw_bytes(&b, tga_header, sizeof tga_header);
        p = join(root, name);
        rc |= p ? save(&b, p) : 1;
        free(p);
    }
    amxw_alo_particle(&b, "P_SMOKE_01", 1, false);
    p = join(models, "P_SMOKE_01.ALO");
    rc |= p ? save(&b, p) : 1;
    free(p);

    free(models);
    return rc ? 1 : 0;
}

static int cmd_demo(const char *root)
{
    char *models = join(root, "Data/Art/Models");
    if (!models)
        return 1;
    int rc = 0;
    static const char *const xwing[] = { "Root", "Hull", "Wing_L", "Wing_R", "Engine_L", "Engine_R" };
    static const uint32_t idx6[] = { 0, 1, 2, 3, 4, 5 };
    rc |= write_model(models, "VSF_DEMO_XWING.ALO", xwing, 6, 3, 240, 1);
    rc |= write_clip(models, "VSF_DEMO_XWING_DEPLOY_00.ALA", 2, 30, 30.0f, xwing + 2, idx6 + 2, 4, 2);
    rc |= write_clip(models, "VSF_DEMO_XWING_IDLE_00.ALA", 1, 60, 30.0f, xwing, idx6, 6, 3);

    /* A death clip exported against an older skeleton: one bone renamed, one moved. */
    static const char *const tie[] = { "Root", "Cockpit", "Wing_L", "Wing_R", "P_smoke_00" };
    static const char *const tie_clip[] = { "Cockpit", "Wing_R", "P_smoke_01" };
    static const uint32_t tie_idx[] = { 1, 2, 4 };
    rc |= write_model(models, "EV_DEMO_TIE.ALO", tie, 5, 2, 180, 4);
    rc |= write_clip(models, "EV_DEMO_TIE_DIE_00.ALA", 2, 45, 30.0f, tie_clip, tie_idx, 3, 5);

    /* A clip whose model is not in the tree. */
    static const char *const lost[] = { "Root", "Turret" };
    static const uint32_t idx2[] = { 0, 1 };
    rc |= write_clip(models, "VSF_DEMO_LOST_MOVE_00.ALA", 2, 20, 30.0f, lost, idx2, 2, 6);

    amxw_buf b = { 0 };
    amxw_alo_particle(&b, "p_demo_smoke", 2, false);
    char *p = join(models, "P_DEMO_SMOKE.ALO");
    rc |= p ? save(&b, p) : 1;
    free(p);
    amxw_alo_particle(&b, "p_demo_fire_old", 3, false); /* name differs from the file name */
    p = join(models, "P_DEMO_FIRE.ALO");
    rc |= p ? save(&b, p) : 1;
    free(p);

    /* A truncated animation. */
    amxw_ala_simple(&b, 2, 30, 30.0f, 4, xwing, idx6, 7);
    b.len = b.len / 2;
    p = join(models, "VSF_DEMO_XWING_ATTACK_00.ALA");
    rc |= p ? save(&b, p) : 1;
    free(p);

    /* A MEG archive with a walker and its clip, as the game ships them. */
    static const char *const walker[] = { "Root", "Body", "Leg_FL", "Leg_FR", "Leg_BL", "Leg_BR", "Head" };
    static const uint32_t idx7[] = { 0, 1, 2, 3, 4, 5, 6 };
    amxw_buf m = { 0 }, c = { 0 }, meg = { 0 };
    amxw_alo_simple(&m, 7, walker, 2, 200, 8);
    amxw_ala_simple(&c, 2, 40, 30.0f, 7, walker, idx7, 9);
    amxw_meg_file files[] = {
        { "DATA\\ART\\MODELS\\UM_DEMO_WALKER.ALO", m.data, m.len },
        { "DATA\\ART\\MODELS\\UM_DEMO_WALKER_MOVE_00.ALA", c.data, c.len },
    };
    amxw_meg(&meg, 1, files, 2);
    p = join(root, "Data/Models.meg");
    rc |= p ? save(&meg, p) : 1;
    free(p);
    amxw_buf_free(&m);
    amxw_buf_free(&c);

    /* MechWarrior 3 animation definitions. */
    amxw_mw3_simple(&b, 3, 11);
    p = join(root, "Data/MW3/anim.zbd");
    rc |= p ? save(&b, p) : 1;
    free(p);

    rc |= cmd_assets(root);

    /* The game object list (XML). */
    amxw_bytes(&b, "<?xml version=\"1.0\"?>\n<GameObjectFiles/>\n", 41);
    p = join(root, "Data/XML/GameObjectFiles.xml");
    rc |= p ? save(&b, p) : 1;
    free(p);
    free(models);
    return rc ? 1 : 0;
}

static int cmd_bench(const char *root, uint32_t models, uint32_t vertices, uint32_t seed,
                     uint32_t bad)
{
    static const char *const bones[] = { "Root", "Hull", "Turret_00", "Barrel_00", "Turret_01",
                                         "Barrel_01", "Engine_L", "Engine_R", "Bridge", "Shield",
                                         "P_smoke_00", "P_smoke_01", "P_fire_00", "HP_00", "HP_01",
                                         "Wing_L", "Wing_R", "Antenna", "Dish", "Hangar" };
    static const uint32_t idx[] = { 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19 };
    /* the clips' bones: B of them (after the root) renamed, so each is BONE_NOT_IN_SKELETON */
    const char *clip_bones[20];
    char renamed[20][32];
    for (uint32_t k = 0; k < 20; k++) {
        clip_bones[k] = bones[k];
        if (k >= 1 && k <= bad && k < 12) {
            snprintf(renamed[k], sizeof renamed[k], "%s_OLD", bones[k]);
            clip_bones[k] = renamed[k];
        }
    }
    for (uint32_t i = 0; i < models; i++) {
        char dir[4096], name[64];
        snprintf(dir, sizeof dir, "%s/Data/Art/Models/set_%03u", root, i / 100);
        uint32_t s = seed * 7919u + i;
        snprintf(name, sizeof name, "BM_BENCH_%05u.ALO", i);
        if (write_model(dir, name, bones, 20, 4, vertices, s))
            return 1;
        snprintf(name, sizeof name, "BM_BENCH_%05u_IDLE_00.ALA", i);
        if (write_clip(dir, name, 2, 150, 30.0f, clip_bones, idx, 20, s + 1))
            return 1;
        snprintf(name, sizeof name, "BM_BENCH_%05u_DIE_00.ALA", i);
        if (write_clip(dir, name, 1, 90, 30.0f, clip_bones, idx, 12, s + 2))
            return 1;
    }
    return 0;
}


/* ---- a tree shaped like a real mod ---- */

static uint64_t mod_state;

static uint32_t mod_rand(void) /* xorshift64* */
{
    mod_state ^= mod_state >> 12;
    mod_state ^= mod_state << 25;
    mod_state ^= mod_state >> 27;
    return (uint32_t)((mod_state * 0x2545F4914F6CDD1DULL) >> 32);
}

static double mod_unit(void) /* (0, 1) */
{
    return ((double)mod_rand() + 0.5) / 4294967296.0;
}

/* A log-normal draw with the given median whose lower and upper halves have their own spread,
 * so that the 10th and 90th percentiles come out as given. */
static uint32_t mod_draw(double median, double p10, double p90, uint32_t lo, uint32_t hi)
{
    double z = sqrt(-2.0 * log(mod_unit())) * cos(6.283185307179586 * mod_unit());
    double sigma = z < 0 ? log(median / p10) / 1.2815515655 : log(p90 / median) / 1.2815515655;
    double v = exp(log(median) + z * sigma);
    uint32_t n = v < lo ? lo : v > hi ? hi : (uint32_t)lrint(v);
    return n;
}

/* One model and, when animated, its clips. Bone names as exporters write them. */
static int mod_model(const char *models, uint32_t i, bool animated, FILE *xml)
{
    static const char *const parts[] = { "Spine", "Neck", "Head", "Arm_L", "Arm_R", "Hand_L",
                                         "Hand_R", "Leg_L", "Leg_R", "Foot_L", "Turret", "Barrel",
                                         "Hatch", "Wheel", "Light", "MuzzleA", "MuzzleB" };
    /* types of the engine's table (a clip of another word is loaded by no model) */
    static const char *const types[] = { "IDLE", "MOVE", "ATTACK", "DIE", "DEPLOY", "UNDEPLOY",
                                         "SPECIAL_A", "TURNL", "TURNR", "CINEMATIC" };
    uint32_t nb = animated ? mod_draw(73, 19, 143, 2, 381) : mod_draw(6, 1.5, 31, 1, 176);
    char (*names)[40] = calloc(nb, sizeof *names);
    const char **bones = calloc(nb, sizeof *bones);
    uint32_t *idx = calloc(nb, sizeof *idx);
    if (!names || !bones || !idx)
        return 1;
    for (uint32_t b = 0; b < nb; b++) {
        if (b == 0)
            snprintf(names[b], sizeof names[b], "Root");
        else
            snprintf(names[b], sizeof names[b], "Bip01_%s_%02u", parts[b % 17], b);
        bones[b] = names[b];
        idx[b] = b;
    }
    /* the ALO: median 290 KB, p90 1.8 MB, at most 4 MB (144 bytes a vertex, 2 meshes) */
    uint32_t bytes = mod_draw(290e3, 60e3, 1.8e6, 8000, 4000000);
    char name[96];
    snprintf(name, sizeof name, "UM_MOD_%05u.ALO", i);
    int rc = write_model(models, name, bones, nb, 2, bytes / 288, i + 1);
    fprintf(xml, "  <GroundInfantry Name=\"Mod_Unit_%05u\">\n"
                 "    <Land_Model_Name>UM_MOD_%05u.ALO</Land_Model_Name>\n"
                 "  </GroundInfantry>\n", i, i);
    /* about 25 clips per animated model (10 a model over the tree), each with a track for every
     * bone of the skeleton; a few of them still move the bones of an older rig */
    uint32_t clips = animated ? 10 + mod_rand() % 31 : 0;
    for (uint32_t k = 0; k < clips && !rc; k++) {
        const char *saved[2] = { NULL, NULL };
        char old[2][40];
        bool stale = mod_rand() % 20 == 0 && nb > 4; /* 5%: two bones renamed since */
        if (stale)
            for (int r = 0; r < 2; r++) {
                uint32_t b = 1 + (uint32_t)r * (nb / 2);
                snprintf(old[r], sizeof old[r], "Old_%s", names[b]);
                saved[r] = bones[b];
                bones[b] = old[r];
            }
        bool lost = mod_rand() % 50 == 0; /* 2%: for a model the mod does not have */
        snprintf(name, sizeof name, "UM_MOD_%05u%s_%s_%02u.ALA", i, lost ? "_OLD" : "",
                 types[k % 10], k / 10);
        uint32_t frames = 20 + mod_rand() % 100;
        uint32_t moving = 1 + nb / 10 + mod_rand() % (1 + nb / 10); /* most tracks stand still */
        amxw_buf b = { 0 };
        amxw_ala_shaped(&b, 2, frames, 30.0f, nb, bones, idx, moving, i * 1000 + k);
        char *p = join(models, name);
        rc = p ? save(&b, p) : 1;
        free(p);
        if (stale)
            for (int r = 0; r < 2; r++)
                bones[1 + (uint32_t)r * (nb / 2)] = saved[r];
    }
    free(idx);
    free(bones);
    free(names);
    return rc;
}

/* A tree shaped like a real Empire at War mod (facts from 6,000 real files): a flat
 * Data/Art/Models with ALO models (60% static props: median 6 bones; animated ones: bones as
 * clips' tracks, median 73, p10 19, p90 143), ALA clips (median ~15 KB, a track per bone, most
 * tracks still), about 10 clips per model over the tree, the textures and proxies the models name
 * left to the base game, and game object XML naming every model. */
static int cmd_mod(const char *root, uint32_t models, uint32_t seed)
{
    mod_state = 0x9E3779B97F4A7C15ULL ^ ((uint64_t)seed * 0xD1B54A32D192ED03ULL);
    char *dir = join(root, "Data/Art/Models");
    char *xml_path = join(root, "Data/XML/ModUnits.xml");
    if (!dir || !xml_path)
        return 1;
    amxw_buf b = { 0 };
    amxw_bytes(&b, "", 0);
    int rc = save(&b, xml_path); /* creates Data/XML */
    FILE *xml = rc ? NULL : fopen(xml_path, "w");
    if (!xml) {
        free(dir);
        free(xml_path);
        return 1;
    }
    fputs("<?xml version=\"1.0\"?>\n<GroundInfantries>\n", xml);
    for (uint32_t i = 0; i < models && !rc; i++)
        rc = mod_model(dir, i, mod_rand() % 10 < 4, xml);
    fputs("</GroundInfantries>\n", xml);
    rc |= fclose(xml) != 0;
    free(dir);
    free(xml_path);
    return rc ? 1 : 0;
}


/* A W3D hierarchy and an animation that names it, in DIR. */
static int cmd_w3d_pair(const char *dir, const char *name)
{
    static const amxw_w3d_pivot pivots[] = {
        { .name = "ROOTTRANSFORM", .parent = 0xFFFFFFFFu, .rotation = { 0, 0, 0, 1 } },
        { .name = "BODY", .parent = 0, .rotation = { 0, 0, 0, 1 } },
        { .name = "HEAD", .parent = 1, .rotation = { 0, 0, 0, 1 } },
    };
    static const float xs[] = { 0.0f, 0.5f, 1.0f };
    static const amxw_w3d_channel channels[] = {
        { .first = 0, .last = 2, .vector_len = 1, .type = 0, .pivot = 1, .data = xs, .data_count = 3 },
        { .first = 0, .last = 2, .vector_len = 1, .type = 1, .pivot = 2, .data = xs, .data_count = 3 },
    };
    char anim_name[80], file[120];
    snprintf(anim_name, sizeof anim_name, "%.40s.ANIM", name);
    amxw_buf b = { 0 };
    amxw_w3d_hierarchy_write(&b, &(amxw_w3d_hierarchy){ .name = name, .pivots = pivots,
                                                        .pivot_count = 3 }, NULL);
    snprintf(file, sizeof file, "%.60s.w3d", name);
    char *p = join(dir, file);
    int rc = p ? save(&b, p) : 1;
    free(p);
    amxw_w3d_anim_write(&b, &(amxw_w3d_anim){ .name = anim_name, .hierarchy = name, .frames = 3,
                                              .fps = 15, .channels = channels, .channel_count = 2 },
                        NULL);
    snprintf(file, sizeof file, "%.60s_anim.w3d", name);
    p = join(dir, file);
    rc |= p ? save(&b, p) : 1;
    free(p);
    return rc;
}

/* Splits "a,b,c" into an array (the string is modified). */
static uint32_t split(char *s, const char **out, uint32_t max)
{
    uint32_t n = 0;
    for (char *tok = strtok(s, ","); tok && n < max; tok = strtok(NULL, ","))
        out[n++] = tok;
    return n;
}

static const char *opt(int argc, char **argv, const char *name, const char *dflt)
{
    for (int i = 0; i + 1 < argc; i++)
        if (strcmp(argv[i], name) == 0)
            return argv[i + 1];
    return dflt;
}

static uint32_t opt_u32(int argc, char **argv, const char *name, uint32_t dflt)
{
    const char *v = opt(argc, argv, name, NULL);
    return v ? (uint32_t)strtoul(v, NULL, 10) : dflt;
}

/* Reads NAME=SRCFILE members into bufs; returns the count, or -1 (message printed). */
static long read_members(int argc, char **argv, int first, const char **names, amxw_buf *data,
                         size_t max)
{
    size_t n = 0;
    for (int i = first; i < argc && n < max; i++) {
        if (strcmp(argv[i], "--version") == 0) {
            i++;
            continue;
        }
        char *eq = strchr(argv[i], '=');
        if (!eq) {
            die("members are NAME=SRCFILE, got ", argv[i]);
            return -1;
        }
        *eq = '\0';
        FILE *f = fopen(eq + 1, "rb");
        if (!f) {
            die("cannot open ", eq + 1);
            return -1;
        }
        data[n] = (amxw_buf){ 0 };
        char chunk[65536];
        size_t got;
        while ((got = fread(chunk, 1, sizeof chunk, f)) > 0)
            amxw_bytes(&data[n], chunk, got);
        fclose(f);
        names[n++] = argv[i];
    }
    return (long)n;
}

static int cmd_big(int argc, char **argv)
{
    const char *names[256];
    amxw_buf data[256];
    long n = read_members(argc, argv, 3, names, data, 256);
    if (n < 0)
        return 2;
    amxw_big_file files[256];
    for (long i = 0; i < n; i++)
        files[i] = (amxw_big_file){ .name = names[i], .data = data[i].data, .size = data[i].len };
    amxw_buf b = { 0 };
    amxw_big(&b, files, (size_t)n, NULL, NULL);
    for (long i = 0; i < n; i++)
        amxw_buf_free(&data[i]);
    return save(&b, argv[2]);
}

static int cmd_meg(int argc, char **argv)
{
    const char *out = argv[2];
    int version = (int)opt_u32(argc, argv, "--version", 1);
    const char *names[256];
    amxw_buf data[256];
    long got = read_members(argc, argv, 3, names, data, 256);
    if (got < 0)
        return 2;
    size_t n = (size_t)got;
    amxw_meg_file files[256];
    for (size_t i = 0; i < n; i++)
        files[i] = (amxw_meg_file){ names[i], data[i].data, data[i].len };
    amxw_buf b = { 0 };
    amxw_meg(&b, version, files, n);
    for (size_t i = 0; i < n; i++)
        amxw_buf_free(&data[i]);
    return save(&b, out);
}

static int cmd_ala_constant(int argc, char **argv)
{
    uint32_t frames = opt_u32(argc, argv, "--frames", 1000000);
    uint32_t n = opt_u32(argc, argv, "--bones", 1);
    amxw_ala_bone *bones = calloc(n ? n : 1, sizeof *bones);
    char (*names)[16] = calloc(n ? n : 1, sizeof *names);
    if (!bones || !names)
        return die("out of memory", NULL);
    for (uint32_t i = 0; i < n; i++) {
        snprintf(names[i], sizeof names[i], "b%u", i);
        bones[i] = (amxw_ala_bone){ .name = names[i], .index = i,
                                    .default_rotation = { 0, 0, 0, 32767 } };
        for (int k = 0; k < 3; k++)
            bones[i].scale_offset[k] = 1.0f;
    }
    amxw_ala_spec spec = { .format = 2, .frames = frames, .fps = 30.0f, .bones = bones,
                           .bone_count = n };
    amxw_buf b = { 0 };
    amxw_ala(&b, &spec);
    free(bones);
    free(names);
    return save(&b, argv[2]);
}

static int cmd_tree(int argc, char **argv)
{
    uint32_t n = opt_u32(argc, argv, "--bones", 2000), k = opt_u32(argc, argv, "--clips", 50);
    amxw_buf b = { 0 };
    amxw_alo_simple(&b, n, NULL, 1, 8, 1); /* bones "Root", "Bone_01", ... */
    char *p = join(argv[2], "TREE.ALO");
    int rc = p ? save(&b, p) : 1;
    free(p);
    for (uint32_t c = 0; c < k && rc == 0; c++) {
        char name[64];
        snprintf(name, sizeof name, "TREE_IDLE_%02u.ALA", c);
        /* bones "bone_00", "bone_01", ...: all but the root match (names are case-blind) */
        rc = write_clip(argv[2], name, 2, 2, 30.0f, NULL, NULL, n, c + 1);
    }
    return rc;
}

/* A W3D model file: hierarchy NAME (ROOTTRANSFORM, the pivots `pivots`, comma-separated, and
 * `extra` more named BONE00000, BONE00001, ...) and an HLOD NAME on it with the sub-object
 * NAME.BODY and `extra` more NAME.SUB00000, ... (SAGE INI tests: Model = NAME; the bomb set:
 * a model with thousands of bones and sub-objects). */
static int cmd_w3d_model(const char *file, const char *name, const char *pivots, uint32_t extra)
{
    if (extra > 1000000)
        extra = 1000000;
    size_t cap = 32 + (size_t)extra;
    amxw_w3d_pivot *piv = calloc(cap, sizeof *piv);
    char (*names)[32] = calloc(cap, sizeof *names);
    amxw_w3d_sub_object *so = calloc(1 + (size_t)extra, sizeof *so);
    char (*subs)[40] = calloc(1 + (size_t)extra, sizeof *subs);
    if (!piv || !names || !so || !subs) {
        free(piv);
        free(names);
        free(so);
        free(subs);
        return 1;
    }
    piv[0] = (amxw_w3d_pivot){ .name = "ROOTTRANSFORM", .parent = 0xFFFFFFFFu,
                               .rotation = { 0, 0, 0, 1 } };
    uint32_t n = 1;
    for (const char *p = pivots; p && *p && n < 32;) {
        size_t len = strcspn(p, ",");
        snprintf(names[n], sizeof names[n], "%.*s", (int)(len < 31 ? len : 31), p);
        piv[n] = (amxw_w3d_pivot){ .name = names[n], .parent = 0, .rotation = { 0, 0, 0, 1 } };
        n++;
        p += len + (p[len] == ',');
    }
    for (uint32_t i = 0; i < extra; i++, n++) {
        snprintf(names[n], sizeof names[n], "BONE%05u", (unsigned)i);
        piv[n] = (amxw_w3d_pivot){ .name = names[n], .parent = 0, .rotation = { 0, 0, 0, 1 } };
    }
    snprintf(subs[0], sizeof subs[0], "%.15s.BODY", name);
    so[0] = (amxw_w3d_sub_object){ .name = subs[0], .bone = 0 };
    for (uint32_t i = 0; i < extra; i++) {
        snprintf(subs[i + 1], sizeof subs[i + 1], "%.15s.SUB%05u", name, (unsigned)i);
        so[i + 1] = (amxw_w3d_sub_object){ .name = subs[i + 1], .bone = 0 };
    }
    amxw_w3d_lod lod = { .max_screen_size = 1, .objects = so, .object_count = 1 + extra };
    amxw_buf b = { 0 };
    amxw_w3d_hierarchy_write(&b, &(amxw_w3d_hierarchy){ .name = name, .pivots = piv,
                                                        .pivot_count = n }, NULL);
    amxw_w3d_hlod_write(&b, &(amxw_w3d_hlod){ .name = name, .hierarchy = name, .lods = &lod,
                                              .lod_count = 1 }, NULL);
    free(piv);
    free(names);
    free(so);
    free(subs);
    return save(&b, file);
}

int main(int argc, char **argv)
{
    if (argc < 3) {
        fputs("usage: amxgen demo DIR | assets DIR | bench DIR [--models N] [--vertices V] [--seed S]\n"
              "       amxgen mod DIR [--models N] [--seed S]\n"
              "       amxgen w3d-pair DIR [--name H]\n"
              "       amxgen w3d-model FILE --name NAME [--pivots a,b,c] [--extra N]\n"
              "       amxgen model FILE --bones a,b,c [--meshes N] [--vertices V]\n"
              "       amxgen clip FILE --bones a,b,c [--indices 0,1,2] [--format 1|2] [--frames F] [--fps R]\n"
              "       amxgen particle FILE NAME [--emitters N]\n"
              "       amxgen mp-pak FILE\n"
              "       amxgen big FILE NAME=SRCFILE...\n"
              "       amxgen meg FILE [--version 1|2|3] NAME=SRCFILE...\n"
              "       amxgen ala-constant FILE [--frames N] [--bones K]\n"
              "       amxgen tree DIR [--bones N] [--clips K]\n",
              stderr);
        return 2;
    }
    const char *cmd = argv[1];
    if (strcmp(cmd, "demo") == 0)
        return cmd_demo(argv[2]);
    if (strcmp(cmd, "assets") == 0)
        return cmd_assets(argv[2]);
    if (strcmp(cmd, "bench") == 0)
        return cmd_bench(argv[2], opt_u32(argc, argv, "--models", 1500),
                         opt_u32(argc, argv, "--vertices", 400), opt_u32(argc, argv, "--seed", 1),
                         opt_u32(argc, argv, "--bad", 0));
    if (strcmp(cmd, "w3d-pair") == 0)
        return cmd_w3d_pair(argv[2], opt(argc, argv, "--name", "SKL"));
    if (strcmp(cmd, "w3d-model") == 0)
        return cmd_w3d_model(argv[2], opt(argc, argv, "--name", "MODEL"),
                             opt(argc, argv, "--pivots", ""), opt_u32(argc, argv, "--extra", 0));
    if (strcmp(cmd, "mod") == 0)
        return cmd_mod(argv[2], opt_u32(argc, argv, "--models", 300), opt_u32(argc, argv, "--seed", 1));
    if (strcmp(cmd, "meg") == 0)
        return cmd_meg(argc, argv);
    if (strcmp(cmd, "ala-constant") == 0)
        return cmd_ala_constant(argc, argv);
    if (strcmp(cmd, "tree") == 0)
        return cmd_tree(argc, argv);
    if (strcmp(cmd, "big") == 0)
        return cmd_big(argc, argv);
    if (strcmp(cmd, "mp-pak") == 0) {
        amxw_buf b = { 0 };
        write_mp_pak(&b);
        return save(&b, argv[2]);
    }
    if (strcmp(cmd, "particle") == 0) {
        if (argc < 4)
            return die("particle FILE NAME", NULL);
        amxw_buf b = { 0 };
        amxw_alo_particle(&b, argv[3], opt_u32(argc, argv, "--emitters", 1), false);
        return save(&b, argv[2]);
    }
    const char *bones_arg = opt(argc, argv, "--bones", NULL);
    if (!bones_arg)
        return die(cmd, ": --bones a,b,c is needed");
    char *bones_buf = strdup(bones_arg);
    const char *bones[256];
    uint32_t nb = bones_buf ? split(bones_buf, bones, 256) : 0;
    int rc;
    if (strcmp(cmd, "model") == 0) {
        amxw_buf b = { 0 };
        amxw_alo_simple(&b, nb, bones, opt_u32(argc, argv, "--meshes", 1),
                        opt_u32(argc, argv, "--vertices", 24), opt_u32(argc, argv, "--seed", 1));
        rc = save(&b, argv[2]);
    } else if (strcmp(cmd, "clip") == 0) {
        uint32_t idx[256];
        for (uint32_t i = 0; i < nb; i++)
            idx[i] = i;
        const char *ia = opt(argc, argv, "--indices", NULL);
        if (ia) {
            char *ib = strdup(ia);
            const char *parts[256];
            uint32_t k = ib ? split(ib, parts, 256) : 0;
            for (uint32_t i = 0; i < k && i < nb; i++)
                idx[i] = (uint32_t)strtoul(parts[i], NULL, 10);
            free(ib);
        }
        const char *fps = opt(argc, argv, "--fps", "30");
        amxw_buf b = { 0 };
        amxw_ala_simple(&b, (int)opt_u32(argc, argv, "--format", 2), opt_u32(argc, argv, "--frames", 30),
                        strtof(fps, NULL), nb, bones, idx, opt_u32(argc, argv, "--seed", 1));
        rc = save(&b, argv[2]);
    } else {
        rc = die("unknown command ", cmd);
    }
    free(bones_buf);
    return rc;
}
