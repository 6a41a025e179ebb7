#include "sb_squad_eval.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <utf8proc.h>
#include "sb_io.h"

/* ------------------------------------------------------- predictions */

void sb_squad_predictions_free(sb_squad_predictions *p)
{
    if (!p) return;
    for (int32_t i = 0; i < p->n; i++) {
        free(p->ids[i]);
        free(p->texts[i]);
    }
    free(p->ids);
    free(p->texts);
    memset(p, 0, sizeof *p);
}

static char *dupn(const char *s, size_t n)
{
    char *d = malloc(n + 1);
    if (d) {
        memcpy(d, s, n);
        d[n] = '\0';
    }
    return d;
}

int sb_squad_predictions_add(sb_squad_predictions *p, const char *id, const char *text, sb_err *e)
{
    if ((p->n & (p->n - 1)) == 0) { /* grow at powers of two */
        size_t cap = p->n ? (size_t)p->n * 2 : 1;
        char **a = realloc(p->ids, sizeof *a * cap);
        if (!a) return sb_errf(e, SB_EFAIL, "out of memory");
        p->ids = a;
        a = realloc(p->texts, sizeof *a * cap);
        if (!a) return sb_errf(e, SB_EFAIL, "out of memory");
        p->texts = a;
    }
    char *i = dupn(id, strlen(id)), *t = dupn(text, strlen(text));
    if (!i || !t) {
        free(i);
        free(t);
        return sb_errf(e, SB_EFAIL, "out of memory");
    }
    p->ids[p->n] = i;
    p->texts[p->n] = t;
    p->n++;
    return SB_OK;
}

int sb_squad_predictions_read(const char *path, sb_squad_predictions *p, sb_err *e)
{
    memset(p, 0, sizeof *p);
    char *data;
    size_t len;
    /* One short answer per question of a data set, which is at most 512 MiB
     * itself (sb_squad_load): the same limit is more than enough. */
    int rc = sb_read_file_max(path, 512 * SB_MIB, "predictions file", &data, &len, e);
    if (rc) return rc;
    json_error_t jerr;
    json_t *doc = json_loadb(data, len, 0, &jerr);
    free(data);
    if (!doc)
        return sb_errf(e, SB_EUSAGE, "%s: line %d column %d: %s", path, jerr.line, jerr.column,
                       jerr.text);
    if (!json_is_object(doc)) {
        json_decref(doc);
        return sb_errf(e, SB_EUSAGE, "%s: not a JSON object of question id -> answer text", path);
    }
    const char *key;
    json_t *val;
    json_object_foreach(doc, key, val)
    {
        if (!json_is_string(val)) {
            rc = sb_errf(e, SB_EUSAGE, "%s: prediction for \"%s\" is not a string", path, key);
            break;
        }
        if ((rc = sb_squad_predictions_add(p, key, json_string_value(val), e))) break;
    }
    json_decref(doc);
    if (rc) sb_squad_predictions_free(p);
    return rc;
}

int sb_squad_predictions_write(const char *path, const sb_squad_predictions *p, sb_err *e)
{
    json_t *doc = json_object();
    for (int32_t i = 0; i < p->n; i++)
        json_object_set_new(doc, p->ids[i], json_string(p->texts[i]));
    int rc = sb_json_write_atomic(path, doc, e);
    json_decref(doc);
    return rc;
}

/* ------------------------------------------------------ post-processing */

/* Indices of the n largest values, largest first; equal values put the
 * higher index first (numpy's argsort reversed, as utils_qa.py takes them). */
static int top_n(const float *x, int len, int n, int *out)
{
    int k = 0;
    for (int i = 0; i < len; i++) {
        int pos = k;
        while (pos > 0 && !(x[out[pos - 1]] > x[i])) pos--;
        if (pos >= n) continue;
        int last = k < n ? k : n - 1;
        for (int j = last; j > pos; j--) out[j] = out[j - 1];
        out[pos] = i;
        if (k < n) k++;
    }
    return k;
}

