/* Unit tests of the portability layer (animidx/os.h: lib/common/os_posix.c or os_win.c) and of
 * the portable helpers (lib/common/portable.c). The same tests run on Linux and, under wine, on
 * Windows; where the systems differ the test asks the layer which one it is on. */
#include "test.h"
#include "animidx/json.h"
#include "animidx/os.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

static char tmp_root[AMX_PATH_MAX];

static const char *in_tmp(const char *rel)
{
    static char buf[2][AMX_PATH_MAX];
    static int k;
    k ^= 1;
    CHECK_EQ(amx_os_path_join(tmp_root, rel, buf[k], sizeof buf[k]), 0);
    return buf[k];
}

static void write_file(const char *path, const char *text)
{
    FILE *f = amx_os_fopen(path, "w");
    CHECK(f != NULL);
    if (f) {
        fputs(text, f);
        CHECK_EQ(fclose(f), 0);
    }
}

static bool windows(void)
{
    return amx_os_separator() == '\\';
}

static void test_strings(void)
{
    char *d = amx_strndup("abcdef", 3);
    CHECK_STR(d, "abc");
    free(d);
    d = amx_strndup("ab", 10);
    CHECK_STR(d, "ab");
    free(d);
    const char hay[] = "xxabcabd\0abd";
    CHECK(amx_memmem(hay, sizeof hay - 1, "abd", 3) == hay + 5);
    CHECK(amx_memmem(hay, 6, "abd", 3) == NULL);
    CHECK(amx_memmem(hay, sizeof hay - 1, "\0abd", 4) == hay + 8);
    CHECK(amx_memmem(hay, 2, "xxx", 3) == NULL);
    /* against the obvious search: texts of a 3-letter alphabet, so needles of 1 to 9 bytes
     * match often, partly and at the ends */
    uint32_t seed = 12345;
    static unsigned char text[300], pat[9];
    for (int round = 0; round < 4000; round++) {
        size_t tl = (size_t)(round % 300), pl = 1 + (size_t)(round % 9);
        for (size_t i = 0; i < tl; i++) {
            seed = seed * 1103515245u + 12345u;
            text[i] = (unsigned char)("ab\0"[(seed >> 16) % 3]);
        }
        for (size_t i = 0; i < pl; i++) {
            seed = seed * 1103515245u + 12345u;
            pat[i] = (unsigned char)("ab\0"[(seed >> 16) % 3]);
        }
        const void *want = NULL;
        for (size_t at = 0; !want && pl <= tl && at <= tl - pl; at++)
            if (memcmp(text + at, pat, pl) == 0)
                want = text + at;
        if (amx_memmem(text, tl, pat, pl) != want) {
            CHECK(!"amx_memmem agrees with the obvious search");
            printf("# text length %zu, needle length %zu, round %d\n", tl, pl, round);
            break;
        }
    }
    const char *s = "Art/Models/VSF_XWing.ALO";
    CHECK(amx_strcasestr(s, "xwing") == s + 15);
    CHECK(amx_strcasestr(s, "ALO") == s + 21);
    CHECK(amx_strcasestr(s, "tank") == NULL);
    CHECK(amx_strcasestr(s, "") == s);
}

typedef struct item {
    int key, order;
} item;

static int by_key(const void *a, const void *b, void *ctx)
{
    int *calls = ctx;
    (*calls)++;
    return ((const item *)a)->key - ((const item *)b)->key;
}

