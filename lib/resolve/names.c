/* Names as the engines read them: reference keys and the paths a model name is looked up by
 * (resolve.h). */
#include "resolve.h"

#include <ctype.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>
#include <zlib.h>

/* The file name part of a path written with either separator. */
static const char *file_part(const char *name)
{
    const char *p = name;
    for (const char *c = name; *c; c++)
        if (*c == '/' || *c == '\\')
            p = c + 1;
    return p;
}

void amx__ref_key(amx_ref_kind kind, const char *name, char *out, size_t outlen)
{
    if (!outlen)
        return;
    const char *f = file_part(name ? name : "");
    if (kind == AMX_REF_W3D_ANIMATION) { /* HIER.ANIM is in ANIM.w3d, BFME's ANIM too */
        const char *d = strchr(f, '.');
        f = d ? d + 1 : f;
    }
    if (kind == AMX_REF_INI_OBJECT) { /* an object's name, whole */
        size_t i = 0;
        for (; f[i] && i + 1 < outlen; i++)
            out[i] = (char)toupper((unsigned char)f[i]);
        out[i] = '\0';
        return;
    }
    const char *dot = kind == AMX_REF_MODEL || kind == AMX_REF_W3D_MODEL ? strchr(f, '.')
                      : kind == AMX_REF_W3D_ANIMATION ? NULL : strrchr(f, '.');
    size_t n = dot ? (size_t)(dot - f) : strlen(f);
    if (n >= outlen)
        n = outlen - 1;
    for (size_t i = 0; i < n; i++)
        out[i] = (char)toupper((unsigned char)f[i]);
    out[n] = '\0';
}

/* Appends src to out upper-cased, '\' as '/', and a run of separators as one. */
static size_t put_path(char *out, size_t at, size_t max, const char *src, size_t n)
{
    for (size_t i = 0; i < n && at + 1 < max; i++) {
        char c = src[i] == '\\' ? '/' : (char)toupper((unsigned char)src[i]);
        if (c == '/' && at > 0 && out[at - 1] == '/')
            continue;
        out[at++] = c;
    }
    out[at] = '\0';
    return at;
}

size_t amx__model_lkeys(const char *name, char out[2][AMX_LKEY_MAX])
{
    static const char models[] = "DATA/ART/MODELS/";
    while (name && (*name == '/' || *name == '\\' || *name == ' '))
        name++;
    if (!name || !*name)
        return 0;
    size_t at = put_path(out[0], 0, AMX_LKEY_MAX, models, sizeof models - 1);
    put_path(out[0], at, AMX_LKEY_MAX, name, strlen(name));
    /* the retry: <dir>/<stem cut at the first '.'>.ALO */
    const char *f = file_part(name);
    const char *dot = strchr(f, '.');
    at = put_path(out[1], 0, AMX_LKEY_MAX, models, sizeof models - 1);
    at = put_path(out[1], at, AMX_LKEY_MAX, name, (size_t)(f - name));
    at = put_path(out[1], at, AMX_LKEY_MAX, f, dot ? (size_t)(dot - f) : strlen(f));
    put_path(out[1], at, AMX_LKEY_MAX, ".ALO", 4);
    return strcmp(out[0], out[1]) == 0 ? 1 : 2;
}

size_t amx__xml_file_lkey(const char *name, char out[AMX_LKEY_MAX])
{
    static const char xml[] = "DATA/XML/";
    out[0] = '\0';
    while (name && (*name == '/' || *name == '\\' || *name == ' '))
        name++;
    if (!name || !*name)
        return 0;
    size_t at = put_path(out, 0, AMX_LKEY_MAX, xml, sizeof xml - 1);
    return put_path(out, at, AMX_LKEY_MAX, name, strlen(name));
}

const char *amx__override_model_tag(const char *override_tag)
{
    if (!override_tag)
        return NULL;
    if (strcasecmp(override_tag, "Land_Model_Anim_Override_Name") == 0)
        return "Land_Model_Name";
    if (strcasecmp(override_tag, "Space_Model_Anim_Override_Name") == 0)
        return "Space_Model_Name";
    return NULL;
}

int64_t amx__name_crc(const char *name)
{
    uLong crc = crc32(0L, Z_NULL, 0);
    for (const char *p = name; p && *p; p++) {
        unsigned char c = (unsigned char)(*p == '/' ? '\\' : toupper((unsigned char)*p));
        crc = crc32(crc, &c, 1);
    }
    return (int64_t)(crc & 0xFFFFFFFFu);
}

/* Adds a candidate unless it is already there or too long. */
static size_t add_key(char out[][AMX_LKEY_MAX], size_t n, size_t max, const char *key)
{
    if (n >= max || !key[0])
        return n;
    for (size_t i = 0; i < n; i++)
        if (strcmp(out[i], key) == 0)
            return n;
    snprintf(out[n], AMX_LKEY_MAX, "%s", key);
    return n + 1;
}

