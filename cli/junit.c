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
    FILE *body;             /* the testcases, written before the counts are known */
    size_t tests, failures;
} suite;

static void finding_line(FILE *out, const cli_finding *f)
{
    fprintf(out, "%s %s", amx_severity_name(f->severity), f->code);
    if (f->offset >= 0)
        fprintf(out, " at offset %lld", (long long)f->offset);
    if (f->context[0])
        fprintf(out, " (%s)", f->context);
    fputs(": ", out);
}

static void write_findings(FILE *out, const cli_finding *v, size_t n, bool at_gate, amx_severity gate)
{
    for (size_t i = 0; i < n; i++) {
        if (!lint_counts(&v[i]) || (v[i].severity >= gate) != at_gate)
            continue;
        char *line = NULL;
        size_t len = 0;
        FILE *m = open_memstream(&line, &len);
        if (!m)
            continue;
        finding_line(m, &v[i]);
        fputs(v[i].message, m);
        fclose(m);
        cli_xml_escape(out, line); /* the whole line, escaped once */
        fputc('\n', out);
        free(line);
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
    FILE *out = s->body;
    fputs("    <testcase classname=\"", out);
    cli_xml_escape(out, format);
    fputs("\" name=\"", out);
    cli_xml_escape(out, path);
    fputs("\" time=\"0\"", out);
    if (!failing && !below) {
        fputs("/>\n", out);
        return;
    }
    fputs(">\n", out);
    if (failing) {
        s->failures++;
        char msg[256];
        snprintf(msg, sizeof msg, "%zu finding%s at or above %s", failing, failing == 1 ? "" : "s",
                 amx_severity_name(s->r->gate));
        fputs("      <failure message=\"", out);
        cli_xml_escape(out, msg);
        fputs("\" type=\"", out);
        cli_xml_escape(out, first_code);
        fputs("\">", out);
        write_findings(out, v, n, true, s->r->gate);
        fputs("</failure>\n", out);
    }
    if (below) {
        fputs("      <system-out>", out);
        write_findings(out, v, n, false, s->r->gate);
        fputs("</system-out>\n", out);
    }
    fputs("    </testcase>\n", out);
}

int lint_write_junit(FILE *out, const lint_run *r)
{
    char stamp[32];
    cli_iso_time((int64_t)time(NULL), stamp, sizeof stamp);
    stamp[strcspn(stamp, "Z")] = '\0'; /* JUnit timestamps have no zone */
    char *all = NULL;
    size_t all_len = 0, tests = 0, failures = 0;
    FILE *suites = open_memstream(&all, &all_len);
    if (!suites)
        return EXIT_IO;
    int rc = EXIT_OK;
    for (size_t i = 0; i < r->nroots && rc == EXIT_OK; i++) {
        char *body = NULL;
        size_t body_len = 0;
        suite s = { .r = r, .root = i, .body = open_memstream(&body, &body_len) };
        if (!s.body) {
            rc = EXIT_IO;
            break;
        }
        char err[1024];
        if (amx_query_files(r->db, r->roots[i], testcase, &s, err, sizeof err) != AMX_OK) {
            cli_error("%s", err);
            rc = EXIT_IO;
        }
        fclose(s.body);
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
        fputs("  <testsuite name=\"", suites);
        cli_xml_escape(suites, "animidx lint ");
        cli_xml_escape(suites, name);
        fprintf(suites, "\" tests=\"%zu\" failures=\"%zu\" errors=\"0\" skipped=\"0\" time=\"0\" "
                        "timestamp=\"%s\">\n",
                s.tests, s.failures, stamp);
        fputs(body ? body : "", suites);
        fputs("  </testsuite>\n", suites);
        free(body);
        tests += s.tests;
        failures += s.failures;
    }
    fclose(suites);
    if (rc == EXIT_OK) {
        fprintf(out, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
                     "<testsuites name=\"animidx lint\" tests=\"%zu\" failures=\"%zu\" errors=\"0\" "
                     "time=\"0\">\n",
                tests, failures);
        fputs(all ? all : "", out);
        fputs("</testsuites>\n", out);
    }
    free(all);
    return rc;
}
