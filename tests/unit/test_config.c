/* Unit tests for the configuration (lib/common/config.c, config/animidx.ini). */
#include "test.h"
#include "animidx/config.h"
#include "animidx/os.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static char tmp_root[256]; /* a fresh directory for the files the tests write */

static void write_file(const char *path, const char *text)
{
    FILE *f = amx_os_fopen(path, "w");
    CHECK(f != NULL);
    if (f) {
        fputs(text, f);
        fclose(f);
    }
}

static const char *tmp_path(const char *rel)
{
    static char buf[512];
    snprintf(buf, sizeof buf, "%s/%s", tmp_root, rel);
    return buf;
}

/* Loads text into a fresh config; returns "" on success, else the error message. */
static const char *load_err(const char *text)
{
    static char err[512];
    amx_config c;
    CHECK_EQ(amx_config_init(&c), 0);
    err[0] = '\0';
    int rc = amx_config_load_string(&c, text, "animidx.ini", err, sizeof err);
    CHECK_EQ(rc, err[0] ? -1 : 0);
    amx_config_finish(&c);
    return err;
}

/* n comment lines, then tail: the first line of tail is line n + 1. */
static const char *padded(int n, const char *tail)
{
    static char buf[4096];
    buf[0] = '\0';
    for (int i = 0; i < n; i++)
        strcat(buf, i % 2 ? "\n" : "; padding\n");
    strcat(buf, tail);
    return buf;
}

static void test_defaults(void)
{
    amx_config c;
    amx_os_setenv("XDG_STATE_HOME", NULL);
    amx_os_setenv("HOME", "/u/t");
    CHECK_EQ(amx_config_init(&c), 0);
    CHECK_STR(c.db_path, "/u/t/.local/state/animidx/index.db");
    CHECK_EQ(c.jobs, 0);
    CHECK_EQ(c.memory_mb, 1024);
    CHECK(!c.follow_links); /* links out of a root are not followed unless asked */
    CHECK_EQ(c.root_count, 0);
    CHECK(c.roots == NULL);
    CHECK_EQ(c.ignore_count, 0);
    CHECK(c.source == NULL);
    for (int i = 0; i < AMX_CODE_COUNT; i++) {
        CHECK_EQ(c.severity[i], amx_code_get((amx_code)i)->severity);
        CHECK(!c.severity_set[i]);
    }
    CHECK(!amx_config_ignored(&c, "a/b.alo"));
    amx_config_finish(&c);
    CHECK(c.db_path == NULL);
    amx_config_finish(&c); /* a zeroed struct is a no-op */

    amx_os_setenv("XDG_STATE_HOME", "/state");
    CHECK_EQ(amx_config_init(&c), 0);
    CHECK_STR(c.db_path, "/state/animidx/index.db");
    amx_config_finish(&c);

    amx_os_setenv("XDG_STATE_HOME", "relative/state"); /* not absolute: ignored, as XDG says */
    CHECK_EQ(amx_config_init(&c), 0);
    CHECK_STR(c.db_path, "/u/t/.local/state/animidx/index.db");
    amx_config_finish(&c);

    amx_os_setenv("XDG_STATE_HOME", NULL);
    amx_os_setenv("HOME", NULL);
    CHECK_EQ(amx_config_init(&c), 0);
    CHECK_STR(c.db_path, "./animidx.db");
    CHECK_EQ(amx_config_set_db(&c, "/other.db"), 0);
    CHECK_STR(c.db_path, "/other.db");
    amx_config_finish(&c);
    amx_os_setenv("HOME", "/u/t");
}

static void test_keys(void)
{
    amx_config c;
    char err[256] = "";
    CHECK_EQ(amx_config_init(&c), 0);
    CHECK_EQ(amx_config_load_string(&c,
                                    "# a comment\n"
                                    "[index]\n"
                                    "database = /var/db/idx.db   ; inline comment\n"
                                    "[scan]\n"
                                    "roots = /data\n"
                                    "jobs = 12\n"
                                    "memory_mb = 64\n"
                                    "follow_links = true\n"
                                    "ignore = *.bak\n",
                                    "animidx.ini", err, sizeof err), 0);
    CHECK_STR(err, "");
    CHECK_STR(c.db_path, "/var/db/idx.db");
    CHECK_EQ(c.root_count, 1);
    if (c.root_count == 1)
        CHECK_STR(c.roots[0], "/data");
    CHECK_EQ(c.jobs, 12);
    CHECK_EQ(c.memory_mb, 64);
    CHECK(c.follow_links);
    CHECK_EQ(c.ignore_count, 1);
    if (c.ignore_count == 1)
        CHECK_STR(c.ignore[0], "*.bak");
    CHECK_STR(c.source, "animidx.ini");

    /* scalars: the later value replaces; names are case-insensitive */
    CHECK_EQ(amx_config_load_string(&c,
                                    "[Index]\nDatabase = /a.db\ndatabase = /b.db\n"
                                    "[SCAN]\njobs = 0\nJOBS = 256\nfollow_links = no\n",
                                    "second.ini", err, sizeof err), 0);
    CHECK_STR(c.db_path, "/b.db");
    CHECK_EQ(c.jobs, 256);
    CHECK(!c.follow_links);
    CHECK_EQ(c.root_count, 1); /* untouched by the second file */
    CHECK_STR(c.source, "second.ini");
    amx_config_finish(&c);
}

static void test_lists(void)
{
    amx_config c;
    char err[256] = "";
    CHECK_EQ(amx_config_init(&c), 0);
    CHECK_EQ(amx_config_load_string(&c,
                                    "[scan]\n"
                                    "roots = /a, /b,\n"
                                    "   /c\n"
                                    "   , /d ,, \n"
                                    "jobs = 2\n"
                                    "roots = /e\n"
                                    "ignore = .git,tmp/ , Data/Old/\n"
                                    "\t*.bak\n"
                                    "ignore = \n",
                                    "animidx.ini", err, sizeof err), 0);
    CHECK_STR(err, "");
    const char *want_roots[] = { "/a", "/b", "/c", "/d", "/e" };
    CHECK_EQ(c.root_count, 5);
    for (size_t i = 0; i < 5 && i < c.root_count; i++)
        CHECK_STR(c.roots[i], want_roots[i]);
    const char *want_ignore[] = { ".git", "tmp", "Data/Old", "*.bak" };
    CHECK_EQ(c.ignore_count, 4);
    for (size_t i = 0; i < 4 && i < c.ignore_count; i++)
        CHECK_STR(c.ignore[i], want_ignore[i]);
    CHECK_EQ(c.jobs, 2);

    /* a second load adds to the lists */
    CHECK_EQ(amx_config_load_string(&c, "[scan]\nroots = /f\n", NULL, err, sizeof err), 0);
    CHECK_EQ(c.root_count, 6);
    CHECK_STR(c.roots[5], "/f");
    amx_config_finish(&c);
}

