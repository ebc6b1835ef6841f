/*
 * animidx: decode, validate and index game animation and model files.
 *
 * The decoder contract (one for every format):
 *   - amx_decode() takes a borrowed byte span; it never reads outside it and never writes to it;
 *   - it returns an owned amx_asset (free with amx_asset_free) that never points into the span;
 *   - problems are findings (code, severity, message, byte offset, context) in the asset;
 *   - it never prints, never aborts, and never allocates more than the file can justify.
 *
 * Everything in this header is safe to call from several threads at once on different data:
 * the library has no mutable global state.
 */
#ifndef ANIMIDX_H
#define ANIMIDX_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "animidx/os.h"

#ifdef __cplusplus
extern "C" {
#endif

#define AMX_VERSION_STRING "0.1.0"
/* Version of the JSON output contract (docs/json.md). */
#define AMX_JSON_SCHEMA 1

/* Result of an operation. Decoding problems in the data are findings, not statuses: a decode of
 * a corrupt file returns AMX_OK with asset->status == AMX_ASSET_ERROR and findings saying why. */
typedef enum amx_status {
    AMX_OK = 0,
    AMX_E_NOMEM,       /* an allocation failed */
    AMX_E_LIMIT,       /* a limit of amx_decode_opts was hit */
    AMX_E_INVALID_ARG, /* a NULL where a value is needed, or a bad option */
    AMX_E_IO,          /* reading or writing a file failed (errno in the message) */
    AMX_E_DB,          /* the SQLite index failed */
    AMX_E_CANCELLED,   /* the caller asked the operation to stop (amx_scan_opts.cancelled) */
} amx_status;

const char *amx_status_str(amx_status st);

typedef enum amx_severity {
    AMX_SEV_INFO = 0,
    AMX_SEV_WARNING = 1,
    AMX_SEV_ERROR = 2,
    AMX_SEV_OFF = 3, /* only in severity overrides: the code is ignored */
} amx_severity;

const char *amx_severity_name(amx_severity sev); /* "info", "warning", "error", "off" */
bool amx_severity_parse(const char *s, amx_severity *out);

/* Issue codes. Stable: they are part of the JSON/SARIF contract (docs/rules.md). */
typedef enum amx_code {
    AMX_C_TRUNCATED,
    AMX_C_CHUNK_OVERRUN,
    AMX_C_BAD_MAGIC,
    AMX_C_UNKNOWN_CHUNK,
    AMX_C_MISSING_CHUNK,
    AMX_C_COUNT_MISMATCH,
    AMX_C_SIZE_MISMATCH,
    AMX_C_INDEX_OUT_OF_RANGE,
    AMX_C_BAD_VALUE,
    AMX_C_TRAILING_DATA,
    AMX_C_SKELETON_NOT_FOUND,
    AMX_C_BONE_NOT_IN_SKELETON,
    AMX_C_BONE_INDEX_MISMATCH,
    AMX_C_APC_BAD_TYPE,
    AMX_C_APC_BAD_FLAG,
    AMX_C_APC_ANIM_OPTIONAL,
    AMX_C_APC_MIN_EXCEEDS_COUNT,
    AMX_C_APC_NAME_INVALID,
    AMX_C_PARTICLE_NAME_MISMATCH,
    AMX_C_ARCHIVE_CRC_MISMATCH,
    AMX_C_ARCHIVE_UNSORTED,
    AMX_C_ARCHIVE_DUPLICATE,
    AMX_C_UNSUPPORTED,
    AMX_C_LIMIT_EXCEEDED,
    AMX_C_IO_ERROR,
    AMX_C_FILE_VANISHED,
    AMX_C_DIRECTORY_LOOP,
    AMX_C_NOT_RECOGNISED,
    AMX_C_CLIP_NOT_LOADED_BY_NAME,
    AMX_C_XML_MALFORMED,
    AMX_C_DUPLICATE_NAME,
    AMX_C_REFERENCE_NOT_FOUND,
    AMX_C_REFERENCE_WRONG_KIND,
    AMX_C_REFERENCE_EMPTY,
    AMX_C_REFERENCE_PATH_TOO_LONG,
    AMX_C_ARCHIVE_CRC_COLLISION,
    AMX_C_MEMBER_SHADOWED,
    AMX_C_ARCHIVE_OVERLAP,
    AMX_C_ANIMATION_NOT_REACHED,
    AMX_C_INI_MALFORMED,
    AMX_C_W3D_NAME_TOO_LONG,
    AMX_C_ANIMATION_HIERARCHY_MISMATCH,
    AMX_C_MODEL_BONE_NOT_FOUND,
    AMX_C_LINK_NOT_FOLLOWED,
    AMX_C_REFERENCE_UNUSABLE,
    AMX_C_XML_NOT_LISTED,
    AMX_C_DUPLICATE_OBJECT,
    AMX_CODE_COUNT
} amx_code;

typedef struct amx_code_info {
    const char *name;          /* "BONE_NOT_IN_SKELETON" */
    amx_severity severity;     /* default severity */
    const char *summary;       /* one line: what it means */
    const char *help;          /* how to fix it */
} amx_code_info;

const amx_code_info *amx_code_get(amx_code code);         /* NULL when out of range */
bool amx_code_parse(const char *name, amx_code *out);     /* case-insensitive */

/* Formats, told from the content (amx_probe), never from the file extension. */
typedef enum amx_format {
    AMX_FMT_UNKNOWN = 0,
    AMX_FMT_ALAMO_ALO,
    AMX_FMT_ALAMO_PARTICLE,
    AMX_FMT_ALAMO_ALA,
    AMX_FMT_MEG,
    AMX_FMT_MW3_ANIM,
    AMX_FMT_W3D,
    AMX_FMT_BIG,
    AMX_FMT_MP_ANIM,
    AMX_FMT_MP_CINF,
    AMX_FMT_MP_ANCS,
    AMX_FMT_MP_PAK,
    AMX_FMT_ALAMO_XML,       /* Empire at War game object XML (Data/XML) */
    AMX_FMT_SAGE_INI,        /* Generals / Zero Hour / BFME INI (Data/INI) */
    AMX_FORMAT_COUNT
} amx_format;

const char *amx_format_name(amx_format fmt); /* "alamo-alo", ..., "unknown" */
bool amx_format_parse(const char *name, amx_format *out);
/* Version of the decoder for a format; the index re-decodes a format's files when it changes.
 * For AMX_FMT_UNKNOWN, a version of the registry's probes (it changes when a format is added). */
int amx_format_decoder_version(amx_format fmt);
/* True when the format's clips target a skeleton the index should find (false for MechWarrior 3
 * definitions, which animate world nodes named by their anim root). */
bool amx_format_clips_bind(amx_format fmt);
/* True when the format is an archive whose members are decoded like loose files. */
bool amx_format_is_archive(amx_format fmt);

/* True when the path's extension is one of a known format's (".ALO", ".meg", ...). Only used to
 * tell a misnamed or foreign file (a finding) from a file of another kind (skipped). */
bool amx_extension_known(const char *path);

/* Detects the format of a file from its first bytes (and its length). Never reads past len. */
amx_format amx_probe(const uint8_t *data, size_t len);
/* True when amx_probe says unknown for data[0..len), a prefix of a file, and a longer prefix
 * (at most AMX_PROBE_TEXT_BYTES) could say otherwise: a text whose first block comes after a
 * long comment header, or whose End line comes later. */
#define AMX_PROBE_TEXT_BYTES 65536
bool amx_probe_wants_more(const uint8_t *data, size_t len);

/* ---- the decoded asset (read-only views; every pointer is owned by the asset) ---- */

typedef struct amx_finding {
    amx_code code;
    amx_severity severity; /* the code's default severity, or the decoder's choice */
    int64_t offset;        /* byte offset in the file, -1 when none applies */
    const char *message;   /* never NULL */
    const char *context;   /* logical location, e.g. "bone 2", "mesh 'HULL' submesh 0"; never NULL */
} amx_finding;

typedef struct amx_bone {
    const char *name;
    int32_t parent;       /* index of the parent in the same skeleton, -1 for a root */
    uint32_t visible;
    uint32_t billboard;   /* Alamo billboard mode (0 = none) */
    float matrix[12];     /* 3 rows x 4 columns, row-major, as stored */
    int32_t id;           /* the format's bone id, when has_bone_ids (Metroid Prime CINF) */
} amx_bone;

typedef struct amx_skeleton {
    const char *name;
    amx_bone *bones;
    uint32_t bone_count;
    bool has_bone_ids;    /* tracks name bones by amx_bone.id rather than by index */
} amx_skeleton;

/* Which clips a skeleton plays, when a file says so (Metroid Prime ANCS character sets): the
 * index binds each listed clip to the skeleton, by name. */
typedef struct amx_anim_set {
    const char *name;         /* e.g. the character's name */
    const char *skeleton;     /* the skeleton's name (a CINF asset id, "%08X") */
    const char **clips;       /* clip names (ANIM asset ids, "%08X") */
    uint32_t clip_count;
} amx_anim_set;

enum {
    AMX_CH_TRANSLATION = 1u << 0,
    AMX_CH_ROTATION = 1u << 1,
    AMX_CH_SCALE = 1u << 2,
    AMX_CH_VISIBILITY = 1u << 3,
    AMX_CH_STEP = 1u << 4,
};

typedef struct amx_track {
    const char *bone;       /* bone name, NULL when the format stores only an index or id */
    int32_t bone_index;     /* index or id as the format defines it */
    uint32_t channels;      /* AMX_CH_* bits of the channels the file animates */
    int64_t offset;         /* byte offset of the track's record in the file (-1 unknown) */
    /* Per-frame samples, present only when amx_decode_opts.samples is set and the clip's frame
     * count is known; each array has clip->frames entries (translation/scale 3 floats, rotation
     * 4 floats x,y,z,w, visibility/step 1 byte each). Channels the file does not animate are
     * filled with the format's rest value. */
    float *translation;
    float *rotation;
    float *scale;
    uint8_t *visibility;
    uint8_t *step;          /* NULL when the file has no step data for this track */
} amx_track;

typedef struct amx_clip {
    const char *name;
    const char *skeleton;   /* the skeleton the clip targets, as stated or by convention; may be NULL */
    bool has_frames;        /* false for formats without a frame count (MW3) */
    uint32_t frames;
    float fps;
    double duration;        /* seconds */
    amx_track *tracks;
    uint32_t track_count;
    bool has_samples;       /* the tracks carry samples */
    bool has_root_bone;     /* the clip names its root bone (Metroid Prime); checked against
                             * the skeleton like a track */
    int32_t root_bone;
    const struct amx_mw3_def *mw3; /* MechWarrior 3 animation definitions (animidx/mw3.h), else NULL */
} amx_clip;

enum { AMX_PARAM_INT = 2, AMX_PARAM_FLOAT, AMX_PARAM_FLOAT3, AMX_PARAM_TEXTURE, AMX_PARAM_FLOAT4 };

typedef struct amx_shader_param {
    const char *name;
    uint32_t type;          /* AMX_PARAM_*, matching the Alamo chunk ids 0x10102..0x10106 */
    int32_t i;              /* INT */
    float f[4];             /* FLOAT (f[0]), FLOAT3, FLOAT4 */
    const char *texture;    /* TEXTURE */
} amx_shader_param;

typedef struct amx_submesh {
    const char *shader;     /* shader file of the sub-mesh material, e.g. "MeshBumpColorize.fx" */
    amx_shader_param *params;
    uint32_t param_count;
    uint32_t vertices;
    uint32_t triangles;
    const char *vertex_format;
    uint32_t vertex_stride; /* 144 (0x10007) or 128 (0x10005), 0 when no vertex buffer */
    uint32_t *skin_bones;   /* 0x10006 skin mapping: skeleton bone indices */
    uint32_t skin_bone_count;
    bool has_collision;
    uint32_t collision_nodes;
    uint32_t collision_triangles;
} amx_submesh;

typedef struct amx_mesh {
    const char *name;
    uint32_t material_count; /* nMaterials as declared in 0x402 */
    float bbox_min[3], bbox_max[3];
    bool hidden;
    bool collision;
    amx_submesh *submeshes;
    uint32_t submesh_count;
} amx_mesh;

typedef struct amx_light {
    const char *name;
    uint32_t type;           /* 0 omni, 1 directional, 2 spot */
    float color[3];
    float intensity, far_atten_end, far_atten_start, hotspot, falloff;
} amx_light;

typedef struct amx_object_conn { uint32_t object, bone; } amx_object_conn;

typedef struct amx_proxy {
    const char *name;
    uint32_t bone;
    bool hidden;
    bool alt_decrease_stay_hidden;
} amx_proxy;

typedef struct amx_dazzle {
    const char *name;
    const char *texture;
    uint32_t bone;
    float color[3];
    float position[3];
    float radius;
    bool hidden;
} amx_dazzle;

typedef struct amx_model {
    amx_mesh *meshes;
    uint32_t mesh_count;
    amx_light *lights;
    uint32_t light_count;
    amx_object_conn *connections;
    uint32_t connection_count;
    amx_proxy *proxies;
    uint32_t proxy_count;
    amx_dazzle *dazzles;
    uint32_t dazzle_count;
    /* totals over all sub-meshes, for summaries */
    uint32_t total_vertices;
    uint32_t total_triangles;
} amx_model;

/* A model built on a skeleton it names (W3D HLODs and HMODELs name their hierarchy): the index
 * checks that the skeleton exists and that the bones the model uses fit it. */
typedef struct amx_skeleton_ref {
    const char *what;        /* e.g. "HLOD 'AUELLADAN'" */
    const char *skeleton;    /* the skeleton's name */
    uint32_t bones_used;     /* 1 + the highest bone index the model uses; 0 when none */
    int64_t offset;
} amx_skeleton_ref;

/* A game object of an XML file (<SpaceUnit Name="X">...</SpaceUnit>, a direct child of the
 * root element with a Name attribute), or of a SAGE INI file (Object X ... End; ObjectReskin and
 * ChildObject name the object they copy in variant_of). */
typedef struct amx_game_object {
    const char *type;        /* the element: "SpaceUnit", "GroundInfantry", "HardPoint"; INI: the
                              * block, "Object", "ObjectReskin", "ChildObject" */
    const char *name;        /* its Name attribute, trimmed */
    const char *variant_of;  /* Variant_Of_Existing_Type, trimmed; NULL when absent */
    uint32_t line;           /* 1-based line of the element */
} amx_game_object;

/* A state of a SAGE INI draw module (docs/formats/sage-ini.md): what the object draws in it, after
 * the default state's inheritance. */
typedef struct amx_ini_state {
    int32_t object;          /* index into asset->objects */
    const char *module;      /* the draw module: "W3DModelDraw ModuleTag_01" */
    const char *kind;        /* "DefaultConditionState", "ConditionState", "TransitionState",
                              * "DefaultModelConditionState", "ModelConditionState",
                              * "AnimationState", "IdleAnimationState" */
    const char *flags;       /* the condition flags (or transition states) as written */
    const char *model;       /* the model it draws, "" for none */
    uint32_t line;           /* 1-based line of the state */
} amx_ini_state;

/* What a reference expects to find (the kind of the file it names). */
typedef enum amx_ref_kind {
    AMX_REF_MODEL,           /* a model (.ALO with a skeleton), e.g. GUI_Model_Name */
    AMX_REF_ANIM_OVERRIDE,   /* another model whose animation set a game object plays: the engine
                              * loads <override>_<TYPE>_<NN>.ALA for the object's model; "" clears
                              * an inherited override */
    AMX_REF_MODEL_OR_PARTICLE, /* an .ALO of either kind, never an animation (Land_Model_Name) */
    AMX_REF_PARTICLE,        /* a particle system (ALO proxies) */
    AMX_REF_TEXTURE,         /* a texture (ALO materials, dazzles and particles; W3D meshes) */
    AMX_REF_SHADER,          /* an Alamo shader (.fx) */
    AMX_REF_W3D_MODEL,       /* a W3D render object (INI Model = X): <X up to its first '.'>.w3d
                              * must hold an HLOD or mesh named X */
    AMX_REF_W3D_ANIMATION,   /* a W3D animation H.A: A.w3d must hold animation A of hierarchy H */
    AMX_REF_BONE,            /* a bone or sub-object of the state's model, by the engine's rules
                              * (NAME, NAME01..., then a sub-object; weapon bones NAME01 first) */
    AMX_REF_SUB_OBJECT,      /* a sub-object of the state's model (Show/HideSubObject) */
    AMX_REF_PARTICLE_BONE,   /* a bone of the state's model, exactly (ParticleSysBone) */
    AMX_REF_INCLUDE,         /* an INI file (#include "path", relative to the file) */
    AMX_REF_INI_OBJECT,      /* an INI game object an ObjectReskin or ChildObject copies, which
                              * must be defined before it */
    AMX_REF_XML_FILE,        /* an XML file a list file names (a <File> of GameObjectFiles.xml,
                              * HardPointDataFiles.xml, ...): DATA/XML/<the entry> */
    AMX_REF_KIND_COUNT
} amx_ref_kind;

/* "model", "anim-override", "model-or-particle", "particle", "texture", "shader", "w3d-model",
 * "w3d-animation", "bone", "sub-object", "particle-bone", "include", "object", "xml-file". */
const char *amx_ref_kind_name(amx_ref_kind kind);
bool amx_ref_kind_parse(const char *name, amx_ref_kind *out);

/* A file named by this one. */
typedef struct amx_ref {
    amx_ref_kind kind;
    const char *name;        /* as written, trimmed; may be "" */
    const char *tag;         /* where: the XML tag, e.g. "Land_Model_Name" */
    int32_t object;          /* the game object (index into asset->objects) or -1 */
    uint32_t line;           /* 1-based line in a text file, 0 when none */
    int64_t offset;          /* byte offset in a binary file, -1 when none */
    int32_t state;           /* INI: the draw state (index into asset->states) or -1 */
    const char *model;       /* INI animations and bones: the model they are checked against
                              * (the state's model); NULL otherwise */
    const char *slot;        /* INI weapon barrel bones (WeaponFireFXBone, WeaponRecoilBone,
                              * WeaponMuzzleFlash, WeaponLaunchBone): "SLOT NAME...", the weapon
                              * slot and the state's barrel bone names of that slot, which the
                              * engine looks up together; NULL otherwise */
} amx_ref;

typedef struct amx_particle {
    const char *name;        /* the internal name (chunk 0x0) */
    uint32_t emitter_count;
} amx_particle;

typedef struct amx_archive_entry {
    const char *name;        /* as stored, '/'-separated, e.g. "DATA/ART/MODELS/X.ALO" */
    uint64_t offset;         /* absolute offset of the member's data in the archive file */
    uint64_t size;           /* stored bytes */
    bool valid;              /* offset and size lie inside the archive */
    bool compressed;         /* the stored bytes must be unpacked (amx_archive_member) */
    uint64_t unpacked_size;  /* when compressed: the declared size once unpacked */
} amx_archive_entry;

typedef struct amx_archive {
    amx_archive_entry *entries;
    uint32_t entry_count;
} amx_archive;

typedef enum amx_asset_status {
    AMX_ASSET_OK = 0,     /* decoded completely */
    AMX_ASSET_PARTIAL,    /* decoded, with recoverable damage */
    AMX_ASSET_ERROR,      /* could not be decoded; the findings say why */
} amx_asset_status;

const char *amx_asset_status_name(amx_asset_status st); /* "ok", "partial", "error" */

typedef struct amx_asset {
    amx_format format;
    const char *version;     /* format variant, e.g. "2" for ALA format 2; "" when unknown */
    amx_asset_status status;
    amx_skeleton *skeletons;
    uint32_t skeleton_count;
    amx_clip *clips;
    uint32_t clip_count;
    amx_model *model;        /* ALO models */
    amx_particle *particle;  /* ALO particle systems */
    amx_archive *archive;    /* archives (MEG, BIG, PAK) */
    amx_anim_set *anim_sets; /* Metroid Prime ANCS: which clips each character's skeleton plays */
    uint32_t anim_set_count;
    amx_skeleton_ref *skeleton_refs; /* models built on a named skeleton (W3D HLOD, HMODEL) */
    uint32_t skeleton_ref_count;
    const struct amx_w3d_info *w3d; /* W3D meshes, HLODs, HMODELs (animidx/w3d.h), else NULL */
    const struct amx_mp_info *mp;   /* Metroid Prime details: ANIM descriptors, CINF, ANCS
                                     * characters (animidx/mp.h), else NULL */
    const struct amx_mw3_file *mw3; /* MechWarrior 3 anim.zbd file-level data: TOC, gravity,
                                     * info counts (animidx/mw3.h), else NULL */
    amx_game_object *objects; /* XML and INI game objects */
    uint32_t object_count;
    amx_ini_state *states;   /* INI draw states, in file order */
    uint32_t state_count;
    amx_ref *refs;           /* files this one names: XML model tags and animation overrides, ALO
                              * textures, shaders and proxies, particle textures, W3D textures */
    uint32_t ref_count;
    amx_finding *findings;
    uint32_t finding_count;
    uint32_t findings_dropped; /* findings beyond amx_decode_opts.max_findings, counted only;
                                * the cap keeps the most severe ones (a finding is dropped only
                                * for one at least as severe) */
    uint32_t findings_dropped_by_severity[3]; /* of those: info, warning, error */
    struct amx_arena *arena_;  /* private */
} amx_asset;

/* Options; zero-initialised means defaults. */
typedef struct amx_decode_opts {
    bool samples;            /* evaluate every channel at every frame (amx_track samples) */
    const char *file_name;   /* the file's name (may include directories); used for naming
                              * conventions: ALA clip and skeleton names, particle name check */
    size_t max_memory;       /* 0 = 256 MiB + 16 x the file size: memory one decode may use */
    uint32_t max_findings;   /* 0 = 200: findings kept per file (the rest are counted; the
                              * most severe are kept) */
    amx_format format;       /* AMX_FMT_UNKNOWN = probe the content */
    const char *game;        /* "mp1" / "mp2": which game a Metroid Prime file is from (the
                              * files carry no marker); NULL = detect from the structure */
    bool unpack_later;       /* archives with compressed members: check only the members'
                              * headers (and charge the unpack budget); the caller inflates each
                              * member once, with amx_archive_entry_bytes, which reports a damaged
                              * stream. Without it the decode inflates each distinct member once
                              * (the output discarded) to check it. */
    uint32_t max_sample_frames; /* with samples: a clip of more frames is not sampled (an info
                              * LIMIT_EXCEEDED finding says so); 0 = AMX_SAMPLE_FRAMES,
                              * UINT32_MAX = no limit */
    /* Polled from the decoding thread while a long input is read (the XML reader asks every
     * 64 KiB): returning true stops the decode, and amx_decode returns AMX_E_CANCELLED. NULL:
     * never. */
    bool (*cancelled)(void *user);
    void *cancel_user;
    /* BFME INI: the text of an `#include "PATH"` inside a block, read in place as the game does
     * (OpenSAGE IniParser.ParseIncludedFile), so that a draw-module fragment's states,
     * animations and models are checked on the object that includes it. `from` is the file the
     * line is in: file_name, or a path this function gave in `resolved` earlier; `path` is as
     * written (`\` or `/`, `..` climbing). Returns the file's bytes (valid until amx_decode
     * returns) and its path in `resolved`, relative to the same place as file_name; NULL when
     * it cannot be read (missing, outside the place scanned, in an archive), with *len set to
     * SIZE_MAX when a limit refused it (larger than max_len, a budget of the caller): the
     * include is then a reference only. NULL here: no include is read. */
    const uint8_t *(*read_include)(void *user, const char *from, const char *path,
                                   size_t max_len, size_t *len, char *resolved,
                                   size_t resolved_cap);
    void *include_user;
} amx_decode_opts;

/* Frames sampled per clip unless asked for more (amx_decode_opts.max_sample_frames): a file of
 * a few bytes can claim millions of frames, and `dump --samples` and the report's plots would
 * grow with them. */
#define AMX_SAMPLE_FRAMES 4096

/* The unpack budget of an archive with compressed members (Metroid Prime PAK): the bytes its
 * members inflate to, in total (each distinct stored span counted once), are at most
 * AMX_UNPACK_ARCHIVE_FLOOR + AMX_UNPACK_RATIO x the archive's size, and never more than
 * AMX_UNPACK_ARCHIVE_CAP. The first member past it is a LIMIT_EXCEEDED finding; it and the
 * compressed members after it are not unpacked (not valid). A scan also bounds what all its
 * archives unpack together: AMX_UNPACK_SCAN_FLOOR + AMX_UNPACK_RATIO x the bytes of the
 * archives it read. */
#define AMX_UNPACK_RATIO 32
#define AMX_UNPACK_ARCHIVE_FLOOR ((uint64_t)64 << 20)
#define AMX_UNPACK_ARCHIVE_CAP ((uint64_t)4 << 30)
#define AMX_UNPACK_SCAN_FLOOR ((uint64_t)1 << 30)

/* Decodes one file. On AMX_OK, *out is an asset (possibly with status ERROR and findings);
 * the caller frees it with amx_asset_free. On any other status *out is NULL: AMX_E_NOMEM, or
 * AMX_E_CANCELLED when opts->cancelled stopped the decode. */
amx_status amx_decode(const uint8_t *data, size_t len, const amx_decode_opts *opts,
                      amx_asset **out);

void amx_asset_free(amx_asset *asset); /* NULL is a no-op */

/* The findings the per-file cap dropped, as one summary: the severity of the worst of them, and
 * "250 more findings in this file were not recorded (200 warnings, 50 info)" in buf. */
amx_severity amx_findings_dropped_severity(const amx_asset *asset);
void amx_findings_dropped_message(const amx_asset *asset, char *buf, size_t len);
/* The same from the counts (of them: info, warning, error), for the index's own findings. */
void amx_findings_dropped_text(uint32_t dropped, const uint32_t by_severity[3], char *buf,
                               size_t len);

/* The bytes of member `index` of an archive: `archive` was decoded from data/len. For a stored
 * member, *out points into data and *owned is NULL; for a compressed one, *out is a buffer the
 * caller frees through *owned (free(*owned)). Returns AMX_OK; AMX_E_INVALID_ARG for an invalid
 * entry or a damaged one (a stream that does not inflate to its declared size); AMX_E_LIMIT when
 * the member is larger than its declared size or 1 GiB; AMX_E_NOMEM; the reason in err. */
amx_status amx_archive_member(const amx_asset *archive, const uint8_t *data, size_t len,
                              uint32_t index, const uint8_t **out, size_t *out_len, void **owned,
                              char *err, size_t errlen);

/* As amx_archive_member, for one entry `e` of an archive of format `fmt` decoded from data/len
 * (the entry may be a copy): the scanner streams members this way. */
amx_status amx_archive_entry_bytes(amx_format fmt, const amx_archive_entry *e, const uint8_t *data,
                                   size_t len, const uint8_t **out, size_t *out_len, void **owned,
                                   char *err, size_t errlen);

/* ---- Files (lib/common/file.c) ---- */

/* Why amx_read_regular returned NULL. */
typedef enum amx_read_why {
    AMX_READ_OK,
    AMX_READ_NOT_REGULAR,    /* a FIFO, a device, a directory, a socket: refused unread */
    AMX_READ_TOO_BIG,        /* more than the limit (refused before it is read) */
    AMX_READ_IO,             /* cannot be opened or read, or out of memory */
} amx_read_why;

/* The limits of the files animidx reads beside its inputs (README "Exit codes"): a baseline, a
 * suppression list or a previous report (AMX_SIDE_FILE_MAX), and the configuration. */
#define AMX_SIDE_FILE_MAX (256ULL << 20)
#define AMX_CONFIG_FILE_MAX (1ULL << 20)

/* Reads a whole regular file of at most `max` bytes into a malloc'd buffer (with a NUL after the
 * last byte, so a text file can be used as a string). Anything else is refused before a byte is
 * read: a FIFO (which would block), a device (which never ends), a directory, a file over max
 * (or one that grows past it while it is read). Returns NULL with *why (may be NULL) and
 * "path: reason" in err, e.g. "x.json: a FIFO, not a regular file". The caller frees. */
unsigned char *amx_read_regular(const char *path, uint64_t max, size_t *len, amx_read_why *why,
                                char *err, size_t errlen);
/* amx_read_regular without a size limit. */
unsigned char *amx_read_file(const char *path, size_t *len, char *err, size_t errlen);

/* A file being written: every file animidx writes (a baseline, a report) is written to a new
 * temporary file beside its target and renamed over the target once complete, so a reader never
 * sees half of it and a symbolic link at the target (or at the temporary name) is replaced or
 * refused, never written through. */
typedef struct amx_output {
    FILE *f;                 /* write here */
    char *path, *tmp;
} amx_output;
/* Creates the temporary file; 0, or -1 with "path: reason" in err. */
int amx_output_open(amx_output *o, const char *path, char *err, size_t errlen);
/* Closes it and renames it over the target; 0, or -1 with err (the temporary file is removed).
 * Either way the output is finished. */
int amx_output_commit(amx_output *o, char *err, size_t errlen);
/* Drops an unfinished output (its temporary file is removed). A finished or zeroed one: no-op. */
void amx_output_abort(amx_output *o);

/* The index of the archive entry named `name` (case-insensitive; '/' and '\' are the same), or
 * -1. */
int64_t amx_archive_find(const amx_asset *archive, const char *name);

/* ---- the Empire at War animation naming convention (lib/format/alamo_names.c) ---- */

/* Whose table of animation types: Forces of Corruption's (119 types, the default) or Empire at
 * War's (its first 104). */
typedef enum amx_alamo_game { AMX_ALAMO_FOC, AMX_ALAMO_EAW } amx_alamo_game;

/* "foc" or "eaw" (any case); false for anything else. */
bool amx_alamo_game_parse(const char *name, amx_alamo_game *out);
/* "Forces of Corruption", "Empire at War". */
const char *amx_alamo_game_title(amx_alamo_game game);
/* The game's table of animation types (upper-case, in the engine's order); returns its size. */
size_t amx_alamo_anim_types(amx_alamo_game game, const char *const **types);

/* A model that loads a clip by name, and the animation type and number it loads it as. */
typedef struct amx_alamo_anim_name {
    char model[256];         /* as spelled in the clip name */
    char type[64];           /* a type of the game's table, upper-cased: "IDLE", "TURNL_BEGIN" */
    unsigned number;         /* NN */
    bool number_loaded;      /* NN is spelled as the engine spells it (00-99, then 100 and up):
                              * a one-digit or zero-padded number (_0, _000) is never tried */
} amx_alamo_anim_name;

/* The models the engine loads clip `stem` for: the stem is <MODEL>_<TYPE>_<NN> with NN digits
 * and TYPE a type of the game's table. Fills up to `max` entries (longest type first) and
 * returns how many; 0: no model loads it by name. */
size_t amx_alamo_anim_names(const char *stem, amx_alamo_game game, amx_alamo_anim_name *out,
                            size_t max);
/* True when `type` (len bytes, any case) is in the game's table of animation types. */
bool amx_alamo_anim_type_known(amx_alamo_game game, const char *type, size_t len);
/* A name that misses the convention by underscores only (MODEL_Attack_Idle_00 for the type
 * ATTACKIDLE): fills out with the model and the type the engine knows and returns true. */
bool amx_alamo_anim_near_miss(const char *stem, amx_alamo_game game, amx_alamo_anim_name *out);

/* Extracts the file stem of a path: "a/b/VSF_X_DEPLOY_00.ala" -> "VSF_X_DEPLOY_00", into buf.
 * A '#' is part of the name ("a/X#old.ALA" -> "X#old"): pass an archive member's own name. */
size_t amx_path_stem(const char *path, char *buf, size_t buflen);

#ifdef __cplusplus
}
#endif

#endif
