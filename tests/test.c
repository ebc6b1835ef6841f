#include "test.h"

#include "animidx/os.h"

#include <errno.h>
#include <stdlib.h>

int test_failed_checks;
int test_number;
int test_failures;

void test_run(const char *name, void (*fn)(void))
{
    test_failed_checks = 0;
    fn();
    test_number++;
    if (test_failed_checks) {
        test_failures++;
        printf("not ok %d - %s (%d failed checks)\n", test_number, name, test_failed_checks);
    } else {
        printf("ok %d - %s\n", test_number, name);
    }
    fflush(stdout);
}

void test_run_if(const char *name, void (*fn)(void), bool can, const char *why)
{
    if (can) {
        test_run(name, fn);
        return;
    }
    test_number++;
    printf("ok %d - %s # SKIP %s\n", test_number, name, why);
    fflush(stdout);
}

void test_run_posix(const char *name, void (*fn)(void), const char *why)
{
    char on_windows[512];
    snprintf(on_windows, sizeof on_windows, "on Windows: %s", why);
    test_run_if(name, fn, amx_os_separator() == '/', on_windows);
}

bool test_links_work(char *why, size_t len)
{
    char dir[AMX_PATH_MAX], target[AMX_PATH_MAX + 8], link[AMX_PATH_MAX + 8];
    if (amx_os_temp_dir(dir, sizeof dir) != 0)
        snprintf(dir, sizeof dir, ".");
    size_t n = strlen(dir);
    snprintf(dir + n, sizeof dir - n, "/amx_links_XXXXXX");
    int rc = amx_os_mkdtemp(dir);
    if (rc != 0) {
        snprintf(why, len, "no temporary directory: %s", strerror(-rc));
        return false;
    }
    snprintf(target, sizeof target, "%s/t", dir);
    snprintf(link, sizeof link, "%s/l", dir);
    amx_os_stat st = { 0 };
    bool ok = false;
    if (test_mkdir(target) != 0)
        snprintf(why, len, "cannot make %s", target);
    else if ((rc = amx_os_symlink(target, link)) != 0)
        snprintf(why, len, "this system makes no symbolic link here (%s)%s", strerror(-rc),
                 rc == -ENOSYS ? ": under wine 8, CreateSymbolicLinkW is a stub that makes "
                                 "nothing, and junctions (FSCTL_SET_REPARSE_POINT) are not "
                                 "supported" : "");
    else if (amx_os_path_lstat(link, &st) != 0 || !st.link || st.kind != AMX_OS_DIR)
        snprintf(why, len, "a symbolic link made here is not seen as one");
    else
        ok = true;
    test_remove_tree(dir);
    return ok;
}

int test_mkdir(const char *path)
{
    char p[AMX_PATH_MAX];
    snprintf(p, sizeof p, "%s/", path);
    return amx_mkdir_parents(p, 0700);
}

int test_done(void)
{
    printf("1..%d\n", test_number);
    return test_failures ? 1 : 0;
}

const char *test_corpus_dir(void)
{
    /* meson test sets AMX_CORPUS; run by hand, the shared folder beside the source tree */
    const char *dir = amx_os_getenv("AMX_CORPUS");
    return dir && *dir ? dir : AMX_TEST_SOURCE_ROOT "/../shared/corpus";
}

unsigned char *test_read_file(const char *path, size_t *len)
{
    FILE *f = amx_os_fopen(path, "rb");
    if (!f)
        return NULL;
    unsigned char *buf = NULL;
    size_t cap = 0, n = 0;
    for (;;) {
        if (n == cap) {
            cap = cap ? cap * 2 : 65536;
            unsigned char *grown = realloc(buf, cap);
            if (!grown) {
                free(buf);
                fclose(f);
                return NULL;
            }
            buf = grown;
        }
        size_t got = fread(buf + n, 1, cap - n, f);
        n += got;
        if (got == 0)
            break;
    }
    fclose(f);
    *len = n;
    return buf;
}

void test_remove_tree(const char *path)
{
    amx_os_stat st;
    if (amx_os_path_lstat(path, &st) != 0)
        return;
    if (st.kind == AMX_OS_DIR && !st.link) {
        amx_os_dir *d;
        if (amx_os_dir_open(path, &d) == 0) {
            /* names first: removing while listing is not portable */
            char **names = NULL;
            size_t n = 0;
            amx_os_entry e;
            int err;
            while (amx_os_dir_next(d, &e, &err)) {
                char **grown = realloc(names, (n + 1) * sizeof *names);
                if (!grown)
                    break;
                names = grown;
                char child[AMX_PATH_MAX];
                amx_os_path_join(path, e.name, child, sizeof child);
                names[n++] = strdup(child);
            }
            amx_os_dir_close(d);
            for (size_t i = 0; i < n; i++) {
                if (names[i])
                    test_remove_tree(names[i]);
                free(names[i]);
            }
            free(names);
        }
    }
    amx_os_remove(path);
}

void test_remove_index(const char *tree, const char *db)
{
    if (tree)
        test_remove_tree(tree);
    static const char *const sides[] = { "", "-wal", "-shm" };
    for (size_t i = 0; db && i < 3; i++) {
        char p[AMX_PATH_MAX];
        snprintf(p, sizeof p, "%s%s", db, sides[i]);
        amx_os_remove(p);
    }
}

int test_move(const char *from, const char *to)
{
    int rc = amx_mkdir_parents(to, 0777);
    return rc ? rc : amx_os_replace(from, to);
}
