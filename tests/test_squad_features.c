/* Features as run_qa.py makes them: windows and stride, answer positions
 * (including the [CLS] label for an answer cut by a window boundary and
 * run_qa.py's label for an answer in a window's last token), eval offsets,
 * padding, masks, question stripping and truncation; then post-processing
 * with oracle logits on the fixture paragraphs scores 100. */
#include <stdlib.h>
#include <string.h>
#include "sb_features.h"
#include "sb_squad_eval.h"
#include "testutil.h"

static sb_vocab g_v;

/* Context "t0 t1 ... t19": one token per word, word k starting at at[k]. */
static void build_context(char *ctx, int32_t *at)
{
    size_t o = 0;
    for (int k = 0; k < 20; k++) {
        at[k] = (int32_t)o;
        o += (size_t)sprintf(ctx + o, "%st%d", k ? " " : "", k);
        if (k) at[k]++;
    }
}

static void one_example(sb_squad_set *set, char *ctx, const char *question, const char *answer,
                        int32_t answer_start)
{
    memset(set, 0, sizeof *set);
    set->n_contexts = 1;
    set->contexts = calloc(1, sizeof(char *));
    set->contexts[0] = strdup(ctx);
    set->n_examples = 1;
    set->examples = calloc(1, sizeof *set->examples);
    sb_squad_example *x = &set->examples[0];
    x->id = strdup("ex0");
    x->question = strdup(question);
    x->context = set->contexts[0];
    x->n_answers = 1;
    x->answers = calloc(1, sizeof *x->answers);
    x->answers[0].text = strdup(answer);
    x->answers[0].answer_start = answer_start;
}

static void test_windows(void)
{
    char ctx[256];
    int32_t at[20];
    build_context(ctx, at);
    sb_squad_set set;
    sb_features f;
    sb_err e = {0};
    /* max_seq 16, question 1 token: 12 context tokens a window, step 8:
     * windows t0..t11 and t8..t19. */
    struct {
        const char *ans;
        int first, nwords;
        int32_t s0, e0, s1, e1;
    } cases[] = {
        {"t2 t3", 2, 2, 5, 6, 0, 0},        /* only in the first window */
        {"t10 t11 t12", 10, 3, 0, 0, 5, 7}, /* cut by the first window's end */
        {"t9", 9, 1, 12, 12, 4, 4},         /* in the overlap: both windows */
        {"t11", 11, 1, 15, 14, 6, 6},       /* last token of window 0: run_qa.py's quirk */
        {"t19", 19, 1, 0, 0, 15, 14},       /* last token of the context */
    };
    for (size_t c = 0; c < sizeof cases / sizeof *cases; c++) {
        one_example(&set, ctx, "  x", cases[c].ans, at[cases[c].first]);
        CHECK_EQ_INT(sb_features_build(&g_v, &set, 16, 4, 0, &f, &e), SB_OK);
        CHECK_EQ_INT(f.n, 2);
        if (f.n == 2) {
            CHECK_EQ_INT(f.start_positions[0], cases[c].s0);
            CHECK_EQ_INT(f.end_positions[0], cases[c].e0);
            CHECK_EQ_INT(f.start_positions[1], cases[c].s1);
            CHECK_EQ_INT(f.end_positions[1], cases[c].e1);
        }
        if (c == 0 && f.n == 2) {
            /* [CLS] x [SEP] t0..t11 [SEP] ; [CLS] x [SEP] t8..t19 [SEP] */
            int32_t x_id = sb_vocab_find(&g_v, "x", 1);
            CHECK_EQ_INT(f.input_ids[0], g_v.cls_id);
            CHECK_EQ_INT(f.input_ids[1], x_id);
            CHECK_EQ_INT(f.input_ids[2], g_v.sep_id);
            CHECK_EQ_INT(f.input_ids[3], sb_vocab_find(&g_v, "t0", 2));
            CHECK_EQ_INT(f.input_ids[15], g_v.sep_id);
            CHECK_EQ_INT(f.input_ids[16 + 3], sb_vocab_find(&g_v, "t8", 2));
            CHECK_EQ_INT(f.input_ids[16 + 14], sb_vocab_find(&g_v, "t19", 3));
            CHECK_EQ_INT(f.input_ids[16 + 15], g_v.sep_id);
            CHECK_EQ_INT(f.token_type_ids[2], 0);
            CHECK_EQ_INT(f.token_type_ids[3], 1);
            CHECK_EQ_INT(f.token_type_ids[15], 1);
            CHECK_EQ_INT(f.attention_mask[15], 1);
            CHECK_EQ_INT(f.example_index[1], 0);
            CHECK(f.offset_start == NULL);
        }
        sb_features_free(&f);
        sb_squad_free(&set);
    }
    /* Eval features: offsets of context tokens only, padding. */
    one_example(&set, "t1 t2", "x", "t2", 3);
    CHECK_EQ_INT(sb_features_build(&g_v, &set, 16, 4, 1, &f, &e), SB_OK);
    CHECK_EQ_INT(f.n, 1);
    if (f.n == 1) {
        int32_t ws[16] = {-1, -1, -1, 0, 3, -1, -1}, we[16] = {-1, -1, -1, 2, 5, -1, -1};
        for (int k = 7; k < 16; k++) ws[k] = we[k] = -1;
        for (int k = 0; k < 16; k++) {
            CHECK_EQ_INT(f.offset_start[k], ws[k]);
            CHECK_EQ_INT(f.offset_end[k], we[k]);
            CHECK_EQ_INT(f.attention_mask[k], k < 6);
            if (k >= 6) CHECK_EQ_INT(f.input_ids[k], g_v.pad_id);
        }
        /* The answer is the last context token: run_qa.py's start search runs
         * through [SEP] and padding to max_seq - 1. */
        CHECK_EQ_INT(f.start_positions[0], 15);
        CHECK_EQ_INT(f.end_positions[0], 4);
    }
    sb_features_free(&f);
    sb_squad_free(&set);
    /* A question so long that a window would be no wider than the stride is
     * cut to max_seq - 4 - stride tokens. */
    one_example(&set, ctx, "x x x x x x x x x x x x", "t0", 0);
    CHECK_EQ_INT(sb_features_build(&g_v, &set, 16, 4, 0, &f, &e), SB_OK);
    CHECK_EQ_INT(f.n_truncated_questions, 1);
    CHECK_EQ_INT(f.n, 16); /* 8 question tokens: windows of 5 tokens, step 1 */
    CHECK_EQ_INT(f.start_positions[0], 10);
    CHECK_EQ_INT(f.end_positions[0], 10);
    sb_features_free(&f);
    /* Bad parameters. */
    CHECK_EQ_INT(sb_features_build(&g_v, &set, 16, 8, 0, &f, &e), SB_EUSAGE);
    CHECK_EQ_INT(sb_features_build(&g_v, &set, 4, 0, 0, &f, &e), SB_EUSAGE);
    sb_squad_free(&set);
}

