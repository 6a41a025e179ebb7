#include "sb_gate_render.h"
#include <fcntl.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "sb_io.h"
#include "sb_text.h"

static void fmt_num(char *buf, size_t cap, double v)
{
    if (v == 0)
        snprintf(buf, cap, "-");
    else
        snprintf(buf, cap, "%.4g", v);
}

void sb_gate_print(const sb_gate_result *r, FILE *f)
{
    char ci_head[32] = "interval";
    if (r->conf > 0) snprintf(ci_head, sizeof ci_head, "%.0f%% interval", r->conf * 100);
    fprintf(f, "%-7s %-9s %-36s %-13s %11s %11s %8s %-17s %9s %7s  %s\n", "VERDICT", "workload",
            "point", "metric", "baseline", "candidate", "ratio", ci_head, "p(slower)", "n", "note");
    for (int i = 0; i < r->n; i++) {
        const sb_gate_row *w = &r->rows[i];
        char b[32], c[32], ratio[32] = "-", ci[48] = "-", p[32] = "-", n[32] = "-";
        fmt_num(b, sizeof b, w->base);
        fmt_num(c, sizeof c, w->cand);
        if (w->ratio > 0) snprintf(ratio, sizeof ratio, "%.3f", w->ratio);
        if (w->p >= 0) {
            /* an end too few samples cannot bound (a paired interval) is "-" */
            char lo[16] = "-", hi[16] = "-";
            if (w->lo > 0 && isfinite(w->lo)) snprintf(lo, sizeof lo, "%.3f", w->lo);
            if (w->hi > 0 && isfinite(w->hi)) snprintf(hi, sizeof hi, "%.3f", w->hi);
            snprintf(ci, sizeof ci, "[%s, %s]", lo, hi);
            snprintf(p, sizeof p, "%.2g", w->p);
        }
        if (w->nb || w->nc) snprintf(n, sizeof n, "%d/%d", w->nb, w->nc);
        fprintf(f, "%-7s %-9.9s %-36.36s %-13.13s %11s %11s %8s %-17s %9s %7s  %s\n",
                sb_verdict_name(w->verdict), w->workload, w->label, w->metric, b, c, ratio, ci, p,
                n, w->note);
    }
    fprintf(f, "gate: %d compared: %d PASS, %d WARN, %d FAIL, %d SKIP: %s%s\n", r->n,
            r->count[SB_PASS], r->count[SB_WARN], r->count[SB_FAIL], r->count[SB_SKIP],
            sb_verdict_name(sb_gate_overall(r)), r->nothing[0] ? " (nothing judged)" : "");
}

/* Stored text (a label, a host name, a reason) may hold invalid UTF-8, and
 * text cut to a fixed buffer may end inside a character: jansson refuses
 * both, so every string here goes out through sb_text_json, repaired
 * (U+FFFD) rather than dropped. */
json_t *sb_gate_json(const sb_gate_result *r)
{
    json_t *rows = json_array();
    for (int i = 0; i < r->n; i++) {
        const sb_gate_row *w = &r->rows[i];
        json_t *o = json_object();
        json_object_set_new(o, "verdict", json_string(sb_verdict_name(w->verdict)));
        json_object_set_new(o, "workload", sb_text_json(w->workload));
        json_object_set_new(o, "point", sb_text_json(w->label));
        json_object_set_new(o, "metric", sb_text_json(w->metric));
        json_object_set_new(o, "unit", sb_text_json(w->unit));
        json_object_set_new(o, "machine", sb_text_json(w->machine));
        /* 0 and -1 mean "none" in the row: null says so without a magic number */
        json_object_set_new(o, "baseline", w->nb || w->base > 0 ? json_real(w->base) : json_null());
        json_object_set_new(o, "candidate",
                            w->nc || w->cand > 0 ? json_real(w->cand) : json_null());
        json_object_set_new(o, "cost_ratio", w->ratio > 0 ? json_real(w->ratio) : json_null());
        json_t *ends = json_array();
        json_array_append_new(ends, w->lo > 0 && isfinite(w->lo) ? json_real(w->lo) : json_null());
        json_array_append_new(ends, w->hi > 0 && isfinite(w->hi) ? json_real(w->hi) : json_null());
        if (w->p < 0) {
            json_decref(ends);
            ends = json_null();
        }
        json_object_set_new(o, "interval", ends);
        json_object_set_new(o, "p", w->p >= 0 ? json_real(w->p) : json_null());
        json_object_set_new(o, "n_baseline", json_integer(w->nb));
        json_object_set_new(o, "n_candidate", json_integer(w->nc));
        json_object_set_new(o, "note", sb_text_json(w->note));
        json_object_set_new(o, "env", sb_text_json(w->env));
        if (w->pairs) {
            json_object_set_new(o, "pairs", json_integer(w->pairs));
            json_object_set_new(o, "aa_spread", json_real(w->aa));
            json_object_set_new(o, "outcome", json_string(w->outcome));
        }
        json_object_set_new(o, "baseline_point",
                            w->base_id ? json_integer(w->base_id) : json_null());
        json_object_set_new(o, "candidate_point",
                            w->cand_id ? json_integer(w->cand_id) : json_null());
        json_array_append_new(rows, o);
    }
    json_t *ign = json_array();
    for (int i = 0; i < r->ignored; i++)
        json_array_append_new(ign, sb_text_json(r->ignored_labels[i]));
    return json_pack("{s:s,s:o,s:b,s:i,s:i,s:i,s:i,s:i,s:i,s:i,s:f,s:o,s:o}", "verdict",
                     sb_verdict_name(sb_gate_overall(r)), "nothing_judged",
                     r->nothing[0] ? sb_text_json(r->nothing) : json_null(),
                     "nothing_judged_allowed", r->nothing_allowed, "short_rounds", r->short_rounds,
                     "compared", r->n, "pass", r->count[SB_PASS], "warn", r->count[SB_WARN], "fail",
                     r->count[SB_FAIL], "skip", r->count[SB_SKIP], "ignored", r->ignored,
                     "confidence", r->conf, "rows", rows, "ignored_points", ign);
}