static void test_severity(void)
{
    amx_config c;
    char err[256] = "";
    CHECK_EQ(amx_config_init(&c), 0);
    CHECK_EQ(amx_config_load_string(&c,
                                    "[severity]\n"
                                    "bone_not_in_skeleton = warning\n"
                                    "UNKNOWN_CHUNK = off\n"
                                    "TRAILING_DATA = ERROR\n",
                                    "animidx.ini", err, sizeof err), 0);
    CHECK_STR(err, "");
    CHECK_EQ(c.severity[AMX_C_BONE_NOT_IN_SKELETON], AMX_SEV_WARNING);
    CHECK(c.severity_set[AMX_C_BONE_NOT_IN_SKELETON]);
    CHECK_EQ(c.severity[AMX_C_UNKNOWN_CHUNK], AMX_SEV_OFF);
    CHECK(c.severity_set[AMX_C_UNKNOWN_CHUNK]);
    CHECK_EQ(c.severity[AMX_C_TRAILING_DATA], AMX_SEV_ERROR);
    CHECK_EQ(c.severity[AMX_C_TRUNCATED], amx_code_get(AMX_C_TRUNCATED)->severity);
    CHECK(!c.severity_set[AMX_C_TRUNCATED]);
    amx_config_finish(&c);
}

static void test_error_messages(void)
{
    CHECK_STR(load_err("; comment\n\n[index]\ndatabase = /x.db\n\n[scan]\nrootz = a\n"),
              "animidx.ini:7: unknown key 'rootz' in [scan] (known keys: roots, jobs, memory_mb, ignore, follow_links)");
    CHECK_STR(load_err("[index]\nroots = /a\n"),
              "animidx.ini:2: unknown key 'roots' in [index] (known keys: database)");
    /* an unknown section is reported on its own line, even with no keys */
    CHECK_STR(load_err("[index]\n; comment\n[foo]\n"),
              "animidx.ini:3: unknown section [foo] (known: index, scan, severity, daemon, root PATH)");
    CHECK_STR(load_err("[scan]\njobs = 1\n[foo]\nx = 1\n"),
              "animidx.ini:3: unknown section [foo] (known: index, scan, severity, daemon, root PATH)");
    /* an indented header is a section too; the handler catches it at its first key */
    CHECK_STR(load_err("[scan]\n  [foo]\nx = 1\n"),
              "animidx.ini:3: unknown section [foo] (known: index, scan, severity, daemon, root PATH)");
    CHECK_STR(load_err("jobs = 1\n"),
              "animidx.ini:1: key 'jobs' before any section (known: index, scan, severity, daemon, root PATH)");
    CHECK_STR(load_err(padded(7, "[scan]\njobs = lots\n")),
              "animidx.ini:9: bad value 'lots' for jobs: expected a whole number from 0 to 256");
    CHECK_STR(load_err("[scan]\njobs = 257\n"),
              "animidx.ini:2: bad value '257' for jobs: expected a whole number from 0 to 256");
    CHECK_STR(load_err("[scan]\njobs = -1\n"),
              "animidx.ini:2: bad value '-1' for jobs: expected a whole number from 0 to 256");
    CHECK_STR(load_err("[scan]\njobs =\n"),
              "animidx.ini:2: bad value '' for jobs: expected a whole number from 0 to 256");
    CHECK_STR(load_err("[scan]\njobs = 99999999999999999999\n"),
              "animidx.ini:2: bad value '99999999999999999999' for jobs: expected a whole "
              "number from 0 to 256");
    CHECK_STR(load_err("[scan]\nfollow_links = sometimes\n"),
              "animidx.ini:2: bad value 'sometimes' for follow_links: expected true or false");
    CHECK_STR(load_err("[scan]\nmemory_mb = 0\n"),
              "animidx.ini:2: bad value '0' for memory_mb: expected a whole number from 1 to 1048576");
    CHECK_STR(load_err("[index]\ndatabase =\n"),
              "animidx.ini:2: bad value '' for database: expected a path");
    CHECK_STR(load_err(padded(10, "[severity]\nBONE_MISSING = error\n")),
              "animidx.ini:12: unknown issue code 'BONE_MISSING' in [severity] (run 'animidx "
              "rules' for the list)");
    CHECK_STR(load_err(padded(10, "[severity]\nbone_not_in_skeleton = fatal\n")),
              "animidx.ini:12: bad severity 'fatal' for BONE_NOT_IN_SKELETON: expected info, "
              "warning, error or off");

    /* malformed lines, found by inih and placed by its return value */
    CHECK_STR(load_err("[scan]\njobs = 1\nnonsense\n"),
              "animidx.ini:3: syntax error: expected '[section]' or 'key = value'");
    CHECK_STR(load_err("[scan\njobs = 1\n"),
              "animidx.ini:1: syntax error: expected '[section]' or 'key = value'");
    /* the first error wins */
    CHECK_STR(load_err("[scan]\nnonsense\njobs = 1\nbogus = 2\n"),
              "animidx.ini:2: syntax error: expected '[section]' or 'key = value'");
    CHECK_STR(load_err("[scan]\nbogus = 2\nnonsense\n"),
              "animidx.ini:2: unknown key 'bogus' in [scan] (known keys: roots, jobs, memory_mb, ignore, follow_links)");
    CHECK_STR(load_err("[scan]\nnonsense\n[foo]\n"),
              "animidx.ini:2: syntax error: expected '[section]' or 'key = value'");

    /* no message buffer: still -1, no crash */
    amx_config c;
    CHECK_EQ(amx_config_init(&c), 0);
    CHECK_EQ(amx_config_load_string(&c, "[x]\n", "a.ini", NULL, 0), -1);
    amx_config_finish(&c);
}