int sb_squad_postprocess(const sb_squad_set *set, const sb_features *f, const float *start_logits,
                         const float *end_logits, int n_best, int max_answer_len,
                         sb_squad_predictions *out, sb_err *e)
{
    memset(out, 0, sizeof *out);
    if (!f->is_eval || !f->offset_start)
        return sb_errf(e, SB_EUSAGE, "post-processing needs evaluation features (offsets)");
    if (n_best < 1 || n_best > 1000 || max_answer_len < 1)
        return sb_errf(e, SB_EUSAGE, "n_best %d / max_answer_len %d out of range", n_best,
                       max_answer_len);
    const int L = f->max_seq;
    int *si = malloc(sizeof(int) * (size_t)n_best), *ei = malloc(sizeof(int) * (size_t)n_best);
    if (!si || !ei) {
        free(si);
        free(ei);
        return sb_errf(e, SB_EFAIL, "out of memory");
    }
    int rc = SB_OK;
    int32_t fi = 0;
    for (int32_t x = 0; x < set->n_examples && !rc; x++) {
        while (fi < f->n && f->example_index[fi] < x) fi++;
        int found = 0;
        float best = 0;
        int32_t best_s = 0, best_e = 0;
        for (; fi < f->n && f->example_index[fi] == x; fi++) {
            const float *sl = start_logits + (size_t)fi * (size_t)L;
            const float *el = end_logits + (size_t)fi * (size_t)L;
            const int32_t *os = f->offset_start + (size_t)fi * (size_t)L;
            const int32_t *oe = f->offset_end + (size_t)fi * (size_t)L;
            int ns = top_n(sl, L, n_best, si), ne = top_n(el, L, n_best, ei);
            for (int a = 0; a < ns; a++) {
                int s = si[a];
                if (os[s] < 0) continue;
                for (int b = 0; b < ne; b++) {
                    int t = ei[b];
                    if (oe[t] < 0 || t < s || t - s + 1 > max_answer_len) continue;
                    float score = sl[s] + el[t];
                    /* Strictly better only: the stable sort keeps the first of equals. */
                    if (!found || score > best) {
                        found = 1;
                        best = score;
                        best_s = os[s];
                        best_e = oe[t];
                    }
                }
            }
        }
        const sb_squad_example *ex = &set->examples[x];
        if (!found) {
            rc = sb_squad_predictions_add(out, ex->id, "empty", e);
            continue;
        }
        /* Cut [best_s, best_e) code points out of the context. */
        const char *c = ex->context;
        size_t len = strlen(c), i = 0, b0 = len, b1 = len;
        int32_t cp = 0;
        while (i <= len) {
            if (cp == best_s && b0 == len) b0 = i;
            if (cp == best_e) {
                b1 = i;
                break;
            }
            if (i == len) break;
            uint8_t ch = (uint8_t)c[i];
            i += ch < 0x80 ? 1 : ch < 0xE0 ? 2 : ch < 0xF0 ? 3 : 4;
            cp++;
        }
        if (b0 > b1) b0 = b1;
        char *text = dupn(c + b0, b1 - b0);
        if (!text) {
            rc = sb_errf(e, SB_EFAIL, "out of memory");
            break;
        }
        rc = sb_squad_predictions_add(out, ex->id, text, e);
        free(text);
    }
    free(si);
    free(ei);
    if (rc) sb_squad_predictions_free(out);
    return rc;
}

/* ------------------------------------------------------------ scoring */

/* Python's str.split() whitespace. */
static int py_space(int32_t c)
{
    return c == ' ' || (c >= 9 && c <= 13) || (c >= 0x1C && c <= 0x1F) || c == 0x85 || c == 0xA0 ||
        c == 0x1680 || (c >= 0x2000 && c <= 0x200A) || c == 0x2028 || c == 0x2029 || c == 0x202F ||
        c == 0x205F || c == 0x3000;
}

/* re's \w for str patterns: letters, numbers (str.isalnum) and '_'. */
static int py_word(int32_t c)
{
    if (c < 0x80)
        return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
            c == '_';
    switch (utf8proc_category(c)) {
    case UTF8PROC_CATEGORY_LU:
    case UTF8PROC_CATEGORY_LL:
    case UTF8PROC_CATEGORY_LT:
    case UTF8PROC_CATEGORY_LM:
    case UTF8PROC_CATEGORY_LO:
    case UTF8PROC_CATEGORY_ND:
    case UTF8PROC_CATEGORY_NL:
    case UTF8PROC_CATEGORY_NO: return 1;
    default: return 0;
    }
}

static int ascii_punct(int32_t c)
{
    return (c >= 33 && c <= 47) || (c >= 58 && c <= 64) || (c >= 91 && c <= 96) ||
        (c >= 123 && c <= 126);
}

/* evaluate-v1.1.py's normalize_answer: lower, remove string.punctuation,
 * replace \b(a|an|the)\b by a space, collapse whitespace. Works on code
 * points; invalid UTF-8 bytes are kept as Latin-1 so nothing is lost. */
