/* The files a BFME INI file's `#include` lines name, read for its decoder
 * (amx_decode_opts.read_include) from the root being scanned. */
#ifndef AMX_INDEX_INCLUDE_FILES_H
#define AMX_INDEX_INCLUDE_FILES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

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

#endif
