/*
 * Empire at War / Forces of Corruption game object XML (the files of Data/XML): which game object uses
 * which model, and which objects play another model's animations. Layout and sources:
 * docs/formats/alamo.md, "Game object XML".
 *
 *   <Root>                                   any root element name (Units_Capital, HardPoints, ...)
 *     <SpaceUnit Name="X">                   a game object: a child of the root with a Name
 *       <Variant_Of_Existing_Type>P</...>    inherits P's tags it does not set itself
 *       <Space_Model_Name>X.ALO</...>        model tags (below): DATA\ART\MODELS\<value>
 *       <Space_Model_Anim_Override_Name>Y.alo</...>
 *                                            the object's model plays Y_<TYPE>_<NN>.ALA; an
 *                                            empty element clears an inherited override
 *       <Land_Terrain_Model_Mapping>Temperate, A.alo, Desert, B.alo</...>   terrain, model pairs
 *
 * Parsed with libxml2 in recover mode (its streaming reader stops at the first fatal error;
 * the tree parser goes on): mod XML is often not well-formed and the game's own parser reads
 * past much of it, so problems are one XML_MALFORMED finding (the first problem's line and
 * message, and how many more), not a failure. No external entity, DTD or network access; entities are not substituted. A file
 * that is not UTF-8 and declares no encoding is read again as Latin-1 (what the game's
 * Windows tools write), noted at info level.
 */
#include "common/grow.h"
#include "decoder.h"

#include <libxml/parser.h>
#include <libxml/tree.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* Tags whose text names another file. */
static const struct {
    const char *tag;
    amx_ref_kind kind;
    bool pairs;              /* "terrain, model, terrain, model" */
} ref_tags[] = {
    /* an .ALO of either kind (ModVerify BIN01: these must not be animations) */
    { "Land_Model_Name", AMX_REF_MODEL_OR_PARTICLE, false },
    { "Space_Model_Name", AMX_REF_MODEL_OR_PARTICLE, false },
    { "Galactic_Model_Name", AMX_REF_MODEL_OR_PARTICLE, false },
    { "Damaged_Smoke_Asset_Name", AMX_REF_MODEL_OR_PARTICLE, false },
    { "Model_To_Attach", AMX_REF_MODEL_OR_PARTICLE, false },   /* hardpoints */
    /* a model (BIN01: these must be models, and so must terrain-mapped ones) */
    { "Destroyed_Galactic_Model_Name", AMX_REF_MODEL, false },
    { "Galactic_Fleet_Override_Model_Name", AMX_REF_MODEL, false },
    { "GUI_Model_Name", AMX_REF_MODEL, false },
    { "Model_Name", AMX_REF_MODEL, false },           /* command bar components */
    { "Land_Terrain_Model_Mapping", AMX_REF_MODEL, true },
    { "Land_Model_Anim_Override_Name", AMX_REF_ANIM_OVERRIDE, false },
    { "Space_Model_Anim_Override_Name", AMX_REF_ANIM_OVERRIDE, false },
};

#define TAG_COUNT (sizeof ref_tags / sizeof ref_tags[0])
#define VARIANT_TAG (-2)
#define MAX_VALUE 65536     /* longer text is cut (names are short; a mapping list is not) */

/* ---- probe ---- */

bool amx__xml_probe(const uint8_t *data, size_t len)
{
    if (!data)
        return false;
    size_t i = 0;
    if (len >= 2 && ((data[0] == 0xFF && data[1] == 0xFE) || (data[0] == 0xFE && data[1] == 0xFF)))
        return len >= 4 && (data[2] == '<' || data[3] == '<'); /* UTF-16 with a byte order mark */
    if (len >= 3 && data[0] == 0xEF && data[1] == 0xBB && data[2] == 0xBF)
        i = 3;
    while (i < len && (data[i] == ' ' || data[i] == '\t' || data[i] == '\r' || data[i] == '\n'))
        i++;
    if (len - i < 2 || data[i] != '<')
        return false;
    const char *p = (const char *)data + i + 1;
    size_t left = len - i - 1;
    if (left >= 4 && strncmp(p, "?xml", 4) == 0)
        return true;
    if (left >= 3 && strncmp(p, "!--", 3) == 0)
        return true;
    /* a root element, but not an HTML page */
    if (left >= 4 && strncasecmp(p, "html", 4) == 0)
        return false;
    return (*p >= 'A' && *p <= 'Z') || (*p >= 'a' && *p <= 'z') || *p == '_';
}

/* ---- decode ---- */

typedef struct xml_state {
    amx_dec *d;
    amx_game_object *objects;     /* malloc'd while parsing; copied into the arena at the end */
    size_t object_count, object_cap;
    char *value;                  /* text of the tag being read */
    size_t value_len;
    int tag;                      /* index into ref_tags, VARIANT_TAG, or -1 */
    uint32_t tag_line;
    long object;                  /* the object being read, or -1 */
    bool oom;
    /* problems */
    uint32_t errors;
    uint32_t first_line;
    char first[200];
    bool encoding_error;
} xml_state;

