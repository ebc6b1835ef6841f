/* animidx scan: the incremental scan of one or more roots, with a progress line on a terminal
 * and a summary at the end. */
#include "cli.h"

#include "animidx/json.h"

#include <stdio.h>
#include <string.h>

/* The first Ctrl-C (or SIGTERM) ends the scan between files, keeping what is written; the
 * handler then restores the default so a second one kills at once. */

static bool scan_interrupted(void *user)
{
    (void)user;
    return amx_os_interrupted();
}

void cli_scan_progress(const amx_scan_progress *p, void *user)
{
    (void)user;
    cli_fprintf(stderr, "\r\033[Kscanning: %llu files, %llu decoded, %llu unchanged, %.1f MB read",
                (unsigned long long)p->files_seen, (unsigned long long)p->files_decoded,
                (unsigned long long)p->files_unchanged, (double)p->bytes_read / 1e6);
    fflush(stderr);
}

int cli_check_bases(const char *const *roots, size_t n, const cli_opts *o, const amx_config *cfg)
{
    for (size_t i = 0; i < n; i++) {
        char real[AMX_PATH_MAX], err[AMX_PATH_MAX * 3];
        if (amx_os_canonical(roots[i], real, sizeof real) != 0) /* the scan says why */
            continue;
        if (amx_config_check_bases(cfg, real, o->bases, (size_t)o->nbases, o->set_bases, err,
                                   sizeof err) != 0) {
            cli_error("%s", err);
            return EXIT_USAGE;
        }
    }
    return EXIT_OK;
}

void cli_scan_stats_json(amx_json *j, const amx_scan_stats *st)
{
    amx_json_key(j, "scan");
    amx_json_begin_object(j);
    amx_json_kint(j, "files_seen", (int64_t)st->files_seen);
    amx_json_kint(j, "files_decoded", (int64_t)st->files_decoded);
    amx_json_kint(j, "files_unchanged", (int64_t)st->files_unchanged);
    amx_json_kint(j, "files_rehashed", (int64_t)st->files_rehashed);
    amx_json_kint(j, "files_removed", (int64_t)st->files_removed);
    amx_json_kint(j, "files_failed", (int64_t)st->files_failed);
    amx_json_kint(j, "bytes_read", (int64_t)st->bytes_read);
    amx_json_knumber(j, "seconds", st->seconds);
    amx_json_kbool(j, "complete", !st->dirs_unreadable && !st->archives_incomplete);
    amx_json_kint(j, "dirs_unreadable", (int64_t)st->dirs_unreadable);
    amx_json_kint(j, "archives_incomplete", (int64_t)st->archives_incomplete);
    amx_json_end_object(j);
}

