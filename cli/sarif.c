/* SARIF 2.1.0 output of `animidx lint` for GitHub code scanning (docs/lint.md).
 *
 * Rules are the issue catalogue (stable ids = code names, in amx_code order so ruleIndex is the
 * code's number). Results carry a repository-relative artifact URI (an archive member points at
 * its archive; the member is in the message and the properties), a region at line 1 since the
 * assets are binary (the byte offset goes in the message and properties), and
 * partialFingerprints from the finding's identity (code + path + context, never the message). */
#include "lint.h"

#include "animidx/json.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void text_object(amx_json *j, const char *key, const char *text)
{
    amx_json_key(j, key);
    amx_json_begin_object(j);
    amx_json_kstring(j, "text", text);
    amx_json_end_object(j);
}

static void write_rules(amx_json *j, const amx_config *cfg)
{
    amx_json_key(j, "rules");
    amx_json_begin_array(j);
    for (int i = 0; i < AMX_CODE_COUNT; i++) {
        const amx_code_info *ci = amx_code_get((amx_code)i);
        amx_severity eff = cfg->severity_set[i] ? cfg->severity[i] : ci->severity;
        amx_json_begin_object(j);
        amx_json_kstring(j, "id", ci->name);
        amx_json_kstring(j, "name", ci->name);
        text_object(j, "shortDescription", ci->summary);
        text_object(j, "fullDescription", ci->summary);
        amx_json_key(j, "help");
        amx_json_begin_object(j);
        amx_json_kstring(j, "text", ci->help);
        amx_json_end_object(j);
        amx_json_key(j, "defaultConfiguration");
        amx_json_begin_object(j);
        amx_json_kbool(j, "enabled", eff != AMX_SEV_OFF);
        amx_json_kstring(j, "level", cli_sarif_level(eff));
        amx_json_end_object(j);
        amx_json_key(j, "properties");
        amx_json_begin_object(j);
        amx_json_key(j, "tags");
        amx_json_begin_array(j);
        amx_json_string(j, "animidx");
        amx_json_end_array(j);
        amx_json_kstring(j, "precision", "very-high");
        amx_json_kstring(j, "problem.severity", eff == AMX_SEV_INFO ? "recommendation"
                                                : cli_sarif_level(eff));
        amx_json_end_object(j);
        amx_json_end_object(j);
    }
    amx_json_end_array(j);
}

/* Writes the artifact URI: the root's repository-relative prefix and the file's path; an
 * archive member's URI is its archive's. The JSON writer escapes, so the URI is built in memory. */
static void write_location(amx_json *j, const lint_run *r, const cli_finding *f)
{
    size_t root = lint_root_of(r, f);
    const char *prefix = r->uri_prefix[root];
    char *uri = NULL;
    size_t len = 0;
    FILE *m = open_memstream(&uri, &len);
    if (m) {
        cli_uri_escape(m, prefix ? prefix : "");
        size_t plen = strcspn(f->path, "#");
        char *file = strndup(f->path, plen);
        cli_uri_escape(m, file ? file : "");
        free(file);
        fclose(m);
    }
    amx_json_key(j, "locations");
    amx_json_begin_array(j);
    amx_json_begin_object(j);
    amx_json_key(j, "physicalLocation");
    amx_json_begin_object(j);
    amx_json_key(j, "artifactLocation");
    amx_json_begin_object(j);
    amx_json_kstring(j, "uri", uri ? uri : "");
    if (!prefix) {
        char id[32];
        snprintf(id, sizeof id, "ROOT%zu", root);
        amx_json_kstring(j, "uriBaseId", id);
    }
    amx_json_end_object(j);
    amx_json_key(j, "region");
    amx_json_begin_object(j);
    amx_json_kint(j, "startLine", 1); /* binary: the offset is in the message and properties */
    amx_json_end_object(j);
    amx_json_end_object(j);
    if (f->context[0] || strchr(f->path, '#')) {
        /* The logical location: the archive member and/or the bone, chunk or record. */
        char name[2048];
        snprintf(name, sizeof name, "%s%s%s", f->path, f->context[0] ? ": " : "", f->context);
        amx_json_key(j, "logicalLocations");
        amx_json_begin_array(j);
        amx_json_begin_object(j);
        amx_json_kstring(j, "fullyQualifiedName", name);
        amx_json_end_object(j);
        amx_json_end_array(j);
    }
    amx_json_end_object(j);
    amx_json_end_array(j);
    free(uri);
}