static void test_long_lines(void)
{
    char text[600];
    char value[300];
    /* "database = /" is 12 characters: 186 more make a line of 198, the longest allowed */
    memset(value, 'a', 186);
    value[186] = '\0';
    snprintf(text, sizeof text, "[index]\ndatabase = /%s\n[scan]\njobs = 1\n", value);
    CHECK_STR(load_err(text), "");
    strcat(value, "a"); /* 199 characters */
    snprintf(text, sizeof text, "[index]\ndatabase = /%s\n[scan]\njobs = 1\n", value);
    CHECK_STR(load_err(text), "animidx.ini:2: line too long (at most 198 characters)");
    snprintf(text, sizeof text, "[index]\n\ndatabase = /%s", value); /* no final newline */
    CHECK_STR(load_err(text), "animidx.ini:3: line too long (at most 198 characters)");
    /* the cut-off tail would otherwise read as a line of its own */
    memset(value, 'a', 250);
    memcpy(value + 190, "jobs = 3", 8);
    value[250] = '\0';
    snprintf(text, sizeof text, "[scan]\nroots = /%s\n", value);
    CHECK_STR(load_err(text), "animidx.ini:2: line too long (at most 198 characters)");

    /* the same from a file */
    snprintf(text, sizeof text, "[index]\n\n\ndatabase = /%s\n", value);
    write_file(tmp_path("long.ini"), text);
    amx_config c;
    char err[512], want[1024];
    CHECK_EQ(amx_config_init(&c), 0);
    CHECK_EQ(amx_config_load_file(&c, tmp_path("long.ini"), err, sizeof err), -1);
    snprintf(want, sizeof want, "%s:4: line too long (at most 198 characters)",
             tmp_path("long.ini"));
    CHECK_STR(err, want);
    amx_config_finish(&c);
    remove(tmp_path("long.ini"));
}

static void test_file_errors(void)
{
    amx_config c;
    char err[512], want[1024];
    CHECK_EQ(amx_config_init(&c), 0);
    CHECK_EQ(amx_config_load_file(&c, "/x/animidx.ini", err, sizeof err), -1);
    CHECK_STR(err, "/x/animidx.ini: cannot open: No such file or directory");
    CHECK_EQ(amx_config_load_file(&c, tmp_path("missing/animidx.ini"), err, sizeof err), -1);
    snprintf(want, sizeof want, "%s: cannot open: No such file or directory",
             tmp_path("missing/animidx.ini"));
    CHECK_STR(err, want);
    CHECK_EQ(amx_config_load_file(&c, tmp_root, err, sizeof err), -1); /* a directory */
    snprintf(want, sizeof want, "%s: a directory, not a regular file; a configuration is a text "
                                "file of at most 1 MiB", tmp_root);
    CHECK_STR(err, want);
    /* A file over 1 MiB is refused before it is read (FIFOs and devices: test_special_files). */
    FILE *big = amx_os_fopen(tmp_path("big.ini"), "w");
    CHECK(big != NULL);
    if (big) {
        fputs("[scan]\n", big);
        for (int i = 0; i < 70000; i++)
            fputs("; a comment line\n", big);
        fclose(big);
    }
    CHECK_EQ(amx_config_load_file(&c, tmp_path("big.ini"), err, sizeof err), -1);
    snprintf(want, sizeof want, "%s: 1.1 MiB, more than the 1 MiB it may have; a configuration "
                                "is a text file of at most 1 MiB", tmp_path("big.ini"));
    CHECK_STR(err, want);
    remove(tmp_path("big.ini"));
    CHECK(c.source == NULL);

    write_file(tmp_path("bad.ini"), "[scan]\njobs = 3\n\n[severity]\nTRUNCATED = fatal\n");
    CHECK_EQ(amx_config_load_file(&c, tmp_path("bad.ini"), err, sizeof err), -1);
    snprintf(want, sizeof want,
             "%s:5: bad severity 'fatal' for TRUNCATED: expected info, warning, error or off",
             tmp_path("bad.ini"));
    CHECK_STR(err, want);
    remove(tmp_path("bad.ini"));
    amx_config_finish(&c);
}

/* A FIFO is refused at once (it used to block for a writer), a device unread (/dev/zero was
 * read until memory ran out). */
static void test_special_files(void)
{
    amx_config c;
    char err[512], want[1024];
    CHECK_EQ(amx_config_init(&c), 0);
    CHECK_EQ(amx_os_mkfifo(tmp_path("fifo.ini")), 0);
    CHECK_EQ(amx_config_load_file(&c, tmp_path("fifo.ini"), err, sizeof err), -1);
    snprintf(want, sizeof want, "%s: a FIFO, not a regular file; a configuration is a text "
                                "file of at most 1 MiB", tmp_path("fifo.ini"));
    CHECK_STR(err, want);
    remove(tmp_path("fifo.ini"));
    CHECK_EQ(amx_config_load_file(&c, "/dev/zero", err, sizeof err), -1);
    CHECK_STR(err, "/dev/zero: a character device, not a regular file; a configuration is a "
                   "text file of at most 1 MiB");
    amx_config_finish(&c);
}

