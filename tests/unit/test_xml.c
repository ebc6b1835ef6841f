/* Unit tests for the game object XML decoder (lib/format/xml.c): objects, variants, model tags,
 * animation overrides, terrain mappings, lines; the probe; malformed and non-UTF-8 input;
 * entities never expanded, NUL bytes, libxml2's messages, memory and stopping (issue 21); the
 * real mod's XML against an independent reader; mutation loops. */
#include "test.h"

#include "check_asset.h"

#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static amx_asset *decode_text(const char *text)
{
    amx_decode_opts o = { .file_name = "Data/XML/Units.xml" };
    return test_decode((const uint8_t *)text, strlen(text), &o);
}

static const char *DOC =
    "<?xml version=\"1.0\"?>\n"                                          /* 1 */
    "<Units_Test>\n"                                                     /* 2 */
    "  <!-- <SpaceUnit Name=\"Commented\"> -->\n"                          /* 3 */
    "  <SpaceUnit Name=\" Star_Destroyer \">\n"                          /* 4 */
    "    <Space_Model_Name> EV_Star_Destroyer.ALO </Space_Model_Name>\n" /* 5 */
    "    <!-- <Land_Model_Name>Old.alo</Land_Model_Name> -->\n"          /* 6 */
    "    <Space_Model_Anim_Override_Name>SD_Set.alo</Space_Model_Anim_Override_Name>\n" /* 7 */
    "    <Particle><Land_Model_Name>Nested.alo</Land_Model_Name></Particle>\n" /* 8 */
    "  </SpaceUnit>\n"                                                   /* 9 */
    "  <GroundInfantry Name=\"Trooper\">\n"                              /* 10 */
    "    <Variant_Of_Existing_Type>Template_Infantry</Variant_Of_Existing_Type>\n" /* 11 */
    "    <Land_Model_Name><![CDATA[Trooper.alo]]></Land_Model_Name>\n"  /* 12 */
    "    <Land_Terrain_Model_Mapping>Temperate, A.alo,\n"                /* 13 */
    "      Desert, B.alo</Land_Terrain_Model_Mapping>\n"                 /* 14 */
    "    <Land_Model_Anim_Override_Name/>\n"                             /* 15 */
    "  </GroundInfantry>\n"                                              /* 16 */
    "  <Text_Only>no name attribute</Text_Only>\n"                       /* 17 */
    "  <HardPoint Name=\"HP_1\"><Model_To_Attach>Turret.alo</Model_To_Attach></HardPoint>\n" /* 18 */
    "  <WaypointFlagModelName>W_Flag.alo</WaypointFlagModelName>\n"     /* 19 */
    "  <Crawl><Model_Name>Crawl.alo</Model_Name></Crawl>\n"              /* 20 */
    "  <Event Name=\"E\"><Event_Model_Name>Ev.alo</Event_Model_Name>\n"   /* 21 */
    "    <Tactical_Model_Name>Tac.alo</Tactical_Model_Name><GUI_Model>Gui.alo</GUI_Model>\n" /* 22 */
    "    <Deep><A><B><Variant_Of_Existing_Type>Not_Its</Variant_Of_Existing_Type></B></A></Deep>\n" /* 23 */
    "  </Event>\n"                                                       /* 24 */
    "</Units_Test>\n";

static void test_objects_and_refs(void)
{
    amx_asset *a = decode_text(DOC);
    if (!a)
        return;
    CHECK_CLEAN(a);
    CHECK_EQ(a->format, AMX_FMT_ALAMO_XML);
    CHECK_EQ(a->object_count, 4);
    if (a->object_count == 4) {
        CHECK_STR(a->objects[0].type, "SpaceUnit");
        CHECK_STR(a->objects[0].name, "Star_Destroyer");
        CHECK_EQ(a->objects[0].line, 4);
        CHECK(a->objects[0].variant_of == NULL);
        CHECK_STR(a->objects[1].type, "GroundInfantry");
        CHECK_STR(a->objects[1].variant_of, "Template_Infantry");
        CHECK_EQ(a->objects[1].line, 10);
        CHECK_STR(a->objects[2].name, "HP_1");
        CHECK_STR(a->objects[3].name, "E");
        CHECK(a->objects[3].variant_of == NULL); /* deep inside: not the object's own */
    }
    CHECK_EQ(a->ref_count, 13);
    if (a->ref_count == 13) {
        const amx_ref *r = a->refs;
        CHECK_EQ(r[0].kind, AMX_REF_MODEL_OR_PARTICLE);      /* Space_Model_Name */
        CHECK_STR(r[0].name, "EV_Star_Destroyer.ALO");
        CHECK_STR(r[0].tag, "Space_Model_Name");
        CHECK_EQ(r[0].object, 0);
        CHECK_EQ(r[0].line, 5);
        CHECK_EQ(r[1].kind, AMX_REF_ANIM_OVERRIDE);
        CHECK_STR(r[1].name, "SD_Set.alo");
        CHECK_EQ(r[1].line, 7);
        CHECK_STR(r[2].name, "Nested.alo");              /* in a nested element: the object's */
        CHECK_EQ(r[2].object, 0);
        CHECK_EQ(r[2].line, 8);
        CHECK_STR(r[3].name, "Trooper.alo");             /* CDATA */
        CHECK_EQ(r[3].object, 1);
        CHECK_EQ(r[4].kind, AMX_REF_MODEL);              /* terrain-mapped: a model */
        CHECK_STR(r[4].name, "A.alo");                   /* terrain, model pairs */
        CHECK_STR(r[4].tag, "Land_Terrain_Model_Mapping");
        CHECK_EQ(r[4].line, 13);
        CHECK_STR(r[5].name, "B.alo");
        CHECK_EQ(r[6].kind, AMX_REF_ANIM_OVERRIDE);      /* empty: clears an inherited one */
        CHECK_STR(r[6].name, "");
        CHECK_EQ(r[6].line, 15);
        CHECK_STR(r[7].name, "Turret.alo");
        CHECK_STR(r[7].tag, "Model_To_Attach");
        CHECK_EQ(r[7].object, 2);
        CHECK_EQ(r[7].offset, -1);
        /* the tags issue 22 found unread: GameConstants' flag, a text crawl's model (no game
         * object: no one's), a radar event's, a tactical model, a GUI model */
        CHECK_STR(r[8].tag, "WaypointFlagModelName");
        CHECK_STR(r[8].name, "W_Flag.alo");
        CHECK_EQ(r[8].object, -1);
        CHECK_EQ(r[8].kind, AMX_REF_MODEL);
        CHECK_STR(r[9].tag, "Model_Name");
        CHECK_STR(r[9].name, "Crawl.alo");
        CHECK_EQ(r[9].object, -1);
        CHECK_EQ(r[9].line, 20);
        CHECK_STR(r[10].tag, "Event_Model_Name");
        CHECK_EQ(r[10].object, 3);
        CHECK_STR(r[11].tag, "Tactical_Model_Name");
        CHECK_EQ(r[11].kind, AMX_REF_MODEL_OR_PARTICLE);
        CHECK_STR(r[12].tag, "GUI_Model");
        CHECK_STR(r[12].name, "Gui.alo");
        CHECK_EQ(r[12].kind, AMX_REF_MODEL);
    }
    amx_asset_free(a);
}

