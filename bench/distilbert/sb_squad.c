#include "sb_squad.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "sb_io.h"
#include "sb_tokenizer.h"

void sb_squad_free(sb_squad_set *set)
{
    if (!set) return;
    for (int32_t i = 0; i < set->n_examples; i++) {
        sb_squad_example *x = &set->examples[i];
        free(x->id);
        free(x->question);
        for (int32_t a = 0; a < x->n_answers; a++) free(x->answers[a].text);
        free(x->answers);
    }
    free(set->examples);
    for (int32_t i = 0; i < set->n_contexts; i++) free(set->contexts[i]);
    free(set->contexts);
    memset(set, 0, sizeof *set);
}

/* Byte offset of code point `cp` in s, or -1 past the end. */
static long cp_to_byte(const char *s, size_t len, long cp)
{
    size_t i = 0;
    for (long k = 0; k < cp; k++) {
        if (i >= len) return -1;
        uint8_t b = (uint8_t)s[i];
        i += b < 0x80 ? 1 : b < 0xE0 ? 2 : b < 0xF0 ? 3 : 4;
    }
    return i <= len ? (long)i : -1;
}

static const char *get_string(const json_t *obj, const char *key, const char *name,
                              const char *where, sb_err *e)
{
    json_t *v = json_object_get(obj, key);
    if (!v) {
        sb_errf(e, SB_EUSAGE, "%s: %s: missing \"%s\"", name, where, key);
        return NULL;
    }
    if (!json_is_string(v)) {
        sb_errf(e, SB_EUSAGE, "%s: %s.%s: not a string", name, where, key);
        return NULL;
    }
    return json_string_value(v);
}

static const json_t *get_array(const json_t *obj, const char *key, const char *name,
                               const char *where, sb_err *e)
{
    json_t *v = json_object_get(obj, key);
    if (!v) {
        sb_errf(e, SB_EUSAGE, "%s: %s%smissing \"%s\"", name, where, *where ? ": " : "", key);
        return NULL;
    }
    if (!json_is_array(v)) {
        sb_errf(e, SB_EUSAGE, "%s: %s%s%s: not an array", name, where, *where ? "." : "", key);
        return NULL;
    }
    return v;
}

static char *dup_str(const char *s)
{
    size_t n = strlen(s) + 1;
    char *d = malloc(n);
    if (d) memcpy(d, s, n);
    return d;
}

