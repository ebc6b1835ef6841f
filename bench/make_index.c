/*
 * make_index: writes a large index directly, for bench/query_bench.sh: N models (each an Alamo
 * skeleton of B bones) and K clips per model with a track per bone, through the index's own
 * write path (amx__db_put) and link pass, so the rows are those a scan would write, without
 * files to read or decode. One clip in ten was exported against an older rig (two bones
 * renamed: BONE_NOT_IN_SKELETON findings), one in a hundred has a decoder finding.
 *
 *   make_index DB [--models N] [--clips K] [--bones B]
 *
 * The root is "/bench/Data" (it need not exist; never scan it: the sweep would empty it).
 */
#include "db_internal.h"

#include "animidx/index.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const types[] = { "IDLE", "MOVE", "ATTACK", "DIE", "DEPLOY",
                                     "UNDEPLOY", "SPECIAL", "SELECTED", "TURNL", "TURNR" };

static unsigned long opt(int argc, char **argv, const char *name, unsigned long dflt)
{
    for (int i = 2; i + 1 < argc; i++)
        if (strcmp(argv[i], name) == 0)
            return strtoul(argv[i + 1], NULL, 10);
    return dflt;
}

static int fail(const char *what, const char *err)
{
    fprintf(stderr, "make_index: %s: %s\n", what, err);
    return 1;
}

int main(int argc, char **argv)
{
    if (argc < 2 || argv[1][0] == '-') {
        fputs("usage: make_index DB [--models N] [--clips K] [--bones B]\n", stderr);
        return 2;
    }
    unsigned long models = opt(argc, argv, "--models", 100000);
    unsigned long clips = opt(argc, argv, "--clips", 10);
    unsigned long nb = opt(argc, argv, "--bones", 20);
    if (nb < 3 || nb > 1000 || clips > 100) {
        fputs("make_index: --bones 3..1000, --clips 0..100\n", stderr);
        return 2;
    }
    char err[1024];
    amx_db *db = NULL;
    if (amx_db_open(argv[1], 0, &db, err, sizeof err) != AMX_OK)
        return fail(argv[1], err);
    int64_t root = 0;
    if (amx__db_begin(db, err, sizeof err) ||
        amx__db_root_id(db, "/bench/Data", "target", &root, err, sizeof err) ||
        amx__db_commit(db, err, sizeof err))
        return fail("root", err);

    char (*names)[32] = calloc(nb, sizeof *names);
    amx_bone *bones = calloc(nb, sizeof *bones);
    amx_track *tracks = calloc(nb, sizeof *tracks);
    if (!names || !bones || !tracks)
        return fail("memory", "out of memory");
    for (unsigned long b = 0; b < nb; b++) {
        snprintf(names[b], sizeof names[b], b ? "Bip01_Bone_%03lu" : "Root", b);
        bones[b] = (amx_bone){ .name = names[b], .parent = b ? 0 : -1 };
    }
    char path[256], name[64], model[32], renamed[2][32];
    unsigned long files = 0;
    if (amx__db_begin(db, err, sizeof err))
        return fail("begin", err);
    for (unsigned long m = 0; m < models; m++) {
        snprintf(model, sizeof model, "M_%06lu", m);
        snprintf(path, sizeof path, "Art/Models/set_%04lu/%s.ALO", m / 100, model);
        amx_skeleton sk = { .name = model, .bones = bones, .bone_count = (uint32_t)nb };
        amx_asset a = { .format = AMX_FMT_ALAMO_ALO, .version = "", .skeletons = &sk,
                        .skeleton_count = 1 };
        amx__file_meta meta = { .root_id = root, .path = path, .size = 300000, .mtime_ns = 1 };
        int64_t id;
        if (amx__db_put(db, &meta, &a, NULL, &id, err, sizeof err))
            return fail(path, err);
        if (++files % 5000 == 0 && (amx__db_commit(db, err, sizeof err) ||
                                    amx__db_begin(db, err, sizeof err)))
            return fail("commit", err);
        for (unsigned long k = 0; k < clips; k++) {
            unsigned long serial = m * clips + k;
            snprintf(name, sizeof name, "%s_%s_%02lu", model, types[k % 10], k / 10);
            snprintf(path, sizeof path, "Art/Models/set_%04lu/%s.ALA", m / 100, name);
            for (unsigned long b = 0; b < nb; b++)
                tracks[b] = (amx_track){ .bone = names[b], .bone_index = (int32_t)b,
                                         .channels = AMX_CH_ROTATION | (b % 2 ? 0 : AMX_CH_TRANSLATION),
                                         .offset = (int64_t)(100 + 150 * b) };
            if (serial % 10 == 3) /* exported against an older rig */
                for (int r = 0; r < 2; r++) {
                    snprintf(renamed[r], sizeof renamed[r], "Old_Bone_%d", r);
                    tracks[1 + r * (nb / 2)].bone = renamed[r];
                }
            amx_clip c = { .name = name, .skeleton = model, .has_frames = true, .frames = 30,
                           .fps = 30.0f, .duration = 1.0, .tracks = tracks,
                           .track_count = (uint32_t)nb };
            amx_finding f = { .code = AMX_C_SIZE_MISMATCH, .severity = AMX_SEV_WARNING,
                              .offset = 64, .message = "mini 5 has 2 bytes, expected 4",
                              .context = "bone 1" };
            amx_asset ca = { .format = AMX_FMT_ALAMO_ALA, .version = "2", .clips = &c,
                             .clip_count = 1, .findings = &f,
                             .finding_count = serial % 100 == 7 };
            meta.path = path;
            meta.size = 15000;
            if (amx__db_put(db, &meta, &ca, NULL, &id, err, sizeof err))
                return fail(path, err);
            if (++files % 5000 == 0 && (amx__db_commit(db, err, sizeof err) ||
                                        amx__db_begin(db, err, sizeof err)))
                return fail("commit", err);
        }
        if (m % 10000 == 9999)
            fprintf(stderr, "make_index: %lu models, %lu files\n", m + 1, files);
    }
    if (amx__db_commit(db, err, sizeof err))
        return fail("commit", err);
    uint64_t linked = 0;
    if (amx_link(db, &linked, err, sizeof err) != AMX_OK)
        return fail("link pass", err);
    fprintf(stderr, "make_index: %lu files, %llu clips linked\n", files, (unsigned long long)linked);
    amx_db_close(db);
    free(tracks);
    free(bones);
    free(names);
    return 0;
}