int cli_print_summary(amx_db *db, const amx_config *cfg, bool json, bool include_base,
                      const amx_scan_stats *st)
{
    amx_summary sum;
    char err[1024];
    if (amx_query_summary(db, cfg, include_base, &sum, err, sizeof err) != AMX_OK) {
        cli_error("%s", err);
        return EXIT_IO;
    }
    if (json) {
        amx_json j;
        amx_json_init(&j, stdout, true);
        amx_json_begin_object(&j);
        amx_json_kint(&j, "schema", AMX_JSON_SCHEMA);
        amx_json_kstring(&j, "database", cfg->db_path);
        if (st)
            cli_scan_stats_json(&j, st);
        amx_json_key(&j, "files");
        amx_json_begin_object(&j);
        for (int f = 1; f < AMX_FORMAT_COUNT; f++)
            amx_json_kint(&j, amx_format_name((amx_format)f), (int64_t)sum.by_format[f]);
        amx_json_kint(&j, "unknown", (int64_t)sum.by_format[AMX_FMT_UNKNOWN]);
        amx_json_kint(&j, "other", (int64_t)sum.other_files);
        amx_json_end_object(&j);
        amx_json_kint(&j, "clips", (int64_t)sum.clips);
        amx_json_kint(&j, "clips_unbound", (int64_t)sum.clips_unbound);
        amx_json_kint(&j, "clips_not_loaded", (int64_t)sum.clips_not_loaded);
        amx_json_kint(&j, "clips_not_reached", (int64_t)sum.clips_not_reached);
        amx_json_kint(&j, "not_found_without_base_layers", (int64_t)sum.not_found_without_bases);
        amx_json_kint(&j, "skeletons", (int64_t)sum.skeletons);
        amx_json_kint(&j, "models", (int64_t)sum.models);
        amx_json_kint(&j, "particles", (int64_t)sum.particles);
        amx_json_key(&j, "findings");
        amx_json_begin_object(&j);
        amx_json_kint(&j, "error", (int64_t)sum.findings[AMX_SEV_ERROR]);
        amx_json_kint(&j, "warning", (int64_t)sum.findings[AMX_SEV_WARNING]);
        amx_json_kint(&j, "info", (int64_t)sum.findings[AMX_SEV_INFO]);
        amx_json_end_object(&j);
        amx_json_end_object(&j);
        fputc('\n', stdout);
        return EXIT_OK;
    }
    if (st)
        cli_printf("scanned %llu file%s in %.2f s: %llu decoded, %llu unchanged, %llu removed, "
                   "%llu unreadable (%.1f MB read)\n",
                   (unsigned long long)st->files_seen, cli_s(st->files_seen), st->seconds,
                   (unsigned long long)st->files_decoded,
                   (unsigned long long)(st->files_unchanged + st->files_rehashed),
                   (unsigned long long)st->files_removed, (unsigned long long)st->files_failed,
                   (double)st->bytes_read / 1e6);
    cli_printf("index %s:\n  files:", cfg->db_path);
    const char *sep = " ";
    for (int f = 1; f < AMX_FORMAT_COUNT; f++) {
        if (!sum.by_format[f])
            continue;
        cli_printf("%s%llu %s", sep, (unsigned long long)sum.by_format[f],
                   amx_format_name((amx_format)f));
        sep = ", ";
    }
    if (sum.by_format[AMX_FMT_UNKNOWN])
        cli_printf("%s%llu unreadable or not recognised", sep,
                   (unsigned long long)sum.by_format[AMX_FMT_UNKNOWN]);
    if (sum.files == 0)
        cli_printf(" none");
    cli_printf(" (%llu other files skipped)\n", (unsigned long long)sum.other_files);
    cli_printf("  clips: %llu (%llu without a skeleton in the index, %llu no model loads by name, "
               "%llu after a gap in the numbering), skeletons: %llu, models: %llu, particle "
               "systems: %llu\n",
               (unsigned long long)sum.clips, (unsigned long long)sum.clips_unbound,
               (unsigned long long)sum.clips_not_loaded, (unsigned long long)sum.clips_not_reached,
               (unsigned long long)sum.skeletons, (unsigned long long)sum.models,
               (unsigned long long)sum.particles);
    cli_printf("  findings%s: %llu error%s, %llu warning%s, %llu info%s\n",
               include_base ? "" : " (base layers left out)",
               (unsigned long long)sum.findings[AMX_SEV_ERROR], cli_s(sum.findings[AMX_SEV_ERROR]),
               (unsigned long long)sum.findings[AMX_SEV_WARNING],
               cli_s(sum.findings[AMX_SEV_WARNING]),
               (unsigned long long)sum.findings[AMX_SEV_INFO],
               sum.findings[AMX_SEV_ERROR] + sum.findings[AMX_SEV_WARNING]
                   ? " (list them with 'animidx issues')"
                   : "");
    if (sum.not_found_without_bases) /* said here once, not in each finding */
        cli_printf("  note: %llu finding%s a file was not found, and %s\n",
                   (unsigned long long)sum.not_found_without_bases,
                   sum.not_found_without_bases == 1 ? " says" : "s say", AMX_BASE_LAYER_HINT);
    return EXIT_OK;
}

