/* Unit tests for the game object XML decoder (lib/format/xml.c): objects, variants, model tags,
 * animation overrides, terrain mappings, lines; the probe; malformed and non-UTF-8 input; the
 * real mod's XML against an independent reader; mutation loops. */
#include "test.h"

#include "check_asset.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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
    "    <Nested><Land_Model_Name>Not_A_Ref.alo</Land_Model_Name></Nested>\n" /* 8 */
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
    "</Units_Test>\n";

static void test_objects_and_refs(void)
{
    amx_asset *a = decode_text(DOC);
    if (!a)
        return;
    CHECK_CLEAN(a);
    CHECK_EQ(a->format, AMX_FMT_ALAMO_XML);
    CHECK_EQ(a->object_count, 3);
    if (a->object_count == 3) {
        CHECK_STR(a->objects[0].type, "SpaceUnit");
        CHECK_STR(a->objects[0].name, "Star_Destroyer");
        CHECK_EQ(a->objects[0].line, 4);
        CHECK(a->objects[0].variant_of == NULL);
        CHECK_STR(a->objects[1].type, "GroundInfantry");
        CHECK_STR(a->objects[1].variant_of, "Template_Infantry");
        CHECK_EQ(a->objects[1].line, 10);
        CHECK_STR(a->objects[2].name, "HP_1");
    }
    CHECK_EQ(a->ref_count, 7);
    if (a->ref_count == 7) {
        const amx_ref *r = a->refs;
        CHECK_EQ(r[0].kind, AMX_REF_MODEL_OR_PARTICLE);      /* Space_Model_Name */
        CHECK_STR(r[0].name, "EV_Star_Destroyer.ALO");
        CHECK_STR(r[0].tag, "Space_Model_Name");
        CHECK_EQ(r[0].object, 0);
        CHECK_EQ(r[0].line, 5);
        CHECK_EQ(r[1].kind, AMX_REF_ANIM_OVERRIDE);
        CHECK_STR(r[1].name, "SD_Set.alo");
        CHECK_EQ(r[1].line, 7);
        CHECK_STR(r[2].name, "Trooper.alo");             /* CDATA */
        CHECK_EQ(r[2].object, 1);
        CHECK_EQ(r[3].kind, AMX_REF_MODEL);              /* terrain-mapped: a model */
        CHECK_STR(r[3].name, "A.alo");                   /* terrain, model pairs */
        CHECK_STR(r[3].tag, "Land_Terrain_Model_Mapping");
        CHECK_EQ(r[3].line, 13);
        CHECK_STR(r[4].name, "B.alo");
        CHECK_EQ(r[5].kind, AMX_REF_ANIM_OVERRIDE);      /* empty: clears an inherited one */
        CHECK_STR(r[5].name, "");
        CHECK_EQ(r[5].line, 15);
        CHECK_STR(r[6].name, "Turret.alo");
        CHECK_STR(r[6].tag, "Model_To_Attach");
        CHECK_EQ(r[6].object, 2);
        CHECK_EQ(r[6].offset, -1);
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
    /* not UTF-8, no declaration: read as Latin-1, noted at info level */
    a = decode_text("<Units><Unit Name=\"Caf\xE9\"><Land_Model_Name>M\xE9.alo</Land_Model_Name>"
                    "</Unit></Units>");
    if (a) {
        const amx_finding *f = test_find(a, AMX_C_XML_MALFORMED, -1);
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
    /* entities are not expanded, external ones not fetched */
    a = decode_text("<!DOCTYPE u [<!ENTITY x SYSTEM \"file:///etc/passwd\"><!ENTITY y \"Y.alo\">]>"
                    "<u><o Name=\"A\"><Land_Model_Name>&x;&y;</Land_Model_Name></o></u>");
    if (a && a->ref_count == 1)
        CHECK(!strstr(a->refs[0].name, "root:"));
    amx_asset_free(a);
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
    test_run("test_corpus", test_corpus);
    test_run("test_mutations", test_mutations);
    return test_done();
}
