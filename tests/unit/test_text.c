/* lib/common/text.c: control characters escaped in what people read (issue 21, defect 5). */
#include "test.h"
#include "animidx/text.h"
#include "animidx/hash.h"
#include "common/hash.h"

#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static char out[4096];

static const char *esc(const char *s, size_t n)
{
    size_t k = amx_text_escape(s, n, out);
    out[k] = '\0';
    CHECK_EQ(amx_text_escape(s, n, NULL), k); /* counting gives the same length */
    return out;
}

static void test_escape(void)
{
    /* the forged CI log of the issue: one line, the workflow command and the ESC shown */
    const char evil[] = "x\n::error file=README.md::pwned\nlint: 0 files, 0 errors; passed"
                        "\x1b[2K\n_IDLE_00.ALA";
    CHECK_STR(esc(evil, sizeof evil - 1),
              "x\\x0A::error file=README.md::pwned\\x0Alint: 0 files, 0 errors; passed\\x1B[2K\\x0A"
              "_IDLE_00.ALA");
    CHECK_STR(esc("a\tb\rc\x7f" "d", 7), "a\\x09b\\x0Dc\\x7Fd");
    CHECK_STR(esc("\0z", 2), "\\x00z");
    /* text passes: UTF-8, backslashes (Windows paths in XML), '%' */
    const char *text = "caf\xc3\xa9 Data\\Art 100% \xe2\x82\xac \xf0\x9f\x98\x80";
    CHECK_STR(esc(text, strlen(text)), text);
    /* C1 controls (U+009B is CSI on some terminals), the line separators */
    CHECK_STR(esc("a\xc2\x9b" "1m\xc2\x85", 7), "a\\xC2\\x9B1m\\xC2\\x85");
    CHECK_STR(esc("l\xe2\x80\xa8p\xe2\x80\xa9", 8), "l\\xE2\\x80\\xA8p\\xE2\\x80\\xA9");
    /* bytes that are not UTF-8: each alone; a sequence cut by the length */
    CHECK_STR(esc("\xff\xc3(\xed\xa0\x80", 6), "\\xFF\\xC3(\\xED\\xA0\\x80");
    CHECK_STR(esc("\xc3\xa9", 1), "\\xC3");
    CHECK_STR(esc("\xe2\x82\xac", 2), "\\xE2\\x82");
    unsigned cp = 0;
    CHECK_EQ(amx_utf8_len((const unsigned char *)"\xf0\x9f\x98\x80", 4, &cp), 4);
    CHECK_EQ(cp, 0x1F600);
    CHECK_EQ(amx_utf8_len((const unsigned char *)"\xc0\x80", 2, &cp), 0); /* overlong */
    CHECK_EQ(amx_utf8_len((const unsigned char *)"\xf4\x90\x80\x80", 4, &cp), 0); /* > U+10FFFF */
}

static const char colour_off[] = "\033[0m";

static bool keep_colour(const char *s)
{
    return s == colour_off; /* the program's own sequence, not a name that spells it */
}

static void test_format(void)
{
    char buf[256];
    /* the format's own text passes, %s arguments are escaped */
    int n = amx_text_format(buf, sizeof buf, NULL, "%s: %s\n", "a\nb", "c\x1b[2Jd");
    CHECK_STR(buf, "a\\x0Ab: c\\x1B[2Jd\n");
    CHECK_EQ(n, (int)strlen(buf));
    /* width counts what is shown; precision the bytes read */
    amx_text_format(buf, sizeof buf, NULL, "[%-6s|%6s|%.2s|%.*s]", "a\tb", "xy", "abc", 3, "p\nqr");
    CHECK_STR(buf, "[a\\x09b|    xy|ab|p\\x0Aq]");
    /* kept arguments (a program's own colour sequences) pass */
    char name[8];
    memcpy(name, colour_off, sizeof colour_off);
    amx_text_format(buf, sizeof buf, keep_colour, "%sX%s", name, colour_off);
    CHECK_STR(buf, "\\x1B[0mX\033[0m");
    /* truncation: as much as fits, NUL-terminated, the whole length returned */
    char tiny[8];
    n = amx_text_format(tiny, sizeof tiny, NULL, "%s!", "\n\n");
    CHECK_EQ(n, 9);
    CHECK_STR(tiny, "\\x0A\\x0");
    CHECK_EQ(amx_text_format(NULL, 0, NULL, "%d %s", 42, "\x01"), 7);
    const char *volatile none = NULL;
    amx_text_format(buf, sizeof buf, NULL, "%s", none);
    CHECK_STR(buf, "(null)");
    /* a control character given as %c */
    amx_text_format(buf, sizeof buf, NULL, "<%c%c>", 'a', '\n');
    CHECK_STR(buf, "<a\\x0A>");
}