static void test_sort_is_stable(void)
{
    enum { N = 1000 };
    item *v = malloc(N * sizeof *v);
    unsigned x = 12345;
    for (int i = 0; i < N; i++) {
        x = x * 1103515245u + 12345u;
        v[i] = (item){ (int)(x >> 16) % 37, i };
    }
    int calls = 0;
    amx_sort(v, N, sizeof *v, by_key, &calls);
    CHECK(calls > 0);
    int bad = 0;
    for (int i = 1; i < N; i++)
        if (v[i - 1].key > v[i].key || (v[i - 1].key == v[i].key && v[i - 1].order > v[i].order))
            bad++;
    CHECK_EQ(bad, 0);
    free(v);
    item two[2] = { { 2, 0 }, { 1, 1 } };
    amx_sort(two, 2, sizeof *two, by_key, &calls);
    CHECK_EQ(two[0].key, 1);
    amx_sort(two, 0, sizeof *two, by_key, &calls); /* nothing to do */
}

static void test_glob(void)
{
    CHECK(amx_glob_match("*.bak", "Art/x.BAK", true));
    CHECK(!amx_glob_match("*.bak", "Art/x.BAK", false));
    CHECK(amx_glob_match("tmp", "TMP", true));
    CHECK(amx_glob_match("Art/*/x?.alo", "art/Models/x1.ALO", true));
    CHECK(!amx_glob_match("Art/*/x?.alo", "art/Models/x12.ALO", true));
    CHECK(amx_glob_match("[a-c]*", "Bee", true));
    CHECK(!amx_glob_match("[!a-c]*", "bee", true));
    CHECK(amx_glob_match("a\\*b", "a*b", false));
    CHECK(!amx_glob_match("a\\*b", "axb", false));
    CHECK(amx_glob_match("*a*b*c*", "xxaxxbxxcxx", false));
    CHECK(!amx_glob_match("*a*b*c*", "xxaxxcxxbxx", false));
    CHECK(amx_glob_match("[x", "[x", false)); /* a lone '[' is itself */
    CHECK(amx_glob_match("", "", false));
    CHECK(!amx_glob_match("", "a", false));
}

static void test_dates(void)
{
    char b[32];
    amx_time_iso8601(0, b, sizeof b);
    CHECK_STR(b, "1970-01-01T00:00:00Z");
    amx_time_iso8601(951782400, b, sizeof b); /* a leap day of a century divisible by 400 */
    CHECK_STR(b, "2000-02-29T00:00:00Z");
    amx_time_iso8601(1714564800 + 3661, b, sizeof b);
    CHECK_STR(b, "2024-05-01T13:01:01Z");
    amx_time_iso8601(-1, b, sizeof b);
    CHECK_STR(b, "1969-12-31T23:59:59Z");
    int64_t t = 0;
    CHECK(amx_time_parse("2024-05-01", &t));
    CHECK_EQ(t, 1714521600);
    CHECK(amx_time_parse("2024-05-01T12:00:00", &t));
    CHECK_EQ(t, 1714564800);
    CHECK(amx_time_parse("2024-05-01 12:00:00", &t));
    CHECK_EQ(t, 1714564800);
    CHECK(!amx_time_parse("2023-02-29", &t));
    CHECK(!amx_time_parse("2024-13-01", &t));
    CHECK(!amx_time_parse("2024-05-01x", &t));
    CHECK(!amx_time_parse("yesterday", &t));
    amx_tm tm;
    amx_time_utc(4102444800, &tm); /* 2100 is not a leap year */
    CHECK_EQ(tm.year, 2100);
    CHECK_EQ(tm.month, 1);
    CHECK_EQ(tm.day, 1);
}

static void test_strbuf_and_json_buffer(void)
{
    amx_strbuf b = { 0 };
    amx_strbuf_puts(&b, "a");
    amx_strbuf_printf(&b, "%zu-%lld-%s", (size_t)7, -5LL, "x");
    for (int i = 0; i < 1000; i++)
        amx_strbuf_putc(&b, 'z');
    size_t len = 0;
    char *s = amx_strbuf_take(&b, &len);
    CHECK_EQ(len, 1007);
    CHECK(s && strncmp(s, "a7--5-xzz", 9) == 0);
    free(s);
    s = amx_strbuf_take(&b, &len); /* empty again */
    CHECK_STR(s, "");
    free(s);

    amx_json j;
    amx_json_init_buffer(&j, false);
    amx_json_begin_object(&j);
    amx_json_kstring(&j, "path", "C:\\Mods\\\xc3\xa9\x01\xff");
    amx_json_kint(&j, "n", -3);
    amx_json_knumber(&j, "x", 0.5);
    amx_json_end_object(&j);
    s = amx_json_take(&j, &len);
    CHECK_STR(s, "{\"path\":\"C:\\\\Mods\\\\\xc3\xa9\\u0001\\ufffd\",\"n\":-3,\"x\":0.5}");
    CHECK_EQ(len, s ? strlen(s) : 0);
    free(s);
}