static void test_probe(void)
{
    static const struct { const char *text; bool xml; } cases[] = {
        { "<?xml version=\"1.0\"?><a/>", true },
        { "\xEF\xBB\xBF<?xml version=\"1.0\"?><a/>", true },
        { "  \r\n\t<Units/>", true },
        { "<!-- comment --><a/>", true },
        { "<_x/>", true },
        { "<html><body/></html>", false },
        { "<HTML>", false },
        { "<", false },
        { "<1a/>", false },
        { "", false },
        { "hello <a/>", false },
        /* the game skips whatever comes before the first '<': a declaration after stray bytes */
        { "x<?xml version=\"1.0\"?><a/>", true },
        { "\xEF\xBB\xBF\xEF\xBB\xBF<?xml version=\"1.0\"?><a/>", true },
        { "hello <?xmlish", true },
        { "hello <b><?xml version=\"1.0\"?>", false },
        { "\x3C\x00\x00\x00", false },   /* a MEG of 60 files starts so */
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        size_t n = strlen(cases[i].text);
        if (i == sizeof cases / sizeof cases[0] - 1)
            n = 4;
        bool got = amx_probe((const uint8_t *)cases[i].text, n) == AMX_FMT_ALAMO_XML;
        if (got != cases[i].xml)
            printf("# probe case %zu: got %d\n", i, got);
        CHECK_EQ(got, cases[i].xml);
    }
    /* UTF-16 with a byte order mark */
    static const uint8_t u16[] = { 0xFF, 0xFE, '<', 0, 'a', 0, '/', 0, '>', 0 };
    CHECK_EQ(amx_probe(u16, sizeof u16), AMX_FMT_ALAMO_XML);
    amx_asset *a = test_decode(u16, sizeof u16, NULL);
    if (a)
        CHECK_EQ(a->object_count, 0);
    amx_asset_free(a);
}

static void test_malformed(void)
{
    /* a stray '&', then an unclosed root: one finding with the first line and the count; what
     * could be read is kept */
    amx_asset *a = decode_text("<Units>\n<Unit Name=\"A\">\n<Land_Model_Name>A.alo</Land_Model_Name>\n"
                               "<Note>fish & chips</Note>\n</Unit>\n<Unit Name=\"B\">"
                               "<Space_Model_Name>B.alo</Space_Model_Name></Unit>\n");
    if (a) {
        CHECK_EQ(test_count_code(a, AMX_C_XML_MALFORMED), 1);
        const amx_finding *f = test_find(a, AMX_C_XML_MALFORMED, -1);
        CHECK(f && strstr(f->message, "line 4:") && strstr(f->message, "more problem"));
        CHECK(f && strcmp(f->context, "line 4") == 0);
        CHECK_EQ(f ? f->severity : AMX_SEV_OFF, AMX_SEV_WARNING);
        CHECK_EQ(a->ref_count, 2);
        CHECK_EQ(a->object_count, 2);
    }
    amx_asset_free(a);
    /* not UTF-8, no declaration: read as Latin-1, noted at info level with the first byte
     * that is not UTF-8 */
    a = decode_text("<Units><Unit Name=\"Caf\xE9\"><Land_Model_Name>M\xE9.alo</Land_Model_Name>"
                    "</Unit></Units>");
    if (a) {
        const amx_finding *f = test_find(a, AMX_C_XML_MALFORMED, 22);
        CHECK(f && f->severity == AMX_SEV_INFO && strstr(f->message, "Latin-1"));
        CHECK_EQ(a->object_count, 1);
        if (a->object_count == 1)
            CHECK_STR(a->objects[0].name, "Caf\xC3\xA9");
        if (a->ref_count == 1)
            CHECK_STR(a->refs[0].name, "M\xC3\xA9.alo");
    }
    amx_asset_free(a);
    /* nothing but a declaration */
    a = decode_text("<?xml version=\"1.0\"?>");
    if (a) {
        CHECK_EQ(test_count_code(a, AMX_C_XML_MALFORMED), 1);
        CHECK_EQ(a->object_count, 0);
    }
    amx_asset_free(a);
    /* entities are not expanded, external ones not fetched (a document that starts with its
     * DOCTYPE is not taken for game object XML: the declaration comes first) */
    a = decode_text("<?xml version=\"1.0\"?><!DOCTYPE u [<!ENTITY x SYSTEM \"file:///etc/passwd\">"
                    "<!ENTITY y \"Y.alo\">]><u><o Name=\"A\"><Land_Model_Name>&x;&y;"
                    "</Land_Model_Name></o></u>");
    CHECK(a && a->ref_count == 1);
    if (a && a->ref_count == 1)
        CHECK_STR(a->refs[0].name, "&x;&y;");
    amx_asset_free(a);
}

