/* Test-side MEG writer; see meg_writer.h. */
#include "meg_writer.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

typedef struct rec {
    uint32_t crc;
    size_t file;
} rec;

static int rec_cmp(const void *pa, const void *pb)
{
    const rec *a = pa, *b = pb;
    if (a->crc != b->crc)
        return a->crc < b->crc ? -1 : 1;
    return a->file < b->file ? -1 : a->file > b->file;
}

void amxw_meg(amxw_buf *b, int version, const amxw_meg_file *files, size_t count)
{
    amxw_meg_ex(b, version, files, count, NULL, NULL, NULL);
}

void amxw_meg_ex(amxw_buf *b, int version, const amxw_meg_file *files, size_t count,
                 const amxw_meg_opts *opts, amxw_meg_layout *layout, size_t *record_file)
{
    amxw_meg_opts o = opts ? *opts : (amxw_meg_opts){ 0 };
    size_t base = b->len;
    size_t header = version == 1 ? 8 : version == 2 ? 20 : 24;
    size_t names_size = 0;
    for (size_t i = 0; i < count; i++)
        names_size += 2 + strlen(files[i].name);
    size_t records = base + header + names_size;
    size_t data = records + 20 * count;

    rec *recs = calloc(count ? count : 1, sizeof *recs);
    size_t *starts = calloc(count ? count : 1, sizeof *starts);
    if (!recs || !starts) {
        fputs("amxw: out of memory\n", stderr);
        abort();
    }
    size_t at = data;
    for (size_t i = 0; i < count; i++) {
        recs[i].crc = (uint32_t)crc32(0L, (const Bytef *)files[i].name, (uInt)strlen(files[i].name));
        recs[i].file = i;
        starts[i] = at;
        at += files[i].size;
    }
    if (!o.keep_order)
        qsort(recs, count, sizeof *recs, rec_cmp);

    if (version == 1) {
        amxw_u32le(b, (uint32_t)count);
        amxw_u32le(b, (uint32_t)count);
    } else {
        amxw_u32le(b, 0xFFFFFFFFu);
        amxw_u32le(b, 0x3F7D70A4u);
        amxw_u32le(b, (uint32_t)(data - base));
        amxw_u32le(b, (uint32_t)count);
        amxw_u32le(b, (uint32_t)count);
        if (version == 3)
            amxw_u32le(b, (uint32_t)names_size);
    }
    for (size_t i = 0; i < count; i++) {
        size_t n = strlen(files[i].name);
        amxw_u16le(b, (uint16_t)n);
        amxw_bytes(b, files[i].name, n);
    }
    for (size_t i = 0; i < count; i++) {
        size_t f = recs[i].file;
        if (version == 3)
            amxw_u16le(b, 0);
        amxw_u32le(b, recs[i].crc);
        amxw_u32le(b, (uint32_t)i);
        amxw_u32le(b, (uint32_t)files[f].size);
        amxw_u32le(b, (uint32_t)(starts[f] - base));
        if (version == 3)
            amxw_u16le(b, (uint16_t)f);
        else
            amxw_u32le(b, (uint32_t)f);
        if (record_file)
            record_file[i] = f;
    }
    for (size_t i = 0; i < count; i++)
        amxw_bytes(b, files[i].data, files[i].size);

    if (layout) {
        size_t v3 = version == 3 ? 2 : 0;
        *layout = (amxw_meg_layout){
            .header_size = header,
            .names_offset = base + header,
            .records_offset = records,
            .record_size = 20,
            .data_offset = data,
            .crc_field = v3,
            .index_field = v3 + 4,
            .size_field = v3 + 8,
            .start_field = v3 + 12,
            .name_field = v3 + 16,
        };
    }
    free(recs);
    free(starts);
}