static void test_paths(void)
{
    char out[AMX_PATH_MAX];
    CHECK_EQ(amx_os_path_join("a", "b", out, sizeof out), 0);
    CHECK_STR(out, "a/b");
    CHECK_EQ(amx_os_path_join("a/", "b", out, sizeof out), 0);
    CHECK_STR(out, "a/b");
    CHECK_EQ(amx_os_path_join("", "b", out, sizeof out), 0);
    CHECK_STR(out, "b");
    CHECK_EQ(amx_os_path_join("/x", "/y", out, sizeof out), 0); /* absolute name wins */
    CHECK_STR(out, "/y");
    CHECK_EQ(amx_os_path_join("a", "b", out, 3), -ENAMETOOLONG);
    CHECK(amx_os_path_is_absolute("/x"));
    CHECK(!amx_os_path_is_absolute("x/y"));
    CHECK_EQ(amx_os_path_root_len("/x"), 1);
    CHECK_EQ(amx_os_path_root_len("x"), 0);
    if (windows()) {
        CHECK(amx_os_path_is_absolute("C:\\Games\\EaW"));
        CHECK(amx_os_path_is_absolute("c:/Games"));
        CHECK(amx_os_path_is_absolute("\\\\server\\share\\x"));
        CHECK(!amx_os_path_is_absolute("Data\\Art"));
        CHECK_EQ(amx_os_path_root_len("C:/Games"), 3);
        CHECK_EQ(amx_os_path_root_len("//server/share/x"), 15);
        char p[] = "Data\\Art\\Models";
        amx_os_path_normalize(p);
        CHECK_STR(p, "Data/Art/Models");
        CHECK_STR(amx_os_path_display("C:/Games/EaW", out, sizeof out), "C:\\Games\\EaW");
        CHECK(amx_os_names_fold_case());
    } else {
        CHECK(!amx_os_path_is_absolute("C:\\Games"));
        char p[] = "a\\b";
        amx_os_path_normalize(p); /* a backslash is part of a POSIX name */
        CHECK_STR(p, "a\\b");
        CHECK(!amx_os_names_fold_case());
    }
    /* canonical: absolute, '/' inside, no "." or "..", the same as the current directory */
    char cwd[AMX_PATH_MAX], dot[AMX_PATH_MAX];
    CHECK_EQ(amx_os_getcwd(cwd, sizeof cwd), 0);
    CHECK_EQ(amx_os_canonical(".", dot, sizeof dot), 0);
    char cwd_canon[AMX_PATH_MAX];
    CHECK_EQ(amx_os_canonical(cwd, cwd_canon, sizeof cwd_canon), 0);
    CHECK_STR(dot, cwd_canon);
    CHECK(amx_os_path_is_absolute(dot));
    CHECK(strchr(dot, '\\') == NULL);
    char sub[AMX_PATH_MAX], back[AMX_PATH_MAX + 16];
    CHECK_EQ(amx_os_canonical(tmp_root, sub, sizeof sub), 0);
    CHECK_EQ(amx_mkdir_parents(in_tmp("d1/x"), 0755), 0);
    snprintf(back, sizeof back, "%s/./d1/../", tmp_root);
    CHECK_EQ(amx_os_canonical(back, out, sizeof out), 0);
    CHECK_STR(out, sub);
    CHECK_EQ(amx_os_canonical(in_tmp("no such file"), out, sizeof out), -ENOENT);
    if (windows()) { /* the other separator and another case name the same directory */
        char mixed[AMX_PATH_MAX];
        snprintf(mixed, sizeof mixed, "%s", sub);
        for (char *p = mixed; *p; p++)
            *p = *p == '/' ? '\\' : (*p >= 'a' && *p <= 'z') ? (char)(*p - 32) : *p;
        CHECK_EQ(amx_os_canonical(mixed, out, sizeof out), 0);
        CHECK_STR(out, sub);
    }
}