static void xml_escape(FILE *f, const char *text)
{
    /* JUnit files are UTF-8: stored text with invalid bytes is repaired
     * (U+FFFD) as in the JSON, never copied through */
    char *fixed = sb_text_repair(text, strlen(text), (size_t)-1, NULL);
    const char *s = fixed ? fixed : "";
    for (; *s; s++) {
        unsigned char ch = (unsigned char)*s;
        switch (ch) {
        case '<': fputs("&lt;", f); break;
        case '>': fputs("&gt;", f); break;
        case '&': fputs("&amp;", f); break;
        case '"': fputs("&quot;", f); break;
        case '\'': fputs("&apos;", f); break;
        default:
            /* XML 1.0 forbids most control characters even as references */
            if (ch < 0x20 && ch != '\t' && ch != '\n' && ch != '\r')
                fputc('?', f);
            else
                fputc(ch, f);
        }
    }
    free(fixed);
}

int sb_gate_junit(const sb_gate_result *r, const char *path, sb_err *e)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    if (!f) return sb_errf(e, SB_EFAIL, "out of memory");
    /* nothing judged (and not accepted): one more test case, failed, so
     * that a CI system reading the XML sees why the job is red */
    int nj = r->nothing[0] && !r->nothing_allowed;
    fprintf(f,
            "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
            "<testsuites name=\"sprbench gate\" tests=\"%d\" failures=\"%d\" skipped=\"%d\">\n"
            "  <testsuite name=\"sprbench gate\" tests=\"%d\" failures=\"%d\" errors=\"0\""
            " skipped=\"%d\">\n",
            r->n + nj, r->count[SB_FAIL] + nj, r->count[SB_WARN] + r->count[SB_SKIP], r->n + nj,
            r->count[SB_FAIL] + nj, r->count[SB_WARN] + r->count[SB_SKIP]);
    if (nj) {
        fputs("    <testcase classname=\"sprbench.gate\" name=\"nothing judged\">\n"
              "      <failure type=\"nothing-judged\" message=\"",
              f);
        xml_escape(f, r->nothing);
        fputs("\"/>\n    </testcase>\n", f);
    }
    for (int i = 0; i < r->n; i++) {
        const sb_gate_row *w = &r->rows[i];
        char detail[1024] = "";
        /* a row about a status compared nothing: its reason alone says it */
        if (w->nb || w->nc || w->ratio > 0 || w->p >= 0)
            snprintf(detail, sizeof detail,
                     "%s %s on %s: baseline %.6g, candidate %.6g %s, ratio %.4f,"
                     " p %.3g, samples %d/%d",
                     w->label, w->metric, w->machine[0] ? w->machine : "?", w->base, w->cand,
                     w->unit, w->ratio, w->p, w->nb, w->nc);
        fputs("    <testcase classname=\"sprbench.gate.", f);
        xml_escape(f, w->workload[0] ? w->workload : "point");
        fputs("\" name=\"", f);
        xml_escape(f, w->label);
        fputs(" [", f);
        xml_escape(f, w->metric);
        fputs("]\">\n", f);
        if (w->verdict == SB_FAIL) {
            fputs("      <failure type=\"regression\" message=\"", f);
            xml_escape(f, w->note);
            fputs("\">", f);
            xml_escape(f, detail[0] ? detail : w->note);
            fputs("</failure>\n", f);
        } else if (w->verdict == SB_WARN || w->verdict == SB_SKIP) {
            fputs(w->verdict == SB_WARN ? "      <skipped message=\"WARN: "
                                        : "      <skipped message=\"SKIP: ",
                  f);
            xml_escape(f, w->note);
            fputs("\"/>\n", f);
        }
        fputs("      <system-out>", f);
        xml_escape(f, sb_verdict_name(w->verdict));
        fputs(": ", f);
        xml_escape(f, w->note);
        if (detail[0]) {
            fputs("; ", f);
            xml_escape(f, detail);
        }
        if (w->env[0]) {
            fputs("; environment differs: ", f);
            xml_escape(f, w->env);
        }
        fputs("</system-out>\n    </testcase>\n", f);
    }
    fputs("  </testsuite>\n</testsuites>\n", f);
    if (fclose(f)) {
        free(buf);
        return sb_errf(e, SB_EFAIL, "%s: cannot build XML", path);
    }
    int rc = sb_write_file_atomic(path, buf, len, e);
    free(buf);
    return rc;
}