char *sb_squad_normalize(const char *s)
{
    size_t len = strlen(s);
    int32_t *cp = malloc(sizeof(int32_t) * (2 * len + 1));
    if (!cp) return NULL;
    size_t n = 0;
    for (size_t i = 0; i < len;) {
        utf8proc_int32_t c;
        utf8proc_ssize_t k = utf8proc_iterate((const utf8proc_uint8_t *)s + i,
                                              (utf8proc_ssize_t)(len - i), &c);
        if (k <= 0) {
            c = (uint8_t)s[i];
            k = 1;
        }
        i += (size_t)k;
        if (c == 0x130) { /* the one full lowercase mapping of two code points */
            cp[n++] = 'i';
            c = 0x307;
        } else {
            c = utf8proc_tolower(c);
        }
        if (!ascii_punct(c)) cp[n++] = c;
    }
    /* Articles, matched on the punctuation-free text as re.sub does. */
    for (size_t i = 0; i < n; i++) {
        if (i > 0 && py_word(cp[i - 1])) continue;
        size_t m = 0;
        if (cp[i] == 'a') {
            m = (i + 1 < n && cp[i + 1] == 'n' && !(i + 2 < n && py_word(cp[i + 2]))) ? 2
                : !(i + 1 < n && py_word(cp[i + 1]))                                  ? 1
                                                                                      : 0;
        } else if (cp[i] == 't' && i + 2 < n && cp[i + 1] == 'h' && cp[i + 2] == 'e' &&
                   !(i + 3 < n && py_word(cp[i + 3]))) {
            m = 3;
        }
        if (m) {
            for (size_t j = 0; j < m; j++) cp[i + j] = ' ';
            i += m - 1;
        }
    }
    char *out = malloc(4 * n + 1);
    if (!out) {
        free(cp);
        return NULL;
    }
    size_t o = 0;
    int pending = 0;
    for (size_t i = 0; i < n; i++) {
        if (py_space(cp[i])) {
            pending = o > 0;
            continue;
        }
        if (pending) out[o++] = ' ';
        pending = 0;
        o += (size_t)utf8proc_encode_char(cp[i], (utf8proc_uint8_t *)out + o);
    }
    out[o] = '\0';
    free(cp);
    return out;
}

