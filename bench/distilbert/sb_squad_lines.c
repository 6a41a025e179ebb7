#include "sb_squad_lines.h"
#include <errno.h>
#include <jansson.h>
#include <stdlib.h>
#include <string.h>
#include "sb_progress.h"

/* A growable byte buffer; oom is set (and stays) when memory ran out. */
typedef struct sb_linebuf {
    char *p;
    size_t n, cap;
    int oom;
} sb_linebuf;

static void lb_reserve(sb_linebuf *b, size_t more)
{
    if (b->oom || b->n + more <= b->cap) return;
    size_t cap = b->cap ? b->cap : 1 << 16;
    while (cap < b->n + more) cap *= 2;
    char *q = realloc(b->p, cap);
    if (!q) {
        b->oom = 1;
        return;
    }
    b->p = q;
    b->cap = cap;
}

static void lb_put(sb_linebuf *b, const char *s, size_t n)
{
    lb_reserve(b, n);
    if (b->oom) return;
    memcpy(b->p + b->n, s, n);
    b->n += n;
}

static void lb_free(sb_linebuf *b)
{
    free(b->p);
    *b = (sb_linebuf){0};
}

static void lb_str(sb_linebuf *b, const char *s) { lb_put(b, s, strlen(s)); }

static void lb_int(sb_linebuf *b, long v)
{
    char t[24];
    int n = snprintf(t, sizeof t, "%ld", v);
    lb_put(b, t, (size_t)n);
}

/* A JSON string via jansson's encoder (escapes, UTF-8 checked). */
static void lb_json_string(sb_linebuf *b, const char *s, size_t len)
{
    json_t *j = json_stringn(s, len);
    char *enc = j ? json_dumps(j, JSON_ENCODE_ANY) : NULL;
    if (enc)
        lb_str(b, enc);
    else
        b->oom = 1;
    free(enc);
    json_decref(j);
}

/* [a, b] */
static void lb_pair(sb_linebuf *b, long x, long y)
{
    lb_str(b, "[");
    lb_int(b, x);
    lb_str(b, ", ");
    lb_int(b, y);
    lb_str(b, "]");
}

/* Reads one line (embedded NULs kept, the newline kept) of at most max bytes
 * before its newline. Returns its length, -1 at the end of input, -2 when the
 * line is longer than max, -3 out of memory. */
static long read_line_max(FILE *f, char **buf, size_t *cap, size_t max)
{
    size_t n = 0;
    int c = EOF;
    while ((c = getc_unlocked(f)) != EOF) {
        if (c != '\n' && n == max) return -2;
        if (n + 2 > *cap) {
            size_t ncap = *cap ? *cap * 2 : 4096;
            if (ncap > max + 2) ncap = max + 2;
            char *nb = realloc(*buf, ncap);
            if (!nb) return -3;
            *buf = nb;
            *cap = ncap;
        }
        (*buf)[n++] = (char)c;
        if (c == '\n') break;
    }
    if (n == 0 && c == EOF) return -1;
    (*buf)[n] = '\0';
    return (long)n;
}

static int tokenize_text(const sb_vocab *v, const char *a, size_t alen, const char *b, size_t blen,
                         sb_linebuf *ob, sb_err *e)
{
    sb_encoding enc;
    int rc = sb_encode(v, a, alen, b, blen, &enc, e);
    if (rc) return rc;
    lb_str(ob, "{\"ids\": [");
    for (int32_t i = 0; i < enc.n; i++) {
        if (i) lb_str(ob, ", ");
        lb_int(ob, enc.ids[i]);
    }
    lb_str(ob, "], \"tokens\": [");
    for (int32_t i = 0; i < enc.n; i++) {
        if (i) lb_str(ob, ", ");
        lb_json_string(ob, v->tokens[enc.ids[i]], (size_t)v->lens[enc.ids[i]]);
    }
    lb_str(ob, "], \"offsets\": [");
    for (int32_t i = 0; i < enc.n; i++) {
        if (i) lb_str(ob, ", ");
        lb_pair(ob, enc.start[i], enc.end[i]);
    }
    lb_str(ob, "]}\n");
    sb_encoding_free(&enc);
    return ob->oom ? sb_errf(e, SB_EFAIL, "out of memory") : SB_OK;
}