/* Oracle logits (answer start/end of the first answer) must give back a
 * prediction that scores 100 on the fixture file. */
static void test_fixture_roundtrip(const char *src)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/tests/fixtures/squad/vocab_small.txt", src);
    sb_vocab v;
    sb_err e = {0};
    CHECK_EQ_INT(sb_vocab_load(path, &v, &e), SB_OK);
    snprintf(path, sizeof path, "%s/tests/fixtures/squad/mini.json", src);
    sb_squad_set set;
    CHECK_EQ_INT(sb_squad_load(path, &set, &e), SB_OK);
    CHECK_EQ_INT(set.n_examples, 6);
    CHECK_EQ_INT(set.n_contexts, 3);
    CHECK_EQ_INT(set.n_misaligned, 1);
    sb_features tr, ev;
    CHECK_EQ_INT(sb_features_build(&v, &set, 32, 8, 0, &tr, &e), SB_OK);
    CHECK_EQ_INT(sb_features_build(&v, &set, 32, 8, 1, &ev, &e), SB_OK);
    CHECK_EQ_INT(tr.n, ev.n);
    CHECK(tr.n > set.n_examples); /* the first paragraph needs several windows */
    float *sl = calloc((size_t)ev.n * 32, sizeof(float)),
          *el = calloc((size_t)ev.n * 32, sizeof(float));
    for (int32_t i = 0; i < ev.n; i++) {
        if (tr.start_positions[i] == 0) continue;
        sl[(size_t)i * 32 + (size_t)tr.start_positions[i]] = 10;
        el[(size_t)i * 32 + (size_t)tr.end_positions[i]] = 10;
    }
    sb_squad_predictions p;
    CHECK_EQ_INT(sb_squad_postprocess(&set, &ev, sl, el, 20, 30, &p, &e), SB_OK);
    CHECK_EQ_INT(p.n, set.n_examples);
    double em = 0, f1 = 0;
    int32_t answered = 0;
    sb_squad_score(&set, &p, &em, &f1, &answered);
    /* The misaligned answer starts one character late: its window labels
     * "1887." (as run_qa.py would), which normalises to the answer. */
    CHECK(em == 100.0);
    CHECK(f1 == 100.0);
    CHECK_EQ_INT(answered, 6);
    for (int32_t i = 0; i < p.n; i++)
        if (!strcmp(p.ids[i], "q-tea-2"))
            CHECK(!strcmp(p.texts[i], "\xe5\x8c\x97\xe4\xba\xac\xe8\x8c\xb6\xe9\xa4\xa8"));
    sb_squad_predictions_free(&p);
    free(sl);
    free(el);
    sb_features_free(&tr);
    sb_features_free(&ev);
    sb_squad_free(&set);
    sb_vocab_free(&v);
}

