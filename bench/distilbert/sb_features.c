#include "sb_features.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <utf8proc.h>

void sb_features_free(sb_features *f)
{
    if (!f) return;
    free(f->input_ids);
    free(f->attention_mask);
    free(f->token_type_ids);
    free(f->start_positions);
    free(f->end_positions);
    free(f->example_index);
    free(f->offset_start);
    free(f->offset_end);
    memset(f, 0, sizeof *f);
}

/* Python's str.isspace, which str.lstrip() uses on the question. */
static int py_isspace(int32_t c)
{
    return c == ' ' || (c >= 9 && c <= 13) || (c >= 0x1C && c <= 0x1F) || c == 0x85 || c == 0xA0 ||
        c == 0x1680 || (c >= 0x2000 && c <= 0x200A) || c == 0x2028 || c == 0x2029 || c == 0x202F ||
        c == 0x205F || c == 0x3000;
}

static size_t lstrip_bytes(const char *s, size_t len)
{
    size_t i = 0;
    while (i < len) {
        utf8proc_int32_t cp;
        utf8proc_ssize_t k = utf8proc_iterate((const utf8proc_uint8_t *)s + i,
                                              (utf8proc_ssize_t)(len - i), &cp);
        if (k <= 0 || !py_isspace(cp)) break;
        i += (size_t)k;
    }
    return i;
}

typedef struct window_plan {
    int32_t q_len;   /* question tokens kept */
    int32_t win_len; /* max context tokens per window */
    int32_t n_windows;
} window_plan;

/* Windows as tokenizers' Encoding::truncate (direction right) makes them:
 * starts 0, win-stride, 2(win-stride), ...; each [start, min(start+win, n));
 * the first window that reaches the end is the last. */
static int32_t count_windows(int32_t n_ctx, int32_t win, int32_t stride)
{
    if (n_ctx <= win) return 1;
    int32_t n = 0;
    for (int32_t start = 0;; start += win - stride) {
        n++;
        if (start + win >= n_ctx) break;
    }
    return n;
}