/* A file with an error changes nothing, not even the keys before the error. */
static void test_error_keeps_config(void)
{
    amx_config c;
    char err[256];
    CHECK_EQ(amx_config_init(&c), 0);
    CHECK_EQ(amx_config_load_string(&c, "[scan]\njobs = 4\nroots = /a\n[severity]\n"
                                        "TRUNCATED = off\n", "good.ini", err, sizeof err), 0);
    CHECK_EQ(amx_config_load_string(&c,
                                    "[index]\ndatabase = /new.db\n[scan]\njobs = 8\n"
                                    "roots = /b\nignore = x\n[severity]\nTRUNCATED = info\n"
                                    "UNKNOWN_CHUNK = error\nNOPE = off\n",
                                    "bad.ini", err, sizeof err), -1);
    CHECK_STR(err, "bad.ini:10: unknown issue code 'NOPE' in [severity] (run 'animidx rules' "
                   "for the list)");
    CHECK_EQ(c.jobs, 4);
    CHECK_EQ(c.root_count, 1);
    CHECK_STR(c.roots[0], "/a");
    CHECK_EQ(c.ignore_count, 0);
    CHECK_STR(c.db_path, "/u/t/.local/state/animidx/index.db");
    CHECK_EQ(c.severity[AMX_C_TRUNCATED], AMX_SEV_OFF);
    CHECK_EQ(c.severity[AMX_C_UNKNOWN_CHUNK], amx_code_get(AMX_C_UNKNOWN_CHUNK)->severity);
    CHECK(!c.severity_set[AMX_C_UNKNOWN_CHUNK]);
    CHECK_STR(c.source, "good.ini");
    /* and it still loads */
    CHECK_EQ(amx_config_load_string(&c, "[scan]\njobs = 5\n", "again.ini", err, sizeof err), 0);
    CHECK_EQ(c.jobs, 5);
    amx_config_finish(&c);
}

static void test_paths(void)
{
    char cwd[PATH_MAX], here[PATH_MAX], want[PATH_MAX + 100], err[512] = "";
    CHECK(getcwd(cwd, sizeof cwd) != NULL);
    amx_config c;
    CHECK_EQ(amx_config_init(&c), 0);

    /* ~ is $HOME; a relative path in a string is taken from the current directory */
    amx_os_setenv("HOME", "/u/t");
    CHECK_EQ(amx_config_load_string(&c, "[index]\ndatabase = ~/idx.db\n[scan]\n"
                                        "roots = ~, ~/games, rel/dir, ./dot, /abs, ~x\n",
                                    "s.ini", err, sizeof err), 0);
    CHECK_STR(err, "");
    CHECK_STR(c.db_path, "/u/t/idx.db");
    CHECK_EQ(c.root_count, 6);
    if (c.root_count == 6) {
        CHECK_STR(c.roots[0], "/u/t");
        CHECK_STR(c.roots[1], "/u/t/games");
        snprintf(want, sizeof want, "%s/rel/dir", cwd);
        CHECK_STR(c.roots[2], want);
        snprintf(want, sizeof want, "%s/dot", cwd);
        CHECK_STR(c.roots[3], want);
        CHECK_STR(c.roots[4], "/abs");
        snprintf(want, sizeof want, "%s/~x", cwd); /* only "~" and "~/" expand */
        CHECK_STR(c.roots[5], want);
    }
    amx_config_finish(&c);

    amx_os_setenv("HOME", NULL);
    CHECK_EQ(amx_config_init(&c), 0);
    CHECK_EQ(amx_config_load_string(&c, "[scan]\nroots = ~/x\n", "h.ini", err, sizeof err), -1);
    CHECK_STR(err, "h.ini:2: cannot expand '~' in roots: HOME is not set");
    amx_config_finish(&c);
    amx_os_setenv("HOME", "/u/t");

    /* in a file: relative to the file's directory, given absolute or relative */
    CHECK_EQ(test_mkdir(tmp_path("conf")), 0);
    write_file(tmp_path("conf/animidx.ini"),
               "[index]\ndatabase = idx.db\n[scan]\nroots = data, ../other\n");
    CHECK_EQ(amx_config_init(&c), 0);
    CHECK_EQ(amx_config_load_file(&c, tmp_path("conf/animidx.ini"), err, sizeof err), 0);
    CHECK_STR(err, "");
    snprintf(want, sizeof want, "%s/conf/idx.db", tmp_root);
    CHECK_STR(c.db_path, want);
    CHECK_EQ(c.root_count, 2);
    snprintf(want, sizeof want, "%s/conf/data", tmp_root);
    CHECK_STR(c.roots[0], want);
    snprintf(want, sizeof want, "%s/conf/../other", tmp_root);
    CHECK_STR(c.roots[1], want);
    amx_config_finish(&c);

    CHECK_EQ(chdir(tmp_root), 0);
    CHECK(getcwd(here, sizeof here) != NULL);
    CHECK_EQ(amx_config_init(&c), 0);
    CHECK_EQ(amx_config_load_file(&c, "conf/animidx.ini", err, sizeof err), 0);
    snprintf(want, sizeof want, "%s/conf/idx.db", here);
    CHECK_STR(c.db_path, want);
    amx_config_finish(&c);
    CHECK_EQ(chdir("conf"), 0);
    CHECK_EQ(amx_config_init(&c), 0);
    CHECK_EQ(amx_config_load_file(&c, "animidx.ini", err, sizeof err), 0);
    snprintf(want, sizeof want, "%s/conf/idx.db", here);
    CHECK_STR(c.db_path, want);
    amx_config_finish(&c);
    CHECK_EQ(chdir(cwd), 0);

    remove(tmp_path("conf/animidx.ini"));
    rmdir(tmp_path("conf"));
}