static void test_files_and_listing(void)
{
    write_file(in_tmp("a.txt"), "one\ntwo\n");
    write_file(in_tmp("b.bin"), "\r\n\x1a\n"); /* binary: no newline translation, no EOF byte */
    const char *uname = "\xc3\x9cnic\xc3\xb8" "de_\xe5\x90\x8d.ala"; /* Ünicøde_名.ala */
    write_file(in_tmp(uname), "x");
    CHECK_EQ(amx_mkdir_parents(in_tmp("d1/d2/file"), 0755), 0);
    amx_os_stat st, st2;
    CHECK_EQ(amx_os_path_stat(in_tmp("a.txt"), &st), 0);
    CHECK_EQ(st.kind, AMX_OS_FILE);
    CHECK_EQ(st.size, 8);
    CHECK(!st.link);
    CHECK(st.mtime_ns > (int64_t)1500000000 * 1000000000);
    CHECK_EQ(amx_os_path_stat(in_tmp("b.bin"), &st2), 0);
    CHECK_EQ(st2.size, 4);
    CHECK(st.ino != st2.ino || st.dev != st2.dev);
    CHECK_EQ(amx_os_path_stat(in_tmp("d1/d2"), &st2), 0);
    CHECK_EQ(st2.kind, AMX_OS_DIR);
    CHECK_EQ(amx_os_path_stat(in_tmp("missing"), &st2), -ENOENT);
    CHECK(amx_os_exists(in_tmp("a.txt")));
    CHECK(!amx_os_exists(in_tmp("missing")));
    size_t len = 0;
    char *text = amx_os_read_file(in_tmp("b.bin"), &len);
    CHECK_EQ(len, 4);
    CHECK(text && memcmp(text, "\r\n\x1a\n", 4) == 0);
    free(text);

    /* the listing: every entry once, with the status a stat of its path gives */
    amx_os_dir *d;
    CHECK_EQ(amx_os_dir_open(tmp_root, &d), 0);
    amx_os_entry e;
    int err, seen = 0;
    while (d && amx_os_dir_next(d, &e, &err)) {
        CHECK_EQ(e.err, 0);
        amx_os_stat by_path;
        CHECK_EQ(amx_os_path_stat(in_tmp(e.name), &by_path), 0);
        CHECK_EQ(e.st.kind, by_path.kind);
        CHECK_EQ(e.st.ino, by_path.ino);
        CHECK_EQ(e.st.dev, by_path.dev);
        CHECK_EQ(e.st.mtime_ns, by_path.mtime_ns);
        if (strcmp(e.name, "a.txt") == 0) {
            seen |= 1;
            CHECK_EQ(e.st.size, 8);
        } else if (strcmp(e.name, uname) == 0) {
            seen |= 2;
            CHECK_EQ(e.st.size, 1);
        } else if (strcmp(e.name, "d1") == 0) {
            seen |= 4;
            CHECK_EQ(e.st.kind, AMX_OS_DIR);
        }
    }
    CHECK_EQ(err, 0);
    CHECK_EQ(seen, 7);
    amx_os_dir_close(d);
    CHECK_EQ(amx_os_dir_open(in_tmp("a.txt"), &d), -ENOTDIR);
    CHECK_EQ(amx_os_dir_open(in_tmp("missing"), &d), -ENOENT);

    /* reading through a handle */
    amx_os_file *f;
    CHECK_EQ(amx_os_open_read(in_tmp(uname), &f), 0);
    if (f) {
        char c[4];
        size_t got = 0;
        CHECK_EQ(amx_os_read(f, c, sizeof c, &got), 0);
        CHECK_EQ(got, 1);
        CHECK_EQ(amx_os_file_stat(f, &st2), 0);
        CHECK_EQ(st2.size, 1);
        amx_os_close(f);
    }
    CHECK_EQ(amx_os_open_read(in_tmp("missing"), &f), -ENOENT);

    /* a temporary file beside a target replaces it in one step */
    char tmp[AMX_PATH_MAX];
    FILE *t = amx_os_temp_beside(in_tmp("a.txt"), tmp, sizeof tmp);
    CHECK(t != NULL);
    if (t) {
        fputs("new\n", t);
        CHECK_EQ(fclose(t), 0);
        CHECK_EQ(amx_os_replace(tmp, in_tmp("a.txt")), 0);
    }
    text = amx_os_read_file(in_tmp("a.txt"), &len);
    CHECK_STR(text, "new\n");
    free(text);
    CHECK(!amx_os_exists(tmp));
    if (windows()) { /* a path as the user typed it: '\\' separators */
        char back[AMX_PATH_MAX];
        snprintf(back, sizeof back, "%s", in_tmp("a.txt"));
        for (char *p = back; *p; p++)
            if (*p == '/')
                *p = '\\';
        t = amx_os_temp_beside(back, tmp, sizeof tmp);
        CHECK(t != NULL);
        if (t) {
            fputs("back\n", t);
            CHECK_EQ(fclose(t), 0);
            CHECK_EQ(amx_os_replace(tmp, back), 0);
        }
        text = amx_os_read_file(in_tmp("a.txt"), &len);
        CHECK_STR(text, "back\n");
        free(text);
    }
    CHECK_EQ(amx_os_remove(in_tmp("b.bin")), 0);
    CHECK(!amx_os_exists(in_tmp("b.bin")));

    /* a file whose name begins like a device's (NUL.xml, con.ini: devices to Windows before 11
     * and to wine) is that file, not the device */
    const char *devlike[] = { "Nul.xml", "con.ini", "AUX.w3d" };
    for (size_t i = 0; i < sizeof devlike / sizeof *devlike; i++) {
        write_file(in_tmp(devlike[i]), "<u/>\n");
        CHECK_EQ(amx_os_path_stat(in_tmp(devlike[i]), &st2), 0);
        CHECK_EQ(st2.kind, AMX_OS_FILE);
        CHECK_EQ(st2.size, 5);
        CHECK_EQ(amx_os_open_read(in_tmp(devlike[i]), &f), 0);
        if (f) {
            CHECK_EQ(amx_os_file_stat(f, &st2), 0);
            CHECK_EQ(st2.kind, AMX_OS_FILE);
            amx_os_close(f);
        }
        CHECK_EQ(amx_os_remove(in_tmp(devlike[i])), 0);
    }
}

