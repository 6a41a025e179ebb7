/* The synthetic SQuAD set: deterministic, exact size, answers at their
 * answer_start, held-apart dev split, short enough for max_seq 32 (the short
 * set) or at SQuAD v1.1's padding at seq 384 (SQuAD's lengths), and made
 * only of whole tokens of the built-in vocab (and of bert-base-uncased's
 * vocab.txt when the reference data is present). */
#include <stdlib.h>
#include <string.h>
#include "sb_features.h"
#include "sb_squad_synth.h"
#include "testutil.h"

/* The padding (% of positions) of training features at seq 384 / stride
 * 128, -1 when they cannot be built. */
static double padding_pct(const sb_vocab *v, const sb_squad_set *set)
{
    sb_features f;
    sb_err e = {0};
    if (sb_features_build(v, set, 384, 128, 0, &f, &e)) return -1;
    size_t all = (size_t)f.n * 384, real = 0;
    for (size_t i = 0; i < all; i++) real += f.attention_mask[i];
    sb_features_free(&f);
    return all ? 100.0 * (1.0 - (double)real / (double)all) : -1;
}

/* SQuAD's lengths: the features' padding at seq 384 within 3 points of
 * SQuAD v1.1 dev's (the short set's is over 90 %), in the built-in vocab and
 * in bert-base-uncased's (real, when present: every synthetic word is one
 * token of both, so the two agree); with the reference data, that padding
 * measured again from the real dev questions. */
static void check_squad_lengths(const sb_vocab *builtin, const sb_vocab *real, const char *data)
{
    sb_err e = {0};
    sb_squad_set sq, sh;
    CHECK_EQ_INT(sb_squad_synth(2000, 3, 0, SB_SYNTH_SQUAD, &sq, &e), SB_OK);
    CHECK_EQ_INT(sb_squad_synth(2000, 3, 0, SB_SYNTH_SHORT, &sh, &e), SB_OK);
    CHECK_EQ_INT(sq.n_examples, 2000);
    CHECK_EQ_INT(sq.n_misaligned, 0);
    for (int32_t i = 0; i < sq.n_examples; i++) {
        const sb_squad_example *x = &sq.examples[i];
        const char *t = x->answers[0].text;
        CHECK(!strncmp(x->context + x->answers[0].answer_start, t, strlen(t)));
    }
    double pq = padding_pct(builtin, &sq), ps = padding_pct(builtin, &sh);
    printf("padding at seq 384: SQuAD v1.1 dev %.1f %%, synthetic %.1f %% (short set %.1f %%)\n",
           SB_SQUAD_DEV_PADDING_PCT, pq, ps);
    CHECK(pq > SB_SQUAD_DEV_PADDING_PCT - 3 && pq < SB_SQUAD_DEV_PADDING_PCT + 3);
    CHECK(ps > 90);
    const char *const *w = sb_squad_synth_words();
    for (int i = 0; w[i]; i++) CHECK(sb_vocab_find(builtin, w[i], strlen(w[i])) >= 0);
    if (real) {
        double pr = padding_pct(real, &sq);
        CHECK(pr > pq - 0.5 && pr < pq + 0.5);
        char path[4096];
        snprintf(path, sizeof path, "%s/squad/squad_v1.1_dev_xquad_en.json", data);
        sb_squad_set dev;
        if (sb_squad_load(path, &dev, &e) == SB_OK) {
            double pd = padding_pct(real, &dev);
            printf("SQuAD v1.1 dev (%d questions) measured again: %.2f %% padding\n",
                   dev.n_examples, pd);
            CHECK(pd > SB_SQUAD_DEV_PADDING_PCT - 0.1 && pd < SB_SQUAD_DEV_PADDING_PCT + 0.1);
            sb_squad_free(&dev);
        }
    }
    sb_squad_free(&sq);
    sb_squad_free(&sh);
}

static char *dump(int32_t n, uint64_t seed, int dev)
{
    json_t *doc;
    sb_err e = {0};
    if (sb_squad_synth_json(n, seed, dev, SB_SYNTH_SHORT, &doc, &e)) return NULL;
    char *s = json_dumps(doc, JSON_COMPACT | JSON_PRESERVE_ORDER);
    json_decref(doc);
    return s;
}