static const amx_finding *find_text(const amx_asset *a, amx_code code, const char *text)
{
    for (uint32_t i = 0; i < a->finding_count; i++)
        if (a->findings[i].code == code && strstr(a->findings[i].message, text))
            return &a->findings[i];
    return NULL;
}

static double now_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

/* Issue 21, 1: an entity named in an attribute is not expanded (libxml2's xmlGetProp did, one
 * copy per reference and quadratically): 4,000 references to an entity of 50,000 characters
 * (a 62 KB file) made an object name of 200,000,000 characters in 18 s and 1.4 GB. The name
 * is now as written, one finding names the entity, and the decode takes milliseconds. */
static void test_entity_in_attribute(void)
{
    size_t cap = 200000;
    char *doc = malloc(cap);
    if (!doc)
        return;
    size_t n = (size_t)snprintf(doc, cap, "<?xml version=\"1.0\"?>\n<!DOCTYPE Units [<!ENTITY a \"");
    memset(doc + n, 'A', 50000);
    n += 50000;
    n += (size_t)snprintf(doc + n, cap - n, "\">]>\n<Units>\n<SpaceUnit Name=\"");
    for (int i = 0; i < 4000; i++)
        memcpy(doc + n + 3 * (size_t)i, "&a;", 3);
    n += 12000;
    n += (size_t)snprintf(doc + n, cap - n, "\">\n<Space_Model_Name>X.ALO</Space_Model_Name>\n"
                          "</SpaceUnit>\n</Units>\n");
    double t0 = now_s();
    amx_asset *a = test_decode((const uint8_t *)doc, n, NULL);
    double secs = now_s() - t0;
    printf("# 4,000 references to an entity of 50,000 characters: %.3f s\n", secs);
    CHECK(secs < 2.0); /* 18 s before, in a release build */
    if (a) {
        CHECK_EQ(a->object_count, 1);
        if (a->object_count == 1) { /* as written, and (issue 21, 3) cut to 256 bytes */
            CHECK(strncmp(a->objects[0].name, "&a;&a;", 6) == 0);
            CHECK_STR(a->objects[0].name + 256, "\xE2\x80\xA6(12000 bytes)");
        }
        const amx_finding *f = find_text(a, AMX_C_XML_MALFORMED, "entity reference '&a;'");
        CHECK(f && strstr(f->message, "4000 times") && strstr(f->message, "line 4"));
        CHECK(f && strcmp(f->context, "line 4") == 0);
        CHECK_EQ(test_count_code(a, AMX_C_XML_MALFORMED), 1);
        CHECK_EQ(a->ref_count, 1);
    }
    amx_asset_free(a);
    free(doc);

    /* a literal '&' stays one; an undeclared entity, an external one and one that names
     * others are each kept as written and named once; character references are characters;
     * the DTD's default attributes are not read */
    a = decode_text("<?xml version=\"1.0\"?><!DOCTYPE u [<!ENTITY x SYSTEM \"file:///etc/passwd\">"
                    "<!ENTITY n \"&x;&x;\">"
                    "<!ATTLIST Unit Name CDATA \"Default\">]>\n<u>\n"
                    "<Unit Name=\" A&amp;B&#38;C&#65;&x;&n;&undeclared; \"/>\n<Unit/>\n"
                    "<Unit Name=\"&#38;x;\"/>\n</u>");
    if (a) {
        CHECK_EQ(a->object_count, 2);
        if (a->object_count == 2) {
            CHECK_STR(a->objects[0].name, "A&B&CA&x;&n;&undeclared;");
            CHECK_STR(a->objects[1].name, "&x;"); /* written "&#38;x;": no entity */
        }
        CHECK(find_text(a, AMX_C_XML_MALFORMED, "'&x;' (1 time, first at line 3)"));
        CHECK(find_text(a, AMX_C_XML_MALFORMED, "'&n;' (1 time"));
        CHECK(find_text(a, AMX_C_XML_MALFORMED, "'&undeclared;' (1 time"));
        CHECK_EQ(test_count_code(a, AMX_C_XML_MALFORMED), 3);
    }
    amx_asset_free(a);

    /* nested entities (a billion laughs) cost nothing: none is expanded */
    char laughs[2048];
    size_t k = (size_t)snprintf(laughs, sizeof laughs, "<?xml version=\"1.0\"?>"
                                "<!DOCTYPE u [<!ENTITY l0 \"lol\">");
    for (int i = 1; i < 10; i++)
        k += (size_t)snprintf(laughs + k, sizeof laughs - k,
                              "<!ENTITY l%d \"&l%d;&l%d;&l%d;&l%d;&l%d;&l%d;&l%d;&l%d;&l%d;&l%d;\">",
                              i, i - 1, i - 1, i - 1, i - 1, i - 1, i - 1, i - 1, i - 1, i - 1, i - 1);
    snprintf(laughs + k, sizeof laughs - k, "]>\n<u><o Name=\"&l9;\"><Land_Model_Name>&l9;.alo"
             "</Land_Model_Name></o></u>");
    a = decode_text(laughs);
    if (a) {
        CHECK_EQ(a->object_count, 1);
        if (a->object_count == 1)
            CHECK_STR(a->objects[0].name, "&l9;");
        CHECK_EQ(a->ref_count, 1);
        if (a->ref_count == 1)
            CHECK_STR(a->refs[0].name, "&l9;.alo");
        CHECK(find_text(a, AMX_C_XML_MALFORMED, "'&l9;' (2 times, first at line 2)"));
    }
    amx_asset_free(a);
}

