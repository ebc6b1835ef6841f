/* The files a BFME INI file's `#include` lines name, read for its decoder
 * (amx_decode_opts.read_include) from the root being scanned. */
#ifndef AMX_INDEX_INCLUDE_FILES_H
#define AMX_INDEX_INCLUDE_FILES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct amx_archive_entry;

typedef struct amx__include_files {
    const char *root;      /* the root, as the file system spells it (canonical, absolute) */
    const char *file;      /* the decoded file: its path as given to the decoder (file_name) */
    const char *file_abs;  /* ... and its absolute path */
    /* asked for each file's size before it is read: false refuses it (a budget spent); NULL:
     * none */
    bool (*charge)(void *user, uint64_t size);
    void *charge_user;
    uint8_t **bytes;       /* the files read, freed by amx__include_files_free */
    size_t n, cap;
    /* ... and what they were when read: their path (as `resolved`), size and time */
    struct amx__include_seen { char *path; int64_t size, mtime_ns; } *seen;
    size_t n_seen;
} amx__include_files;

/* amx_decode_opts.read_include over an amx__include_files: the path is taken from the
 * directory of `from` ('\' or '/' separators, "." and ".." steps) and must stay inside the
 * root, each name matched without case when the file system keeps it (as Windows finds the
 * game's files); a link that leads out of the root is not followed. `resolved` is the file's
 * path relative to the root ('/' separators). A file larger than max_len, or refused by
 * `charge`, is not read: NULL with *len SIZE_MAX. */
const uint8_t *amx__include_read(void *user, const char *from, const char *path, size_t max_len,
                                 size_t *len, char *resolved, size_t resolved_cap);

/* Frees the bytes read and the `seen` list (unless taken: set to NULL). */
void amx__include_files_free(amx__include_files *f);

/* The members of one archive, for the `#include` lines of its INI members: a BFME mod packed in
 * a .big archive keeps its fragments beside the files that include them, and the engine reads
 * an archive's files as it reads loose ones. */
typedef struct amx__member_includes {
    const uint8_t *data;          /* the archive's bytes */
    size_t len;
    const struct amx_archive_entry *m; /* its members (names '/'-separated, as stored) */
    size_t n;
    bool (*charge)(void *user, uint64_t size); /* as amx__include_files' */
    void *charge_user;
    size_t *by_name;              /* indexes of m by name without case: built on first use */
    bool built;
} amx__member_includes;

/* amx_decode_opts.read_include over an archive's members: the path from the directory of
 * `from` (a member's name, or a fragment read before) must stay inside the archive; found
 * without case; `resolved` is the member's name as stored. A compressed member (no .big member
 * is) is not read. */
const uint8_t *amx__member_include_read(void *user, const char *from, const char *path,
                                        size_t max_len, size_t *len, char *resolved,
                                        size_t resolved_cap);

void amx__member_includes_free(amx__member_includes *mi);

#endif