/* Every other conversion gives what vsnprintf gives. */
AMX_PRINTF(1, 2) static void same(const char *fmt, ...)
{
    char a[512], b[512];
    va_list ap, aq;
    va_start(ap, fmt);
    va_copy(aq, ap);
    int na = amx_text_vformat(a, sizeof a, NULL, fmt, ap);
    int nb = vsnprintf(b, sizeof b, fmt, aq);
    va_end(aq);
    va_end(ap);
    if (na != nb || strcmp(a, b) != 0) {
        printf("# format \"%s\": \"%s\" (%d) != \"%s\" (%d)\n", fmt, a, na, b, nb);
        test_failed_checks++;
    }
}

static void test_conversions(void)
{
    same("%d %i %5d %-5d| %05d %+d % d", -7, 8, 42, 42, 42, 3, 3);
    same("%ld %lld %zu %jd %td %hd %hhd %hhu", -1L, (long long)INT64_MIN, (size_t)SIZE_MAX,
         (intmax_t)-9, (ptrdiff_t)-3, (short)-2, (signed char)-128, (unsigned char)255);
    same("%u %x %X %#x %o %#o %lu %llx", 4000000000u, 255u, 255u, 255u, 8u, 8u, 123456789ul,
         0xdeadbeefcafeULL);
    same("%*d|%-*d|%*d|%.*d|%.3d", 6, 1, 6, 2, -6, 3, 4, 5, 7);
    same("%f %.2f %10.3f %-10.1f| %e %g %G %a", 3.14159, 2.5, -1.0, 0.25, 1e300, 1e-5, 1e20, 1.0);
    same("%Lf %.1Le", (long double)1.5, (long double)-2e100);
    same("%.0f|%.400f", 1e308, 1.0);
    same("%c%c %% %5c|%-3c|", 'o', 'k', 'x', 'y');
    same("%p %p", (void *)&test_failed_checks, (void *)NULL);
    same("%s/%s %10s|%-4s|", "plain", "text", "right", "l");
    same("no conversions at all");
    same("%5.1f%%", 99.5);
}

/* The text of amx_text_for_system (freed by the next call). */
static const char *for_system(const char *text)
{
    static char *last;
    free(last);
    amx_strbuf b = { 0 };
    amx_text_for_system(&b, text);
    last = amx_strbuf_take(&b, NULL);
    return last;
}

/* Help and messages in this system's words (issue 23): the Windows build, under wine too, says
 * %APPDATA%, '\' and no SIGHUP; the POSIX build ~/.config and '/'. */
