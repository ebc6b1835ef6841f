/*
 * Internal to the library: how the games look files up, as pure functions over names and
 * layer lists (no SQL, no file system). The index (lib/index/) applies them to its rows.
 *
 * Sources: the engine reimplementation in AlamoEngine-Tools/ModVerify (FocGameRepository,
 * ModelRepository, PGRender) and EA's Generals/Zero Hour code; the rules and their sources are
 * in the README's binding section and docs/formats/alamo.md.
 */
#ifndef AMX_RESOLVE_H
#define AMX_RESOLVE_H

#include "animidx/animidx.h"

#define AMX_REF_KEY_MAX 256
#define AMX_LKEY_MAX 1024

/* The key a reference is matched by, upper-cased: for a model tag the file name without its
 * directories, cut at its first '.' ("Units\X.Damaged.alo" -> "X", as ModelRepository retries
 * <stem>.ALO); for an animation override the file name without its extension (cut at its last
 * '.', as the engine's GetFileNameWithoutExtension), which prefixes the clips it loads. SAGE INI:
 * a W3D model X is looked for in <X up to its first '.'>.w3d, an animation H.A in A.w3d (the
 * key is A), an object by its whole name. (INI bones: the key of their model, by the caller.) */
void amx__ref_key(amx_ref_kind kind, const char *name, char *out, size_t outlen);

/* The logical paths (upper-cased, '/'-separated, as files.lkey) the engine tries for a model an
 * XML tag names: DATA/ART/MODELS/<name>, then DATA/ART/MODELS/<dir>/<stem>.ALO with the stem cut
 * at its first '.'. Returns how many (0 for an empty name, 1 when both are the same). */
size_t amx__model_lkeys(const char *name, char out[2][AMX_LKEY_MAX]);

/* The logical path of an XML file a list file names (a <File> of GameObjectFiles.xml):
 * DATA/XML/<name>. Its length (0 for an empty name). */
size_t amx__xml_file_lkey(const char *name, char out[AMX_LKEY_MAX]);

/* The model tag an animation override pairs with: Land_Model_Anim_Override_Name ->
 * Land_Model_Name, Space_... -> Space_Model_Name; NULL for other tags. */
const char *amx__override_model_tag(const char *override_tag);

/* The prefix a root's loose files are looked up with: "DATA/" for a root that is a Data
 * directory, "DATA/ART/MODELS/" for .../Data/Art/Models, and so on from the last "Data" that
 * ends the path or is followed by "Art"; "" otherwise (the root holds Data, or is no game's). */
void amx__root_lkey_prefix(const char *abs_root, char *out, size_t outlen);

/* The CRC-32 by which a MEG finds a member: of the name upper-cased with '\' separators
 * (EmpireAtWarMegDataEntryPathNormalizer, MegFileConstants). */
int64_t amx__name_crc(const char *name);

/* ---- references ---- */

/* The longest paths the engine looks up (PGConstants): textures, models and shaders 259,
 * animations 255. */
#define AMX_MAX_ASSET_PATH 259
#define AMX_MAX_ANIM_PATH 255

/* SAGE's language directories. Zero Hour looks a .w3d file up in Data/<language>/Art/W3D/ before
 * Art/W3D/, and a texture in Data/<language>/Art/Textures/ before Art/Textures/ (GeneralsMD
 * W3DFileSystem.cpp, GameFileClass::Set_Name), <language> being the install's (a registry value:
 * the retail EnglishZH.big holds Data/English/Art/Textures/). Generals has no language directory
 * for .w3d files, and looks a texture up in Data/<language>/Art/Textures/ only after Art/Textures/
 * (Generals W3DFileSystem.cpp 170-189, 283-297): `last`. The index cannot know a user's language,
 * so the link pass tries every language directory the index holds (the first AMX_MAX_LANGUAGES in
 * name order). Names are upper-cased, as in files.lkey. */
#define AMX_MAX_LANGUAGES 4
#define AMX_LANGUAGE_MAX 64
typedef struct amx__languages {
    size_t count;
    bool last;                /* the game's own directory before the language directories */
    char prefix[AMX_MAX_LANGUAGES][AMX_LANGUAGE_MAX + 8]; /* "DATA/ENGLISH/" */
} amx__languages;

/* The directories a SAGE file is looked for under, in order, i = 0 .. count: the language
 * directories, then "", the game's own (`last`: "" first, then the language directories). */
