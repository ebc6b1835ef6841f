/* The seeded hashes of animidx/hash.h and common/hash.h. */
#include "common/hash.h"

#include "animidx/os.h"

#include <pthread.h>
#include <time.h>
#include <xxhash.h>

static uint64_t seed;
static pthread_once_t seeded = PTHREAD_ONCE_INIT;

/* What this process cannot share with another: the clocks, its pid and where its stack and
 * data were placed (address space layout randomisation), mixed. */
static void draw_seed(void)
{
    int on_stack = 0;
    struct {
        uint64_t wall, cpu, pid;
        uintptr_t stack, data;
    } s = { (uint64_t)time(NULL), (uint64_t)clock(), (uint64_t)amx_os_pid(),
            (uintptr_t)&on_stack, (uintptr_t)&seed };
    seed = XXH3_64bits(&s, sizeof s);
}

uint64_t amx_hash(const void *p, size_t n)
{
    pthread_once(&seeded, draw_seed);
    return XXH3_64bits_withSeed(p, n, seed);
}

uint64_t amx__hash_upper(const void *p, size_t n)
{
    pthread_once(&seeded, draw_seed);
    const unsigned char *s = p;
    uint64_t h = seed ^ n;
    unsigned char chunk[256];
    size_t i = 0;
    do { /* 256 bytes at a time, each chunk's hash the next one's seed */
        size_t m = n - i < sizeof chunk ? n - i : sizeof chunk;
        for (size_t k = 0; k < m; k++) {
            unsigned char c = s[i + k];
            chunk[k] = c >= 'a' && c <= 'z' ? (unsigned char)(c - 'a' + 'A') : c;
        }
        h = XXH3_64bits_withSeed(chunk, m, h);
        i += m;
    } while (i < n);
    return h;
}
