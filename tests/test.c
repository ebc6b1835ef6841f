#include "test.h"

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

int test_done(void)
{
    printf("1..%d\n", test_number);
    return test_failures ? 1 : 0;
}

const char *test_corpus_dir(void)
{
    /* meson test sets AMX_CORPUS; run by hand, the shared folder beside the source tree */
    const char *dir = getenv("AMX_CORPUS");
    return dir && *dir ? dir : AMX_TEST_SOURCE_ROOT "/../shared/corpus";
}

unsigned char *test_read_file(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
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