static inline const char *amx__language_prefix(const amx__languages *l, size_t i)
{
    if (!l || i > l->count)
        return "";
    if (l->last)
        return i == 0 ? "" : l->prefix[i - 1];
    return i < l->count ? l->prefix[i] : "";
}

/* The most candidates amx__texture_lkeys gives: W3D's two spellings in each language directory
 * and in ART/TEXTURES/, then BFME 2's two. */
#define AMX_MAX_TEXTURE_LKEYS (2 * (AMX_MAX_LANGUAGES + 1) + 2)

/* The logical paths (as files.lkey) tried, in order, for a texture a file names. Alamo
 * (TextureRepository): the name as written when it has a directory, then
 * DATA/ART/TEXTURES/<file name>, then both with the extension replaced by .DDS (TGA before DDS).
 * W3D (textureloader.cpp, W3DFileSystem): <file name> with its last three characters made DDS,
 * then as written (DDS before TGA), each in DATA/<language>/ART/TEXTURES/ for every language of
 * `languages` (NULL: none), then in ART/TEXTURES/; then BFME 2's
 * ART/COMPILEDTEXTURES/<first two characters>/<stem>.DDS and .TGA. Returns how many. */
size_t amx__texture_lkeys(const char *name, bool w3d, const amx__languages *languages,
                          char out[][AMX_LKEY_MAX], size_t max);

/* The logical paths (as files.lkey) Zero Hour opens for a tree's TextureName (W3DTreeBuffer.cpp,
 * updateTexture: TheFileSystem->openFile of TERRAIN_TGA_DIR_PATH then TGA_DIR_PATH and the name
 * as written): ART/TERRAIN/<name>, then ART/TEXTURES/<name>; no language directory (those are
 * the W3D asset manager's, not TheFileSystem's) and no .DDS retry. Returns how many (0 for an
 * empty name). */
#define AMX_TREE_TEXTURE_LKEYS 2
size_t amx__tree_texture_lkeys(const char *name, char out[AMX_TREE_TEXTURE_LKEYS][AMX_LKEY_MAX]);

/* The paths tried for an Alamo shader (EffectsRepository): the name cut at the first '.' of its
 * file name, with .FX then .FXO, each bare and in DATA/ART/SHADERS/ and DATA/ART/SHADERS/TERRAIN/. */
size_t amx__shader_lkeys(const char *name, char out[][AMX_LKEY_MAX], size_t max);

/* True for the shaders every Empire at War / Forces of Corruption install carries (so a model
 * may name them without the mod or a base layer shipping them). */
bool amx__shader_builtin(const char *name);

/* The one file a reference of `kind` to `name` stands for, as a logical path: the file that
 * satisfies it, whatever its spelling ("X.tga", "x.DDS" and "C:\Art\X.tga" all want
 * DATA/ART/TEXTURES/X.DDS: the engine tries .DDS for a .TGA it does not find; the proxies
 * P_X_ALT0 and P_X_LOD1_ALT1 want DATA/ART/MODELS/P_X.ALO; a shader wants
 * DATA/ART/SHADERS/<stem>.FX). Fills out and returns its length: "" for an empty name and for
 * a SAGE INI reference (W3D model or animation, bone, sub-object, #include, INI object), which
 * names no one file by itself (lib/index/bind_sage.c checks those). */
size_t amx__ref_file(amx_ref_kind kind, const char *name, bool w3d, char *out, size_t outlen);

/* The particle a proxy shows (ModelClass): a name with "_ALT" followed by more is cut at
 * "_LOD", then at "_ALT" (case-sensitive, as the engine). */
void amx__proxy_name(const char *name, char *out, size_t outlen);

/* ---- layers ---- */

/* A root and the bases it declares, in order. */
typedef struct amx__root_layers {
    int64_t id;
    const int64_t *bases;
    size_t base_count;
} amx__root_layers;

/* The lookup stack of root `root`: the root itself, then its bases in declared order, then
 * theirs (breadth-first, as eaw.modinfo flattens a mod's dependencies), each once; cycles are
 * cut. Writes at most max ids and returns how many. */
size_t amx__layer_stack(const amx__root_layers *roots, size_t n, int64_t root, int64_t *out,
                        size_t max);

/* The order in which the engine finds a file of `layer` (its position in the stack, 0 = the root
 * itself) that is loose or an archive member: loose files of every layer before archive contents
 * (RESOLUTION of FoC: mod and game directories, then the MEG files), each in layer order. Lower
 * wins. */
static inline int amx__lookup_rank(size_t layer, bool in_archive)
{
    return (in_archive ? 1 << 20 : 0) + (int)layer;
}

#endif