/* ---- GitHub Actions ---- */

/* A workflow command's data: % CR LF encoded (and , : in properties), the
 * rest as is; control characters as '?'. */
static void gh_esc(FILE *f, const char *s, int property)
{
    for (; *s; s++) {
        unsigned char ch = (unsigned char)*s;
        if (ch == '%')
            fputs("%25", f);
        else if (ch == '\r')
            fputs("%0D", f);
        else if (ch == '\n')
            fputs("%0A", f);
        else if (property && ch == ':')
            fputs("%3A", f);
        else if (property && ch == ',')
            fputs("%2C", f);
        else
            fputc(ch < 0x20 || ch == 0x7f ? '?' : ch, f);
    }
}

int sb_gate_github(const sb_gate_result *r, FILE *annot, const char *summary, sb_err *e)
{
    for (int i = 0; annot && i < r->n; i++) {
        const sb_gate_row *w = &r->rows[i];
        if (w->verdict != SB_FAIL && w->verdict != SB_WARN) continue;
        fprintf(annot, "::%s title=", w->verdict == SB_FAIL ? "error" : "warning");
        gh_esc(annot, "sprbench gate ", 1);
        gh_esc(annot, sb_verdict_name(w->verdict), 1);
        fputs("::", annot);
        gh_esc(annot, w->label, 0);
        fputs(" [", annot);
        gh_esc(annot, w->metric, 0);
        fputs("]: ", annot);
        gh_esc(annot, w->note, 0);
        fputc('\n', annot);
    }
    if (annot && r->nothing[0]) {
        /* titled as every row's: the gate's own annotations are only these */
        fprintf(annot, "::%s title=", r->nothing_allowed ? "warning" : "error");
        gh_esc(annot, r->nothing_allowed ? "sprbench gate WARN" : "sprbench gate FAIL", 1);
        fputs("::", annot);
        gh_esc(annot, r->nothing, 0);
        fputc('\n', annot);
    }
    if (annot) fflush(annot);
    if (!summary || !*summary) return SB_OK;
    /* appended, as every step's summary is: a table of what did not pass */
    /* a regular file only: a FIFO nobody reads would block the gate forever
     * (O_NONBLOCK makes the open fail or return at once; fstat tells) */
    int fd = open(summary, O_WRONLY | O_APPEND | O_CREAT | O_NONBLOCK | O_CLOEXEC | O_NOCTTY, 0644);
    struct stat st;
    if (fd >= 0 && (fstat(fd, &st) || !S_ISREG(st.st_mode))) {
        close(fd);
        return sb_errf(e, SB_EFAIL, "%s: the step summary is not a regular file", summary);
    }
    FILE *f = fd >= 0 && fcntl(fd, F_SETFL, O_APPEND) == 0 ? fdopen(fd, "a") : NULL;
    if (!f) {
        if (fd >= 0) close(fd);
        return sb_errf(e, SB_EFAIL, "%s: cannot append the step summary", summary);
    }
    fprintf(f, "### sprbench gate: %s\n\n%d compared: %d PASS, %d WARN, %d FAIL, %d SKIP\n\n",
            sb_verdict_name(sb_gate_overall(r)), r->n, r->count[SB_PASS], r->count[SB_WARN],
            r->count[SB_FAIL], r->count[SB_SKIP]);
    int listed = 0;
    for (int pass = 0; pass < 2; pass++)
        for (int i = 0; i < r->n; i++) {
            const sb_gate_row *w = &r->rows[i];
            if (w->verdict != (pass ? SB_WARN : SB_FAIL)) continue;
            if (!listed++)
                fputs("| verdict | point | metric | ratio | note |\n|---|---|---|---:|---|\n", f);
            fprintf(f, "| %s | ", sb_verdict_name(w->verdict));
            sb_text_md(f, w->label, 1);
            fputs(" | ", f);
            sb_text_md(f, w->metric, 1);
            if (w->ratio > 0)
                fprintf(f, " | %.3f | ", w->ratio);
            else
                fputs(" | - | ", f);
            sb_text_md(f, w->note, 1);
            fputs(" |\n", f);
        }
    if (r->nothing[0]) {
        sb_text_md(f, r->nothing, 1);
        fputc('\n', f);
    } else if (!listed)
        fputs("Every compared point passed.\n", f);
    fputc('\n', f);
    if (fclose(f) != 0) return sb_errf(e, SB_EFAIL, "%s: write failed", summary);
    return SB_OK;
}