int sb_squad_from_json(const json_t *doc, const char *name, sb_squad_set *set, sb_err *e)
{
    memset(set, 0, sizeof *set);
    if (!json_is_object(doc)) return sb_errf(e, SB_EUSAGE, "%s: top level is not an object", name);
    const json_t *data = get_array(doc, "data", name, "", e);
    if (!data) return SB_EUSAGE;
    /* First pass: sizes and layout, so the second can allocate exactly. */
    size_t n_ctx = 0, n_q = 0;
    char where[160];
    for (size_t a = 0; a < json_array_size(data); a++) {
        const json_t *art = json_array_get(data, a);
        snprintf(where, sizeof where, "data[%zu]", a);
        if (!json_is_object(art))
            return sb_errf(e, SB_EUSAGE, "%s: %s: not an object", name, where);
        const json_t *paras = get_array(art, "paragraphs", name, where, e);
        if (!paras) return SB_EUSAGE;
        for (size_t p = 0; p < json_array_size(paras); p++) {
            const json_t *para = json_array_get(paras, p);
            snprintf(where, sizeof where, "data[%zu].paragraphs[%zu]", a, p);
            if (!json_is_object(para))
                return sb_errf(e, SB_EUSAGE, "%s: %s: not an object", name, where);
            const char *ctx = get_string(para, "context", name, where, e);
            if (!ctx) return SB_EUSAGE;
            const json_t *qas = get_array(para, "qas", name, where, e);
            if (!qas) return SB_EUSAGE;
            n_ctx++;
            n_q += json_array_size(qas);
        }
    }
    if (n_q > INT32_MAX / 2 || n_ctx > INT32_MAX / 2)
        return sb_errf(e, SB_EUSAGE, "%s: too many questions", name);
    set->examples = calloc(n_q ? n_q : 1, sizeof *set->examples);
    set->contexts = calloc(n_ctx ? n_ctx : 1, sizeof *set->contexts);
    if (!set->examples || !set->contexts) {
        sb_squad_free(set);
        return sb_errf(e, SB_EFAIL, "out of memory");
    }
    int rc = SB_OK;
    for (size_t a = 0; a < json_array_size(data) && !rc; a++) {
        const json_t *paras = json_object_get(json_array_get(data, a), "paragraphs");
        for (size_t p = 0; p < json_array_size(paras) && !rc; p++) {
            const json_t *para = json_array_get(paras, p);
            const json_t *jctx = json_object_get(para, "context");
            const char *ctx = json_string_value(jctx);
            size_t ctx_len = json_string_length(jctx);
            snprintf(where, sizeof where, "data[%zu].paragraphs[%zu].context", a, p);
            if (strlen(ctx) != ctx_len) {
                rc = sb_errf(e, SB_EUSAGE, "%s: %s: NUL character", name, where);
                break;
            }
            int64_t ctx_cp = sb_utf8_count(ctx, ctx_len);
            int32_t ci = set->n_contexts;
            if (!(set->contexts[ci] = dup_str(ctx))) {
                rc = sb_errf(e, SB_EFAIL, "out of memory");
                break;
            }
            set->n_contexts++;
            const json_t *qas = json_object_get(para, "qas");
            for (size_t q = 0; q < json_array_size(qas) && !rc; q++) {
                const json_t *qa = json_array_get(qas, q);
                snprintf(where, sizeof where, "data[%zu].paragraphs[%zu].qas[%zu]", a, p, q);
                if (!json_is_object(qa)) {
                    rc = sb_errf(e, SB_EUSAGE, "%s: %s: not an object", name, where);
                    break;
                }
                const char *id = get_string(qa, "id", name, where, e);
                const char *question = id ? get_string(qa, "question", name, where, e) : NULL;
                const json_t *answers = question ? get_array(qa, "answers", name, where, e) : NULL;
                if (!answers) {
                    rc = SB_EUSAGE;
                    break;
                }
                if (strlen(question) != json_string_length(json_object_get(qa, "question"))) {
                    rc = sb_errf(e, SB_EUSAGE, "%s: %s.question: NUL character", name, where);
                    break;
                }
                sb_squad_example *x = &set->examples[set->n_examples];
                x->context = set->contexts[ci];
                x->context_index = ci;
                x->id = dup_str(id);
                x->question = dup_str(question);
                size_t na = json_array_size(answers);
                x->answers = calloc(na ? na : 1, sizeof *x->answers);
                set->n_examples++;
                if (!x->id || !x->question || !x->answers) {
                    rc = sb_errf(e, SB_EFAIL, "out of memory");
                    break;
                }
                for (size_t k = 0; k < na; k++) {
                    const json_t *ans = json_array_get(answers, k);
                    char w2[200];
                    snprintf(w2, sizeof w2, "%s.answers[%zu]", where, k);
                    if (!json_is_object(ans)) {
                        rc = sb_errf(e, SB_EUSAGE, "%s: %s: not an object", name, w2);
                        break;
                    }
                    const char *text = get_string(ans, "text", name, w2, e);
                    if (!text) {
                        rc = SB_EUSAGE;
                        break;
                    }
                    const json_t *js = json_object_get(ans, "answer_start");
                    if (!js) {
                        rc = sb_errf(e, SB_EUSAGE, "%s: %s: missing \"answer_start\"", name, w2);
                        break;
                    }
                    if (!json_is_integer(js)) {
                        rc = sb_errf(e, SB_EUSAGE, "%s: %s.answer_start: not an integer", name, w2);
                        break;
                    }
                    json_int_t st = json_integer_value(js);
                    if (st < 0 || st > ctx_cp) {
                        rc = sb_errf(
                            e, SB_EUSAGE,
                            "%s: %s.answer_start: %lld is outside the context (%lld characters)",
                            name, w2, (long long)st, (long long)ctx_cp);
                        break;
                    }
                    size_t tlen = json_string_length(json_object_get(ans, "text"));
                    long b = cp_to_byte(ctx, ctx_len, (long)st);
                    if (b < 0 || (size_t)b + tlen > ctx_len || memcmp(ctx + b, text, tlen) != 0)
                        set->n_misaligned++;
                    x->answers[x->n_answers].answer_start = (int32_t)st;
                    if (!(x->answers[x->n_answers].text = dup_str(text))) {
                        rc = sb_errf(e, SB_EFAIL, "out of memory");
                        break;
                    }
                    x->n_answers++;
                }
            }
        }
    }
    if (rc) sb_squad_free(set);
    return rc;
}

int sb_squad_parse(const char *data, size_t len, const char *name, sb_squad_set *set, sb_err *e)
{
    memset(set, 0, sizeof *set);
    json_error_t jerr;
    json_t *doc = json_loadb(data, len, 0, &jerr);
    if (!doc)
        return sb_errf(e, SB_EUSAGE, "%s: line %d column %d: %s", name, jerr.line, jerr.column,
                       jerr.text);
    int rc = sb_squad_from_json(doc, name, set, e);
    json_decref(doc);
    return rc;
}

/* The real train-v1.1.json is 30 MB (SQuAD 2.0's 40 MB); 512 MiB leaves room
 * for much larger sets in the same format while bounding what a wrong path
 * (/dev/zero) or a hostile file can make us allocate. */
#define SB_SQUAD_FILE_MAX (512 * SB_MIB)

int sb_squad_load(const char *path, sb_squad_set *set, sb_err *e)
{
    memset(set, 0, sizeof *set);
    char *data;
    size_t len;
    int rc = sb_read_file_max(path, SB_SQUAD_FILE_MAX, "SQuAD file", &data, &len, e);
    if (rc) return rc;
    rc = sb_squad_parse(data, len, path, set, e);
    free(data);
    return rc;
}
