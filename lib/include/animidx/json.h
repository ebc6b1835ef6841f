/*
 * A small streaming JSON writer to a FILE (the CLI's --json outputs, reports) or to a buffer of
 * its own (amx_json_init_buffer, amx_json_take).
 * Numbers that are not finite are written as null; strings are escaped (control characters,
 * C0, DEL and C1, and U+2028/U+2029 as \uXXXX; quotes, backslashes; other UTF-8 passes
 * through, invalid UTF-8 is replaced by U+FFFD).
 */
#ifndef ANIMIDX_JSON_H
#define ANIMIDX_JSON_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "animidx/os.h"

typedef struct amx_json {
    FILE *out;
    int depth;
    bool need_comma[64];
    bool after_key;
    bool pretty;
    amx_strbuf buf;     /* the output when out is NULL */
} amx_json;

void amx_json_init(amx_json *j, FILE *out, bool pretty);
/* A writer to its own buffer; amx_json_take returns what it wrote (malloc'd, NULL when an
 * allocation failed) and empties it. */
void amx_json_init_buffer(amx_json *j, bool pretty);
char *amx_json_take(amx_json *j, size_t *len);
void amx_json_begin_object(amx_json *j);
void amx_json_end_object(amx_json *j);
void amx_json_begin_array(amx_json *j);
void amx_json_end_array(amx_json *j);
void amx_json_key(amx_json *j, const char *key);
void amx_json_string(amx_json *j, const char *s);   /* NULL writes null */
void amx_json_int(amx_json *j, int64_t v);
void amx_json_number(amx_json *j, double v);         /* %.9g; non-finite -> null */
void amx_json_bool(amx_json *j, bool v);
void amx_json_null(amx_json *j);
/* key + value shorthands */
void amx_json_kstring(amx_json *j, const char *key, const char *s);
void amx_json_kint(amx_json *j, const char *key, int64_t v);
void amx_json_knumber(amx_json *j, const char *key, double v);
void amx_json_kbool(amx_json *j, const char *key, bool v);
/* Writes an escaped string body (no quotes) to a FILE, for other writers (HTML, SARIF). */
void amx_json_escape(FILE *out, const char *s);
void amx_json_escape_buf(amx_strbuf *buf, const char *s);
/* Writes an already-serialised JSON value as it is (e.g. a details column from the index). */
void amx_json_raw(amx_json *j, const char *json);

/* Format-specific details of a clip of an asset (lib/format/asset_json.c): MechWarrior 3's "mw3"
 * object, Metroid Prime's "mp" object. */
struct amx_asset;
struct amx_clip;
bool amx_asset_clip_has_details(const struct amx_asset *a, const struct amx_clip *c);
/* Writes the details as keys of the JSON object being written. */
void amx_json_clip_details(amx_json *j, const struct amx_asset *a, const struct amx_clip *c);
/* The details as a JSON object string (malloc'd, caller frees), or NULL when there are none. */
char *amx_clip_details_string(const struct amx_asset *a, const struct amx_clip *c);

#endif