static void test_reader_errors(void)
{
    sb_squad_set set;
    sb_err e = {0};
    struct {
        const char *json, *want;
    } bad[] = {
        {"{\"data\": [", "line 1"},
        {"[]", "top level"},
        {"{\"version\": \"1.1\"}", "missing \"data\""},
        {"{\"data\": {}}", "data: not an array"},
        {"{\"data\": [{\"title\": \"x\"}]}", "data[0]: missing \"paragraphs\""},
        {"{\"data\": [{\"paragraphs\": [{\"qas\": []}]}]}",
         "data[0].paragraphs[0]: missing \"context\""},
        {"{\"data\": [{\"paragraphs\": [{\"context\": \"c\", \"qas\": [{\"question\": \"q\", "
         "\"answers\": []}]}]}]}",
         "data[0].paragraphs[0].qas[0]: missing \"id\""},
        {"{\"data\": [{\"paragraphs\": [{\"context\": \"c\", \"qas\": [{\"id\": 7, \"question\": "
         "\"q\", \"answers\": []}]}]}]}",
         "qas[0].id: not a string"},
        {"{\"data\": [{\"paragraphs\": [{\"context\": \"c\", \"qas\": [{\"id\": \"a\", "
         "\"question\": \"q\", \"answers\": [{\"text\": \"c\"}]}]}]}]}",
         "qas[0].answers[0]: missing \"answer_start\""},
        {"{\"data\": [{\"paragraphs\": [{\"context\": \"c\", \"qas\": [{\"id\": \"a\", "
         "\"question\": \"q\", \"answers\": [{\"text\": \"c\", \"answer_start\": 5}]}]}]}]}",
         "answer_start: 5 is outside the context"},
        {"{\"data\": [{\"paragraphs\": [{\"context\": \"\\u0000\", \"qas\": []}]}]}", "line 1"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        int rc = sb_squad_parse(bad[i].json, strlen(bad[i].json), "f.json", &set, &e);
        CHECK_EQ_INT(rc, SB_EUSAGE);
        if (!strstr(e.msg, bad[i].want) || strncmp(e.msg, "f.json: ", 8)) {
            g_test_failures++;
            fprintf(stderr, "reader case %zu: message \"%s\" lacks \"%s\"\n", i, e.msg,
                    bad[i].want);
        }
    }
    /* Invalid UTF-8 inside a JSON string is refused by the parser. */
    const char inv[] = "{\"data\": [{\"paragraphs\": [{\"context\": \"\xff\", \"qas\": []}]}]}";
    CHECK_EQ_INT(sb_squad_parse(inv, sizeof inv - 1, "f.json", &set, &e), SB_EUSAGE);
    /* Code points, not bytes: answer_start 2 is the "b" after "é ". */
    const char ok[] =
        "{\"data\": [{\"paragraphs\": [{\"context\": \"\xc3\xa9 b\", \"qas\": [{\"id\": \"a\", "
        "\"question\": \"q\", \"answers\": [{\"text\": \"b\", \"answer_start\": 2}]}]}]}]}";
    CHECK_EQ_INT(sb_squad_parse(ok, sizeof ok - 1, "f.json", &set, &e), SB_OK);
    CHECK_EQ_INT(set.n_misaligned, 0);
    sb_squad_free(&set);
}

int main(void)
{
    const char *src = getenv("SB_SOURCE_DIR");
    if (!src) src = ".";
    char vocab[4096] = "[PAD]\n[UNK]\n[CLS]\n[SEP]\nx\n";
    for (int k = 0; k < 20; k++) sprintf(vocab + strlen(vocab), "t%d\n", k);
    sb_err e = {0};
    if (sb_vocab_parse(vocab, strlen(vocab), "test vocab", &g_v, &e)) {
        fprintf(stderr, "%s\n", e.msg);
        return 1;
    }
    test_windows();
    test_fixture_roundtrip(src);
    test_reader_errors();
    sb_vocab_free(&g_v);
    return test_report("test_squad_features");
}
