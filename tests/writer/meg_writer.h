/*
 * Test-side writer of Petroglyph MEG archives (formats 1, 2 and plain 3; layouts in
 * lib/format/meg.c and docs/formats/alamo.md).
 *
 * Names are stored byte for byte as given: pass them like the game stores them, upper-case with
 * backslashes ("DATA\\ART\\MODELS\\X.ALO"); Latin-1 bytes are fine. The name table keeps the
 * given order; the records are sorted by CRC-32 (zlib crc32 of the name bytes) ascending with
 * index = position; the data follows the tables in the given order.
 *
 *   amxw_meg_file files[] = { { "DATA\\A.ALO", bytes, n }, ... };
 *   amxw_buf b = {0};
 *   amxw_meg(&b, 2, files, 2);
 */
#ifndef AMXW_MEG_WRITER_H
#define AMXW_MEG_WRITER_H

#include "buf.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct amxw_meg_file {
    const char *name;
    const uint8_t *data;
    size_t size;
} amxw_meg_file;

/* Knobs for broken variants; zero = a correct archive. */
typedef struct amxw_meg_opts {
    bool keep_order;   /* records in the given order instead of sorted by CRC (index = position) */
} amxw_meg_opts;

/* Where things are in the written archive (offsets in the buffer), for tests that patch bytes. */
typedef struct amxw_meg_layout {
    size_t header_size;   /* 8, 20 or 24 */
    size_t names_offset;  /* first name's u16 length */
    size_t records_offset;
    size_t record_size;   /* 20 */
    size_t data_offset;   /* = dataStart */
    /* Field offsets inside a record. */
    size_t crc_field, index_field, size_field, start_field, name_field;
} amxw_meg_layout;

void amxw_meg(amxw_buf *b, int version, const amxw_meg_file *files, size_t count);

/* As amxw_meg, with knobs; fills *layout when not NULL, and record_file[i] (count entries) with
 * the index into `files` of record i when not NULL. */
void amxw_meg_ex(amxw_buf *b, int version, const amxw_meg_file *files, size_t count,
                 const amxw_meg_opts *opts, amxw_meg_layout *layout, size_t *record_file);

#endif