size_t amx__texture_lkeys(const char *name, bool w3d, const amx__languages *languages,
                          char out[][AMX_LKEY_MAX], size_t max)
{
    char key[AMX_LKEY_MAX], file[AMX_LKEY_MAX];
    if (!name || !*name)
        return 0;
    const char *f = file_part(name);
    put_path(file, 0, sizeof file, f, strlen(f));
    size_t n = 0;
    if (w3d) {
        /* Generals and Zero Hour: the DDS variant first (the last three characters replaced),
         * then the name as written; each in the language directories, then in ART/TEXTURES/ */
        size_t len = strlen(file);
        size_t langs = languages ? languages->count : 0;
        for (int spelling = len > 3 ? 0 : 1; spelling < 2; spelling++) {
            int keep = spelling ? (int)(len < 900 ? len : 900) : (int)(len - 3 < 900 ? len - 3 : 900);
            for (size_t i = 0; i <= langs; i++) {
                snprintf(key, sizeof key, "%sART/TEXTURES/%.*s%s",
                         amx__language_prefix(languages, i), keep, file, spelling ? "" : "DDS");
                n = add_key(out, n, max, key);
            }
        }
        /* BFME 2 (OpenSAGE's Bfme2TexturePathResolver): ART/COMPILEDTEXTURES/<the name's first
         * two characters>/<the name>, its extension changed to .dds, then .tga */
        const char *dot = strrchr(file, '.');
        size_t stem = dot ? (size_t)(dot - file) : len;
        if (len >= 2 && stem > 0)
            for (int e = 0; e < 2; e++) {
                snprintf(key, sizeof key, "ART/COMPILEDTEXTURES/%.2s/%.*s.%s", file,
                         (int)(stem < 980 ? stem : 980), file, e ? "TGA" : "DDS");
                n = add_key(out, n, max, key);
            }
        return n;
    }
    char as_written[AMX_LKEY_MAX] = "";
    if (f != name) /* a path: from the game's root */
        put_path(as_written, 0, sizeof as_written, name, strlen(name));
    snprintf(key, sizeof key, "DATA/ART/TEXTURES/%.990s", file);
    n = add_key(out, n, max, as_written);
    n = add_key(out, n, max, key);
    /* the same with the extension replaced by .DDS (cut at the first '.') */
    for (int pass = 0; pass < 2; pass++) {
        const char *src = pass == 0 ? as_written : key;
        if (!src[0])
            continue;
        char dds[AMX_LKEY_MAX];
        const char *slash = strrchr(src, '/');
        const char *dot = strchr(slash ? slash : src, '.');
        size_t keep = dot ? (size_t)(dot - src) : strlen(src);
        snprintf(dds, sizeof dds, "%.*s.DDS", (int)(keep < 1010 ? keep : 1010), src);
        n = add_key(out, n, max, dds);
    }
    return n;
}

size_t amx__tree_texture_lkeys(const char *name, char out[AMX_TREE_TEXTURE_LKEYS][AMX_LKEY_MAX])
{
    static const char *const dirs[AMX_TREE_TEXTURE_LKEYS] = { "ART/TERRAIN/", "ART/TEXTURES/" };
    if (!name || !*name)
        return 0;
    for (size_t i = 0; i < AMX_TREE_TEXTURE_LKEYS; i++)
        put_path(out[i], put_path(out[i], 0, AMX_LKEY_MAX, dirs[i], strlen(dirs[i])),
                 AMX_LKEY_MAX, name, strlen(name));
    return AMX_TREE_TEXTURE_LKEYS;
}

size_t amx__shader_lkeys(const char *name, char out[][AMX_LKEY_MAX], size_t max)
{
    if (!name || !*name)
        return 0;
    const char *f = file_part(name);
    const char *dot = strchr(f, '.');
    char stem[AMX_LKEY_MAX];
    put_path(stem, 0, sizeof stem, f, dot ? (size_t)(dot - f) : strlen(f));
    static const char *const dirs[] = { "", "DATA/ART/SHADERS/", "DATA/ART/SHADERS/TERRAIN/" };
    static const char *const exts[] = { ".FX", ".FXO" };
    size_t n = 0;
    for (size_t e = 0; e < 2; e++)
        for (size_t d = 0; d < 3; d++) {
            char key[AMX_LKEY_MAX];
            snprintf(key, sizeof key, "%s%.990s%s", dirs[d], stem, exts[e]);
            n = add_key(out, n, max, key);
        }
    return n;
}

/* The shaders of the stock game (Data/Art/Shaders in its MEGs), which a mod names without
 * shipping them (docs/formats/alamo.md 8b): the effects of Petroglyph's published Forces of
 * Corruption shader sources (the mod tools' shader archive: each file's own header reads
 * "$File: //depot/Projects/StarWars_Expansion/Art/Shaders/<name>.fx"), those of its Terrain
 * directory included; alDefault, which ModVerify skips as built in; and MeshBumpLight and
 * LightProxy, which the Blender ALAMO plugin (io_alamo_tools/settings.py) lists with
 * Petroglyph's shaders. */