static int tokenize_input_line(const sb_vocab *v, const char *line, size_t len, int pair,
                               int json_in, long lineno, sb_linebuf *ob, sb_err *e)
{
    const char *a = line, *b = NULL;
    size_t alen = len, blen = 0;
    json_t *doc = NULL;
    if (json_in) {
        json_error_t jerr;
        doc = json_loadb(line, len, JSON_DECODE_ANY | JSON_ALLOW_NUL, &jerr);
        if (!doc)
            return sb_errf(e, SB_EUSAGE, "stdin line %ld: column %d: %s", lineno, jerr.column,
                           jerr.text);
        const json_t *ja = pair ? json_array_get(doc, 0) : doc,
                     *jb = pair ? json_array_get(doc, 1) : NULL;
        if (!json_is_string(ja) || (pair && (!json_is_string(jb) || json_array_size(doc) != 2))) {
            json_decref(doc);
            return sb_errf(e, SB_EUSAGE, "stdin line %ld: expected %s", lineno,
                           pair ? "a JSON array of two strings" : "a JSON string");
        }
        a = json_string_value(ja);
        alen = json_string_length(ja);
        if (jb) {
            b = json_string_value(jb);
            blen = json_string_length(jb);
        }
    } else if (pair) {
        const char *tab = memchr(line, '\t', len);
        if (!tab)
            return sb_errf(e, SB_EUSAGE, "stdin line %ld: no TAB between question and context",
                           lineno);
        alen = (size_t)(tab - line);
        b = tab + 1;
        blen = len - alen - 1;
    }
    int rc = tokenize_text(v, a, alen, b, blen, ob, e);
    json_decref(doc);
    if (rc) {
        char msg[sizeof e->msg];
        snprintf(msg, sizeof msg, "%s", e->msg);
        sb_errf(e, rc, "stdin line %ld: %s", lineno, msg);
    }
    return rc;
}

static void feature_line(sb_linebuf *ob, const sb_squad_set *set, const sb_features *f, int32_t i)
{
    const int32_t L = f->max_seq;
    const sb_squad_example *x = &set->examples[f->example_index[i]];
    lb_str(ob, "{\"example_id\": ");
    lb_json_string(ob, x->id, strlen(x->id));
    lb_str(ob, ", \"input_ids\": [");
    const int32_t *ids = f->input_ids + (size_t)i * (size_t)L;
    for (int32_t k = 0; k < L; k++) {
        if (k) lb_str(ob, ", ");
        lb_int(ob, ids[k]);
    }
    lb_str(ob, "], \"attention_mask\": [");
    const uint8_t *m = f->attention_mask + (size_t)i * (size_t)L;
    for (int32_t k = 0; k < L; k++) lb_str(ob, k ? (m[k] ? ", 1" : ", 0") : (m[k] ? "1" : "0"));
    lb_str(ob, "]");
    if (f->is_eval) {
        lb_str(ob, ", \"offset_mapping\": [");
        const int32_t *os = f->offset_start + (size_t)i * (size_t)L;
        const int32_t *oe = f->offset_end + (size_t)i * (size_t)L;
        for (int32_t k = 0; k < L; k++) {
            if (k) lb_str(ob, ", ");
            if (os[k] < 0)
                lb_str(ob, "null");
            else
                lb_pair(ob, os[k], oe[k]);
        }
        lb_str(ob, "]");
    } else {
        lb_str(ob, ", \"start_positions\": ");
        lb_int(ob, f->start_positions[i]);
        lb_str(ob, ", \"end_positions\": ");
        lb_int(ob, f->end_positions[i]);
    }
    lb_str(ob, "}\n");
}