int sb_features_build(const sb_vocab *v, const sb_squad_set *set, int32_t max_seq, int32_t stride,
                      int is_eval, sb_features *f, sb_err *e)
{
    memset(f, 0, sizeof *f);
    if (max_seq < 8 || max_seq > 1 << 16)
        return sb_errf(e, SB_EUSAGE, "max sequence length %d is outside [8, 65536]", max_seq);
    if (stride < 0 || stride >= max_seq / 2)
        return sb_errf(e, SB_EUSAGE, "stride %d must be in [0, %d)", stride, max_seq / 2);
    /* A question longer than this would leave a window no wider than the
     * stride (tokenizers refuses such input); it is cut instead, and counted. */
    const int32_t q_max = max_seq - 4 - stride;
    int rc = SB_OK;
    int32_t nx = set->n_examples;
    sb_tokens *ctx_tok = calloc((size_t)(set->n_contexts ? set->n_contexts : 1), sizeof *ctx_tok);
    sb_tokens *q_tok = calloc((size_t)(nx ? nx : 1), sizeof *q_tok);
    window_plan *plan = calloc((size_t)(nx ? nx : 1), sizeof *plan);
    if (!ctx_tok || !q_tok || !plan) {
        rc = sb_errf(e, SB_EFAIL, "out of memory");
        goto done;
    }
    int64_t total = 0;
    for (int32_t i = 0; i < nx && !rc; i++) {
        const sb_squad_example *x = &set->examples[i];
        sb_tokens *ct = &ctx_tok[x->context_index];
        if (ct->ids == NULL) {
            rc = sb_tokenize(v, x->context, strlen(x->context), ct, e);
            if (!rc && ct->ids == NULL && !(ct->ids = malloc(sizeof(int32_t))))
                rc = sb_errf(e, SB_EFAIL, "out of memory"); /* marks an empty context as done */
            if (rc) {
                char msg[sizeof e->msg];
                snprintf(msg, sizeof msg, "%s", e ? e->msg : "");
                rc = sb_errf(e, rc, "question %s: context: %s", x->id, msg);
                break;
            }
        }
        size_t qlen = strlen(x->question), skip = lstrip_bytes(x->question, qlen);
        rc = sb_tokenize(v, x->question + skip, qlen - skip, &q_tok[i], e);
        if (rc) {
            char msg[sizeof e->msg];
            snprintf(msg, sizeof msg, "%s", e ? e->msg : "");
            rc = sb_errf(e, rc, "question %s: %s", x->id, msg);
            break;
        }
        plan[i].q_len = q_tok[i].n;
        if (plan[i].q_len > q_max) {
            plan[i].q_len = q_max;
            f->n_truncated_questions++;
        }
        plan[i].win_len = max_seq - 3 - plan[i].q_len;
        plan[i].n_windows = count_windows(ct->n, plan[i].win_len, stride);
        total += plan[i].n_windows;
    }
    if (rc) goto done;
    if (total > INT32_MAX) {
        rc = sb_errf(e, SB_EUSAGE, "too many features (%lld)", (long long)total);
        goto done;
    }
    size_t cells = (size_t)total * (size_t)max_seq;
    f->n = (int32_t)total;
    f->max_seq = max_seq;
    f->is_eval = is_eval;
    f->input_ids = malloc(sizeof(int32_t) * (cells ? cells : 1));
    f->attention_mask = calloc(cells ? cells : 1, 1);
    f->token_type_ids = calloc(cells ? cells : 1, 1);
    f->start_positions = malloc(sizeof(int32_t) * (size_t)(total ? total : 1));
    f->end_positions = malloc(sizeof(int32_t) * (size_t)(total ? total : 1));
    f->example_index = malloc(sizeof(int32_t) * (size_t)(total ? total : 1));
    if (is_eval) {
        f->offset_start = malloc(sizeof(int32_t) * (cells ? cells : 1));
        f->offset_end = malloc(sizeof(int32_t) * (cells ? cells : 1));
    }
    if (!f->input_ids || !f->attention_mask || !f->token_type_ids || !f->start_positions ||
        !f->end_positions || !f->example_index ||
        (is_eval && (!f->offset_start || !f->offset_end))) {
        rc = sb_errf(e, SB_EFAIL, "out of memory for %lld features", (long long)total);
        goto done;
    }
    /* Offsets of every position as run_qa.py sees them: specials and padding
     * carry (0, 0), question tokens their question offsets. */
    int32_t *os = malloc(sizeof(int32_t) * (size_t)max_seq);
    int32_t *oe = malloc(sizeof(int32_t) * (size_t)max_seq);
    if (!os || !oe) {
        free(os);
        free(oe);
        rc = sb_errf(e, SB_EFAIL, "out of memory");
        goto done;
    }
    int32_t fi = 0;
    for (int32_t i = 0; i < nx; i++) {
        const sb_squad_example *x = &set->examples[i];
        const sb_tokens *ct = &ctx_tok[x->context_index];
        const sb_tokens *qt = &q_tok[i];
        const window_plan *p = &plan[i];
        int32_t start_char = -1, end_char = -1;
        if (x->n_answers > 0) {
            start_char = x->answers[0].answer_start;
            const char *t = x->answers[0].text;
            end_char = start_char + (int32_t)sb_utf8_count(t, strlen(t));
        }
        for (int32_t w = 0, cstart = 0; w < p->n_windows; w++, cstart += p->win_len - stride) {
            int32_t cstop = cstart + p->win_len < ct->n ? cstart + p->win_len : ct->n;
            int32_t *ids = f->input_ids + (size_t)fi * (size_t)max_seq;
            uint8_t *mask = f->attention_mask + (size_t)fi * (size_t)max_seq;
            uint8_t *tt = f->token_type_ids + (size_t)fi * (size_t)max_seq;
            int32_t k = 0;
            ids[k] = v->cls_id;
            os[k] = oe[k] = 0;
            k++;
            for (int32_t j = 0; j < p->q_len; j++, k++) {
                ids[k] = qt->ids[j];
                os[k] = qt->start[j];
                oe[k] = qt->end[j];
            }
            ids[k] = v->sep_id;
            os[k] = oe[k] = 0;
            k++;
            const int32_t ctx_first = k;
            for (int32_t j = cstart; j < cstop; j++, k++) {
                ids[k] = ct->ids[j];
                os[k] = ct->start[j];
                oe[k] = ct->end[j];
                tt[k] = 1;
            }
            const int32_t ctx_last = k - 1;
            ids[k] = v->sep_id;
            os[k] = oe[k] = 0;
            tt[k] = 1;
            k++;
            memset(mask, 1, (size_t)k);
            for (; k < max_seq; k++) {
                ids[k] = v->pad_id;
                os[k] = oe[k] = 0;
            }
            /* run_qa.py's labels, quirks included: the start search runs on
             * through [SEP] and padding (offsets (0, 0)), so an answer that
             * starts in the window's last context token gets max_seq - 1. */
            int32_t sp = 0, ep = 0;
            if (start_char >= 0 && ctx_last >= ctx_first && os[ctx_first] <= start_char &&
                oe[ctx_last] >= end_char) {
                int32_t ts = ctx_first, te = ctx_last;
                while (ts < max_seq && os[ts] <= start_char) ts++;
                sp = ts - 1;
                while (te >= 0 && oe[te] >= end_char) te--;
                ep = te + 1;
            }
            f->start_positions[fi] = sp;
            f->end_positions[fi] = ep;
            f->example_index[fi] = i;
            if (is_eval) {
                int32_t *fs = f->offset_start + (size_t)fi * (size_t)max_seq;
                int32_t *fe = f->offset_end + (size_t)fi * (size_t)max_seq;
                for (int32_t j = 0; j < max_seq; j++) {
                    int ctx = j >= ctx_first && j <= ctx_last;
                    fs[j] = ctx ? os[j] : -1;
                    fe[j] = ctx ? oe[j] : -1;
                }
            }
            fi++;
        }
    }
    free(os);
    free(oe);
done:
    if (ctx_tok)
        for (int32_t i = 0; i < set->n_contexts; i++) sb_tokens_free(&ctx_tok[i]);
    if (q_tok)
        for (int32_t i = 0; i < nx; i++) sb_tokens_free(&q_tok[i]);
    free(ctx_tok);
    free(q_tok);
    free(plan);
    if (rc) sb_features_free(f);
    return rc;
}