int main(void)
{
    sb_err e = {0};
    char *a = dump(500, 7, 0), *b = dump(500, 7, 0), *c = dump(500, 8, 0), *d = dump(500, 7, 1);
    CHECK(a && b && c && d);
    CHECK(a && b && !strcmp(a, b));
    CHECK(a && c && strcmp(a, c));
    CHECK(a && d && strcmp(a, d));
    free(a);
    free(b);
    free(c);
    free(d);

    sb_squad_set set, dev;
    CHECK_EQ_INT(sb_squad_synth(1000, 3, 0, SB_SYNTH_SHORT, &set, &e), SB_OK);
    CHECK_EQ_INT(sb_squad_synth(200, 3, 1, SB_SYNTH_SHORT, &dev, &e), SB_OK);
    CHECK_EQ_INT(set.n_examples, 1000);
    CHECK_EQ_INT(dev.n_examples, 200);
    CHECK_EQ_INT(set.n_misaligned, 0);
    CHECK(set.n_contexts > 1000 / 7 && set.n_contexts < 1000 / 2);
    for (int32_t i = 0; i < set.n_examples; i++) {
        const sb_squad_example *x = &set.examples[i];
        CHECK_EQ_INT(x->n_answers, 1);
        const char *t = x->answers[0].text;
        CHECK(!strncmp(x->context + x->answers[0].answer_start, t, strlen(t)));
        if (i) CHECK(strcmp(x->id, set.examples[i - 1].id) != 0);
    }
    /* No dev paragraph is also a training paragraph. */
    int shared = 0;
    for (int32_t i = 0; i < dev.n_contexts; i++)
        for (int32_t k = 0; k < set.n_contexts; k++)
            if (!strcmp(dev.contexts[i], set.contexts[k])) shared++;
    CHECK_EQ_INT(shared, 0);

    /* Built-in vocab: no [UNK]; one window of 32 (tiny's default) holds every
     * question. */
    sb_vocab v;
    CHECK_EQ_INT(sb_vocab_builtin_synth(&v, &e), SB_OK);
    sb_features f;
    CHECK_EQ_INT(sb_features_build(&v, &set, 32, 8, 0, &f, &e), SB_OK);
    CHECK_EQ_INT(f.n, set.n_examples);
    int unk = 0, cls_label = 0, min_len = 1 << 30, max_len = 0;
    for (int32_t i = 0; i < f.n; i++) {
        int len = 0;
        for (int k = 0; k < 32; k++) {
            if (f.input_ids[(size_t)i * 32 + (size_t)k] == v.unk_id) unk++;
            len += f.attention_mask[(size_t)i * 32 + (size_t)k];
        }
        if (len < min_len) min_len = len;
        if (len > max_len) max_len = len;
        if (f.start_positions[i] == 0) cls_label++;
    }
    CHECK_EQ_INT(unk, 0);
    CHECK_EQ_INT(cls_label, 0);
    CHECK(min_len >= 20 && max_len <= 32);
    printf("synthetic: %d questions, %d paragraphs, %d..%d tokens per feature\n", set.n_examples,
           set.n_contexts, min_len, max_len);
    sb_features_free(&f);

    /* Every synthetic word is a whole token of the real vocab. */
    const char *data = getenv("SB_SHARED_DATA");
    char path[4096];
    snprintf(path, sizeof path, "%s/bert-base-uncased/vocab.txt", data ? data : "/nonexistent");
    sb_vocab real;
    int have_real = sb_vocab_load(path, &real, &e) == SB_OK;
    check_squad_lengths(&v, have_real ? &real : NULL, data);
    sb_vocab_free(&v);
    if (have_real) {
        const char *const *w = sb_squad_synth_words();
        for (int i = 0; w[i]; i++) {
            int ok = sb_vocab_find(&real, w[i], strlen(w[i])) >= 0;
            CHECK(ok);
            if (!ok) fprintf(stderr, "not in bert-base-uncased: %s\n", w[i]);
        }
        CHECK_EQ_INT(sb_features_build(&real, &set, 128, 32, 0, &f, &e), SB_OK);
        for (size_t k = 0; k < (size_t)f.n * 128; k++) CHECK(f.input_ids[k] != real.unk_id);
        sb_features_free(&f);
        sb_vocab_free(&real);
    } else {
        printf("real-vocab check skipped: reference data absent\n");
    }
    sb_squad_free(&set);
    sb_squad_free(&dev);
    return test_report("test_squad_synth");
}