int sb_features_write(sb_out *s, const sb_squad_set *set, const sb_features *f, sb_err *e)
{
    sb_linebuf ob = {0};
    int rc = SB_OK;
    for (int32_t i = 0; !rc && i < f->n; i++) {
        ob.n = 0;
        feature_line(&ob, set, f, i);
        rc = ob.oom ? sb_errf(e, SB_EFAIL, "out of memory") : sb_out_write(s, ob.p, ob.n, e);
    }
    lb_free(&ob);
    return rc;
}

int sb_tokenize_stream(const sb_vocab *v, FILE *in, FILE *out, int pair, int json_in, sb_err *e)
{
    char *line = NULL;
    size_t cap = 0;
    long len, lineno = 0;
    int rc = SB_OK;
    sb_linebuf ob = {0};
    while (!rc && (len = read_line_max(in, &line, &cap, SB_TOKENIZE_LINE_MAX)) != -1) {
        lineno++;
        if (len == -2)
            rc = sb_errf(e, SB_EUSAGE, "stdin line %ld: longer than 16 MiB, the limit for one text",
                         lineno);
        else if (len == -3)
            rc = sb_errf(e, SB_EFAIL, "stdin line %ld: out of memory", lineno);
        if (rc) break;
        if (len > 0 && line[len - 1] == '\n') line[--len] = '\0';
        ob.n = 0;
        rc = tokenize_input_line(v, line, (size_t)len, pair, json_in, lineno, &ob, e);
        if (!rc && fwrite(ob.p, 1, ob.n, out) != ob.n)
            rc = sb_errf(e, SB_EFAIL, "stdout: write failed");
    }
    /* A read error would otherwise look like the end of the input. */
    if (!rc && ferror(in)) rc = sb_errf(e, SB_EUSAGE, "stdin: read error: %s", strerror(errno));
    free(line);
    lb_free(&ob);
    if (!rc && fflush(out) != 0) rc = sb_errf(e, SB_EFAIL, "stdout: write failed");
    return rc;
}

void sb_features_job_free(sb_features_job *j)
{
    sb_features_free(&j->f);
    sb_squad_free(&j->set);
    sb_vocab_free(&j->vocab);
}

int sb_features_job_run(sb_features_job *j, const char *vocab_path, const char *data_path,
                        int32_t max_seq, int32_t stride, int is_eval, sb_err *e)
{
    *j = (sb_features_job){0};
    int rc = sb_vocab_load(vocab_path, &j->vocab, e);
    if (rc) return rc;
    double t0 = sb_now();
    if ((rc = sb_squad_load(data_path, &j->set, e))) {
        sb_vocab_free(&j->vocab);
        return rc;
    }
    double t1 = sb_now();
    rc = sb_features_build(&j->vocab, &j->set, max_seq, stride, is_eval, &j->f, e);
    double t2 = sb_now();
    if (rc) {
        char msg[sizeof e->msg];
        snprintf(msg, sizeof msg, "%s", e->msg);
        sb_errf(e, rc, "%s: %s", data_path, msg);
        sb_squad_free(&j->set);
        sb_vocab_free(&j->vocab);
        return rc;
    }
    j->read_s = t1 - t0;
    j->build_s = t2 - t1;
    FILE *df = fopen(data_path, "rb");
    if (df && fseek(df, 0, SEEK_END) == 0) j->json_bytes = ftell(df);
    if (df) fclose(df);
    return SB_OK;
}

int sb_vocab_write(const char *path, const sb_vocab *v, sb_err *e)
{
    sb_linebuf ob = {0};
    for (int32_t i = 0; i < v->size; i++) {
        lb_put(&ob, v->tokens[i], (size_t)v->lens[i]);
        lb_put(&ob, "\n", 1);
    }
    int rc = ob.oom ? sb_errf(e, SB_EFAIL, "out of memory")
                    : sb_write_file_atomic(path, ob.p, ob.n, e);
    lb_free(&ob);
    return rc;
}