static void test_locate(void)
{
    char cwd[PATH_MAX], buf[PATH_MAX], want[PATH_MAX + 100];
    CHECK(getcwd(cwd, sizeof cwd) != NULL);
    CHECK_EQ(test_mkdir(tmp_path("work")), 0);
    CHECK_EQ(test_mkdir(tmp_path("xdg")), 0);
    CHECK_EQ(test_mkdir(tmp_path("xdg/animidx")), 0);
    CHECK_EQ(test_mkdir(tmp_path("home")), 0);
    CHECK_EQ(test_mkdir(tmp_path("home/.config")), 0);
    CHECK_EQ(test_mkdir(tmp_path("home/.config/animidx")), 0);
    char xdg[512], home[512];
    snprintf(xdg, sizeof xdg, "%s", tmp_path("xdg"));
    snprintf(home, sizeof home, "%s", tmp_path("home"));
    CHECK_EQ(chdir(tmp_path("work")), 0);
    amx_os_setenv("XDG_CONFIG_HOME", xdg);
    amx_os_setenv("HOME", home);

    /* explicit: returned even when it does not exist */
    CHECK_STR(amx_config_locate("nope.ini", buf, sizeof buf), "nope.ini");
    CHECK(amx_config_locate("nope.ini", buf, 4) == NULL); /* does not fit */
    /* nothing anywhere */
    CHECK(amx_config_locate(NULL, buf, sizeof buf) == NULL);
    /* ~/.config is used only without XDG_CONFIG_HOME */
    write_file(tmp_path("home/.config/animidx/animidx.ini"), "");
    CHECK(amx_config_locate(NULL, buf, sizeof buf) == NULL);
    amx_os_setenv("XDG_CONFIG_HOME", NULL);
    snprintf(want, sizeof want, "%s/.config/animidx/animidx.ini", home);
    CHECK_STR(amx_config_locate(NULL, buf, sizeof buf), want);
    amx_os_setenv("XDG_CONFIG_HOME", xdg);
    /* the XDG one */
    write_file(tmp_path("xdg/animidx/animidx.ini"), "");
    snprintf(want, sizeof want, "%s/animidx/animidx.ini", xdg);
    CHECK_STR(amx_config_locate(NULL, buf, sizeof buf), want);
    /* ./animidx.ini is never read by itself (the working directory may be a downloaded mod):
     * only when given explicitly */
    write_file("animidx.ini", "");
    CHECK_STR(amx_config_locate(NULL, buf, sizeof buf), want);
    amx_os_setenv("XDG_CONFIG_HOME", NULL);
    remove(tmp_path("home/.config/animidx/animidx.ini"));
    CHECK(amx_config_locate(NULL, buf, sizeof buf) == NULL);
    amx_os_setenv("XDG_CONFIG_HOME", xdg);
    CHECK_STR(amx_config_locate("./animidx.ini", buf, sizeof buf), "./animidx.ini");
    CHECK_STR(amx_config_locate("other.ini", buf, sizeof buf), "other.ini");

    CHECK_EQ(chdir(cwd), 0);
    amx_os_setenv("XDG_CONFIG_HOME", NULL);
    amx_os_setenv("HOME", "/u/t");
    remove(tmp_path("work/animidx.ini"));
    remove(tmp_path("xdg/animidx/animidx.ini"));
    remove(tmp_path("home/.config/animidx/animidx.ini"));
    rmdir(tmp_path("work"));
    rmdir(tmp_path("xdg/animidx"));
    rmdir(tmp_path("xdg"));
    rmdir(tmp_path("home/.config/animidx"));
    rmdir(tmp_path("home/.config"));
    rmdir(tmp_path("home"));
}

static void test_ignored(void)
{
    amx_config c;
    char err[256] = "";
    CHECK_EQ(amx_config_init(&c), 0);
    CHECK_EQ(amx_config_load_string(&c,
                                    "[scan]\nignore = .git, *.bak, tmp/, Data/Old, Mods/*/Cache,"
                                    " */Backup, x?.alo\n",
                                    "animidx.ini", err, sizeof err), 0);
    CHECK_STR(err, "");
    /* a component at any depth */
    CHECK(amx_config_ignored(&c, ".git"));
    CHECK(amx_config_ignored(&c, ".git/config"));
    CHECK(amx_config_ignored(&c, "Data/.git/objects/ab"));
    CHECK(amx_config_ignored(&c, "a.bak"));
    CHECK(amx_config_ignored(&c, "Art/Models/x.bak"));
    CHECK(amx_config_ignored(&c, "Art/old.bak/x.alo")); /* a directory that matches */
    CHECK(amx_config_ignored(&c, "tmp"));
    CHECK(amx_config_ignored(&c, "tmp/x.alo"));
    CHECK(amx_config_ignored(&c, "a/tmp/x.alo"));
    CHECK(amx_config_ignored(&c, "xy.alo"));
    CHECK(amx_config_ignored(&c, "Art/xY.ALO")); /* case does not matter */
    /* a leading directory */
    CHECK(amx_config_ignored(&c, "Data/Old"));
    CHECK(amx_config_ignored(&c, "Data/Old/a/b.alo"));
    CHECK(amx_config_ignored(&c, "data/old/b.alo"));
    CHECK(amx_config_ignored(&c, "Mods/Mine/Cache/x.alo"));
    CHECK(amx_config_ignored(&c, "Mods/Mine/Cache"));
    CHECK(amx_config_ignored(&c, "Data/Backup/x.alo"));
    CHECK(amx_config_ignored(&c, "A/B/Backup/x.alo"));
    /* not ignored */
    CHECK(!amx_config_ignored(&c, "Data/Art/x.alo"));
    CHECK(!amx_config_ignored(&c, "Data/OldStuff/x.alo"));
    CHECK(!amx_config_ignored(&c, "Sub/Data/Old/x.alo")); /* a glob with '/' starts at the root */
    CHECK(!amx_config_ignored(&c, "x.bak.alo"));
    CHECK(!amx_config_ignored(&c, "tmpfile.alo"));
    CHECK(!amx_config_ignored(&c, "xyz.alo"));
    CHECK(!amx_config_ignored(&c, "Mods/Mine/CacheX/y.alo"));
    CHECK(!amx_config_ignored(&c, "Backup/x.alo"));
    CHECK(!amx_config_ignored(&c, ""));
    amx_config_finish(&c);

    /* dir/ * style */
    CHECK_EQ(amx_config_init(&c), 0);
    CHECK_EQ(amx_config_load_string(&c, "[scan]\nignore = build/*\n", "a.ini", err, sizeof err),
             0);
    CHECK(amx_config_ignored(&c, "build/x.alo"));
    CHECK(amx_config_ignored(&c, "build/a/b/x.alo"));
    CHECK(!amx_config_ignored(&c, "src/build.alo"));
    amx_config_finish(&c);
}

