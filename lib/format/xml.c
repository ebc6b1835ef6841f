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
 *       <Particle><Land_Model_Name>P.alo</...></Particle>
 *                                            a tag in a nested element is the object's too
 *     </SpaceUnit>
 *     <WaypointFlagModelName>F.alo</...>     a tag below a child with no Name: no one's
 *
 * Read with libxml2's SAX2 parser in recover mode, through a read callback that hands it the
 * file a few KB at a time: mod XML is often not well-formed and the game's own parser reads
 * past much of it, so problems are one XML_MALFORMED finding (the first problem's line and
 * message, and how many more), not a failure. No tree is built; libxml2 holds the part of the
 * file it is parsing (one value at most 10,000,000 bytes, its own limit), and before each
 * block the reader checks that the caller does not want it to stop (amx_decode_opts.cancelled)
 * and that the memory stays within the decode's limit.
 *
 * No DTD, external entity or network access, and no entity is expanded anywhere: every entity
 * the document declares or names stands for nothing (libxml2 is given each one empty), so an
 * entity reference stays in the text and in attribute values as written (`x&i;y` is the name
 * "x&i;y", never "xy" nor the entity's text), and each entity named is one XML_MALFORMED
 * finding (how often, and where first). The predefined entities (&amp; ...) and character
 * references are characters, read as such. Attributes the DTD would add are not read.
 *
 * libxml2's messages (those of the parser and of its encoding converters) come to the error
 * handlers here, never to stderr. A file that is not UTF-8, declares no encoding and has no
 * byte order mark is read as Latin-1 (what the game's Windows tools write), noted at info
 * level; so is one whose declaration its bytes are not in (declaration_unfit: the game reads
 * the bytes whatever the declaration says). NUL bytes are not XML text: they are read as if
 * absent and reported as such.
 */
#include "common/grow.h"
#include "common/utf8.h"
#include "decoder.h"

#include <libxml/SAX2.h>
#include <libxml/entities.h>
#include <libxml/globals.h>
#include <libxml/hash.h>
#include <libxml/parser.h>
#include <libxml/parserInternals.h>
#include <libxml/tree.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* Tags whose text names another file. */
static const struct {
    const char *tag;
    amx_ref_kind kind;
    bool pairs;              /* "terrain, model, terrain, model" */
    bool root_child;         /* read only as a child of the root */
} ref_tags[] = {
    /* an .ALO of either kind (ModVerify BIN01: these must not be animations) */
    { "Land_Model_Name", AMX_REF_MODEL_OR_PARTICLE, false, false },
    { "Space_Model_Name", AMX_REF_MODEL_OR_PARTICLE, false, false },
    { "Galactic_Model_Name", AMX_REF_MODEL_OR_PARTICLE, false, false },
    { "Damaged_Smoke_Asset_Name", AMX_REF_MODEL_OR_PARTICLE, false, false },
    { "Model_To_Attach", AMX_REF_MODEL_OR_PARTICLE, false, false },   /* hardpoints */
    /* a model (BIN01: these must be models, and so must terrain-mapped ones) */
    { "Destroyed_Galactic_Model_Name", AMX_REF_MODEL, false, false },
    { "Galactic_Fleet_Override_Model_Name", AMX_REF_MODEL, false, false },
    { "GUI_Model_Name", AMX_REF_MODEL, false, false },
    { "Model_Name", AMX_REF_MODEL, false, false },   /* command bar components, text crawls */
    { "GUI_Model", AMX_REF_MODEL, false, false },    /* ModVerify's GameObject.Models */
    { "WaypointFlagModelName", AMX_REF_MODEL, false, false },   /* GameConstants.xml */
    { "Tactical_Model_Name", AMX_REF_MODEL_OR_PARTICLE, false, false },
    { "Event_Model_Name", AMX_REF_MODEL_OR_PARTICLE, false, false }, /* RadarMap.xml */
    /* a hero's Personal_Flame_Thrower_Ability (an Abilities sub-object): the flame's
     * emitter, a particle system (p_flamethrower00); eaw-schema: referenceKind modelFile */
    { "Flame_Emitter_Model_Name", AMX_REF_MODEL_OR_PARTICLE, false, false },
    { "Land_Terrain_Model_Mapping", AMX_REF_MODEL, true, false },
    { "Land_Model_Anim_Override_Name", AMX_REF_ANIM_OVERRIDE, false, false },
    { "Space_Model_Anim_Override_Name", AMX_REF_ANIM_OVERRIDE, false, false },
    /* an entry of a list file (GameObjectFiles.xml, HardPointDataFiles.xml, SFXEventFiles.xml,
     * ...): the file DATA/XML/<entry> the game loads */
    { "File", AMX_REF_XML_FILE, false, true },
};

#define TAG_COUNT (sizeof ref_tags / sizeof ref_tags[0])
#define VARIANT_TAG (-2)
#define MAX_VALUE 65536     /* longer text is cut (names are short; a mapping list is not) */
/* A name (an object's, a variant's, a reference's) is stored with at most this many bytes of
 * its own, then "…(N bytes)": so that no output repeats a name of 300,000 characters for
 * every reference it makes. Longer than any path the engine opens (259 characters), so a
 * reference cut so is still too long to be found. */
#define MAX_NAME 256
/* What libxml2 may hold of the file at once: it refuses a single value past 10,000,000 bytes
 * (XML_MAX_TEXT_LENGTH) itself; past this the rest of the file is not read. */
#define MAX_HELD ((size_t)16 << 20)
#define MAX_ENTITIES 1000   /* distinct entity names a file may use before the reading stops */

/* ---- probe ---- */

/* The game skips whatever comes before the first '<' (ModVerify's engine model,
 * PetroglyphXmlFileParserBase.SkipCharactersUntilXmlHeader: "The engine skips everything
 * until the first '<' character"): a file whose first '<', within its first 256 bytes and
 * after no NUL byte, opens an XML declaration is XML. */
static bool declaration_after_stray_bytes(const uint8_t *data, size_t len)
{
    size_t n = len < 256 ? len : 256;
    const uint8_t *lt = memchr(data, '<', n);
    if (!lt || memchr(data, 0, (size_t)(lt - data)))
        return false;
    return len - (size_t)(lt - data) >= 5 && memcmp(lt, "<?xml", 5) == 0;
}

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
        return declaration_after_stray_bytes(data, len);
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

/* An entity the document names outside its DTD: how often, and where first. */
typedef struct entity_use {
    char *name;
    uint32_t count;
    uint32_t line;
} entity_use;

typedef struct xml_state {
    amx_dec *d;
    xmlParserCtxtPtr ctxt;
    amx_game_object *objects;     /* malloc'd while parsing; copied into the arena at the end */
    size_t object_count, object_cap;
    const char *last_type;        /* the previous object's element name, in the arena */
    char *value;                  /* text of the tag being read */
    size_t value_len;
    unsigned depth;               /* of the element being read: 1 = the root */
    unsigned tag_depth;           /* of the tag being read (when tag != -1) */
    int tag;                      /* index into ref_tags, VARIANT_TAG, or -1 */
    uint32_t tag_line;
    long object;                  /* the object being read, or -1 */
    bool oom;
    bool stopped;                 /* a limit stopped the reading (its finding is made) */
    /* entity references */
    xmlHashTablePtr entity_index; /* name -> 1 + index into entities */
    entity_use *entities;
    size_t entity_count, entity_cap;
    /* names stored cut (MAX_NAME) and text cut (MAX_VALUE): how many, and the first */
    uint32_t names_cut, texts_cut;
    char name_cut[160], text_cut[160];
    bool value_cut;               /* the text of the tag being read went past MAX_VALUE */
    /* problems */
    uint32_t errors;
    uint32_t first_line;
    char first[200];
    uint32_t line_base;           /* lines before what libxml2 reads (stray bytes skipped) */
} xml_state;

/* ---- libxml2's messages ---- */

static uint32_t current_line(xml_state *s)
{
    int line = s->ctxt ? xmlSAX2GetLineNumber(s->ctxt) : 0;
    return line > 0 ? (uint32_t)line + s->line_base : 0;
}

static void note_problem(xml_state *s, int line, const char *message)
{
    if (s->errors++ == 0) {
        s->first_line = line > 0 ? (uint32_t)line : 0;
        snprintf(s->first, sizeof s->first, "%s", message && *message ? message : "parse error");
        size_t n = strlen(s->first);
        while (n && (s->first[n - 1] == '\n' || s->first[n - 1] == ' '))
            s->first[--n] = '\0';
    }
}

/* The structured handler of this thread while it parses: errors raised without a parser
 * context (the encoding converters, the I/O layer) come here with the state. */
static void on_error(void *arg, xmlErrorPtr e)
{
    xml_state *s = arg;
    if (!s || !e || e->level < XML_ERR_ERROR || s->stopped || s->d->cancelled)
        return;
    note_problem(s, e->line > 0 ? e->line + (int)s->line_base : (int)current_line(s),
                 e->message);
}

/* The parser context's handler: libxml2 gives the context, whose _private is the state. */
static void on_ctxt_error(void *user, xmlErrorPtr e)
{
    xmlParserCtxtPtr ctxt = user;
    if (ctxt)
        on_error(ctxt->_private, e);
}

/* libxml2's unstructured messages (a few places print through it): counted like the rest. */
static void on_generic_error(void *arg, const char *fmt, ...) AMX_PRINTF(2, 3);
static void on_generic_error(void *arg, const char *fmt, ...)
{
    xml_state *s = arg;
    if (!s || s->stopped || s->d->cancelled)
        return;
    char msg[200];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    note_problem(s, (int)current_line(s), msg);
}

/* ---- what is read ---- */

static bool is_space(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\n'; }

/* [p, p+n) trimmed, into the arena as a name: one longer than MAX_NAME bytes is stored as its
 * first MAX_NAME bytes (cut at a character boundary) and "…(N bytes)", counted for the file's
 * finding with `what` and `line`. */
static const char *stored_name(xml_state *s, const char *p, size_t n, const char *what,
                               uint32_t line)
{
    while (n && is_space(*p))
        p++, n--;
    while (n && is_space(p[n - 1]))
        n--;
    if (n <= MAX_NAME)
        return amx__strndup(s->d, (const uint8_t *)p, n);
    size_t cut = MAX_NAME;
    while (cut && ((unsigned char)p[cut] & 0xC0) == 0x80) /* not inside a UTF-8 sequence */
        cut--;
    if (s->names_cut++ == 0)
        snprintf(s->name_cut, sizeof s->name_cut, "%s at line %u, %zu bytes", what,
                 (unsigned)line, n);
    return amx__sprintf(s->d, "%.*s\xE2\x80\xA6(%zu bytes)", (int)cut, p, n);
}

static void add_ref(xml_state *s, amx_ref_kind kind, const char *tag, const char *p, size_t n)
{
    amx__ref(s->d, kind, stored_name(s, p, n, tag, s->tag_line), tag, (int32_t)s->object,
             s->tag_line, -1);
}

static void finish_tag(xml_state *s)
{
    const char *v = s->value ? s->value : "";
    size_t n = s->value_len;
    if (s->tag == VARIANT_TAG) {
        if (s->object >= 0)
            s->objects[s->object].variant_of =
                stored_name(s, v, n, "Variant_Of_Existing_Type", s->tag_line);
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
    if (s->value_cut && s->texts_cut++ == 0)
        snprintf(s->text_cut, sizeof s->text_cut, "<%s> at line %u",
                 s->tag == VARIANT_TAG ? "Variant_Of_Existing_Type" : ref_tags[s->tag].tag,
                 (unsigned)s->tag_line);
    s->tag = -1;
    s->value_len = 0;
    s->value_cut = false;
}

static void append_text(xml_state *s, const char *t, size_t n)
{
    if (n > MAX_VALUE - s->value_len) {
        n = MAX_VALUE - s->value_len;
        s->value_cut = true;
    }
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

/* The state of a SAX callback: NULL for a context other than the document's own (libxml2
 * parses an entity's text in a context of its own; every entity here is empty). */
static xml_state *state_of(void *ctx)
{
    xmlParserCtxtPtr ctxt = ctx;
    xml_state *s = ctxt ? ctxt->_private : NULL;
    return s && s->ctxt == ctxt && !s->stopped ? s : NULL;
}

/* Stops the reading at a limit: the finding says which; what was read is kept. The read
 * callback then refuses more input, and the SAX callbacks ignore what libxml2 still gives. */
static void limit_reached(xml_state *s, const char *fmt, ...) AMX_PRINTF(2, 3);
static void limit_reached(xml_state *s, const char *fmt, ...)
{
    char msg[300];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    char ctx[32];
    uint32_t line = current_line(s);
    snprintf(ctx, sizeof ctx, "line %u", (unsigned)line);
    amx__finding(s->d, AMX_C_LIMIT_EXCEEDED, -1, line ? ctx : NULL,
                 "%s: the rest of the file is not read", msg);
    s->stopped = true;
}

/* An entity named outside the DTD: counted under its name (one finding each, at the end). */
static void note_entity(xml_state *s, const xmlChar *name)
{
    void *found = xmlHashLookup(s->entity_index, name);
    if (found) {
        s->entities[(uintptr_t)found - 1].count++;
        return;
    }
    if (s->entity_count >= MAX_ENTITIES) {
        limit_reached(s, "more than %d entities named", MAX_ENTITIES);
        xmlStopParser(s->ctxt);
        return;
    }
    char *copy = strdup((const char *)name);
    if (!copy ||
        !amx__grow((void **)&s->entities, &s->entity_cap, s->entity_count, sizeof *s->entities) ||
        xmlHashAddEntry(s->entity_index, name, (void *)(uintptr_t)(s->entity_count + 1)) != 0) {
        free(copy);
        s->oom = true;
        return;
    }
    s->entities[s->entity_count++] = (entity_use){ .name = copy, .count = 1,
                                                   .line = current_line(s) };
}

/* Every entity lookup of the parser comes here. Each name is given an entity of no text, so
 * nothing is ever expanded: in an attribute value libxml2 then keeps the reference as written
 * ("&name;", a literal '&' there reading "&#38;"); in element text the reference is written
 * into the text here (libxml2 drops it from what it reports, and after the first
 * well-formedness error it drops it without a word). */
static xmlEntityPtr get_entity(void *ctx, const xmlChar *name)
{
    xmlParserCtxtPtr ctxt = ctx;
    xmlEntityPtr e = xmlSAX2GetEntity(ctx, name);
    xml_state *s = state_of(ctx);
    if (!s || ctxt->inSubset) /* the DTD's own look-ups (a declaration, a default value) */
        return e;
    note_entity(s, name);
    if (s->stopped)
        return e;
    if (!e && ctxt->myDoc) {
        if (!ctxt->myDoc->intSubset)
            xmlCreateIntSubset(ctxt->myDoc, BAD_CAST "document", NULL, NULL);
        e = xmlAddDocEntity(ctxt->myDoc, name, XML_INTERNAL_GENERAL_ENTITY, NULL, NULL,
                            BAD_CAST "");
    }
    if (ctxt->instate == XML_PARSER_CONTENT && s->tag != -1 && s->depth == s->tag_depth) {
        append_text(s, "&", 1);
        append_text(s, (const char *)name, strlen((const char *)name));
        append_text(s, ";", 1);
    }
    return e;
}

/* Declarations: every entity is declared empty (an internal one: nothing is fetched). */
static void entity_decl(void *ctx, const xmlChar *name, int type, const xmlChar *public_id,
                        const xmlChar *system_id, xmlChar *content)
{
    (void)public_id, (void)system_id, (void)content;
    int kind = type == XML_INTERNAL_PARAMETER_ENTITY || type == XML_EXTERNAL_PARAMETER_ENTITY
                   ? XML_INTERNAL_PARAMETER_ENTITY
                   : XML_INTERNAL_GENERAL_ENTITY;
    xmlSAX2EntityDecl(ctx, name, kind, NULL, NULL, BAD_CAST "");
}

static void unparsed_entity_decl(void *ctx, const xmlChar *name, const xmlChar *public_id,
                                 const xmlChar *system_id, const xmlChar *notation)
{
    (void)public_id, (void)system_id, (void)notation;
    xmlSAX2EntityDecl(ctx, name, XML_INTERNAL_GENERAL_ENTITY, NULL, NULL, BAD_CAST "");
}

/* An attribute value as libxml2 gives it without substituting entities: "&#38;" is a literal
 * '&' (what "&amp;" or "&#38;" was), and any other '&' starts an entity reference, kept as
 * written. Stored as a name. */
static const char *attribute_value(xml_state *s, const char *v, size_t n, uint32_t line)
{
    if (!memchr(v, '&', n))
        return stored_name(s, v, n, "Name", line);
    char *text = malloc(n + 1);
    if (!text) {
        s->oom = true;
        return "";
    }
    size_t k = 0;
    for (size_t i = 0; i < n; i++) {
        text[k++] = v[i];
        if (v[i] == '&' && n - i >= 5 && memcmp(v + i, "&#38;", 5) == 0)
            i += 4;
    }
    const char *name = stored_name(s, text, k, "Name", line);
    free(text);
    return name;
}

static void start_object(xml_state *s, const xmlChar *localname, int nb_attributes,
                         int nb_defaulted, const xmlChar **attributes)
{
    s->object = -1;
    /* attributes come as (localname, prefix, URI, value, end); the DTD's defaults last */
    const xmlChar **name = NULL;
    for (int i = 0; i < nb_attributes - nb_defaulted && !name; i++)
        if (strcmp((const char *)attributes[i * 5], "Name") == 0)
            name = attributes + i * 5;
    if (!name)
        return;
    if (!amx__grow((void **)&s->objects, &s->object_cap, s->object_count, sizeof *s->objects)) {
        s->oom = true;
        return;
    }
    /* the objects of a file are mostly of a few types: the previous one's name is reused */
    if (!s->last_type || strcmp(s->last_type, (const char *)localname) != 0)
        s->last_type = amx__strdup(s->d, (const char *)localname);
    const char *v = (const char *)name[3];
    uint32_t line = current_line(s);
    s->objects[s->object_count] = (amx_game_object){
        .type = s->last_type ? s->last_type : "",
        .name = attribute_value(s, v, (size_t)((const char *)name[4] - v), line),
        .line = line };
    s->object = (long)s->object_count++;
}

/* A tag is read wherever it sits below a child of the root: below a game object it is the
 * object's (a model tag in a nested <Particle> too), below a child with no Name no one's (the
 * text crawl's <Model_Name>, GameConstants' <WaypointFlagModelName>, which may be that child
 * itself). Variant_Of_Existing_Type counts only as a game object's own child. Elements inside
 * a tag being read are not tags: only the tag's own text is its value. */
static void on_start(void *ctx, const xmlChar *localname, const xmlChar *prefix,
                     const xmlChar *uri, int nb_namespaces, const xmlChar **namespaces,
                     int nb_attributes, int nb_defaulted, const xmlChar **attributes)
{
    (void)prefix, (void)uri, (void)nb_namespaces, (void)namespaces;
    xml_state *s = state_of(ctx);
    if (!s)
        return;
    s->depth++;
    if (s->depth == 2)
        start_object(s, localname, nb_attributes, nb_defaulted, attributes);
    if (s->depth < 2 || s->tag != -1)
        return;
    int tag = tag_index((const char *)localname);
    if (tag == -1 || (tag == VARIANT_TAG && (s->depth != 3 || s->object < 0)) ||
        (tag >= 0 && ref_tags[tag].root_child && s->depth != 2))
        return;
    s->tag = tag;
    s->tag_depth = s->depth;
    s->tag_line = current_line(s);
    s->value_len = 0;
    s->value_cut = false;
    if (s->value)
        s->value[0] = '\0';
}

static void on_end(void *ctx, const xmlChar *localname, const xmlChar *prefix, const xmlChar *uri)
{
    (void)localname, (void)prefix, (void)uri;
    xml_state *s = state_of(ctx);
    if (!s || !s->depth)
        return;
    if (s->tag != -1 && s->depth == s->tag_depth)
        finish_tag(s);
    if (s->depth == 2)
        s->object = -1;
    s->depth--;
}

/* Text and CDATA directly in a tag element (comments and elements inside it left out). */
static void on_text(void *ctx, const xmlChar *text, int len)
{
    xml_state *s = state_of(ctx);
    if (s && s->tag != -1 && s->depth == s->tag_depth && len > 0)
        append_text(s, (const char *)text, (size_t)len);
}

static xmlSAXHandler sax_handler;

static void sax_init(void)
{
    xmlSAXHandler *h = &sax_handler;
    xmlSAXVersion(h, 2); /* the SAX2 defaults keep the DTD's declarations; no tree is built */
    h->startElementNs = on_start;
    h->endElementNs = on_end;
    h->characters = on_text;
    h->cdataBlock = on_text;
    h->ignorableWhitespace = on_text;
    h->getEntity = get_entity;
    h->entityDecl = entity_decl;
    h->unparsedEntityDecl = unparsed_entity_decl;
    /* nothing is fetched, nothing kept that is not read */
    h->resolveEntity = NULL;
    h->externalSubset = NULL;
    h->reference = NULL;
    h->comment = NULL;
    h->processingInstruction = NULL;
    h->startElement = NULL;
    h->endElement = NULL;
    h->serror = on_ctxt_error;
    h->error = NULL;
    h->warning = NULL;
    h->fatalError = NULL;
}

static pthread_once_t libxml_once = PTHREAD_ONCE_INIT;

static void libxml_init(void)
{
    xmlInitParser();
    sax_init();
}

/* The encoding the document's declaration names ("" for none), at most n - 1 bytes of it. */
static void declared_encoding(const uint8_t *data, size_t len, char *out, size_t n)
{
    out[0] = '\0';
    size_t i = len >= 3 && data[0] == 0xEF && data[1] == 0xBB && data[2] == 0xBF ? 3 : 0;
    size_t end = len < 200 ? len : 200;
    if (end - i < 5 || memcmp(data + i, "<?xml", 5) != 0)
        return;
    const char *p = (const char *)data + i, *stop = memchr(p, '>', end - i);
    if (!stop)
        return;
    for (; p + 8 <= stop && strncmp(p, "encoding", 8) != 0; p++)
        ;
    if (p + 8 > stop)
        return;
    for (p += 8; p < stop && is_space(*p); p++)
        ;
    if (p >= stop || *p++ != '=')
        return;
    while (p < stop && is_space(*p))
        p++;
    if (p >= stop || (*p != '"' && *p != '\''))
        return;
    const char *v = p + 1, *q = memchr(v, *p, (size_t)(stop - v));
    size_t k = q ? (size_t)(q - v) : 0;
    if (k >= n)
        k = n - 1;
    memcpy(out, v, k);
    out[k] = '\0';
}

static bool memchr_high(const uint8_t *data, size_t len)
{
    for (size_t i = 0; i < len; i++)
        if (data[i] & 0x80)
            return true;
    return false;
}

static const char *const utf8_names[] = { "UTF-8", "UTF8", NULL };

static bool name_is(const char *name, const char *const *list)
{
    for (; *list; list++)
        if (strcasecmp(name, *list) == 0)
            return true;
    return false;
}

/* Why a document of 8-bit characters is not read in the encoding it declares, or NULL when
 * it is. The game reads the bytes whatever the declaration says (ModVerify's engine model
 * reads every XML file through an ASCII text reader, which a declaration never changes), so a
 * declaration libxml2 would follow into losing the file is not followed: UTF-8 over bytes
 * that are not UTF-8, ASCII over bytes past 0x7F (libxml2 stops at the first one: the rest of
 * the file was lost), a 16- or 32-bit encoding over 8-bit bytes, a name no converter knows
 * (nothing was read). Any other encoding libxml2 converts is used as declared. */
static const char *declaration_unfit(const char *decl, const uint8_t *data, size_t len,
                                     size_t not_utf8)
{
    static const char *const ascii[] = { "ASCII", "US-ASCII", "ANSI_X3.4-1968", "ISO646-US",
                                         "US", NULL };
    static const char *const wide[] = { "UTF-16", "UTF16", "UTF-16LE", "UTF-16BE", "UTF-32",
                                        "UTF32", "UTF-32LE", "UTF-32BE", "UCS-2", "UCS2",
                                        "UCS-4", "UCS4", "ISO-10646-UCS-2", "ISO-10646-UCS-4",
                                        "UNICODE", NULL };
    if (name_is(decl, utf8_names))
        return not_utf8 == len ? NULL : "the bytes are not in";
    if (name_is(decl, ascii))
        return memchr_high(data, len) ? "the bytes are not in (a byte past 0x7F)" : NULL;
    if (name_is(decl, wide))
        return "an 8-bit document is not in";
    xmlCharEncodingHandlerPtr h = xmlFindCharEncodingHandler(decl);
    if (!h)
        return "no converter knows";
    xmlCharEncCloseFunc(h);
    return NULL;
}

/* The file as libxml2 reads it: a block at a time, NUL bytes left out when `drop_nul`. */
typedef struct xml_input {
    xml_state *s;
    const uint8_t *data;
    size_t len, off;
    bool drop_nul;
    uint64_t nul_count;
    int64_t first_nul;
} xml_input;

/* What the reader holds besides the arena: libxml2's copy of the file not yet parsed, the
 * objects so far, the text of a tag, the references. */
static size_t working_bytes(const xml_state *s)
{
    const xmlParserInputPtr in = s->ctxt->input;
    size_t held = in && in->base && in->end >= in->base ? (size_t)(in->end - in->base) : 0;
    return held + s->object_cap * sizeof *s->objects + (s->value ? MAX_VALUE : 0) +
           s->d->refs_cap * sizeof(amx_ref);
}

/* libxml2's read callback: the next bytes of the file, at most `size` (it asks for about 4 KB
 * at a time). Before each block it checks that the caller does not want the decode to stop
 * and that the reading stays within the decode's memory; a -1 stops the parser there. */
static int read_block(void *arg, char *buf, int size)
{
    xml_input *in = arg;
    xml_state *s = in->s;
    amx_dec *d = s->d;
    if (s->stopped || s->oom || d->out_of_memory || amx__cancelled(d))
        return -1;
    const xmlParserInputPtr pin = s->ctxt->input;
    if (pin && pin->cur && pin->end - pin->cur > (ptrdiff_t)MAX_HELD) {
        limit_reached(s, "a tag, comment or declaration runs past %zu MiB", MAX_HELD >> 20);
        return -1;
    }
    if (amx__arena_used(d->arena) + working_bytes(s) > d->opts->max_memory) {
        limit_reached(s, "reading the XML needs more than the %zu MiB a decode may use",
                      d->opts->max_memory >> 20);
        return -1;
    }
    size_t want = size > 0 ? (size_t)size : 0, n = 0;
    while (n < want && in->off < in->len) {
        const uint8_t *p = in->data + in->off;
        size_t run = in->len - in->off < want - n ? in->len - in->off : want - n;
        if (in->drop_nul) {
            const uint8_t *nul = memchr(p, 0, run);
            if (nul == p) {
                if (in->nul_count++ == 0)
                    in->first_nul = (int64_t)in->off;
                in->off++;
                continue;
            }
            if (nul)
                run = (size_t)(nul - p);
        }
        memcpy(buf + n, p, run);
        n += run;
        in->off += run;
    }
    return (int)n;
}

/* Reads the document; returns false when the parser could not be made. */
static bool parse(xml_state *s, xml_input *in, bool latin1, bool ignore_decl)
{
    xmlParserCtxtPtr ctxt = xmlCreateIOParserCtxt(&sax_handler, NULL, read_block, NULL, in,
                                                  XML_CHAR_ENCODING_NONE);
    if (!ctxt)
        return false;
    s->ctxt = ctxt;
    ctxt->_private = s;
    xmlCtxtUseOptions(ctxt, XML_PARSE_RECOVER | XML_PARSE_NONET | XML_PARSE_NOWARNING |
                                XML_PARSE_BIG_LINES | (ignore_decl ? XML_PARSE_IGNORE_ENC : 0));
    if (latin1) /* once the input is there (libxml2 cannot switch the encoding of none) */
        xmlSwitchEncoding(ctxt, XML_CHAR_ENCODING_8859_1);
    xmlParseDocument(ctxt);
    if (ctxt->myDoc)
        xmlFreeDoc(ctxt->myDoc);
    ctxt->myDoc = NULL;
    xmlFreeParserCtxt(ctxt);
    s->ctxt = NULL;
    return true;
}

static void report_entities(xml_state *s)
{
    for (size_t i = 0; i < s->entity_count; i++) {
        const entity_use *u = &s->entities[i];
        char ctx[32];
        snprintf(ctx, sizeof ctx, "line %u", (unsigned)u->line);
        amx__finding(s->d, AMX_C_XML_MALFORMED, -1, u->line ? ctx : NULL,
                     "entity reference '&%.100s;' (%u time%s, first at line %u): entities are "
                     "not expanded; the text is read as written",
                     u->name, (unsigned)u->count, u->count == 1 ? "" : "s", (unsigned)u->line);
    }
}

static void free_state(xml_state *s)
{
    free(s->objects);
    free(s->value);
    for (size_t i = 0; i < s->entity_count; i++)
        free(s->entities[i].name);
    free(s->entities);
    xmlHashFree(s->entity_index, NULL);
}

void amx__xml_decode(amx_dec *d)
{
    pthread_once(&libxml_once, libxml_init);
    xml_state s = { .d = d, .tag = -1, .object = -1 };
    const uint8_t *data = d->r.base;
    size_t len = d->r.end;
    if (!(s.entity_index = xmlHashCreate(64))) {
        amx__fatal(d, AMX_C_LIMIT_EXCEEDED, -1, NULL, "the XML reader could not be started");
        return;
    }
    /* The encoding: a byte order mark says, or the declaration when the bytes are in it;
     * otherwise UTF-8 when the bytes are, else Latin-1. Only a document of 8-bit characters
     * can hold a stray NUL. */
    xmlCharEncoding enc = len >= 4 ? xmlDetectCharEncoding(data, 4) : XML_CHAR_ENCODING_NONE;
    bool bytes = enc == XML_CHAR_ENCODING_NONE || enc == XML_CHAR_ENCODING_UTF8; /* or "<?xm" */
    /* What comes before an XML declaration (spaces, lines, a second byte order mark, a stray
     * character): the game skips everything before the first '<' (see
     * declaration_after_stray_bytes), libxml2 refuses a declaration anywhere but at the start
     * (a warning; stray characters before it made the file no XML at all). The document is
     * read from its first '<', its lines and offsets counted from the file's start. */
    size_t skip = 0;
    const uint8_t *lt = bytes ? memchr(data, '<', len) : NULL;
    if (lt && lt > data && len - (size_t)(lt - data) >= 5 && memcmp(lt, "<?xml", 5) == 0 &&
        !(lt - data == 3 && data[0] == 0xEF && data[1] == 0xBB && data[2] == 0xBF)) {
        skip = (size_t)(lt - data);
        for (size_t i = 0; i < skip; i++)
            s.line_base += data[i] == '\n' || (data[i] == '\r' && data[i + 1] != '\n');
        data += skip;
        len -= skip;
    }
    bool bom = len >= 3 && data[0] == 0xEF && data[1] == 0xBB && data[2] == 0xBF;
    char decl[64];
    declared_encoding(data, len, decl, sizeof decl);
    size_t not_utf8 = bytes && !bom ? amx__utf8_invalid_at(data, len) : len;
    const char *unfit = !bytes || !decl[0]          ? NULL
                        : bom && name_is(decl, utf8_names) ? NULL
                        : bom ? "a UTF-8 byte order mark contradicts"
                              : declaration_unfit(decl, data, len, not_utf8);
    bool ignore_decl = unfit != NULL;
    bool latin1 = bytes && !bom && (!decl[0] || ignore_decl) && not_utf8 < len;
    /* libxml2's messages on this thread come here while it parses (its handlers are
     * per-thread), and go back to what they were after */
    xmlStructuredErrorFunc old_serror = xmlStructuredError;
    void *old_serror_ctx = xmlStructuredErrorContext;
    xmlGenericErrorFunc old_generic = xmlGenericError;
    void *old_generic_ctx = xmlGenericErrorContext;
    xmlSetStructuredErrorFunc(&s, on_error);
    xmlSetGenericErrorFunc(&s, on_generic_error);
    xml_input in = { .s = &s, .data = data, .len = len, .drop_nul = bytes, .first_nul = -1 };
    bool started = parse(&s, &in, latin1, ignore_decl);
    xmlSetStructuredErrorFunc(old_serror_ctx, old_serror);
    xmlSetGenericErrorFunc(old_generic_ctx, old_generic);
    if (!started || d->cancelled) {
        if (!started)
            amx__fatal(d, AMX_C_LIMIT_EXCEEDED, -1, NULL, "the XML reader could not be started");
        free_state(&s);
        return;
    }
    if (s.oom)
        amx__finding(d, AMX_C_LIMIT_EXCEEDED, -1, NULL, "out of memory reading the XML");
    if (skip)
        amx__finding_sev(d, AMX_C_XML_MALFORMED, AMX_SEV_INFO, 0, "line 1",
                         "%zu byte%s before the XML declaration: the game skips everything "
                         "before the first '<'; read from there", skip, skip == 1 ? "" : "s");
    if (latin1 && !decl[0])
        amx__finding_sev(d, AMX_C_XML_MALFORMED, AMX_SEV_INFO, (int64_t)(skip + not_utf8), NULL,
                         "not UTF-8 and no encoding declared: read as Latin-1");
    else if (ignore_decl)
        amx__finding_sev(d, AMX_C_XML_MALFORMED, AMX_SEV_INFO,
                         latin1 ? (int64_t)(skip + not_utf8) : -1,
                         "line 1", "declares encoding '%s', which %s: read as %s (the game "
                         "reads the bytes whatever the declaration says)", decl, unfit,
                         latin1 ? "Latin-1" : "UTF-8");
    if (in.nul_count)
        amx__finding(d, AMX_C_XML_MALFORMED, in.first_nul + (int64_t)skip, NULL,
                     "%llu NUL byte%s (the first at byte %lld): XML text cannot hold %s; "
                     "read as if absent",
                     (unsigned long long)in.nul_count, in.nul_count == 1 ? "" : "s",
                     (long long)(in.first_nul + (int64_t)skip),
                     in.nul_count == 1 ? "one" : "them");
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
    report_entities(&s);
    if (s.names_cut)
        amx__finding_sev(d, AMX_C_LIMIT_EXCEEDED, AMX_SEV_WARNING, -1, NULL,
                         "%u name%s longer than %d bytes stored as %s first %d bytes and "
                         "'\xE2\x80\xA6(N bytes)' (the first: the %s)", (unsigned)s.names_cut,
                         s.names_cut == 1 ? "" : "s", MAX_NAME,
                         s.names_cut == 1 ? "its" : "their", MAX_NAME, s.name_cut);
    if (s.texts_cut)
        amx__finding_sev(d, AMX_C_LIMIT_EXCEEDED, AMX_SEV_WARNING, -1, NULL,
                         "the text of %u tag%s (the first: %s) is longer than %d bytes: the rest "
                         "of it is not read", (unsigned)s.texts_cut, s.texts_cut == 1 ? "" : "s",
                         s.text_cut, MAX_VALUE);
    amx_asset *a = d->asset;
    if (s.object_count && (a->objects = amx__array(d, s.object_count, sizeof *a->objects))) {
        memcpy(a->objects, s.objects, s.object_count * sizeof *a->objects);
        a->object_count = (uint32_t)s.object_count;
    }
    if (!a->objects)
        a->object_count = 0;
    free_state(&s);
}