static void write_result(amx_json *j, const lint_run *r, const cli_finding *f)
{
    amx_code code = AMX_C_TRUNCATED;
    bool known = amx_code_parse(f->code, &code);
    amx_json_begin_object(j);
    amx_json_kstring(j, "ruleId", f->code);
    if (known)
        amx_json_kint(j, "ruleIndex", (int64_t)code);
    amx_json_kstring(j, "level", cli_sarif_level(f->severity));
    /* The message first (GitHub shows its first sentence), then where in the binary file. */
    char text[4096];
    int n = snprintf(text, sizeof text, "%s", f->message);
    const char *member = strchr(f->path, '#');
    if (n >= 0 && (size_t)n < sizeof text && (f->offset >= 0 || f->context[0] || member)) {
        n += snprintf(text + n, sizeof text - (size_t)n, " (");
        const char *sep = "";
        if (member && (size_t)n < sizeof text) {
            n += snprintf(text + n, sizeof text - (size_t)n, "archive member %s", member + 1);
            sep = ", ";
        }
        if (f->offset >= 0 && (size_t)n < sizeof text) {
            n += snprintf(text + n, sizeof text - (size_t)n, "%sbyte offset %lld", sep,
                          (long long)f->offset);
            sep = ", ";
        }
        if (f->context[0] && (size_t)n < sizeof text)
            n += snprintf(text + n, sizeof text - (size_t)n, "%s%s", sep, f->context);
        if ((size_t)n < sizeof text)
            snprintf(text + n, sizeof text - (size_t)n, ")");
    }
    text_object(j, "message", text);
    write_location(j, r, f);
    char fp[48];
    cli_finding_fingerprint(f, fp, sizeof fp);
    amx_json_key(j, "partialFingerprints");
    amx_json_begin_object(j);
    /* Our own hash as the one GitHub uses: upload-sarif would otherwise hash "line 1" of a
     * binary file, which changes with any edit. */
    amx_json_kstring(j, "primaryLocationLineHash", fp);
    amx_json_kstring(j, "animidxFinding/v1", fp);
    amx_json_end_object(j);
    if (r->have_baseline)
        amx_json_kstring(j, "baselineState", "new");
    amx_json_key(j, "properties");
    amx_json_begin_object(j);
    amx_json_kstring(j, "path", f->path);
    amx_json_kstring(j, "format", f->format);
    amx_json_kstring(j, "context", f->context);
    amx_json_key(j, "offset");
    if (f->offset >= 0)
        amx_json_int(j, f->offset);
    else
        amx_json_null(j);
    amx_json_end_object(j);
    amx_json_end_object(j);
}

void lint_write_sarif(FILE *out, const lint_run *r, const amx_config *cfg)
{
    amx_json j;
    amx_json_init(&j, out, true);
    amx_json_begin_object(&j);
    amx_json_kstring(&j, "$schema", "https://json.schemastore.org/sarif-2.1.0.json");
    amx_json_kstring(&j, "version", "2.1.0");
    amx_json_key(&j, "runs");
    amx_json_begin_array(&j);
    amx_json_begin_object(&j);

    amx_json_key(&j, "tool");
    amx_json_begin_object(&j);
    amx_json_key(&j, "driver");
    amx_json_begin_object(&j);
    amx_json_kstring(&j, "name", "animidx");
    amx_json_kstring(&j, "version", AMX_VERSION_STRING);
    amx_json_kstring(&j, "semanticVersion", AMX_VERSION_STRING);
    write_rules(&j, cfg);
    amx_json_end_object(&j);
    amx_json_end_object(&j);

    bool any_base = false;
    for (size_t i = 0; i < r->nroots; i++)
        any_base |= r->uri_prefix[i] == NULL;
    if (any_base) {
        amx_json_key(&j, "originalUriBaseIds");
        amx_json_begin_object(&j);
        for (size_t i = 0; i < r->nroots; i++) {
            if (r->uri_prefix[i])
                continue;
            char id[32], *uri = NULL;
            size_t len = 0;
            snprintf(id, sizeof id, "ROOT%zu", i);
            FILE *m = open_memstream(&uri, &len);
            if (m) {
                fputs("file://", m);
                cli_uri_escape(m, r->roots[i]);
                fputc('/', m);
                fclose(m);
            }
            amx_json_key(&j, id);
            amx_json_begin_object(&j);
            amx_json_kstring(&j, "uri", uri ? uri : "");
            amx_json_end_object(&j);
            free(uri);
        }
        amx_json_end_object(&j);
    }

    amx_json_key(&j, "results");
    amx_json_begin_array(&j);
    for (size_t i = 0; i < r->findings.n; i++)
        if (lint_counts(&r->findings.v[i]))
            write_result(&j, r, &r->findings.v[i]);
    amx_json_end_array(&j);

    /* Unused suppressions are tool notifications: visible, never results. */
    amx_json_key(&j, "invocations");
    amx_json_begin_array(&j);
    amx_json_begin_object(&j);
    amx_json_kbool(&j, "executionSuccessful", true);
    amx_json_key(&j, "toolExecutionNotifications");
    amx_json_begin_array(&j);
    for (size_t k = 0; k < r->supp.n; k++) {
        if (r->supp.v[k].used)
            continue;
        char msg[2048];
        snprintf(msg, sizeof msg, "unused suppression: %s %s (%s)", r->supp.v[k].code,
                 r->supp.v[k].path, r->supp.v[k].reason);
        amx_json_begin_object(&j);
        amx_json_kstring(&j, "level", "warning");
        text_object(&j, "message", msg);
        amx_json_end_object(&j);
    }
    amx_json_end_array(&j);
    amx_json_end_object(&j);
    amx_json_end_array(&j);

    amx_json_end_object(&j);
    amx_json_end_array(&j);
    amx_json_end_object(&j);
    fputc('\n', out);
}