int cmd_scan(cli_opts *o, amx_config *cfg)
{
    const char **roots = o->args;
    size_t nroots = (size_t)o->nargs;
    if (nroots == 0) {
        roots = (const char **)cfg->roots;
        nroots = cfg->root_count;
    }
    if (nroots == 0) {
        cli_error("scan: give the directory to scan (e.g. 'animidx scan %s') or set "
                  "[scan] roots in the config", amx_os_pick("./Data", ".\\Data"));
        return EXIT_USAGE;
    }
    for (size_t i = 0; i < nroots; i++) {
        amx_os_stat st;
        if (amx_os_path_stat(roots[i], &st) == 0 && st.kind != AMX_OS_DIR) {
            cli_error("scan: %s is not a directory; scan takes the directories to index (e.g. "
                      "its Data directory), and 'animidx lint %s' checks one file", roots[i],
                      roots[i]);
            return EXIT_USAGE;
        }
    }
    if (cli_check_bases(roots, nroots, o, cfg) != EXIT_OK)
        return EXIT_USAGE;
    amx_db *db = NULL;
    char err[1024];
    if (amx_db_open(cfg->db_path, 0, &db, err, sizeof err) != AMX_OK) {
        cli_error("%s", err);
        return EXIT_IO;
    }
    bool tty = !o->quiet && !o->json && amx_os_console_colour(stderr); /* "\r\033[K" */
    amx_scan_stats total = { 0 };
    int rc = EXIT_OK;
    amx_os_interrupt_catch();
    for (size_t i = 0; i < nroots && !amx_os_interrupted(); i++) {
        amx_scan_opts so = {
            .root = roots[i],
            .jobs = cfg->jobs,
            .follow_links = cfg->follow_links,
            .config = cfg,
            .progress = tty ? cli_scan_progress : NULL,
            .cancelled = scan_interrupted,
            .bases = o->bases,
            .base_count = (size_t)o->nbases,
            .set_bases = o->set_bases,
        };
        amx_scan_stats st;
        amx_status s = amx_scan(db, &so, &st, err, sizeof err);
        if (tty)
            fputs("\r\033[K", stderr);
        if (s == AMX_E_CANCELLED) {
            cli_error("scan interrupted: the files decoded so far are indexed; run the scan "
                      "again to complete it");
            amx_scan_stats_add(&total, &st);
            rc = EXIT_INTERRUPTED;
            break;
        }
        if (s != AMX_OK) {
            cli_error("%s", err);
            rc = s == AMX_E_INVALID_ARG ? EXIT_USAGE : EXIT_IO;
            continue;
        }
        amx_scan_stats_add(&total, &st);
    }
    /* --quiet: nothing on success (errors still go to stderr) */
    if (rc != EXIT_INTERRUPTED && (rc == EXIT_OK || total.files_seen) && !(o->quiet && !o->json))
        if (cli_print_summary(db, cfg, o->json, o->include_base, &total) != EXIT_OK)
            rc = EXIT_IO;
    /* An incomplete scan is an I/O failure: what could not be read kept its rows. */
    if (rc == EXIT_OK && total.dirs_unreadable) {
        cli_error("the scan is incomplete: %llu director%s could not be read; the files indexed "
                  "under %s keep their rows (see 'animidx issues --code IO_ERROR')",
                  (unsigned long long)total.dirs_unreadable,
                  total.dirs_unreadable == 1 ? "y" : "ies",
                  total.dirs_unreadable == 1 ? "it" : "them");
        rc = EXIT_IO;
    }
    if (rc == EXIT_OK && total.archives_incomplete) {
        cli_error("the scan is incomplete: %llu archive%s unpacked more than the scan's budget "
                  "allows; the rest is left for the next scan (see 'animidx issues --code "
                  "LIMIT_EXCEEDED')",
                  (unsigned long long)total.archives_incomplete,
                  total.archives_incomplete == 1 ? "" : "s");
        rc = EXIT_IO;
    }
    amx_db_close(db);
    /* Restored only now: a Ctrl-C after the last file (while the summary is printed or the
     * index closed) must not kill the process with the work done; the scan then exits 0. */
    amx_os_interrupt_restore();
    return rc;
}
