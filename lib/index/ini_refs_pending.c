/* The references of a SAGE INI file between its scan and its link pass, one blob per file
 * (ini_refs_pending.refs, migration 0017).
 *
 * An INI reference is resolved by the link pass, which needs every file of the tree: written
 * to `refs` at the scan, unresolved, each row was rewritten by the link pass (its resolution,
 * target and hierarchy move it in three more indexes: a quarter of a Zero Hour mod's first
 * scan). The scan writes the file's references here instead, in the transaction that writes the
 * file; the link pass reads them, resolves them and inserts each row into `refs` once, resolved,
 * and deletes the blob in its own transaction. A crash in between leaves the blob, and the next
 * link pass (of any scan) inserts its rows. Layout (version 1), per reference in the file's
 * order:
 *
 *   u8      flags: 0x01 object, 0x02 state, 0x04 line, 0x08 offset, 0x10 model, 0x20 slot
 *   varint  [0x01] the game object's row id; [0x02] the draw state's row id;
 *           [0x04] the line; [0x08] the byte offset
 *   string  kind (amx_ref_kind_name), tag, name, key; [0x10] model, model_key; [0x20] slot
 *
 * after a u8 version. A string is a varint length, those bytes and a NUL (it holds none). The
 * reader checks every length against the blob: a damaged blob is an error, never a read out of
 * bounds. */
#include "db_internal.h"

#include <stdlib.h>
#include <string.h>

#define PENDING_VERSION 1
#define F_OBJECT 0x01u
#define F_STATE 0x02u
#define F_LINE 0x04u
#define F_OFFSET 0x08u
#define F_MODEL 0x10u
#define F_SLOT 0x20u
#define F_ALL 0x3Fu

static void put_string(amx__byte_buf *b, const char *s, size_t len)
{
    amx__byte_buf_varint(b, len);
    memcpy(b->data + b->len, s, len);
    b->len += len;
    b->data[b->len++] = '\0';
}

void amx__pending_refs_begin(amx__byte_buf *out)
{
    out->len = 0;
    if (amx__byte_buf_reserve(out, 1))
        out->data[out->len++] = PENDING_VERSION;
}

int amx__pending_refs_add(amx__byte_buf *out, const amx__pending_ref *r)
{
    if (out->len == 0) /* begin could not allocate */
        return -1;
    const char *kind = amx_ref_kind_name(r->kind);
    const char *texts[7] = { kind ? kind : "", r->tag ? r->tag : "", r->name ? r->name : "",
                             r->key ? r->key : "", r->model, r->model_key ? r->model_key : "",
                             r->slot };
    size_t lens[7], need = 1 + 4 * 10;
    for (int i = 0; i < 7; i++) {
        lens[i] = texts[i] ? strlen(texts[i]) : 0;
        need += 10 + lens[i] + 1;
    }
    if (!amx__byte_buf_reserve(out, need))
        return -1;
    uint8_t flags = (uint8_t)((r->object_id >= 0 ? F_OBJECT : 0) |
                              (r->state_id >= 0 ? F_STATE : 0) | (r->line > 0 ? F_LINE : 0) |
                              (r->offset >= 0 ? F_OFFSET : 0) | (r->model ? F_MODEL : 0) |
                              (r->slot ? F_SLOT : 0));
    out->data[out->len++] = flags;
    if (flags & F_OBJECT)
        amx__byte_buf_varint(out, (uint64_t)r->object_id);
    if (flags & F_STATE)
        amx__byte_buf_varint(out, (uint64_t)r->state_id);
    if (flags & F_LINE)
        amx__byte_buf_varint(out, (uint64_t)r->line);
    if (flags & F_OFFSET)
        amx__byte_buf_varint(out, (uint64_t)r->offset);
    for (int i = 0; i < ((flags & F_MODEL) ? 6 : 4); i++)
        put_string(out, texts[i], lens[i]);
    if (flags & F_SLOT)
        put_string(out, texts[6], lens[6]);
    return 0;
}

/* ---- reading ---- */

typedef struct cursor {
    char *p, *end;
} cursor;

static bool get_varint(cursor *c, uint64_t *v)
{
    const uint8_t *p = (const uint8_t *)c->p;
    bool ok = amx__varint_get(&p, (const uint8_t *)c->end, v);
    c->p += p - (const uint8_t *)c->p;
    return ok;
}

/* A non-negative int64 (the row ids, lines and offsets the writer put). */
static bool get_count(cursor *c, int64_t *v)
{
    uint64_t x;
    if (!get_varint(c, &x) || x > (uint64_t)INT64_MAX)
        return false;
    *v = (int64_t)x;
    return true;
}

/* A string in place: its bytes, then the NUL the writer put after them. */
static bool get_string(cursor *c, const char **s)
{
    uint64_t len;
    if (!get_varint(c, &len) || len >= (uint64_t)(c->end - c->p) || c->p[len] != '\0' ||
        memchr(c->p, '\0', (size_t)len))
        return false;
    *s = c->p;
    c->p += len + 1;
    return true;
}

int amx__pending_refs_read(const void *blob, size_t len, amx__pending_refs *out)
{
    *out = (amx__pending_refs){ 0 };
    if (!blob || len == 0 || *(const uint8_t *)blob != PENDING_VERSION)
        return -1;
    if (!(out->text = malloc(len)))
        return -1;
    memcpy(out->text, blob, len);
    cursor c = { out->text + 1, out->text + len };
    /* a reference takes at least 9 bytes (flags and four empty strings): the list's bound */
    size_t most = (len - 1) / 9;
    if (most && !(out->refs = malloc(most * sizeof *out->refs)))
        goto bad;
    while (c.p < c.end) {
        if (out->n == most)
            goto bad;
        amx__pending_ref *r = &out->refs[out->n];
        *r = (amx__pending_ref){ .object_id = -1, .state_id = -1, .offset = -1 };
        uint8_t flags = (uint8_t)*c.p++;
        const char *kind = NULL;
        if ((flags & ~F_ALL) || ((flags & F_OBJECT) && !get_count(&c, &r->object_id)) ||
            ((flags & F_STATE) && !get_count(&c, &r->state_id)) ||
            ((flags & F_LINE) && !get_count(&c, &r->line)) ||
            ((flags & F_OFFSET) && !get_count(&c, &r->offset)) || !get_string(&c, &kind) ||
            !amx_ref_kind_parse(kind, &r->kind) || !get_string(&c, &r->tag) ||
            !get_string(&c, &r->name) || !get_string(&c, &r->key))
            goto bad;
        if (((flags & F_MODEL) && (!get_string(&c, &r->model) || !get_string(&c, &r->model_key))) ||
            ((flags & F_SLOT) && !get_string(&c, &r->slot)))
            goto bad;
        out->n++;
    }
    return 0;
bad:
    amx__pending_refs_free(out);
    return -1;
}

void amx__pending_refs_free(amx__pending_refs *p)
{
    free(p->refs);
    free(p->text);
    *p = (amx__pending_refs){ 0 };
}