/* Issue 22, 5: tags in nested elements, read by the SAX reader at any depth below a child of
 * the root; an element inside a tag is not a tag (only the tag's own text is its value); an
 * entity in a nested tag stays as written; a nameless child's tags are no one's, and the next
 * object's are its own again. */
static void test_nested_tags(void)
{
    amx_asset *a = decode_text(
        "<?xml version=\"1.0\"?><!DOCTYPE u [<!ENTITY i \"I\">]>\n<u>\n"                 /* 1-2 */
        "<o Name=\"A\"><Particle><Emitter>\n"                                             /* 3 */
        "<Land_Model_Name>x&i;y.alo</Land_Model_Name></Emitter></Particle>\n"               /* 4 */
        "<Space_Model_Name>M<Model_Name>Inner.alo</Model_Name>.alo</Space_Model_Name>\n"    /* 5 */
        "<GUI_Model>After.alo</GUI_Model></o>\n"                                            /* 6 */
        "<Radar><Events><Event><Event_Model_Name>R.alo</Event_Model_Name></Event></Events>" /* 7 */
        "</Radar>\n"
        "<o Name=\"B\"><Deep><Tactical_Model_Name>T.alo</Tactical_Model_Name></Deep></o>\n" /* 8 */
        "</u>");
    if (!a)
        return;
    CHECK_EQ(a->object_count, 2);
    CHECK_EQ(a->ref_count, 5);
    if (a->ref_count == 5) {
        const amx_ref *r = a->refs;
        CHECK_STR(r[0].name, "x&i;y.alo"); /* two levels down, entity kept as written */
        CHECK_EQ(r[0].object, 0);
        CHECK_EQ(r[0].line, 4);
        CHECK_STR(r[1].tag, "Space_Model_Name"); /* the inner <Model_Name> is not a tag */
        CHECK_STR(r[1].name, "M.alo");
        CHECK_STR(r[2].name, "After.alo");
        CHECK_EQ(r[2].object, 0);
        CHECK_STR(r[3].tag, "Event_Model_Name"); /* below a nameless child: no one's */
        CHECK_EQ(r[3].object, -1);
        CHECK_EQ(r[3].line, 7);
        CHECK_STR(r[4].name, "T.alo");
        CHECK_EQ(r[4].object, 1);
        CHECK_EQ(r[4].kind, AMX_REF_MODEL_OR_PARTICLE);
    }
    CHECK(find_text(a, AMX_C_XML_MALFORMED, "entity reference '&i;' (1 time, first at line 4)"));
    amx_asset_free(a);
}

/* A hero's flame thrower names its emitter in an ability sub-object, two levels below the
 * object (Imperial-Blood-Team/Imperial_Blood_0.5, Units_Hero_Underworld_Bossk.xml): the
 * reference was not read, so a missing p_flamethrower00.alo went unsaid. eaw-schema's PersonalFlameThrowerAbility.yaml marks the tag referenceKind: modelFile. The
 * ability's own Name is no game object (it is not a child of the root). */
static void test_flame_emitter(void)
{
    amx_asset *a = decode_text(
        "<?xml version=\"1.0\"?>\n<Hero_Files>\n"                                       /* 1-2 */
        "<HeroUnit Name=\"Bossk\"><Land_Model_Name>UI_Bossk.alo</Land_Model_Name>\n"      /* 3 */
        "<Abilities SubObjectList=\"Yes\">\n"                                             /* 4 */
        "<Personal_Flame_Thrower_Ability Name=\"Bossk_Flame_Thrower\">\n"                 /* 5 */
        "<Flame_Emitter_Model_Name> p_flamethrower00 </Flame_Emitter_Model_Name>\n"        /* 6 */
        "</Personal_Flame_Thrower_Ability></Abilities></HeroUnit>\n"                       /* 7 */
        "<HeroUnit Name=\"Other\"><Flame_Emitter_Model_Name/></HeroUnit>\n"               /* 8 */
        "</Hero_Files>\n");
    if (!a)
        return;
    CHECK_CLEAN(a);
    CHECK_EQ(a->object_count, 2);
    if (a->object_count == 2) {
        CHECK_STR(a->objects[0].name, "Bossk");
        CHECK_STR(a->objects[1].name, "Other");
    }
    CHECK_EQ(a->ref_count, 3);
    if (a->ref_count == 3) {
        const amx_ref *r = a->refs;
        CHECK_STR(r[0].tag, "Land_Model_Name");
        CHECK_STR(r[1].tag, "Flame_Emitter_Model_Name");
        CHECK_STR(r[1].name, "p_flamethrower00");
        CHECK_EQ(r[1].kind, AMX_REF_MODEL_OR_PARTICLE); /* a particle system in the game */
        CHECK_EQ(r[1].object, 0);
        CHECK_EQ(r[1].line, 6);
        CHECK_STR(r[2].name, ""); /* empty: no file named (the index skips it) */
        CHECK_EQ(r[2].object, 1);
    }
    amx_asset_free(a);
}

