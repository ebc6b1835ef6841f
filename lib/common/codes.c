/* The issue-code catalogue: names, default severities, one-line meaning and how to fix.
 * docs/rules.md documents the same table; tests/unit/test_codes.c keeps the two equal. */
#include "animidx/animidx.h"

#include <strings.h>

static const amx_code_info code_table[AMX_CODE_COUNT] = {
    [AMX_C_TRUNCATED] = { "TRUNCATED", AMX_SEV_ERROR,
        "the data ends before a structure it declares",
        "The file was cut short (an interrupted copy or download, or a broken exporter). Re-export or re-copy it." },
    [AMX_C_CHUNK_OVERRUN] = { "CHUNK_OVERRUN", AMX_SEV_ERROR,
        "a chunk or record claims more bytes than its parent holds",
        "A size field is wrong or the file is truncated. Re-export the asset; hand-edited files need their chunk sizes recomputed." },
    [AMX_C_BAD_MAGIC] = { "BAD_MAGIC", AMX_SEV_ERROR,
        "a signature/version field has a value this format never has",
        "The file is not of the format its content starts like, or its header is damaged. Check the file came from a supported exporter." },
    [AMX_C_UNKNOWN_CHUNK] = { "UNKNOWN_CHUNK", AMX_SEV_INFO,
        "a chunk/record type the decoder does not know was skipped",
        "Usually harmless: newer or tool-specific data. Report it if a supported game writes it." },
    [AMX_C_MISSING_CHUNK] = { "MISSING_CHUNK", AMX_SEV_ERROR,
        "a required chunk/record is absent",
        "The exporter left out a required part. Re-export the asset." },
    [AMX_C_COUNT_MISMATCH] = { "COUNT_MISMATCH", AMX_SEV_ERROR,
        "a declared count disagrees with the records actually present",
        "The engine trusts the declared count and may read garbage or crash. Re-export, or fix the count field." },
    [AMX_C_SIZE_MISMATCH] = { "SIZE_MISMATCH", AMX_SEV_ERROR,
        "a block's byte size disagrees with what its header implies",
        "A data block is shorter or longer than its counts require. Re-export the asset." },
    [AMX_C_INDEX_OUT_OF_RANGE] = { "INDEX_OUT_OF_RANGE", AMX_SEV_ERROR,
        "an index (bone, parent, object, frame, table entry) is outside its table",
        "The engine follows such an index into memory it does not own. Re-export, or fix the reference in the source scene." },
    [AMX_C_BAD_VALUE] = { "BAD_VALUE", AMX_SEV_WARNING,
        "a field outside its documented set (enum, bool, fixed value), or non-finite",
        "Check the value in the exporter or editor that wrote the file; NaN or infinite floats usually come from degenerate transforms." },
    [AMX_C_TRAILING_DATA] = { "TRAILING_DATA", AMX_SEV_WARNING,
        "bytes after the last structure the format defines",
        "Usually padding or a tool's extra data; it is ignored by the game. Re-save the file to drop it." },
    [AMX_C_SKELETON_NOT_FOUND] = { "SKELETON_NOT_FOUND", AMX_SEV_WARNING,
        "the clip's target skeleton is not in the index",
        "Scan the directory (or archive) that holds the model, or check the clip's name follows MODEL_TYPE_NN (Alamo) / its hierarchy name (W3D)." },
    [AMX_C_BONE_NOT_IN_SKELETON] = { "BONE_NOT_IN_SKELETON", AMX_SEV_ERROR,
        "a clip's bone (name, or index+name) does not exist in its skeleton",
        "The clip was made for another skeleton, or the model's bones were renamed or removed. Re-export the animation against the current model." },
    [AMX_C_BONE_INDEX_MISMATCH] = { "BONE_INDEX_MISMATCH", AMX_SEV_ERROR,
        "the clip's bone index names a different bone in the skeleton",
        "Bones were added, removed or reordered in the model after the clip was exported. Re-export the animation against the current model." },
    [AMX_C_APC_BAD_TYPE] = { "APC_BAD_TYPE", AMX_SEV_ERROR,
        "MW3 activation prerequisite type not 1, 2 or 3",
        "Fix the prerequisite in the reader file and rebuild anim.zbd." },
    [AMX_C_APC_BAD_FLAG] = { "APC_BAD_FLAG", AMX_SEV_ERROR,
        "MW3 APC optional/active field not 0 or 1, or an active parent-role APC",
        "Fix the prerequisite in the reader file and rebuild anim.zbd." },
    [AMX_C_APC_ANIM_OPTIONAL] = { "APC_ANIM_OPTIONAL", AMX_SEV_WARNING,
        "MW3 animation-type APC marked optional",
        "Animation prerequisites are never optional in the original data; clear the flag." },
    [AMX_C_APC_MIN_EXCEEDS_COUNT] = { "APC_MIN_EXCEEDS_COUNT", AMX_SEV_ERROR,
        "MW3 min-to-satisfy greater than the number of APCs",
        "The definition can never activate. Lower min-to-satisfy or add the missing prerequisites." },
    [AMX_C_APC_NAME_INVALID] = { "APC_NAME_INVALID", AMX_SEV_ERROR,
        "MW3 APC name empty, not NUL-terminated within its field, or not ASCII",
        "Give the prerequisite a short ASCII name (at most 31 characters)." },
    [AMX_C_PARTICLE_NAME_MISMATCH] = { "PARTICLE_NAME_MISMATCH", AMX_SEV_WARNING,
        "an Alamo particle system's internal name differs from its file name",
        "The engine looks particles up by file name; rename the file or re-export with the matching name (ModVerify ALO01)." },
    [AMX_C_ARCHIVE_CRC_MISMATCH] = { "ARCHIVE_CRC_MISMATCH", AMX_SEV_ERROR,
        "an archive entry's name CRC-32 is not the CRC-32 of its stored name",
        "The game looks files up by this CRC and will not find the entry. Rebuild the archive with a current packer." },
    [AMX_C_ARCHIVE_UNSORTED] = { "ARCHIVE_UNSORTED", AMX_SEV_ERROR,
        "archive records are not sorted by name CRC-32, or a record's index is not its position",
        "The game binary-searches the table and misses entries. Rebuild the archive with a current packer." },
    [AMX_C_ARCHIVE_DUPLICATE] = { "ARCHIVE_DUPLICATE", AMX_SEV_WARNING,
        "two archive entries share a name CRC-32 (a duplicate name or a CRC collision)",
        "Only one of them is reachable in game. Remove the duplicate or rename one file." },
    [AMX_C_UNSUPPORTED] = { "UNSUPPORTED", AMX_SEV_WARNING,
        "a valid variant of the format that animidx does not decode (e.g. an encrypted archive)",
        "Nothing to fix in the file; the content was not checked." },
    [AMX_C_LIMIT_EXCEEDED] = { "LIMIT_EXCEEDED", AMX_SEV_ERROR,
        "a limit was reached: memory, an archive's or the scan's unpack budget, findings per file, frames sampled per clip",
        "The file declares very large counts or unpacks to far more than its size (a decompression bomb); the message says which limit. If the file is genuine, raise that limit." },
    [AMX_C_IO_ERROR] = { "IO_ERROR", AMX_SEV_ERROR,
        "the file or directory could not be read",
        "Check permissions and the disk; the message carries the system error. The files indexed under a directory that cannot be read keep their rows, and the scan exits 3." },
    [AMX_C_FILE_VANISHED] = { "FILE_VANISHED", AMX_SEV_WARNING,
        "the file disappeared or changed while it was being scanned",
        "Re-run the scan once the tree is quiet (the daemon does this by itself)." },
    [AMX_C_DIRECTORY_LOOP] = { "DIRECTORY_LOOP", AMX_SEV_WARNING,
        "a symbolic link leads to a directory of the root (or back to one already being scanned)",
        "The link was not followed: the files it leads to are indexed once, under their own path. Remove the link or add it to the ignore globs." },
    [AMX_C_NOT_RECOGNISED] = { "NOT_RECOGNISED", AMX_SEV_WARNING,
        "a file named like a supported format whose content is not that format",
        "The file may be misnamed, empty, or of another game's format with the same extension (e.g. Shockwave 3D .w3d)." },
    [AMX_C_CLIP_NOT_LOADED_BY_NAME] = { "CLIP_NOT_LOADED_BY_NAME", AMX_SEV_INFO,
        "no model loads this clip: its name does not follow MODEL_TYPE_NN",
        "The engine loads <MODEL>_<TYPE>_<NN>.ALA for the model it draws and nothing else: rename the clip (e.g. X_IDLE_00.ALA) if it should play, or delete it if it is a leftover." },
    [AMX_C_XML_MALFORMED] = { "XML_MALFORMED", AMX_SEV_WARNING,
        "an XML file is not well-formed (or not in the encoding it declares)",
        "The game's parser may read it differently from what you meant: fix the tag at the line given (an unclosed element, a stray '&' or '<', a second root)." },
    [AMX_C_MEMBER_SHADOWED] = { "MEMBER_SHADOWED", AMX_SEV_WARNING,
        "an archive member's path in the index is taken by a loose file named ARCHIVE#MEMBER",
        "The index names members ARCHIVE#MEMBER, so the loose file beside the archive is listed and this member is not. Rename the loose file (a '#' in a file name is unusual) to have both checked." },
    [AMX_C_DUPLICATE_NAME] = { "DUPLICATE_NAME", AMX_SEV_WARNING,
        "two files of one tree define a skeleton (W3D hierarchy) of the same name",
        "The engine keeps the first it loads, so which one a model or animation gets depends on load order. Rename one hierarchy or remove the stale file." },
    [AMX_C_REFERENCE_NOT_FOUND] = { "REFERENCE_NOT_FOUND", AMX_SEV_ERROR,
        "a file this one names (model, texture, shader, particle, animation set) is in no layer the game searches",
        "Add the file, fix the name, or declare the game and parent mods the tree sits on (scan --base DIR or [root] base = DIR): without a base layer this is an info finding, since most mods name the game's own assets (ModVerify FILE00)." },
    [AMX_C_REFERENCE_WRONG_KIND] = { "REFERENCE_WRONG_KIND", AMX_SEV_ERROR,
        "a name finds a file of the wrong kind: an animation or a model where a particle system is expected, a particle where a model is",
        "The engine will not use it as intended: point the tag or proxy at a file of the right kind (ModVerify BIN01)." },
    [AMX_C_REFERENCE_EMPTY] = { "REFERENCE_EMPTY", AMX_SEV_WARNING,
        "an empty name where the engine needs one (a texture, shader or proxy)",
        "Fill in the name in the exporter or editor, or remove the parameter (ModVerify FILE02)." },
    [AMX_C_REFERENCE_PATH_TOO_LONG] = { "REFERENCE_PATH_TOO_LONG", AMX_SEV_ERROR,
        "a path the engine looks up is longer than it accepts (259 characters; 255 for animations)",
        "Shorten the file or directory names (ModVerify FILE01)." },
    [AMX_C_ARCHIVE_OVERLAP] = { "ARCHIVE_OVERLAP", AMX_SEV_WARNING,
        "archive entries' data overlap: an entry starts inside another's data, or repeats another's exact bytes",
        "Archive tools store each member once; overlapping entries are how a small archive claims far more than it holds. animidx decodes each distinct span once (an entry repeating another's bytes is indexed by its name, its content under the first name) and at most the archive's size plus 16 MiB of members and 200,000 members an archive (past that, one LIMIT_EXCEEDED). Rebuild the archive with the game's tools." },
    [AMX_C_ANIMATION_NOT_REACHED] = { "ANIMATION_NOT_REACHED", AMX_SEV_WARNING,
        "a clip the engine never loads: it numbers a model's animations of a type 00, 01, ... and stops at the first missing number, and this clip comes after a gap (or is numbered _0, _000)",
        "Add or rename the missing file the message names (often misspelt: it says which file differs only by underscores or case), or renumber the clips from 00 without gaps, two digits each." },
    [AMX_C_INI_MALFORMED] = { "INI_MALFORMED", AMX_SEV_ERROR,
        "a SAGE INI file breaks a rule that stops the game at load: a block without End, a misspelt block, a UTF-8 byte order mark, a module without its tag, a draw state without a model, states out of order or twice, a state for a flag the module ignores, idle and normal animations in one state, an ObjectReskin or ChildObject of an object not defined before it, an #include cycle",
        "The game (release builds included) refuses to start with the file: fix the block at the line given (save a file with a byte order mark as ANSI or UTF-8 without BOM). For ObjectReskin and ChildObject, define the original object first, in an earlier file or above in the same file (without a base layer, an original the tree lacks is an info finding: it may be the game's)." },
    [AMX_C_W3D_NAME_TOO_LONG] = { "W3D_NAME_TOO_LONG", AMX_SEV_ERROR,
        "an INI names a W3D model, hierarchy or animation longer than the 15 characters a W3D name field holds",
        "W3D files store names in 16-byte fields, so the object inside the file can never have this name (a 16-character HLOD is stored cut to 15): shorten the name in the INI and in the W3D file." },
    [AMX_C_ANIMATION_HIERARCHY_MISMATCH] = { "ANIMATION_HIERARCHY_MISMATCH", AMX_SEV_ERROR,
        "an INI plays an animation made for another hierarchy than the model's",
        "The engine moves the model's pivots by index and checks nothing: with other pivots the model is distorted. Point the state at an animation of the model's hierarchy, or re-export the animation; when only the hierarchy's name differs and its pivots are the same, this is an info finding." },
    [AMX_C_MODEL_BONE_NOT_FOUND] = { "MODEL_BONE_NOT_FOUND", AMX_SEV_WARNING,
        "an INI names a bone or sub-object the state's model does not have, by the engine's lookup rules",
        "Retail builds go on silently: a weapon fires from the object's origin, a turret does not turn, a particle system or sub-object does not show. Fix the name in the INI or add the bone (or sub-object) to the model." },
    [AMX_C_LINK_NOT_FOLLOWED] = { "LINK_NOT_FOLLOWED", AMX_SEV_INFO,
        "a symbolic link leads out of the scanned directory; what it leads to was not read",
        "The scan reads what you named: a link to /etc or /proc/self in a downloaded mod is not followed. If the link is yours (a shared asset directory), scan with --follow-links or set [scan] follow_links = true: links out of the root are then followed one level (a link inside what a link leads to is not)." },
    [AMX_C_REFERENCE_UNUSABLE] = { "REFERENCE_UNUSABLE", AMX_SEV_ERROR,
        "a name finds a file of that name that does not decode as the kind expected (an empty or broken model, particle system or animation set)",
        "The engine stops at the first file of the name and loads nothing: replace the file with a good export, or remove it so that the next layer's copy is used." },
    [AMX_C_ARCHIVE_CRC_COLLISION] = { "ARCHIVE_CRC_COLLISION", AMX_SEV_WARNING,
        "a MEG member a reference finds shares the CRC-32 of its name with another member the game loads",
        "The game finds MEG members by that CRC and may load the other file: rename one of them." },
    [AMX_C_XML_NOT_LISTED] = { "XML_NOT_LISTED", AMX_SEV_WARNING,
        "an XML file holds game objects of the kinds a list file's files hold (GameObjectFiles.xml, HardPointDataFiles.xml, ...), but no list file names it: the game never loads it",
        "Empire at War loads only the XML files its list files name: add a <File> entry for it to the list the message names, or delete the file if it is a leftover (its other findings are about objects the game does not load)." },
    [AMX_C_DUPLICATE_OBJECT] = { "DUPLICATE_OBJECT", AMX_SEV_WARNING,
        "a game object name is defined twice in the files GameObjectFiles.xml loads (or a file is listed twice)",
        "The engine asserts (\"defined multiple times\") and uses only one of the definitions, so changes to the other do nothing: rename one object, or remove the copy or the second <File> line." },
};