/* [daemon]: defaults, every key, paths, ranges and the messages for bad values. */
static void test_daemon_keys(void)
{
    amx_config c;
    char err[512] = "", want[PATH_MAX + 100];
    amx_os_setenv("XDG_RUNTIME_DIR", "/run/user/7");
    CHECK_EQ(amx_config_init(&c), 0);
    if (amx_os_separator() == '/') /* Windows: a named pipe (below) */
        CHECK_STR(c.socket_path, "/run/user/7/animidx/animidxd.sock");
    CHECK_EQ(c.settle_ms, 50);
    CHECK_EQ(c.reconcile_s, 3600);
    CHECK_EQ(c.poll_s, 30);
    CHECK_EQ(c.max_watches, 0);
    CHECK(c.log_path == NULL);
    CHECK_EQ(c.log_level, AMX_LOG_INFO);
    amx_config_finish(&c);
    amx_os_setenv("XDG_RUNTIME_DIR", NULL);
    CHECK_EQ(amx_config_init(&c), 0);
    CHECK_EQ(amx_os_default_socket(c.db_path, want, sizeof want), 0);
    CHECK_STR(c.socket_path, want);
    if (amx_os_separator() == '/') /* /tmp/animidx-UID/animidxd.sock */
        CHECK(strncmp(c.socket_path, "/tmp/animidx-", 13) == 0 &&
              strcmp(c.socket_path + strlen(c.socket_path) - 14, "/animidxd.sock") == 0);
    else /* a named pipe of the user */
        CHECK(strncmp(c.socket_path, "//./pipe/animidx-", 17) == 0);
    amx_config_finish(&c);

    CHECK_EQ(amx_config_init(&c), 0);
    CHECK_EQ(amx_config_load_string(&c,
                                    "[daemon]\n"
                                    "socket = /run/amx.sock\n"
                                    "settle_ms = 0\n"
                                    "reconcile_interval_s = 0\n"
                                    "poll_interval_s = 5\n"
                                    "max_watches = 100\n"
                                    "log = /var/log/animidxd.log\n"
                                    "LOG_LEVEL = Debug\n",
                                    "d.ini", err, sizeof err), 0);
    CHECK_STR(err, "");
    CHECK_STR(c.socket_path, "/run/amx.sock");
    CHECK_EQ(c.settle_ms, 0);
    CHECK_EQ(c.reconcile_s, 0);
    CHECK_EQ(c.poll_s, 5);
    CHECK_EQ(c.max_watches, 100);
    CHECK_STR(c.log_path, "/var/log/animidxd.log");
    CHECK_EQ(c.log_level, AMX_LOG_DEBUG);
    CHECK_STR(amx_log_level_name(c.log_level), "debug");
    /* "stderr" goes back to the default; a copy made by a failed load leaves all of it alone */
    CHECK_EQ(amx_config_load_string(&c, "[daemon]\nlog = STDERR\nlog_level = error\n", "e.ini",
                                    err, sizeof err), 0);
    CHECK(c.log_path == NULL);
    CHECK_EQ(c.log_level, AMX_LOG_ERROR);
    CHECK_EQ(amx_config_load_string(&c, "[daemon]\nsettle_ms = 7\nlog = /x.log\nnope = 1\n",
                                    "bad.ini", err, sizeof err), -1);
    CHECK_EQ(c.settle_ms, 0);
    CHECK(c.log_path == NULL);
    CHECK_STR(c.socket_path, "/run/amx.sock");
    CHECK_EQ(amx_config_set_socket(&c, "/other.sock"), 0);
    CHECK_STR(c.socket_path, "/other.sock");
    CHECK(!amx_config_ignored(&c, "logs/d.log"));
    CHECK_EQ(amx_config_add_ignore(&c, "logs/d.log"), 0);
    CHECK_EQ(amx_config_add_ignore(&c, "idx.db\\[1\\]"), 0); /* fnmatch escapes */
    CHECK_EQ(c.ignore_count, 2);
    CHECK(amx_config_ignored(&c, "logs/d.log"));
    CHECK(amx_config_ignored(&c, "idx.db[1]"));
    CHECK(!amx_config_ignored(&c, "idx.db1"));
    CHECK(!amx_config_ignored(&c, "other/logs/d.log"));
    amx_config_finish(&c);

    /* relative paths are taken from the config file's directory, like the database */
    CHECK_EQ(test_mkdir(tmp_path("dconf")), 0);
    write_file(tmp_path("dconf/animidx.ini"), "[daemon]\nsocket = run/s.sock\nlog = d.log\n");
    CHECK_EQ(amx_config_init(&c), 0);
    CHECK_EQ(amx_config_load_file(&c, tmp_path("dconf/animidx.ini"), err, sizeof err), 0);
    snprintf(want, sizeof want, "%s/dconf/run/s.sock", tmp_root);
    CHECK_STR(c.socket_path, want);
    snprintf(want, sizeof want, "%s/dconf/d.log", tmp_root);
    CHECK_STR(c.log_path, want);
    amx_config_finish(&c);
    remove(tmp_path("dconf/animidx.ini"));
    rmdir(tmp_path("dconf"));

    CHECK_STR(load_err("[daemon]\nsettle_ms = 60001\n"),
              "animidx.ini:2: bad value '60001' for settle_ms: expected a whole number from 0 "
              "to 60000");
    CHECK_STR(load_err("[daemon]\nsettle_ms = 5ms\n"),
              "animidx.ini:2: bad value '5ms' for settle_ms: expected a whole number from 0 "
              "to 60000");
    CHECK_STR(load_err("[daemon]\npoll_interval_s = 0\n"),
              "animidx.ini:2: bad value '0' for poll_interval_s: expected a whole number from "
              "1 to 86400");
    CHECK_STR(load_err("[daemon]\nreconcile_interval_s = -5\n"),
              "animidx.ini:2: bad value '-5' for reconcile_interval_s: expected a whole number "
              "from 0 to 604800");
    CHECK_STR(load_err("[daemon]\nlog_level = verbose\n"),
              "animidx.ini:2: bad value 'verbose' for log_level: expected error, warning, info "
              "or debug");
    CHECK_STR(load_err("[daemon]\nsocket =\n"),
              "animidx.ini:2: bad value '' for socket: expected a path");
    CHECK_STR(load_err("[daemon]\nlog =\n"),
              "animidx.ini:2: bad value '' for log: expected stderr or a file");
    CHECK_STR(load_err("[daemon]\nsettle = 50\n"),
              "animidx.ini:2: unknown key 'settle' in [daemon] (known keys: socket, settle_ms, "
              "reconcile_interval_s, poll_interval_s, max_watches, log, log_level)");
    char text[400], value[200];
    memset(value, 's', 120);
    value[120] = '\0';
    snprintf(text, sizeof text, "[daemon]\nsocket = /%s\n", value);
    snprintf(want, sizeof want,
             "animidx.ini:2: bad value '/%s' for socket: the path is 121 bytes long, %s can "
             "have at most 107", value,
             amx_os_separator() == '/' ? "a Unix socket path" : "animidx's named pipe name");
    CHECK_STR(load_err(text), want);
}