/* Issue 21, 10: an entity reference in element text was dropped without a word (`x&i;y` read
 * as a reference to "xy"); it is kept as written, with a finding naming it, also after the
 * document's first well-formedness error (where libxml2 drops references silently). */
static void test_entity_in_text(void)
{
    amx_asset *a = decode_text("<?xml version=\"1.0\"?><!DOCTYPE u [<!ENTITY i \"I\">]>\n<u>\n"
                               "<o Name=\"A\">\n"
                               "<Land_Model_Name>x&i;y.alo</Land_Model_Name>\n"
                               "<Space_Model_Name>&amp;&lt;z&#65;.alo</Space_Model_Name>\n</o>\n</u>");
    if (a) {
        CHECK_EQ(a->ref_count, 2);
        if (a->ref_count == 2) {
            CHECK_STR(a->refs[0].name, "x&i;y.alo");
            CHECK_STR(a->refs[1].name, "&<zA.alo");
        }
        const amx_finding *f = find_text(a, AMX_C_XML_MALFORMED, "entity reference '&i;'");
        CHECK(f && strstr(f->message, "1 time, first at line 4") &&
              strstr(f->message, "not expanded"));
        CHECK_EQ(test_count_code(a, AMX_C_XML_MALFORMED), 1);
    }
    amx_asset_free(a);
    /* after a well-formedness error (a stray '<' on line 3), and undeclared */
    a = decode_text("<u>\n<o Name=\"A\">\n<Note>a < b</Note>\n"
                    "<Land_Model_Name>x&i;y.alo</Land_Model_Name>\n</o>\n</u>");
    if (a) {
        CHECK_EQ(a->ref_count, 1);
        if (a->ref_count == 1)
            CHECK_STR(a->refs[0].name, "x&i;y.alo");
        CHECK(find_text(a, AMX_C_XML_MALFORMED, "entity reference '&i;' (1 time, first at line 4)"));
        CHECK(find_text(a, AMX_C_XML_MALFORMED, "line 3:"));
    }
    amx_asset_free(a);
}

/* Issue 21, 14: NUL bytes are reported as such (they were "not UTF-8 ... read as Latin-1") and
 * the rest of the file is read (a NUL stopped libxml2 there). */
static void test_nul_bytes(void)
{
    static const char doc[] = "<u>\n<o Name=\"A\">\n<Land_Model_Name>x\0y.alo</Land_Model_Name>\n"
                              "</o>\n<o Name=\"B\"><Space_Model_Name>b.alo</Space_Model_Name></o>\n"
                              "</u>\0\0";
    amx_asset *a = test_decode((const uint8_t *)doc, sizeof doc - 1, NULL);
    if (a) {
        const amx_finding *f = find_text(a, AMX_C_XML_MALFORMED, "NUL byte");
        CHECK(f && strstr(f->message, "3 NUL bytes (the first at byte 35)"));
        CHECK_EQ(f ? f->offset : -1, 35);
        CHECK(!find_text(a, AMX_C_XML_MALFORMED, "Latin-1"));
        CHECK_EQ(a->object_count, 2);
        CHECK_EQ(a->ref_count, 2);
        if (a->ref_count == 2)
            CHECK_STR(a->refs[1].name, "b.alo");
    }
    amx_asset_free(a);
    /* in UTF-16 a NUL byte is half a character, not a stray one */
    static const uint8_t u16[] = { 0xFF, 0xFE, '<', 0, 'u', 0, '>', 0, '<', 0, 'o', 0, ' ', 0,
                                   'N', 0, 'a', 0, 'm', 0, 'e', 0, '=', 0, '"', 0, 'A', 0,
                                   '"', 0, '/', 0, '>', 0, '<', 0, '/', 0, 'u', 0, '>', 0 };
    a = test_decode(u16, sizeof u16, NULL);
    if (a) {
        CHECK_EQ(a->finding_count, 0);
        CHECK_EQ(a->object_count, 1);
        if (a->object_count == 1)
            CHECK_STR(a->objects[0].name, "A");
    }
    amx_asset_free(a);
}

/* A file declaring an encoding its bytes are not in: libxml2's converter complains, and
 * each thread's complaints go to its own decode. */
static const char BAD_SJIS[] = "<?xml version=\"1.0\" encoding=\"Shift_JIS\"?>\n"
                               "<u><o Name=\"a\x81\xff\"/></u>\n";

static void *decode_bad_encoding(void *arg)
{
    int *ok = arg;
    for (int i = 0; i < 200; i++) {
        amx_asset *a = NULL;
        const char *text = i % 2 ? BAD_SJIS : "<u>\n\n<o Name=\"A\">&</o></u>";
        if (amx_decode((const uint8_t *)text, strlen(text), NULL, &a) != AMX_OK || !a) {
            *ok = 0;
            continue;
        }
        const char *want = i % 2 ? "input conversion failed" : "line 3:";
        if (!(a->finding_count == 1 && strstr(a->findings[0].message, want)))
            *ok = 0;
        amx_asset_free(a);
    }
    return NULL;
}

/* Issue 21, 14: libxml2's messages ("encoding error : input conversion failed", "I/O error :
 * encoder error") went to stderr; they are findings, per decode, from any thread. */