/* Paths longer than Windows' MAX_PATH (260) work: directories, a file, its listing. */
static void test_long_paths(void)
{
    char rel[1200] = "";
    size_t n = 0;
    for (int i = 0; i < 12; i++)
        n += (size_t)snprintf(rel + n, sizeof rel - n, "%sdirectory_level_%02d_with_a_long_name",
                              i ? "/" : "", i);
    snprintf(rel + n, sizeof rel - n, "/X_IDLE_00.ALA");
    const char *path = in_tmp(rel);
    CHECK(strlen(path) > 300);
    CHECK_EQ(amx_mkdir_parents(path, 0755), 0);
    write_file(path, "deep");
    amx_os_stat st;
    CHECK_EQ(amx_os_path_stat(path, &st), 0);
    CHECK_EQ(st.size, 4);
    char canon[AMX_PATH_MAX];
    CHECK_EQ(amx_os_canonical(path, canon, sizeof canon), 0);
    CHECK(strlen(canon) > 300);
    size_t len = 0;
    char *text = amx_os_read_file(canon, &len);
    CHECK_STR(text, "deep");
    free(text);
}

static void test_process(void)
{
    CHECK(amx_os_cpu_count() >= 1);
    int64_t a = amx_os_monotonic_ns(), b = amx_os_monotonic_ns();
    CHECK(b >= a);
    CHECK(amx_os_wall_ns() > (int64_t)1500000000 * 1000000000);
    char self[AMX_PATH_MAX];
    CHECK_EQ(amx_os_self_path(self, sizeof self), 0);
    CHECK(strstr(self, "test_os") != NULL);
    char dir[AMX_PATH_MAX];
    CHECK_EQ(amx_os_default_socket("C:/Users/m/AppData/Local/animidx/index.db", dir, sizeof dir), 0);
    CHECK(strstr(dir, "animidx") != NULL);
    if (windows()) { /* one pipe per user and index; the index as Windows compares paths */
        char same[AMX_PATH_MAX], other[AMX_PATH_MAX];
        CHECK_EQ(amx_os_default_socket("c:\\users\\M\\AppData\\Local\\animidx\\INDEX.db", same, sizeof same), 0);
        CHECK_EQ(amx_os_default_socket("C:/Mods/X/index.db", other, sizeof other), 0);
        CHECK_STR(same, dir);
        CHECK(strcmp(other, dir) != 0);
        CHECK(strncmp(dir, "//./pipe/animidx-", 17) == 0);
    }
    /* the per-user folders: %APPDATA% and %LOCALAPPDATA% on Windows, XDG on POSIX */
    char out[AMX_PATH_MAX];
    if (windows()) {
        CHECK_EQ(amx_os_setenv("APPDATA", "C:\\Users\\m\\AppData\\Roaming"), 0);
        CHECK_EQ(amx_os_setenv("LOCALAPPDATA", "C:\\Users\\m\\AppData\\Local"), 0);
        CHECK_EQ(amx_os_config_dir(out, sizeof out), 0);
        CHECK_STR(out, "C:/Users/m/AppData/Roaming");
        CHECK_EQ(amx_os_state_dir(out, sizeof out), 0);
        CHECK_STR(out, "C:/Users/m/AppData/Local");
        CHECK_EQ(amx_os_setenv("APPDATA", NULL), 0);
        CHECK(amx_os_getenv("APPDATA") == NULL);
    } else {
        CHECK_EQ(amx_os_setenv("XDG_CONFIG_HOME", "/cfg"), 0);
        CHECK_EQ(amx_os_config_dir(out, sizeof out), 0);
        CHECK_STR(out, "/cfg");
        CHECK_EQ(amx_os_setenv("XDG_CONFIG_HOME", NULL), 0);
        CHECK_EQ(amx_os_setenv("HOME", "/u/t"), 0);
        CHECK_EQ(amx_os_state_dir(out, sizeof out), 0);
        CHECK_STR(out, "/u/t/.local/state");
    }
    /* not a terminal: the test's output goes to a pipe or file */
    CHECK(!amx_os_is_terminal(stdout));
}