const amx_code_info *amx_code_get(amx_code code)
{
    if ((unsigned)code >= AMX_CODE_COUNT)
        return NULL;
    return &code_table[code];
}

bool amx_code_parse(const char *name, amx_code *out)
{
    for (int i = 0; i < AMX_CODE_COUNT; i++) {
        if (strcasecmp(name, code_table[i].name) == 0) {
            *out = (amx_code)i;
            return true;
        }
    }
    return false;
}

const char *amx_severity_name(amx_severity sev)
{
    switch (sev) {
    case AMX_SEV_INFO: return "info";
    case AMX_SEV_WARNING: return "warning";
    case AMX_SEV_ERROR: return "error";
    case AMX_SEV_OFF: return "off";
    }
    return "?";
}

bool amx_severity_parse(const char *s, amx_severity *out)
{
    static const struct { const char *name; amx_severity sev; } names[] = {
        { "info", AMX_SEV_INFO }, { "information", AMX_SEV_INFO }, { "note", AMX_SEV_INFO },
        { "warning", AMX_SEV_WARNING }, { "warn", AMX_SEV_WARNING },
        { "error", AMX_SEV_ERROR },
        { "off", AMX_SEV_OFF }, { "ignore", AMX_SEV_OFF }, { "none", AMX_SEV_OFF },
    };
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        if (strcasecmp(s, names[i].name) == 0) {
            *out = names[i].sev;
            return true;
        }
    }
    return false;
}

const char *amx_status_str(amx_status st)
{
    switch (st) {
    case AMX_OK: return "ok";
    case AMX_E_NOMEM: return "out of memory";
    case AMX_E_LIMIT: return "limit exceeded";
    case AMX_E_INVALID_ARG: return "invalid argument";
    case AMX_E_IO: return "I/O error";
    case AMX_E_DB: return "database error";
    case AMX_E_CANCELLED: return "cancelled";
    }
    return "unknown status";
}
