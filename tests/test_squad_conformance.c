/* Against the real thing (../shared/data): the 36 texts of
 * tokenizer-conformance give Hugging Face's ids, tokens and offsets exactly;
 * the XQuAD English dev file (1,190 genuine SQuAD dev questions) and the
 * AllenNLP fixture load and featurise cleanly, the training labels point at
 * the answers, and oracle logits score EM 100 through post-processing.
 * Exits 77 (skipped) without the data. */
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include "sb_features.h"
#include "sb_io.h"
#include "sb_squad_eval.h"
#include "testutil.h"

static void test_tokenizer(const sb_vocab *v, const char *dir)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/tokenizer-conformance/tokref_sample.jsonl", dir);
    char *text;
    size_t len;
    sb_err e = {0};
    CHECK_EQ_INT(sb_read_file(path, &text, &len, &e), SB_OK);
    if (e.code) return;
    int lines = 0, exact = 0;
    for (char *line = strtok(text, "\n"); line; line = strtok(NULL, "\n")) {
        json_error_t jerr;
        json_t *ref = json_loads(line, JSON_ALLOW_NUL, &jerr);
        CHECK(ref != NULL);
        if (!ref) continue;
        lines++;
        const json_t *jt = json_object_get(ref, "text"), *ids = json_object_get(ref, "ids"),
                     *toks = json_object_get(ref, "tokens"),
                     *offs = json_object_get(ref, "offsets");
        sb_encoding enc;
        int ok = sb_encode(v, json_string_value(jt), json_string_length(jt), NULL, 0, &enc, &e) ==
            SB_OK;
        ok = ok && (size_t)enc.n == json_array_size(ids);
        for (int32_t i = 0; ok && i < enc.n; i++) {
            const json_t *o = json_array_get(offs, (size_t)i);
            ok = enc.ids[i] == json_integer_value(json_array_get(ids, (size_t)i)) &&
                !strcmp(v->tokens[enc.ids[i]],
                        json_string_value(json_array_get(toks, (size_t)i))) &&
                enc.start[i] == json_integer_value(json_array_get(o, 0)) &&
                enc.end[i] == json_integer_value(json_array_get(o, 1));
            if (!ok)
                fprintf(stderr, "text %d token %d: got %s (%d,%d), want %s\n", lines, i,
                        v->tokens[enc.ids[i]], enc.start[i], enc.end[i],
                        json_string_value(json_array_get(toks, (size_t)i)));
        }
        CHECK(ok);
        exact += ok;
        sb_encoding_free(&enc);
        json_decref(ref);
    }
    CHECK_EQ_INT(lines, 36);
    printf("tokenizer conformance: %d of %d texts exact\n", exact, lines);
    free(text);
}

static void test_squad_file(const sb_vocab *v, const char *dir, const char *name, int n_q,
                            int n_ctx)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/squad/%s", dir, name);
    sb_squad_set set;
    sb_err e = {0};
    CHECK_EQ_INT(sb_squad_load(path, &set, &e), SB_OK);
    if (e.code) {
        fprintf(stderr, "%s\n", e.msg);
        return;
    }
    CHECK_EQ_INT(set.n_examples, n_q);
    CHECK_EQ_INT(set.n_contexts, n_ctx);
    sb_features tr, ev;
    CHECK_EQ_INT(sb_features_build(v, &set, 384, 128, 0, &tr, &e), SB_OK);
    CHECK_EQ_INT(sb_features_build(v, &set, 384, 128, 1, &ev, &e), SB_OK);
    CHECK_EQ_INT(tr.n, ev.n);
    CHECK(tr.n >= set.n_examples);
    CHECK_EQ_INT(tr.n_truncated_questions, 0);
    /* Every question has a window whose label spans exactly its answer (up to
     * the word pieces around it), and post-processing of oracle logits gives
     * the answers back. */
    float *sl = calloc((size_t)ev.n * 384, sizeof(float)),
          *el = calloc((size_t)ev.n * 384, sizeof(float));
    int labelled = 0;
    for (int32_t i = 0; i < tr.n; i++) {
        int32_t s = tr.start_positions[i], t = tr.end_positions[i];
        CHECK(s >= 0 && s < 384 && t >= 0 && t < 384);
        if (s == 0) continue;
        CHECK(t >= s || s == 383);
        sl[(size_t)i * 384 + (size_t)s] = 10;
        el[(size_t)i * 384 + (size_t)t] = 10;
        labelled++;
    }
    CHECK(labelled >= set.n_examples);
    sb_squad_predictions p;
    CHECK_EQ_INT(sb_squad_postprocess(&set, &ev, sl, el, 20, 30, &p, &e), SB_OK);
    double em = 0, f1 = 0;
    sb_squad_score(&set, &p, &em, &f1, NULL);
    printf("%s: %d questions, %d paragraphs, %d features (%d labelled), %d misaligned; "
           "oracle EM %.2f F1 %.2f\n",
           name, set.n_examples, set.n_contexts, tr.n, labelled, set.n_misaligned, em, f1);
    /* Oracle spans lose only answers longer than 30 tokens and odd splits. */
    CHECK(em > 97.0 && f1 > 98.0);
    sb_squad_predictions_free(&p);
    free(sl);
    free(el);
    sb_features_free(&tr);
    sb_features_free(&ev);
    sb_squad_free(&set);
}

int main(void)
{
    const char *dir = getenv("SB_SHARED_DATA");
    struct stat st;
    if (!dir || stat(dir, &st) != 0) {
        printf("skipped: reference data absent\n");
        return 77;
    }
    char path[4096];
    snprintf(path, sizeof path, "%s/bert-base-uncased/vocab.txt", dir);
    sb_vocab v;
    sb_err e = {0};
    if (sb_vocab_load(path, &v, &e)) {
        fprintf(stderr, "%s\n", e.msg);
        return 1;
    }
    CHECK_EQ_INT(v.size, 30522);
    CHECK_EQ_INT(v.pad_id, 0);
    CHECK_EQ_INT(v.unk_id, 100);
    CHECK_EQ_INT(v.cls_id, 101);
    CHECK_EQ_INT(v.sep_id, 102);
    CHECK_EQ_INT(v.mask_id, 103);
    test_tokenizer(&v, dir);
    test_squad_file(&v, dir, "squad_v1.1_dev_xquad_en.json", 1190, 240);
    test_squad_file(&v, dir, "allennlp_test_fixture_squad.json", 5, 2);
    sb_vocab_free(&v);
    return test_report("test_squad_conformance");
}
