/*
 * libFuzzer harness for the configuration reader (lib/common/config.c): any bytes given as an
 * animidx.ini either load, leaving a configuration whose values are within their documented
 * ranges and which answers its questions (ignore globs, [root] game and base), or are refused
 * with a message that names the file; nothing leaks either way. A NUL byte ends the text here
 * (the file loader refuses one; that path is the unit tests').
 *
 *   build-fuzz/tests/fuzz_config -dict=tests/fuzz/dict/ini.dict CORPUS tests/fuzz/config
 */
#include "animidx/config.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check(bool cond)
{
    if (!cond)
        abort();
}

/* The games a root's `game =` names: Empire at War, Forces of Corruption, Metroid Prime 1, 2,
 * Generals, Zero Hour. */
static bool known_game(const char *g)
{
    static const char *const games[] = { "eaw", "foc", "mp1", "mp2", "generals", "zh" };
    for (size_t i = 0; i < sizeof games / sizeof games[0]; i++)
        if (strcmp(g, games[i]) == 0)
            return true;
    return false;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *text = malloc(size + 1);
    if (!text)
        return 0;
    memcpy(text, data, size);
    text[size] = '\0';
    amx_config c;
    check(amx_config_init(&c) == 0);
    char err[1024] = "";
    if (amx_config_load_string(&c, text, "fuzz.ini", err, sizeof err) != 0) {
        check(strncmp(err, "fuzz.ini", 8) == 0);
    } else {
        check(err[0] == '\0' && c.source && strcmp(c.source, "fuzz.ini") == 0);
        check(c.jobs >= 0 && c.jobs <= 256);
        check(c.memory_mb >= 1 && c.memory_mb <= 1 << 20);
        check(c.db_path && c.socket_path);
        for (size_t i = 0; i < c.root_count; i++)
            check(c.roots[i] != NULL);
        for (size_t i = 0; i < c.ignore_count; i++)
            check(c.ignore[i] != NULL);
        for (size_t i = 0; i < c.game_count; i++)
            check(known_game(c.games[i]));
        for (int k = 0; k < AMX_CODE_COUNT; k++)
            check((unsigned)c.severity[k] <= AMX_SEV_OFF);
        static const char *const paths[] = { "Data/Art/Models/X.ALO", ".git/config", "a",
                                             "Data/Old/tmp/x.bak" };
        for (size_t i = 0; i < sizeof paths / sizeof paths[0]; i++)
            (void)amx_config_ignored(&c, paths[i]);
        const char *game = amx_config_game(&c, "/games/Metroid/Data");
        check(!game || known_game(game));
        const amx_root_bases *b = amx_config_bases(&c, "/games/Mods/MyMod/Data");
        for (size_t i = 0; b && i < b->count; i++)
            check(b->bases[i] && b->bases[i][0] == '/');
    }
    amx_config_finish(&c);
    free(text);
    return 0;
}