static void on_error(void *arg, xmlErrorPtr e)
{
    xml_state *s = arg;
    if (!e || e->level < XML_ERR_ERROR)
        return;
    if (e->domain == XML_FROM_IO || e->code == XML_ERR_INVALID_ENCODING ||
        e->code == XML_ERR_INVALID_CHAR)
        s->encoding_error = true;
    if (s->errors++ == 0) {
        s->first_line = e->line > 0 ? (uint32_t)e->line : 0;
        snprintf(s->first, sizeof s->first, "%s", e->message ? e->message : "parse error");
        size_t n = strlen(s->first);
        while (n && (s->first[n - 1] == '\n' || s->first[n - 1] == ' '))
            s->first[--n] = '\0';
    }
}

static bool is_space(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\n'; }

/* A trimmed copy of [p, p+n) in the arena. */
static const char *trimmed(amx_dec *d, const char *p, size_t n)
{
    while (n && is_space(*p))
        p++, n--;
    while (n && is_space(p[n - 1]))
        n--;
    return amx__strndup(d, (const uint8_t *)p, n);
}

static void add_ref(xml_state *s, amx_ref_kind kind, const char *tag, const char *p, size_t n)
{
    amx__ref(s->d, kind, trimmed(s->d, p, n), tag, (int32_t)s->object, s->tag_line, -1);
}

static void finish_tag(xml_state *s)
{
    const char *v = s->value ? s->value : "";
    size_t n = s->value_len;
    if (s->tag == VARIANT_TAG) {
        if (s->object >= 0)
            s->objects[s->object].variant_of = trimmed(s->d, v, n);
    } else if (ref_tags[s->tag].pairs) {
        /* "terrain, model, terrain, model": every second item names a model */
        size_t item = 0, start = 0;
        for (size_t i = 0; i <= n; i++) {
            if (i < n && v[i] != ',')
                continue;
            if (item++ % 2 == 1)
                add_ref(s, ref_tags[s->tag].kind, ref_tags[s->tag].tag, v + start, i - start);
            start = i + 1;
        }
    } else {
        add_ref(s, ref_tags[s->tag].kind, ref_tags[s->tag].tag, v, n);
    }
    s->tag = -1;
    s->value_len = 0;
}

static void append_text(xml_state *s, const char *t)
{
    size_t n = strlen(t);
    if (n > MAX_VALUE - s->value_len)
        n = MAX_VALUE - s->value_len;
    if (!s->value && !(s->value = malloc(MAX_VALUE + 1))) {
        s->oom = true;
        return;
    }
    memcpy(s->value + s->value_len, t, n);
    s->value_len += n;
    s->value[s->value_len] = '\0';
}

static int tag_index(const char *name)
{
    if (strcmp(name, "Variant_Of_Existing_Type") == 0)
        return VARIANT_TAG;
    for (size_t i = 0; i < TAG_COUNT; i++)
        if (strcmp(name, ref_tags[i].tag) == 0)
            return (int)i;
    return -1;
}

static uint32_t node_line(xmlNodePtr n)
{
    long line = n ? xmlGetLineNo(n) : -1;
    return line > 0 && line < (long)UINT32_MAX ? (uint32_t)line : 0;
}

static void start_object(xml_state *s, xmlNodePtr node)
{
    s->object = -1;
    xmlChar *name = xmlGetProp(node, (const xmlChar *)"Name");
    if (!name)
        return;
    if (amx__grow((void **)&s->objects, &s->object_cap, s->object_count, sizeof *s->objects)) {
        const char *nm = (const char *)name;
        s->objects[s->object_count] = (amx_game_object){
            .type = amx__strdup(s->d, (const char *)node->name),
            .name = trimmed(s->d, nm, strlen(nm)), .line = node_line(node) };
        s->object = (long)s->object_count++;
    } else {
        s->oom = true;
    }
    xmlFree(name);
}

/* The text of an element: its text and CDATA children (comments and elements left out). */
static void element_text(xml_state *s, xmlNodePtr el)
{
    s->value_len = 0;
    if (s->value)
        s->value[0] = '\0';
    for (xmlNodePtr t = el->children; t && !s->oom; t = t->next)
        if ((t->type == XML_TEXT_NODE || t->type == XML_CDATA_SECTION_NODE) && t->content)
            append_text(s, (const char *)t->content);
}

/* libxml2 hands a parser context's errors to its SAX handler's structured-error callback,
 * with the context as user data: the state is in ctxt->_private. */
static void on_ctxt_error(void *user, xmlErrorPtr e)
{
    xmlParserCtxtPtr ctxt = user;
    if (ctxt && ctxt->_private)
        on_error(ctxt->_private, e);
}

/* Reads the document; returns false when it could not be read at all. Recover mode keeps
 * reading past what is not well-formed, as far as libxml2 can make sense of it. */
static bool parse(xml_state *s, const uint8_t *data, size_t len, const char *encoding)
{
    if (len > (size_t)INT32_MAX)
        return false;
    xmlParserCtxtPtr ctxt = xmlNewParserCtxt();
    if (!ctxt)
        return false;
    ctxt->_private = s;
    if (ctxt->sax) {
        ctxt->sax->serror = on_ctxt_error;
        ctxt->sax->error = NULL;
        ctxt->sax->warning = NULL;
    }
    int opts = XML_PARSE_RECOVER | XML_PARSE_NONET | XML_PARSE_NOWARNING | XML_PARSE_COMPACT |
               XML_PARSE_BIG_LINES;
    xmlDocPtr doc = xmlCtxtReadMemory(ctxt, (const char *)data, (int)len, NULL, encoding, opts);
    xmlNodePtr root = doc ? xmlDocGetRootElement(doc) : NULL;
    for (xmlNodePtr o = root ? root->children : NULL; o && !s->oom && !s->d->out_of_memory;
         o = o->next) {
        if (o->type != XML_ELEMENT_NODE)
            continue;
        start_object(s, o);
        if (s->object < 0)
            continue;
        for (xmlNodePtr t = o->children; t && !s->oom; t = t->next) {
            if (t->type != XML_ELEMENT_NODE || !t->name)
                continue;
            s->tag = tag_index((const char *)t->name);
            if (s->tag == -1)
                continue;
            s->tag_line = node_line(t);
            element_text(s, t);
            finish_tag(s);
        }
    }
    xmlFreeDoc(doc);
    xmlFreeParserCtxt(ctxt);
    return true;
}

static void reset(xml_state *s)
{
    free(s->objects);
    free(s->value);
    amx_dec *d = s->d;
    memset(s, 0, sizeof *s);
    s->d = d;
    s->tag = -1;
    s->object = -1;
}

static pthread_once_t libxml_once = PTHREAD_ONCE_INIT;

static void libxml_init(void) { xmlInitParser(); }

/* Whether the document declares its encoding (then a Latin-1 retry would be wrong). */
static bool declares_encoding(const uint8_t *data, size_t len)
{
    size_t n = len < 200 ? len : 200;
    const char *end = memchr(data, '>', n);
    if (!end)
        return false;
    for (const char *p = (const char *)data; p + 8 <= end; p++)
        if (strncmp(p, "encoding", 8) == 0)
            return true;
    return false;
}

void amx__xml_decode(amx_dec *d)
{
    pthread_once(&libxml_once, libxml_init);
    xml_state s = { .d = d };
    reset(&s);
    const uint8_t *data = d->r.base;
    size_t len = d->r.end;
    bool latin1 = false;
    if (!parse(&s, data, len, NULL)) {
        amx__fatal(d, AMX_C_LIMIT_EXCEEDED, -1, NULL, "the XML reader could not be started");
        reset(&s);
        free(s.value);
        return;
    }
    if (s.encoding_error && !declares_encoding(data, len)) {
        reset(&s);
        d->asset->ref_count = 0; /* read again from the start */
        latin1 = true;
        if (!parse(&s, data, len, "ISO-8859-1")) {
            reset(&s);
            free(s.value);
            return;
        }
    }
    if (s.oom)
        amx__finding(d, AMX_C_LIMIT_EXCEEDED, -1, NULL, "out of memory reading the XML");
    if (latin1)
        amx__finding_sev(d, AMX_C_XML_MALFORMED, AMX_SEV_INFO, -1, NULL,
                         "not UTF-8 and no encoding declared: read as Latin-1");
    if (s.errors) {
        char ctx[32];
        snprintf(ctx, sizeof ctx, "line %u", (unsigned)s.first_line);
        if (s.errors > 1)
            amx__finding(d, AMX_C_XML_MALFORMED, -1, s.first_line ? ctx : NULL,
                         "line %u: %s (and %u more problem%s)", (unsigned)s.first_line, s.first,
                         (unsigned)(s.errors - 1), s.errors > 2 ? "s" : "");
        else
            amx__finding(d, AMX_C_XML_MALFORMED, -1, s.first_line ? ctx : NULL, "line %u: %s",
                         (unsigned)s.first_line, s.first);
    }
    amx_asset *a = d->asset;
    if (s.object_count && (a->objects = amx__array(d, s.object_count, sizeof *a->objects))) {
        memcpy(a->objects, s.objects, s.object_count * sizeof *a->objects);
        a->object_count = (uint32_t)s.object_count;
    }
    if (!a->objects)
        a->object_count = 0;
    reset(&s);
    free(s.value);
}
