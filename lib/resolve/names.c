/* Names as the engines read them: reference keys and the paths a model name is looked up by
 * (resolve.h). */
#include "resolve.h"

#include <ctype.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

/* The file name part of a path written with either separator. */
static const char *file_part(const char *name)
{
    const char *p = name;
    for (const char *c = name; *c; c++)
        if (*c == '/' || *c == '\\')
            p = c + 1;
    return p;
}

void amx__ref_key(amx_ref_kind kind, const char *name, char *out, size_t outlen)
{
    if (!outlen)
        return;
    const char *f = file_part(name ? name : "");
    const char *dot = kind == AMX_REF_MODEL ? strchr(f, '.') : strrchr(f, '.');
    size_t n = dot ? (size_t)(dot - f) : strlen(f);
    if (n >= outlen)
        n = outlen - 1;
    for (size_t i = 0; i < n; i++)
        out[i] = (char)toupper((unsigned char)f[i]);
    out[n] = '\0';
}

/* Appends src to out upper-cased, '\' as '/', and a run of separators as one. */
static size_t put_path(char *out, size_t at, size_t max, const char *src, size_t n)
{
    for (size_t i = 0; i < n && at + 1 < max; i++) {
        char c = src[i] == '\\' ? '/' : (char)toupper((unsigned char)src[i]);
        if (c == '/' && at > 0 && out[at - 1] == '/')
            continue;
        out[at++] = c;
    }
    out[at] = '\0';
    return at;
}

size_t amx__model_lkeys(const char *name, char out[2][AMX_LKEY_MAX])
{
    static const char models[] = "DATA/ART/MODELS/";
    while (name && (*name == '/' || *name == '\\' || *name == ' '))
        name++;
    if (!name || !*name)
        return 0;
    size_t at = put_path(out[0], 0, AMX_LKEY_MAX, models, sizeof models - 1);
    put_path(out[0], at, AMX_LKEY_MAX, name, strlen(name));
    /* the retry: <dir>/<stem cut at the first '.'>.ALO */
    const char *f = file_part(name);
    const char *dot = strchr(f, '.');
    at = put_path(out[1], 0, AMX_LKEY_MAX, models, sizeof models - 1);
    at = put_path(out[1], at, AMX_LKEY_MAX, name, (size_t)(f - name));
    at = put_path(out[1], at, AMX_LKEY_MAX, f, dot ? (size_t)(dot - f) : strlen(f));
    put_path(out[1], at, AMX_LKEY_MAX, ".ALO", 4);
    return strcmp(out[0], out[1]) == 0 ? 1 : 2;
}

const char *amx__override_model_tag(const char *override_tag)
{
    if (!override_tag)
        return NULL;
    if (strcasecmp(override_tag, "Land_Model_Anim_Override_Name") == 0)
        return "Land_Model_Name";
    if (strcasecmp(override_tag, "Space_Model_Anim_Override_Name") == 0)
        return "Space_Model_Name";
    return NULL;
}