static void test_system_words(void)
{
    bool win = amx_os_separator() == '\\';
    CHECK_STR(for_system("{{CONFIG/animidx/animidx.ini}}"),
                 win ? "%APPDATA%\\animidx\\animidx.ini" : "~/.config/animidx/animidx.ini");
    CHECK_STR(for_system("in {{STATE/animidx/index.db}}."),
                 win ? "in %LOCALAPPDATA%\\animidx\\index.db." : "in ~/.local/state/animidx/index.db.");
    CHECK_STR(for_system("{{CACHE/animidx}}"),
                 win ? "%LOCALAPPDATA%\\animidx" : "~/.cache/animidx");
    CHECK_STR(for_system("{{CACHE}}"), win ? "%LOCALAPPDATA%" : "~/.cache");
    CHECK_STR(for_system("'animidx scan {{./Data}}'"),
                 win ? "'animidx scan .\\Data'" : "'animidx scan ./Data'");
    /* a name only as a whole first component */
    CHECK_STR(for_system("{{CONFIGS/x}} {{Data/CONFIG}}"),
                 win ? "CONFIGS\\x Data\\CONFIG" : "CONFIGS/x Data/CONFIG");
    /* the words of each system, either side may be empty */
    CHECK_STR(for_system("on a sync{{ or SIGHUP|}}; {{SIGTERM|Ctrl-C}}, {{|taskkill}}"),
                 win ? "on a sync; Ctrl-C, taskkill" : "on a sync or SIGHUP; SIGTERM, ");
    /* everything else as it is: single braces, an unclosed "{{", backslashes */
    CHECK_STR(for_system("{code, path glob} {\"cmd\": 1} a\\b {{open"),
                 "{code, path glob} {\"cmd\": 1} a\\b {{open");
    CHECK_STR(for_system(""), "");
    CHECK_STR(amx_os_user_dir_variables(),
                 win ? "APPDATA, LOCALAPPDATA" : "XDG_CONFIG_HOME, XDG_STATE_HOME, XDG_CACHE_HOME");
    CHECK_STR(amx_os_pick("posix", "windows"), win ? "windows" : "posix");
}

/* common/hash.c: the tables' seeded hashes. The seed is the process's own, so only what holds
 * within one process is checked: equal texts hash equal, amx__hash_upper reads a-z as A-Z (in
 * keys longer than its 256-byte chunks too), and the texts' bytes, not only their ends, count. */
static void test_hash(void)
{
    CHECK_EQ(amx_hash("ROOTTRANSFORM", 13), amx_hash("ROOTTRANSFORM", 13));
    CHECK_EQ(amx__hash_upper("RootTransform", 13), amx__hash_upper("ROOTTRANSFORM", 13));
    CHECK(amx__hash_upper("RootTransform", 13) != amx__hash_upper("RootTransforn", 13));
    CHECK(amx_hash("a", 1) != amx_hash("A", 1));
    CHECK(amx_hash("", 0) != amx_hash("\0", 1));
    static char lower[1000], upper[1000];
    for (size_t i = 0; i < sizeof lower; i++) {
        lower[i] = (char)('a' + i % 26);
        upper[i] = (char)('A' + i % 26);
    }
    CHECK_EQ(amx__hash_upper(lower, sizeof lower), amx__hash_upper(upper, sizeof upper));
    upper[600] = '#'; /* a byte past the first two chunks */
    CHECK(amx__hash_upper(lower, sizeof lower) != amx__hash_upper(upper, sizeof upper));
    CHECK(amx__hash_upper(lower, 256) != amx__hash_upper(lower, 257)); /* the length counts */
}

/* amx_text_one_edit: one typo apart, case aside (the INI decoder's "did you mean" and the
 * Alamo animation types' near misses). */
static void test_one_edit(void)
{
    CHECK(amx_text_one_edit("Object", 6, "object", 6));   /* case only */
    CHECK(amx_text_one_edit("Objcet", 6, "Object", 6));   /* two neighbours swapped */
    CHECK(amx_text_one_edit("Objekt", 6, "Object", 6));   /* one changed */
    CHECK(amx_text_one_edit("Armour", 6, "Armor", 5));    /* one added */
    CHECK(amx_text_one_edit("Weapn", 5, "Weapon", 6));    /* one dropped */
    CHECK(amx_text_one_edit("Weapon", 6, "Weapon", 6));
    CHECK(amx_text_one_edit("", 0, "A", 1));
    CHECK(!amx_text_one_edit("Obxyct", 6, "Object", 6));  /* two changed */
    CHECK(!amx_text_one_edit("Objects", 7, "Objec", 5));  /* two dropped */
    CHECK(!amx_text_one_edit("ExperienceLevel", 15, "Locomotor", 9));
    CHECK(!amx_text_one_edit("ab", 2, "ca", 2));          /* not a swap of neighbours */
    CHECK(amx_text_one_edit("IDLE", 4, "IDEL", 4));
}

int main(void)
{
    RUN(test_escape);
    RUN(test_format);
    RUN(test_conversions);
    RUN(test_system_words);
    RUN(test_hash);
    RUN(test_one_edit);
    return test_done();
}