static void test_libxml_messages(void)
{
    fflush(stderr);
    int saved = dup(STDERR_FILENO);
    char path[] = "/tmp/animidx-xml-stderr-XXXXXX";
    int fd = mkstemp(path);
    CHECK(saved >= 0 && fd >= 0);
    if (saved < 0 || fd < 0)
        return;
    dup2(fd, STDERR_FILENO);
    amx_asset *a = decode_text(BAD_SJIS);
    static const uint8_t bad16[] = { 0xFF, 0xFE, '<', 0, 'u', 0, ' ', 0, 'a', 0, '=', 0, '"', 0,
                                     0x00, 0xD8, '"', 0, '/', 0, '>', 0 };
    amx_asset *b = test_decode(bad16, sizeof bad16, NULL);
    pthread_t th[4];
    int ok[4] = { 1, 1, 1, 1 };
    int started = 0;
    for (int i = 0; i < 4; i++)
        started += pthread_create(&th[i], NULL, decode_bad_encoding, &ok[i]) == 0;
    for (int i = 0; i < started; i++)
        pthread_join(th[i], NULL);
    fflush(stderr);
    dup2(saved, STDERR_FILENO);
    close(saved);
    off_t printed = lseek(fd, 0, SEEK_END);
    close(fd);
    unlink(path);
    CHECK_EQ(printed, 0);
    CHECK_EQ(started, 4);
    CHECK(ok[0] && ok[1] && ok[2] && ok[3]);
    if (a) {
        const amx_finding *f = find_text(a, AMX_C_XML_MALFORMED, "input conversion failed");
        CHECK(f && strstr(f->message, "more problem"));
        CHECK_EQ(a->object_count, 1); /* what came before the bad bytes is read */
    }
    if (b)
        CHECK(find_text(b, AMX_C_XML_MALFORMED, "input conversion failed"));
    amx_asset_free(a);
    amx_asset_free(b);
}

/* The game reads a file's bytes whatever its declaration says (ModVerify's engine model reads
 * every XML file through an ASCII text reader), and real mods declare what their bytes are not:
 * the generated unit files of the Thrawn's Revenge family say encoding='ASCII'. libxml2 followed
 * such a declaration into losing the file: ASCII at the first byte past 0x7F (a comment's 'é'
 * lost every object after it), a name it knows no converter for (nothing read), UTF-16 over
 * 8-bit bytes and UTF-8 over Latin-1 bytes (warnings). Such a declaration is now not followed:
 * the file is read as UTF-8 or Latin-1 by its bytes, one info finding says so. */
static void test_declared_encoding(void)
{
    static const struct {
        const char *decl, *comment, *model, *model_read, *want;
    } cases[] = {
        { "encoding='ASCII'", "caf\xE9", "B\xE9.alo", "B\xC3\xA9.alo", "read as Latin-1" },
        { "encoding=\"us-ascii\"", "caf\xC3\xA9", "B.alo", "B.alo", "read as UTF-8" },
        { "encoding=\"UTF-16\"", "plain", "B.alo", "B.alo", "read as UTF-8" },
        { "encoding=\"UTF-8\"", "caf\xE9", "B\xE9.alo", "B\xC3\xA9.alo", "read as Latin-1" },
        { "encoding=\"ANSI\"", "caf\xE9", "B.alo", "B.alo", "no converter knows" },
        /* true declarations are read so, and nothing is said */
        { "encoding='ASCII'", "plain", "B.alo", "B.alo", NULL },
        { "encoding=\"ISO-8859-1\"", "caf\xE9", "B\xE9.alo", "B\xC3\xA9.alo", NULL },
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char text[600];
        snprintf(text, sizeof text,
                 "<?xml version=\"1.0\" %s?>\n<Units>\n<!-- %s -->\n"
                 "<SpaceUnit Name=\"A\"><Space_Model_Name>A.alo</Space_Model_Name></SpaceUnit>\n"
                 "<SpaceUnit Name=\"B\"><Variant_Of_Existing_Type>A</Variant_Of_Existing_Type>"
                 "<Land_Model_Name>%s</Land_Model_Name></SpaceUnit>\n</Units>\n",
                 cases[i].decl, cases[i].comment, cases[i].model);
        amx_asset *a = decode_text(text);
        if (!a)
            continue;
        CHECK_EQ(a->object_count, 2);
        CHECK_EQ(a->ref_count, 2);
        if (a->object_count == 2) {
            CHECK_STR(a->objects[1].name, "B");
            CHECK_STR(a->objects[1].variant_of ? a->objects[1].variant_of : "", "A");
        }
        if (a->ref_count == 2)
            CHECK_STR(a->refs[1].name, cases[i].model_read);
        CHECK_EQ(a->finding_count, cases[i].want ? 1 : 0);
        if (cases[i].want) {
            const amx_finding *f = find_text(a, AMX_C_XML_MALFORMED, cases[i].want);
            CHECK(f && f->severity == AMX_SEV_INFO);
        }
        amx_asset_free(a);
    }
}

/* What comes before the XML declaration: the game skips everything before the first '<'
 * (ModVerify's engine model: "The engine skips everything until the first '<' character";
 * ModVerify reports it as DataBeforeHeader). libxml2 refuses a declaration anywhere but at the
 * start: blank lines before it were an XML_MALFORMED warning, a stray character or a second
 * byte order mark made the file no XML at all (skipped by a scan, its objects lost). The file
 * is now read from its first '<', lines and offsets counted from the file's start, with one
 * info finding. */