/* The shipped config: loads as is (all defaults), and every example in it is valid. */
/* [root PATH] game = mp1|mp2|eaw|foc|generals|zh: the most specific section holding the root
 * wins. */
static void test_root_game(void)
{
    amx_config c;
    char err[512] = "";
    CHECK_EQ(amx_config_init(&c), 0);
    CHECK_EQ(amx_config_load_string(&c,
                                    "[root /games/prime]\ngame = MP1\n"
                                    "[root /games/prime/echoes]\ngame = mp2\n"
                                    "[root /games/eaw]\ngame = EaW\n"
                                    "[root /games/gen]\ngame = Generals\n"
                                    "[root /games/gen/zh]\ngame = ZH\n",
                                    "animidx.ini", err, sizeof err),
             0);
    CHECK_STR(err, "");
    CHECK_EQ(c.game_count, 5);
    CHECK_STR(amx_config_game(&c, "/games/eaw/Data"), "eaw");
    CHECK_STR(amx_config_game(&c, "/games/gen/Data"), "generals");
    CHECK_STR(amx_config_game(&c, "/games/gen/zh/Data"), "zh");
    CHECK_STR(amx_config_game(&c, "/games/prime"), "mp1");
    CHECK_STR(amx_config_game(&c, "/games/prime/Data"), "mp1");
    CHECK_STR(amx_config_game(&c, "/games/prime/echoes/Data"), "mp2");
    CHECK(amx_config_game(&c, "/games/primer") == NULL);
    CHECK(amx_config_game(&c, "/games") == NULL);
    /* a copy through a failed load keeps them */
    CHECK_EQ(amx_config_load_string(&c, "[root x]\ngame = mp4\n", "animidx.ini", err, sizeof err), -1);
    CHECK_EQ(c.game_count, 5);
    amx_config_finish(&c);

    /* A long root, as Windows installs have them: inih hands the handler a section name cut
     * to 49 bytes, so this one once read as a root that holds nothing (two of them, sharing
     * their first 49 bytes, as one). Each keeps its own setting. */
    const char *steam = "/games/Program Files (x86)/Steam/steamapps/common/Star Wars Empire at "
                        "War/corruption/Mods";
    char ini[1024], root[512];
    snprintf(ini, sizeof ini, "[root %s/Alpha]\ngame = foc\n[root %s/Bravo]\ngame = mp2\n",
             steam, steam);
    CHECK_EQ(amx_config_init(&c), 0);
    CHECK_EQ(amx_config_load_string(&c, ini, "animidx.ini", err, sizeof err), 0);
    CHECK_STR(err, "");
    CHECK_EQ(c.game_count, 2);
    snprintf(root, sizeof root, "%s/Alpha/Data", steam);
    CHECK_STR(amx_config_game(&c, root), "foc");
    snprintf(root, sizeof root, "%s/Bravo", steam);
    CHECK_STR(amx_config_game(&c, root), "mp2");
    snprintf(root, sizeof root, "%s/Charlie", steam);
    CHECK(amx_config_game(&c, root) == NULL);
    amx_config_finish(&c);
    CHECK_STR(load_err("[root x]\ngame = mp4\n"), "animidx.ini:2: bad value 'mp4' for game: expected eaw "
              "(Empire at War), foc (Forces of Corruption), mp1 or mp2 (Metroid Prime 1, 2), generals "
              "or zh (Command & Conquer Generals, Zero Hour)");
    CHECK_STR(load_err("[root x]\nlevel = 3\n"), "animidx.ini:2: unknown key 'level' in [root x] (known keys: game, base)");
    CHECK_STR(load_err("[root ]\ngame = mp1\n"), "animidx.ini:2: [root] needs a path: [root Data/MP1]");
}

/* Issue 21, 11: a base layer is another tree: the root itself, a directory inside it or one
 * holding it is refused with both paths; a sibling whose name starts like the root's is not
 * inside it. From the arguments, else from the config's [root] base. */
static void test_base_nesting(void)
{
    char mod[PATH_MAX], inner[PATH_MAX], sib[PATH_MAX], real_mod[PATH_MAX], ini[PATH_MAX * 2 + 32];
    snprintf(mod, sizeof mod, "%s/Mod", tmp_root);
    snprintf(inner, sizeof inner, "%s/Mod/Game", tmp_root);
    snprintf(sib, sizeof sib, "%s/ModGame", tmp_root);
    CHECK_EQ(test_mkdir(mod), 0);
    CHECK_EQ(test_mkdir(inner), 0);
    CHECK_EQ(test_mkdir(sib), 0);
    CHECK_EQ(amx_os_canonical(mod, real_mod, sizeof real_mod), 0);
    amx_config c;
    CHECK_EQ(amx_config_init(&c), 0);
    char err[PATH_MAX * 3] = "";
    const char *ok[] = { sib, "/nonexistent/left/to/the/scan" };
    CHECK_EQ(amx_config_check_bases(&c, real_mod, ok, 2, true, err, sizeof err), 0);
    const char *in[] = { sib, inner };
    CHECK_EQ(amx_config_check_bases(&c, real_mod, in, 2, true, err, sizeof err), -1);
    CHECK(strstr(err, "lies inside the tree") && strstr(err, real_mod) && strstr(err, "/Mod/Game") &&
          strstr(err, "give --base the game's"));
    const char *up[] = { tmp_root };
    CHECK_EQ(amx_config_check_bases(&c, real_mod, up, 1, true, err, sizeof err), -1);
    CHECK(strstr(err, "holds the tree"));
    const char *self[] = { mod };
    CHECK_EQ(amx_config_check_bases(&c, real_mod, self, 1, true, err, sizeof err), -1);
    CHECK(strstr(err, "is the tree itself"));
    /* from the config, unless the arguments set the bases (--no-base: none) */
    snprintf(ini, sizeof ini, "[root %s]\nbase = %s\n", real_mod, inner);
    CHECK_EQ(amx_config_load_string(&c, ini, "animidx.ini", err, sizeof err), 0);
    CHECK_EQ(amx_config_check_bases(&c, real_mod, NULL, 0, false, err, sizeof err), -1);
    CHECK(strstr(err, "lies inside the tree") && strstr(err, "the config's [root "));
    CHECK_EQ(amx_config_check_bases(&c, real_mod, NULL, 0, true, err, sizeof err), 0);
    CHECK_EQ(amx_config_check_bases(&c, real_mod, ok, 1, true, err, sizeof err), 0);
    amx_config_finish(&c);
    rmdir(inner);
    rmdir(mod);
    rmdir(sib);
}