/* Symbolic links (Windows: reparse points of the symlink kind): lstat sees the link and the kind
 * of what it leads to, stat and the listing go through it, a broken one is a link to nothing. */
static void test_links(void)
{
    CHECK_EQ(amx_mkdir_parents(in_tmp("links/target/x"), 0755), 0);
    write_file(in_tmp("links/target/f.txt"), "abc");
    write_file(in_tmp("links/gone.txt"), "x");
    CHECK_EQ(amx_os_symlink(in_tmp("links/target"), in_tmp("links/dir")), 0);
    CHECK_EQ(amx_os_symlink(in_tmp("links/target/f.txt"), in_tmp("links/file")), 0);
    CHECK_EQ(amx_os_symlink(in_tmp("links/gone.txt"), in_tmp("links/broken")), 0);
    CHECK_EQ(amx_os_remove(in_tmp("links/gone.txt")), 0);
    amx_os_stat st, real;
    CHECK_EQ(amx_os_path_lstat(in_tmp("links/dir"), &st), 0);
    CHECK(st.link);
    CHECK_EQ(st.kind, AMX_OS_DIR);
    CHECK_EQ(amx_os_path_lstat(in_tmp("links/file"), &st), 0);
    CHECK(st.link);
    CHECK_EQ(st.kind, AMX_OS_FILE);
    CHECK_EQ(st.size, 3);
    CHECK_EQ(amx_os_path_lstat(in_tmp("links/broken"), &st), 0);
    CHECK(st.link);
    CHECK_EQ(st.kind, AMX_OS_OTHER);
    CHECK_EQ(amx_os_path_lstat(in_tmp("links/target"), &st), 0);
    CHECK(!st.link);
    /* stat follows: the target's identity */
    CHECK_EQ(amx_os_path_stat(in_tmp("links/dir"), &st), 0);
    CHECK_EQ(amx_os_path_stat(in_tmp("links/target"), &real), 0);
    CHECK(!st.link && st.kind == AMX_OS_DIR && st.dev == real.dev && st.ino == real.ino);
    CHECK_EQ(amx_os_path_stat(in_tmp("links/broken"), &st), -ENOENT);
    /* the listing says which entries are links */
    amx_os_dir *d;
    CHECK_EQ(amx_os_dir_open(in_tmp("links"), &d), 0);
    amx_os_entry e;
    int err, seen = 0;
    while (d && amx_os_dir_next(d, &e, &err)) {
        if (strcmp(e.name, "dir") == 0) {
            CHECK(e.st.link && e.st.kind == AMX_OS_DIR);
            seen |= 1;
        } else if (strcmp(e.name, "file") == 0) {
            CHECK(e.st.link && e.st.kind == AMX_OS_FILE);
            seen |= 2;
        } else if (strcmp(e.name, "broken") == 0) {
            CHECK(e.st.link);
            CHECK_EQ(e.err, -ENOENT);
            seen |= 4;
        } else if (strcmp(e.name, "target") == 0) {
            CHECK(!e.st.link && e.st.kind == AMX_OS_DIR);
            seen |= 8;
        }
    }
    CHECK_EQ(seen, 15);
    amx_os_dir_close(d);
    /* removing the tree removes the links, not what they lead to */
    test_remove_tree(in_tmp("links/dir"));
    CHECK(amx_os_exists(in_tmp("links/target/f.txt")));
    test_remove_tree(in_tmp("links"));
}

int main(int argc, char **argv)
{
    amx_os_args_utf8(&argc, &argv);
    char base[AMX_PATH_MAX - 16];
    const char *t = amx_os_getenv("TMPDIR");
    if (!t)
        t = amx_os_getenv("TEMP");
    snprintf(base, sizeof base, "%s/amx_os_test_%ld", t ? t : "/tmp", amx_os_pid());
    amx_os_path_normalize(base);
    CHECK_EQ(amx_mkdir_parents(base, 0755), 0);
    snprintf(tmp_root, sizeof tmp_root, "%s/%s", base, "root");
    CHECK_EQ(amx_mkdir_parents(in_tmp("x"), 0755), 0);
    RUN(test_strings);
    RUN(test_sort_is_stable);
    RUN(test_glob);
    RUN(test_dates);
    RUN(test_strbuf_and_json_buffer);
    RUN(test_paths);
    RUN(test_files_and_listing);
    RUN(test_long_paths);
    RUN(test_process);
    char why[300];
    bool links = test_links_work(why, sizeof why);
    RUN_IF(links, test_links, why);
    test_remove_tree(base);
    return test_done();
}