static void test_bytes_before_declaration(void)
{
    static const struct {
        const char *prefix;
        uint32_t skipped, line;
    } cases[] = {
        { "\n\n  \t", 5, 5 }, /* bytes skipped; the object's line */
        { "\xEF\xBB\xBF\r\n", 5, 4 },
        { "x", 1, 3 },
        { "\xEF\xBB\xBF\xEF\xBB\xBF", 6, 3 },
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char text[400];
        snprintf(text, sizeof text,
                 "%s<?xml version=\"1.0\"?>\n<Units>\n<SpaceUnit Name=\"A\">"
                 "<Space_Model_Name>A.alo</Space_Model_Name></SpaceUnit>\n<Bad>&</Bad>\n"
                 "</Units>\n",
                 cases[i].prefix);
        size_t n = strlen(text);
        CHECK_EQ(amx_probe((const uint8_t *)text, n), AMX_FMT_ALAMO_XML);
        amx_asset *a = test_decode((const uint8_t *)text, n, NULL);
        if (!a)
            continue;
        CHECK_EQ(a->format, AMX_FMT_ALAMO_XML);
        CHECK_EQ(a->object_count, 1);
        if (a->object_count == 1)
            CHECK_EQ(a->objects[0].line, cases[i].line);
        CHECK_EQ(a->ref_count, 1);
        char want[80];
        snprintf(want, sizeof want, "%u byte%s before the XML declaration", cases[i].skipped,
                 cases[i].skipped == 1 ? "" : "s");
        const amx_finding *f = find_text(a, AMX_C_XML_MALFORMED, want);
        CHECK(f && f->severity == AMX_SEV_INFO);
        /* the stray '&' two lines on: one warning, at its line in the file */
        char line[40];
        snprintf(line, sizeof line, "line %u:", cases[i].line + 1);
        const amx_finding *w = NULL;
        for (uint32_t k = 0; k < a->finding_count; k++)
            if (a->findings[k].severity == AMX_SEV_WARNING)
                w = &a->findings[k];
        CHECK(w && strstr(w->message, line));
        CHECK_EQ(a->finding_count, 2);
        amx_asset_free(a);
    }
}

/* Issue 21, 3: names are stored bounded (a 300,000-character Name made every output line of
 * its 5,510 references 300 KB long): at most 256 bytes of their own, cut at a character
 * boundary, then "…(N bytes)", with one warning; a tag's text past 64 KiB is a warning too. */
static void test_long_names(void)
{
    size_t cap = 700000, n = 0;
    char *doc = malloc(cap);
    if (!doc)
        return;
    n += (size_t)snprintf(doc, cap, "<?xml version=\"1.0\"?>\n<Units>\n<SpaceUnit Name=\"");
    memset(doc + n, 'N', 300000);
    n += 300000;
    n += (size_t)snprintf(doc + n, cap - n, "\">\n<Variant_Of_Existing_Type>");
    for (int i = 0; i < 200; i++) /* 400 bytes of two-byte characters, one cut in its middle */
        n += (size_t)snprintf(doc + n, cap - n, "\xC3\xA9");
    n += (size_t)snprintf(doc + n, cap - n, "</Variant_Of_Existing_Type>\n"
                          "<Land_Terrain_Model_Mapping>");
    size_t start = n;
    for (int i = 0; n - start < 70000; i++)
        n += (size_t)snprintf(doc + n, cap - n, "T,m%d.alo,", i);
    n += (size_t)snprintf(doc + n, cap - n, "</Land_Terrain_Model_Mapping>\n</SpaceUnit>\n"
                          "<SpaceUnit Name=\"Short\"><Land_Model_Name>%0300d.alo</Land_Model_Name>"
                          "</SpaceUnit>\n</Units>\n", 7);
    amx_asset *a = test_decode((const uint8_t *)doc, n, NULL);
    if (a && a->object_count == 2) {
        const char *name = a->objects[0].name;
        CHECK_EQ(strlen(name), 256 + strlen("\xE2\x80\xA6(300000 bytes)"));
        CHECK(strspn(name, "N") == 256 && strcmp(name + 256, "\xE2\x80\xA6(300000 bytes)") == 0);
        const char *v = a->objects[0].variant_of;
        CHECK(v && strlen(v) == 256 + strlen("\xE2\x80\xA6(400 bytes)")); /* 128 whole chars */
        CHECK(v && strcmp(v + 256, "\xE2\x80\xA6(400 bytes)") == 0);
        CHECK_STR(a->objects[1].name, "Short");
    }
    if (a) {
        CHECK(a->object_count == 2);
        /* the mapping is read up to 64 KiB: its pairs there */
        uint32_t mapped = 0;
        for (uint32_t i = 0; i < a->ref_count; i++)
            mapped += strcmp(a->refs[i].tag, "Land_Terrain_Model_Mapping") == 0;
        CHECK(mapped > 5000 && mapped < 7000);
        const amx_ref *last = &a->refs[a->ref_count - 1];
        CHECK_EQ(strlen(last->name), 256 + strlen("\xE2\x80\xA6(304 bytes)"));
        const amx_finding *f = find_text(a, AMX_C_LIMIT_EXCEEDED, "3 names longer than 256 bytes");
        CHECK(f && f->severity == AMX_SEV_WARNING && strstr(f->message, "Name at line 3, 300000 bytes"));
        f = find_text(a, AMX_C_LIMIT_EXCEEDED, "the text of 1 tag");
        CHECK(f && strstr(f->message, "<Land_Terrain_Model_Mapping> at line 5") &&
              strstr(f->message, "65536 bytes"));
        CHECK_EQ(a->status, AMX_ASSET_OK); /* warnings */
    }
    amx_asset_free(a);
    free(doc);
}

static int polls;

static bool cancel_after(void *user)
{
    return ++polls > *(const int *)user;
}

/* Issue 21, 1: a decode can be stopped while it reads (amx_decode_opts.cancelled, asked before
 * each block libxml2 reads); and 14: what the reading holds stays within the decode's memory
 * limit. */