static const char *const builtin_shaders[] = {
    "alDefault", "BatchMeshAlpha", "BatchMeshGloss", "BlobStencilMasked", "Grass",
    "MeshAdditive", "MeshAdditiveOffset", "MeshAdditiveReflection", "MeshAdditiveVColor",
    "MeshAlpha", "MeshAlphaGloss", "MeshAlphaScroll", "MeshBumpColorize",
    "MeshBumpReflectColorize", "MeshCollision", "MeshGloss", "MeshGlossColorize", "MeshHeat",
    "MeshLightVisualize", "MeshOccludedUnit", "MeshShadowVolume", "MeshShield", "MeshSolidColor",
    "Nebula", "Planet", "RSkinAdditive", "RSkinAdditiveVColor", "RSkinAlpha", "RSkinAlphaGloss",
    "RSkinBumpColorize", "RSkinBumpReflectColorize", "RSkinGloss", "RSkinGlossColorize",
    "RSkinHeat", "RSkinOccludedUnit", "RSkinShadowVolume", "Skydome", "TerrainMeshBump",
    "TerrainMeshGloss", "Tree",
    /* Terrain/ */
    "SpaceFogOfWar", "TerrainClouds", "TerrainFogOfWar", "TerrainIce", "TerrainLava",
    "TerrainPassability", "TerrainRenderBaked", "TerrainRenderBump", "TerrainRenderBumpDual",
    "TerrainWater",
    /* the Blender ALAMO plugin's */
    "MeshBumpLight", "LightProxy",
};

bool amx__shader_builtin(const char *name)
{
    const char *f = file_part(name ? name : "");
    const char *dot = strchr(f, '.');
    size_t n = dot ? (size_t)(dot - f) : strlen(f);
    for (size_t i = 0; i < sizeof builtin_shaders / sizeof builtin_shaders[0]; i++)
        if (strlen(builtin_shaders[i]) == n && strncasecmp(builtin_shaders[i], f, n) == 0)
            return true;
    return false;
}

void amx__proxy_name(const char *name, char *out, size_t outlen)
{
    snprintf(out, outlen, "%s", name ? name : "");
    char *alt = strstr(out, "_ALT");
    if (!alt || !alt[4])
        return;
    char *lod = strstr(out, "_LOD");
    if (lod)
        *lod = '\0';
    if ((alt = strstr(out, "_ALT")))
        *alt = '\0';
}

void amx__root_lkey_prefix(const char *abs_root, char *out, size_t outlen)
{
    if (!outlen)
        return;
    out[0] = '\0';
    const char *from = NULL;
    for (const char *p = abs_root; p && *p; p++) {
        if (*p != '/' || strncasecmp(p + 1, "Data", 4) != 0)
            continue;
        const char *after = p + 5;
        if (*after == '\0' || (*after == '/' && strncasecmp(after + 1, "Art", 3) == 0 &&
                                (after[4] == '\0' || after[4] == '/')))
            from = p + 1;
    }
    if (!from)
        return;
    size_t n = put_path(out, 0, outlen, from, strlen(from));
    if (n + 1 < outlen && (n == 0 || out[n - 1] != '/')) {
        out[n] = '/';
        out[n + 1] = '\0';
    }
}

size_t amx__ref_file(amx_ref_kind kind, const char *name, bool w3d, char *out, size_t outlen)
{
    if (!outlen)
        return 0;
    out[0] = '\0';
    while (name && *name == ' ')
        name++;
    if (!name || !*name)
        return 0;
    char keys[8][AMX_LKEY_MAX];
    size_t n = 0;
    switch (kind) {
    case AMX_REF_W3D_MODEL:
    case AMX_REF_W3D_ANIMATION:
    case AMX_REF_BONE:
    case AMX_REF_SUB_OBJECT:
    case AMX_REF_PARTICLE_BONE:
    case AMX_REF_INCLUDE:
    case AMX_REF_INI_OBJECT:
        /* SAGE INI: not one file per name (an animation inside a W3D file, a model whose
         * hierarchy is what is missing, a bone, an #include relative to its file) */
        return 0;
    case AMX_REF_TEXTURE:
        /* Alamo: the last candidate (DATA/ART/TEXTURES/<stem>.DDS); W3D: the first (the DDS) */
        n = amx__texture_lkeys(name, w3d, NULL, keys, 8);
        if (n)
            snprintf(out, outlen, "%s", keys[w3d ? 0 : n - 1]);
        return strlen(out);
    case AMX_REF_SHADER: {
        const char *f = file_part(name);
        const char *dot = strchr(f, '.');
        char stem[AMX_LKEY_MAX];
        put_path(stem, 0, sizeof stem, f, dot ? (size_t)(dot - f) : strlen(f));
        snprintf(out, outlen, "DATA/ART/SHADERS/%.990s.FX", stem);
        return strlen(out);
    }
    case AMX_REF_PARTICLE: {
        char particle[512];
        amx__proxy_name(name, particle, sizeof particle);
        n = amx__model_lkeys(particle, keys);
        break;
    }
    case AMX_REF_XML_FILE:
        amx__xml_file_lkey(name, keys[0]);
        snprintf(out, outlen, "%s", keys[0]);
        return strlen(out);
    default:
        n = amx__model_lkeys(name, keys);
        break;
    }
    if (n) /* the model lookup's .ALO retry */
        snprintf(out, outlen, "%s", keys[n - 1]);
    return strlen(out);
}