int sb_squad_exact_match(const char *prediction, const char *truth)
{
    char *a = sb_squad_normalize(prediction), *b = sb_squad_normalize(truth);
    int eq = a && b && strcmp(a, b) == 0;
    free(a);
    free(b);
    return eq;
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Splits a normalised string (single spaces) in place into sorted words. */
static size_t split_sorted(char *s, char ***words)
{
    size_t n = *s ? 1 : 0;
    for (char *p = s; *p; p++)
        if (*p == ' ') n++;
    *words = malloc(sizeof(char *) * (n ? n : 1));
    if (!*words) return 0;
    size_t k = 0;
    if (n) {
        (*words)[k++] = s;
        for (char *p = s; *p; p++)
            if (*p == ' ') {
                *p = '\0';
                (*words)[k++] = p + 1;
            }
    }
    qsort(*words, n, sizeof(char *), cmp_str);
    return n;
}

double sb_squad_f1(const char *prediction, const char *truth)
{
    char *a = sb_squad_normalize(prediction), *b = sb_squad_normalize(truth);
    char **wa = NULL, **wb = NULL;
    double f1 = 0;
    if (a && b) {
        size_t na = split_sorted(a, &wa), nb = split_sorted(b, &wb);
        size_t i = 0, j = 0, same = 0;
        while (wa && wb && i < na && j < nb) { /* multiset intersection of sorted lists */
            int c = strcmp(wa[i], wb[j]);
            if (c == 0) {
                same++;
                i++;
                j++;
            } else if (c < 0) {
                i++;
            } else {
                j++;
            }
        }
        if (same) {
            double precision = (double)same / (double)na, recall = (double)same / (double)nb;
            f1 = 2 * precision * recall / (precision + recall);
        }
    }
    free(wa);
    free(wb);
    free(a);
    free(b);
    return f1;
}

typedef struct id_slot {
    const char *id;
    int32_t index;
} id_slot;

static uint32_t hash_str(const char *s)
{
    uint32_t h = 2166136261u;
    for (; *s; s++) h = (h ^ (uint8_t)*s) * 16777619u;
    return h;
}

void sb_squad_score(const sb_squad_set *set, const sb_squad_predictions *p, double *em, double *f1,
                    int32_t *n_answered)
{
    uint32_t cap = 16;
    while (cap < (uint32_t)p->n * 2u + 2u) cap <<= 1;
    id_slot *tab = calloc(cap, sizeof *tab);
    double sum_em = 0, sum_f1 = 0;
    int32_t answered = 0;
    /* A later duplicate id wins, as in a Python dict. */
    for (int32_t i = 0; tab && i < p->n; i++) {
        uint32_t h = hash_str(p->ids[i]) & (cap - 1);
        while (tab[h].id && strcmp(tab[h].id, p->ids[i]) != 0) h = (h + 1) & (cap - 1);
        tab[h].id = p->ids[i];
        tab[h].index = i;
    }
    for (int32_t x = 0; tab && x < set->n_examples; x++) {
        const sb_squad_example *ex = &set->examples[x];
        uint32_t h = hash_str(ex->id) & (cap - 1);
        while (tab[h].id && strcmp(tab[h].id, ex->id) != 0) h = (h + 1) & (cap - 1);
        if (!tab[h].id) continue;
        const char *pred = p->texts[tab[h].index];
        answered++;
        double best_em = 0, best_f1 = 0;
        for (int32_t a = 0; a < ex->n_answers; a++) {
            double m = sb_squad_exact_match(pred, ex->answers[a].text);
            double f = sb_squad_f1(pred, ex->answers[a].text);
            if (m > best_em) best_em = m;
            if (f > best_f1) best_f1 = f;
        }
        sum_em += best_em;
        sum_f1 += best_f1;
    }
    free(tab);
    int32_t total = set->n_examples;
    *em = total ? 100.0 * sum_em / total : 0;
    *f1 = total ? 100.0 * sum_f1 / total : 0;
    if (n_answered) *n_answered = answered;
}

/* Python's float repr: the shortest digits that read back to x; fixed
 * notation for 1e-4 <= |x| < 1e16 with at least one decimal ("100.0"). */
void sb_format_pyfloat(double x, char *buf, size_t len)
{
    if (isnan(x)) {
        snprintf(buf, len, "NaN");
        return;
    }
    if (isinf(x)) {
        snprintf(buf, len, x < 0 ? "-Infinity" : "Infinity");
        return;
    }
    if (x == 0) {
        snprintf(buf, len, signbit(x) ? "-0.0" : "0.0");
        return;
    }
    char tmp[64];
    int prec = 1;
    for (; prec <= 17; prec++) {
        snprintf(tmp, sizeof tmp, "%.*e", prec - 1, x);
        if (strtod(tmp, NULL) == x) break;
    }
    /* tmp = [-]d.ddde[+-]XX: digits and decimal exponent. */
    char digits[32];
    int nd = 0, neg = tmp[0] == '-';
    const char *p = tmp + neg;
    for (; *p && *p != 'e'; p++)
        if (*p >= '0' && *p <= '9') digits[nd++] = *p;
    int exp10 = atoi(p + 1);
    while (nd > 1 && digits[nd - 1] == '0') nd--;
    digits[nd] = '\0';
    size_t o = 0;
    char out[80];
    if (neg) out[o++] = '-';
    if (exp10 < -4 || exp10 >= 16) {
        out[o++] = digits[0];
        if (nd > 1) {
            out[o++] = '.';
            for (int i = 1; i < nd; i++) out[o++] = digits[i];
        }
        o += (size_t)snprintf(out + o, sizeof out - o, "e%c%02d", exp10 < 0 ? '-' : '+',
                              exp10 < 0 ? -exp10 : exp10);
    } else if (exp10 < 0) {
        out[o++] = '0';
        out[o++] = '.';
        for (int i = -1; i > exp10; i--) out[o++] = '0';
        for (int i = 0; i < nd; i++) out[o++] = digits[i];
    } else {
        for (int i = 0; i <= exp10; i++) out[o++] = i < nd ? digits[i] : '0';
        out[o++] = '.';
        if (nd > exp10 + 1)
            for (int i = exp10 + 1; i < nd; i++) out[o++] = digits[i];
        else
            out[o++] = '0';
    }
    out[o] = '\0';
    snprintf(buf, len, "%s", out);
}

int sb_squad_score_files(const char *data_path, const char *pred_path, double *em, double *f1,
                         int32_t *n_answered, int32_t *n_questions, sb_err *e)
{
    sb_squad_set set;
    int rc = sb_squad_load(data_path, &set, e);
    if (rc) return rc;
    sb_squad_predictions p;
    if (!(rc = sb_squad_predictions_read(pred_path, &p, e))) {
        sb_squad_score(&set, &p, em, f1, n_answered);
        *n_questions = set.n_examples;
        sb_squad_predictions_free(&p);
    }
    sb_squad_free(&set);
    return rc;
}
