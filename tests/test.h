/*
 * Minimal test harness with TAP output (meson runs the executables with protocol 'tap').
 *
 *   static void test_reader_bounds(void) { CHECK_EQ(1, 1); }
 *   int main(void) { RUN(test_reader_bounds); return test_done(); }
 *
 * A failed CHECK prints the file, line and values and marks the current test as failed; the
 * test goes on so one run shows every failure.
 */
#ifndef AMX_TEST_H
#define AMX_TEST_H

#include <inttypes.h>
#include <stdbool.h>
#include <stddef.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

extern int test_failed_checks; /* in the current test */
extern int test_number;
extern int test_failures;

#define CHECK(cond) \
    do { \
        if (!(cond)) { \
            printf("# %s:%d: CHECK(%s) failed\n", __FILE__, __LINE__, #cond); \
            test_failed_checks++; \
        } \
    } while (0)

#define CHECK_EQ(a, b) \
    do { \
        long long a_ = (long long)(a), b_ = (long long)(b); \
        if (a_ != b_) { \
            printf("# %s:%d: %s == %s failed: %lld != %lld\n", __FILE__, __LINE__, #a, #b, a_, b_); \
            test_failed_checks++; \
        } \
    } while (0)

#define CHECK_NEAR(a, b, eps) \
    do { \
        double a_ = (double)(a), b_ = (double)(b); \
        if (!(fabs(a_ - b_) <= (eps))) { \
            printf("# %s:%d: %s ~= %s failed: %.9g != %.9g\n", __FILE__, __LINE__, #a, #b, a_, b_); \
            test_failed_checks++; \
        } \
    } while (0)

#define CHECK_STR(a, b) \
    do { \
        const char *a_ = (a), *b_ = (b); \
        if (!a_ || !b_ || strcmp(a_, b_) != 0) { \
            printf("# %s:%d: %s == %s failed: \"%s\" != \"%s\"\n", __FILE__, __LINE__, #a, #b, \
                   a_ ? a_ : "(null)", b_ ? b_ : "(null)"); \
            test_failed_checks++; \
        } \
    } while (0)

#define RUN(fn) test_run(#fn, fn)
/* A test of what only POSIX systems do: skipped on Windows, with the reason. */
#define RUN_POSIX(fn, why) test_run_posix(#fn, fn, why)

void test_run(const char *name, void (*fn)(void));
void test_run_posix(const char *name, void (*fn)(void), const char *why);
/* A test that needs what this system may not give: run when `can`, else SKIP with `why`. */
#define RUN_IF(can, fn, why) test_run_if(#fn, fn, can, why)
void test_run_if(const char *name, void (*fn)(void), bool can, const char *why);
/* Whether this system makes symbolic links that amx_os_path_lstat sees as links (POSIX; Windows
 * with the right to make them; not wine 8); when not, why (for RUN_IF). */
bool test_links_work(char *why, size_t len);
/* mkdir of one directory (its parents too); 0 or -errno. */
int test_mkdir(const char *path);
int test_done(void); /* prints the TAP plan; returns the exit status */

/* The directory of the shared corpus (../shared/corpus from the source tree), from the
 * AMX_CORPUS environment variable that meson sets. */
const char *test_corpus_dir(void);
/* Reads a whole file into a malloc'd buffer; returns NULL on failure. */
unsigned char *test_read_file(const char *path, size_t *len);
/* Removes a file or a directory tree (what a test made), through the portability layer. */
void test_remove_tree(const char *path);
/* Removes a test's tree (when not NULL) and its index with the index's -wal and -shm. */
void test_remove_index(const char *tree, const char *db);
/* Moves a file, making the destination's directories (mkdir -p, mv). */
int test_move(const char *from, const char *to);

#endif