static void test_stop_and_memory(void)
{
    size_t cap = 8u << 20, n = 0;
    char *doc = malloc(cap);
    if (!doc)
        return;
    n += (size_t)snprintf(doc, cap, "<Units>");
    int objects = 0;
    while (n + 200 < cap)
        n += (size_t)snprintf(doc + n, cap - n, "<SpaceUnit Name=\"Unit_%d\"><Space_Model_Name>"
                              "M_%d.alo</Space_Model_Name></SpaceUnit>", objects, objects), objects++;
    n += (size_t)snprintf(doc + n, cap - n, "</Units>");
    int after = 10;
    polls = 0;
    amx_decode_opts o = { .cancelled = cancel_after, .cancel_user = &after };
    amx_asset *a = (amx_asset *)1;
    CHECK_EQ(amx_decode((const uint8_t *)doc, n, &o, &a), AMX_E_CANCELLED);
    CHECK(a == NULL);
    CHECK_EQ(polls, 11); /* asked before each block, and stopped at the first "yes" */
    /* never asked to stop: every object */
    after = 1 << 30;
    polls = 0;
    a = test_decode((const uint8_t *)doc, n, &o);
    if (a)
        CHECK_EQ(a->object_count, (uint32_t)objects);
    CHECK(polls > (int)(n / 8192)); /* libxml2 reads about 4 KB at a time */
    amx_asset_free(a);
    /* 8 MB of objects within 4 MiB: the reading stops at the limit, with what was read */
    amx_decode_opts small = { .max_memory = 4u << 20 };
    a = test_decode((const uint8_t *)doc, n, &small);
    if (a) {
        const amx_finding *f = find_text(a, AMX_C_LIMIT_EXCEEDED, "the 4 MiB a decode may use");
        CHECK(f && strstr(f->message, "the rest of the file is not read"));
        CHECK(a->object_count > 1000 && a->object_count < (uint32_t)objects);
        CHECK_EQ(a->status, AMX_ASSET_PARTIAL);
    }
    amx_asset_free(a);
    free(doc);
}

/* The real mod's XML, against Python's ElementTree over the same files: direct children of the
 * root with a Name attribute, and the tags animidx reads (terrain mappings as pairs). */
static void test_corpus(void)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/mods/CIS_PROTEUS/Data/XML/Units/Yevetha_Ground.xml",
             test_corpus_dir());
    size_t n = 0;
    unsigned char *data = test_read_file(path, &n);
    if (!data) {
        printf("# %s not there: skipped\n", path);
        return;
    }
    amx_decode_opts o = { .file_name = "Yevetha_Ground.xml" };
    amx_asset *a = test_decode(data, n, &o);
    if (a) {
        CHECK_CLEAN(a);
        CHECK_EQ(a->object_count, 56);
        CHECK_EQ(a->ref_count, 22);
        if (a->object_count) {
            CHECK_STR(a->objects[0].type, "GroundInfantry");
            CHECK_STR(a->objects[0].name, "Yevethan_Soldier");
            CHECK_EQ(a->objects[0].line, 6);
        }
        if (a->ref_count >= 2) {
            /* line 22 holds a commented-out terrain mapping: not a reference */
            CHECK_STR(a->refs[0].name, "Yevethan_trooper.ALO");
            CHECK_EQ(a->refs[0].line, 21);
            CHECK_EQ(a->refs[1].kind, AMX_REF_ANIM_OVERRIDE);
            CHECK_STR(a->refs[1].name, "TrainedInfantry.alo");
            CHECK_EQ(a->refs[1].line, 31);
        }
        int over = 0;
        for (uint32_t i = 0; i < a->ref_count; i++)
            over += a->refs[i].kind == AMX_REF_ANIM_OVERRIDE;
        CHECK_EQ(over, 6);
    }
    amx_asset_free(a);
    mutate_stats st = { 0 };
    mutate_all(data, n, 97, &o, &st);
    CHECK_EQ(st.violations, 0);
    printf("# mutate Yevetha_Ground.xml (%zu bytes, stride 97): %zu decodes\n", n, st.decodes);
    free(data);
}

static void test_mutations(void)
{
    mutate_stats st = { 0 };
    amx_decode_opts o = { .format = AMX_FMT_ALAMO_XML };
    mutate_all((const unsigned char *)DOC, strlen(DOC), 1, &o, &st);
    CHECK_EQ(st.violations, 0);
    CHECK(st.decodes > 3 * strlen(DOC));
    printf("# mutate sample XML: %zu decodes, ok %zu, partial %zu, error %zu\n", st.decodes,
           st.statuses[0], st.statuses[1], st.statuses[2]);
}

int main(void)
{
    test_run("test_objects_and_refs", test_objects_and_refs);
    test_run("test_probe", test_probe);
    test_run("test_malformed", test_malformed);
    test_run("test_entity_in_attribute", test_entity_in_attribute);
    test_run("test_entity_in_text", test_entity_in_text);
    test_run("test_nested_tags", test_nested_tags);
    test_run("test_flame_emitter", test_flame_emitter);
    test_run("test_nul_bytes", test_nul_bytes);
    test_run("test_libxml_messages", test_libxml_messages);
    test_run("test_declared_encoding", test_declared_encoding);
    test_run("test_bytes_before_declaration", test_bytes_before_declaration);
    test_run("test_stop_and_memory", test_stop_and_memory);
    test_run("test_long_names", test_long_names);
    test_run("test_corpus", test_corpus);
    test_run("test_mutations", test_mutations);
    return test_done();
}
