/* JUnit XML output of `animidx lint`: one <testsuite> per root, one <testcase> per asset
 * (classname = its format, name = its path relative to the root), one <failure> per asset with
 * a finding at or above the gate, listing all its findings; findings below the gate go to the
 * testcase's <system-out>. GitLab shows classname as "Suite" and name as "Name". */
#include "lint.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

typedef struct suite {
    const lint_run *r;
    size_t root;
    size_t next;            /* the next finding to look at */
    amx_strbuf body;             /* the testcases, written before the counts are known */
    size_t tests, failures;
} suite;

static void finding_line(amx_strbuf *out, const cli_finding *f)
{
    amx_strbuf_printf(out, "%s %s", amx_severity_name(f->severity), f->code);
    if (f->offset >= 0)
        amx_strbuf_printf(out, " at offset %lld", (long long)f->offset);
    if (f->context[0])
        amx_strbuf_printf(out, " (%s)", f->context);
    amx_strbuf_puts(out, ": ");
}

static void write_findings(amx_strbuf *out, const cli_finding *v, size_t n, bool at_gate, amx_severity gate)
{
    for (size_t i = 0; i < n; i++) {
        if (!lint_counts(&v[i]) || (v[i].severity >= gate) != at_gate)
            continue;
        amx_strbuf line = { 0 };
        finding_line(&line, &v[i]);
        amx_strbuf_puts(&line, v[i].message);
        char *text = amx_strbuf_take(&line, NULL);
        if (!text)
            continue;
        cli_xml_escape_buf(out, text); /* the whole line, escaped once */
        amx_strbuf_putc(out, '\n');
        free(text);
    }
}

static void testcase(const char *path, const char *format, void *user)
{
    suite *s = user;
    if (!lint_path_given(s->r, s->root, path))
        return; /* in the directory of a file given, but not given */
    const cli_findings *l = &s->r->findings;
    const char *root = s->r->roots[s->root];
    /* Findings come in (root, path) order, as the files do. */
    while (s->next < l->n && (strcmp(l->v[s->next].root, root) != 0 ||
                               strcmp(l->v[s->next].path, path) < 0))
        s->next++;
    size_t first = s->next;
    while (s->next < l->n && strcmp(l->v[s->next].root, root) == 0 &&
           strcmp(l->v[s->next].path, path) == 0)
        s->next++;
    const cli_finding *v = l->v + first;
    size_t n = s->next - first, failing = 0, below = 0;
    const char *first_code = NULL;
    for (size_t i = 0; i < n; i++) {
        if (!lint_counts(&v[i]))
            continue;
        if (v[i].severity >= s->r->gate) {
            failing++;
            if (!first_code)
                first_code = v[i].code;
        } else {
            below++;
        }
    }
    s->tests++;
    amx_strbuf *out = &s->body;
    amx_strbuf_puts(out, "    <testcase classname=\"");
    cli_xml_escape_buf(out, format);
    amx_strbuf_puts(out, "\" name=\"");
    cli_xml_escape_buf(out, path);
    amx_strbuf_puts(out, "\" time=\"0\"");
    if (!failing && !below) {
        amx_strbuf_puts(out, "/>\n");
        return;
    }
    amx_strbuf_puts(out, ">\n");
    if (failing) {
        s->failures++;
        char msg[256];
        snprintf(msg, sizeof msg, "%zu finding%s at or above %s", failing, failing == 1 ? "" : "s",
                 amx_severity_name(s->r->gate));
        amx_strbuf_puts(out, "      <failure message=\"");
        cli_xml_escape_buf(out, msg);
        amx_strbuf_puts(out, "\" type=\"");
        cli_xml_escape_buf(out, first_code);
        amx_strbuf_puts(out, "\">");
        write_findings(out, v, n, true, s->r->gate);
        amx_strbuf_puts(out, "</failure>\n");
    }
    if (below) {
        amx_strbuf_puts(out, "      <system-out>");
        write_findings(out, v, n, false, s->r->gate);
        amx_strbuf_puts(out, "</system-out>\n");
    }
    amx_strbuf_puts(out, "    </testcase>\n");
}

int lint_write_junit(FILE *out, const lint_run *r)
{
    char stamp[32];
    cli_iso_time((int64_t)time(NULL), stamp, sizeof stamp);
    stamp[strcspn(stamp, "Z")] = '\0'; /* JUnit timestamps have no zone */
    size_t tests = 0, failures = 0;
    amx_strbuf all = { 0 }, *suites = &all;
    int rc = EXIT_OK;
    for (size_t i = 0; i < r->nroots && rc == EXIT_OK; i++) {
        suite s = { .r = r, .root = i };
        char err[1024];
        if (amx_query_files(r->db, r->roots[i], testcase, &s, err, sizeof err) != AMX_OK) {
            cli_error("%s", err);
            rc = EXIT_IO;
        }
        char *body = amx_strbuf_take(&s.body, NULL);
        if (!body)
            rc = EXIT_IO;
        /* The suite is the directory as given from the working directory (no checkout path:
         * CI servers compare suites across runs and machines), else its last component. */
        char name[4096];
        const char *prefix = r->uri_prefix[i];
        if (prefix)
            snprintf(name, sizeof name, "%.*s", prefix[0] ? (int)strlen(prefix) - 1 : 1,
                     prefix[0] ? prefix : ".");
        else
            snprintf(name, sizeof name, "%s", strrchr(r->roots[i], '/') && r->roots[i][1]
                                                  ? strrchr(r->roots[i], '/') + 1 : r->roots[i]);
        amx_strbuf_puts(suites, "  <testsuite name=\"");
        cli_xml_escape_buf(suites, "animidx lint ");
        cli_xml_escape_buf(suites, name);
        amx_strbuf_printf(suites, "\" tests=\"%zu\" failures=\"%zu\" errors=\"0\" skipped=\"0\" time=\"0\" "
                        "timestamp=\"%s\">\n",
                s.tests, s.failures, stamp);
        amx_strbuf_puts(suites, body ? body : "");
        amx_strbuf_puts(suites, "  </testsuite>\n");
        free(body);
        tests += s.tests;
        failures += s.failures;
    }
    char *text = amx_strbuf_take(&all, NULL);
    if (!text)
        rc = EXIT_IO;
    if (rc == EXIT_OK) {
        fprintf(out, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
                     "<testsuites name=\"animidx lint\" tests=\"%zu\" failures=\"%zu\" errors=\"0\" "
                     "time=\"0\">\n",
                tests, failures);
        fputs(text, out);
        fputs("</testsuites>\n", out);
    }
    free(text);
    return rc;
}