static void test_shipped_config(void)
{
    char path[PATH_MAX];
    const char *src = getenv("MESON_SOURCE_ROOT");
    if (src && *src)
        snprintf(path, sizeof path, "%s/config/animidx.ini", src);
    else
        snprintf(path, sizeof path, "../config/animidx.ini");
    if (access(path, R_OK) != 0) { /* __FILE__ is "<source>/tests/unit/test_config.c" */
        const char *tail = strstr(__FILE__, "tests/unit/test_config.c");
        snprintf(path, sizeof path, "%.*sconfig/animidx.ini",
                 tail ? (int)(tail - __FILE__) : 0, __FILE__);
    }
    printf("# shipped config: %s\n", path);

    amx_config c, defaults;
    char err[512] = "";
    CHECK_EQ(amx_config_init(&defaults), 0);
    CHECK_EQ(amx_config_init(&c), 0);
    CHECK_EQ(amx_config_load_file(&c, path, err, sizeof err), 0);
    CHECK_STR(err, "");
    CHECK_STR(c.db_path, defaults.db_path);
    CHECK_EQ(c.root_count, 0);
    CHECK_EQ(c.ignore_count, 0);
    CHECK_EQ(c.jobs, 0);
    CHECK_EQ(c.memory_mb, defaults.memory_mb);
    for (int i = 0; i < AMX_CODE_COUNT; i++)
        CHECK(!c.severity_set[i]);
    CHECK_STR(c.socket_path, defaults.socket_path);
    CHECK_EQ(c.settle_ms, defaults.settle_ms);
    CHECK_EQ(c.reconcile_s, defaults.reconcile_s);
    CHECK_EQ(c.poll_s, defaults.poll_s);
    CHECK_EQ(c.max_watches, defaults.max_watches);
    CHECK(c.log_path == NULL);
    CHECK_EQ(c.log_level, defaults.log_level);
    amx_config_finish(&c);

    /* uncomment the examples: ";key = value" and the indented lines that continue them */
    size_t len = 0;
    unsigned char *text = test_read_file(path, &len);
    CHECK(text != NULL);
    char *out = malloc(len + 1);
    CHECK(out != NULL);
    if (text && out) {
        size_t n = 0;
        bool prev = false;
        for (size_t i = 0; i < len;) {
            const char *line = (const char *)text + i;
            size_t ll = strcspn(line, "\n");
            if (i + ll > len)
                ll = len - i;
            bool example = ll > 1 && line[0] == ';' &&
                           (line[1] != ' ' || (prev && ll > 2 && line[2] == ' '));
            size_t skip = example ? 1 : 0;
            memcpy(out + n, line + skip, ll - skip);
            n += ll - skip;
            if (i + ll < len)
                out[n++] = '\n';
            i += ll + 1;
            prev = example;
        }
        out[n] = '\0';
        CHECK_EQ(amx_config_init(&c), 0);
        CHECK_EQ(amx_config_load_string(&c, out, "uncommented", err, sizeof err), 0);
        CHECK_STR(err, "");
        if (amx_os_separator() == '/') /* '~' is $HOME (Windows: %USERPROFILE%) */
            CHECK_STR(c.db_path, "/u/t/.local/state/animidx/index.db");
        CHECK_EQ(c.root_count, 2);
        CHECK_EQ(c.ignore_count, 4);
        CHECK(c.severity_set[AMX_C_BONE_NOT_IN_SKELETON]);
        CHECK(c.severity_set[AMX_C_UNKNOWN_CHUNK]);
        /* the [daemon] examples show the defaults */
        CHECK_STR(c.socket_path, "/run/user/1000/animidx/animidxd.sock");
        CHECK_EQ(c.settle_ms, 50);
        CHECK_EQ(c.reconcile_s, 3600);
        CHECK_EQ(c.poll_s, 30);
        CHECK_EQ(c.max_watches, 0);
        CHECK(c.log_path == NULL);
        CHECK_EQ(c.log_level, AMX_LOG_INFO);
        amx_config_finish(&c);
    }
    free(out);
    free(text);
    amx_config_finish(&defaults);
}

int main(void)
{
    char tmp[200];
    if (amx_os_temp_dir(tmp, sizeof tmp) != 0)
        snprintf(tmp, sizeof tmp, "/tmp");
    snprintf(tmp_root, sizeof tmp_root, "%s/amx-config-XXXXXX", tmp);
    if (amx_os_mkdtemp(tmp_root) != 0) {
        perror("mkdtemp");
        return 1;
    }
    amx_os_setenv("XDG_STATE_HOME", NULL);
    amx_os_setenv("XDG_CONFIG_HOME", NULL);
    amx_os_setenv("HOME", "/u/t");

    RUN_POSIX(test_defaults, "the XDG directories and $HOME are POSIX's; on Windows %APPDATA% and %LOCALAPPDATA% (test_os)");
    RUN(test_keys);
    RUN(test_lists);
    RUN(test_severity);
    RUN(test_error_messages);
    RUN(test_long_lines);
    RUN(test_file_errors);
    RUN_POSIX(test_special_files, "FIFOs and /dev/zero are POSIX's");
    RUN_POSIX(test_error_keeps_config, "$HOME's default index");
    RUN_POSIX(test_paths, "'~' is $HOME, and relative paths are checked against POSIX spellings");
    RUN_POSIX(test_locate, "the XDG directories and $HOME are POSIX's; on Windows %APPDATA% and %LOCALAPPDATA% (test_os)");
    RUN(test_ignored);
    RUN(test_daemon_keys);
    RUN(test_root_game);
    RUN(test_shipped_config);
    RUN(test_base_nesting);

    test_remove_tree(tmp_root);
    return test_done();
}
