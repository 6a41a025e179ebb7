/* Official SQuAD v1.1 scoring (normalisation, EM, F1, max over answers,
 * unanswered and unknown ids), Python float formatting, prediction files,
 * and post-processing from logits (n-best, max length, invalid spans). */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "sb_squad_eval.h"
#include "testutil.h"

#define CHECK_STR(got, want)                                                        \
    do {                                                                            \
        const char *g_ = (got), *w_ = (want);                                       \
        g_test_checks++;                                                            \
        if (!g_ || strcmp(g_, w_)) {                                                \
            g_test_failures++;                                                      \
            fprintf(stderr, "%s:%d: got \"%s\", want \"%s\"\n", __FILE__, __LINE__, \
                    g_ ? g_ : "(null)", w_);                                        \
        }                                                                           \
    } while (0)

static void check_norm(const char *in, const char *want)
{
    char *n = sb_squad_normalize(in);
    CHECK_STR(n, want);
    free(n);
}

static void test_normalize(void)
{
    check_norm("The  Cat!", "cat");
    check_norm("an apple a day, the end.", "apple day end");
    check_norm("Anne and Theo then", "anne and theo then");
    check_norm("the_end", "theend"); /* '_' is punctuation, removed first */
    check_norm("a-the b", "athe b");
    check_norm("(a) [the] {an}", "");
    check_norm("th\xc3\xa9"
               "atre A",
               "th\xc3\xa9"
               "atre"); /* é is a word character */
    check_norm("\xc3\x89LISE\xc2\xa0Marchetti\t", "\xc3\xa9lise marchetti");
    check_norm("\xe2\x80\x9cquoted\xe2\x80\x9d",
               "\xe2\x80\x9cquoted\xe2\x80\x9d"); /* not ASCII punctuation */
    check_norm("", "");
    CHECK_EQ_INT(sb_squad_exact_match("The Eiffel Tower", "eiffel tower."), 1);
    CHECK_EQ_INT(sb_squad_exact_match("Eiffel", "eiffel tower"), 0);
    CHECK_EQ_INT(sb_squad_exact_match("", "the"), 1); /* both normalise to "" */
    CHECK(sb_squad_f1("the cat sat", "cat sat down") > 0.79999 &&
          sb_squad_f1("the cat sat", "cat sat down") < 0.80001);
    CHECK(sb_squad_f1("a", "the") == 0); /* no tokens: F1 0 */
    /* Repeated tokens count as a multiset. */
    double f = sb_squad_f1("new new york", "new york york");
    CHECK(f > 0.6666 && f < 0.6667);
    CHECK(sb_squad_f1("Paris", "paris!") == 1.0);
}

static sb_squad_set make_set(void)
{
    static const char *ctx = "Paris is the capital of France.";
    sb_squad_set s = {0};
    s.n_contexts = 1;
    s.contexts = calloc(1, sizeof(char *));
    s.contexts[0] = strdup(ctx);
    s.n_examples = 3;
    s.examples = calloc(3, sizeof *s.examples);
    const char *ids[] = {"q1", "q2", "q3"};
    const char *ans[3][2] = {{"Paris", "the city of Paris"}, {"France", NULL}, {"capital", NULL}};
    for (int i = 0; i < 3; i++) {
        sb_squad_example *x = &s.examples[i];
        x->id = strdup(ids[i]);
        x->question = strdup("q?");
        x->context = s.contexts[0];
        x->answers = calloc(2, sizeof *x->answers);
        for (int k = 0; k < 2 && ans[i][k]; k++) {
            x->answers[k].text = strdup(ans[i][k]);
            x->n_answers++;
        }
    }
    return s;
}

static void test_score(void)
{
    sb_squad_set s = make_set();
    sb_squad_predictions p = {0};
    sb_err e = {0};
    sb_squad_predictions_add(&p, "q1", "city Paris", &e); /* EM 0, F1 0.8 */
    sb_squad_predictions_add(&p, "q2", "France", &e);
    sb_squad_predictions_add(&p, "unknown", "x", &e); /* ignored */
    double em, f1;
    int32_t answered;
    sb_squad_score(&s, &p, &em, &f1, &answered);
    CHECK_EQ_INT(answered, 2);
    CHECK(em > 33.3333 && em < 33.3334);
    /* q1: vs "Paris" P=1/2 R=1 -> 0.667; vs "the city of Paris" P=1 R=2/3 ->
     * 0.8. q2: 1. q3 unanswered: 0. */
    CHECK(f1 > 59.9999 && f1 < 60.0001);
    char buf[64];
    sb_format_pyfloat(em, buf, sizeof buf);
    CHECK_STR(buf, "33.333333333333336"); /* Python: 100.0 * 1 / 3 */
    /* A later duplicate replaces an earlier prediction, as a dict does. */
    sb_squad_predictions_add(&p, "q3", "nothing", &e);
    sb_squad_predictions_add(&p, "q3", "the capital", &e);
    sb_squad_score(&s, &p, &em, &f1, &answered);
    CHECK_EQ_INT(answered, 3);
    CHECK(em > 66.6666 && em < 66.6667);
    /* Files: write, read back. */
    char path[] = "/tmp/sb_preds_XXXXXX";
    int fd = mkstemp(path);
    CHECK(fd >= 0);
    close(fd);
    CHECK_EQ_INT(sb_squad_predictions_write(path, &p, &e), SB_OK);
    sb_squad_predictions q;
    CHECK_EQ_INT(sb_squad_predictions_read(path, &q, &e), SB_OK);
    CHECK_EQ_INT(q.n, 4); /* the duplicate collapsed */
    sb_squad_score(&s, &q, &em, &f1, &answered);
    CHECK(em > 66.6666 && em < 66.6667);
    sb_squad_predictions_free(&q);
    FILE *fp = fopen(path, "w");
    fputs("{\"q1\": 3}", fp);
    fclose(fp);
    CHECK_EQ_INT(sb_squad_predictions_read(path, &q, &e), SB_EUSAGE);
    CHECK(strstr(e.msg, "q1") && strstr(e.msg, path));
    fp = fopen(path, "w");
    fputs("[\"x\"]", fp);
    fclose(fp);
    CHECK_EQ_INT(sb_squad_predictions_read(path, &q, &e), SB_EUSAGE);
    unlink(path);
    sb_squad_predictions_free(&p);
    /* An empty set scores 0, never NaN. */
    sb_squad_set empty = {0};
    sb_squad_score(&empty, &p, &em, &f1, &answered);
    CHECK(em == 0 && f1 == 0);
    sb_squad_free(&s);
}

static void test_pyfloat(void)
{
    struct {
        double x;
        const char *s;
    } c[] = {{100.0, "100.0"},
             {0.0, "0.0"},
             {81.2, "81.2"},
             {0.1 + 0.2, "0.30000000000000004"},
             {1e-5, "1e-05"},
             {1e16, "1e+16"},
             {123456789.0, "123456789.0"},
             {0.0001, "0.0001"},
             {-2.5, "-2.5"},
             {1.5e300, "1.5e+300"},
             {9999999999999998.0, "9999999999999998.0"}};
    char buf[64];
    for (size_t i = 0; i < sizeof c / sizeof *c; i++) {
        sb_format_pyfloat(c[i].x, buf, sizeof buf);
        CHECK_STR(buf, c[i].s);
    }
}

static void test_postprocess(void)
{
    sb_squad_set s = make_set();
    /* Two windows of 8 positions for q1, one for q2, none for q3.
     * Context "Paris is the capital of France.": tokens paris(0,5) is(6,8)
     * the(9,12) capital(13,20) of(21,23) france(24,30) .(30,31). */
    enum { L = 8 };
    sb_features f = {0};
    f.n = 3;
    f.max_seq = L;
    f.is_eval = 1;
    int32_t ex[3] = {0, 0, 1};
    f.example_index = ex;
    int32_t os[3][L] = {{-1, -1, -1, 0, 6, 9, 13, -1},
                        {-1, -1, -1, 13, 21, 24, 30, -1},
                        {-1, -1, -1, 0, 6, 9, 13, -1}};
    int32_t oe[3][L] = {{-1, -1, -1, 5, 8, 12, 20, -1},
                        {-1, -1, -1, 20, 23, 30, 31, -1},
                        {-1, -1, -1, 5, 8, 12, 20, -1}};
    f.offset_start = &os[0][0];
    f.offset_end = &oe[0][0];
    float sl[3][L] = {
        {50, 0, 0, 3, 0, 0, 1, 0}, {0, 0, 0, 2, 0, 6, 0, 0}, {0, 0, 0, 0, 0, 0, 0, 0}};
    float el[3][L] = {
        {50, 0, 0, 1, 0, 0, 2, 0}, {0, 0, 0, 0, 0, 1, 0, 9}, {0, 0, 0, 0, 0, 0, 0, 0}};
    /* q1: [CLS] (50+50) is not a context token; window 0's best valid span is
     * paris..capital (3+2); window 1's is france..france (6+1; end 7 is [SEP])
     * and wins. q2: all logits equal: the first valid span in n-best order
     * (higher index first among equals) is capital..capital. */
    sb_squad_predictions p;
    sb_err e = {0};
    CHECK_EQ_INT(sb_squad_postprocess(&s, &f, &sl[0][0], &el[0][0], 20, 30, &p, &e), SB_OK);
    CHECK_EQ_INT(p.n, 3);
    if (p.n == 3) {
        CHECK_STR(p.texts[0], "France");
        CHECK_STR(p.texts[1], "capital");
        CHECK_STR(p.texts[2], "empty"); /* no window: run_qa.py's "empty" */
    }
    sb_squad_predictions_free(&p);
    /* max_answer_len 2 forbids paris..capital (4 tokens); n_best 1 keeps only
     * the top start/end of each window. */
    CHECK_EQ_INT(sb_squad_postprocess(&s, &f, &sl[0][0], &el[0][0], 20, 2, &p, &e), SB_OK);
    if (p.n == 3) CHECK_STR(p.texts[0], "France");
    sb_squad_predictions_free(&p);
    sl[1][5] = 0; /* now window 0's span wins */
    CHECK_EQ_INT(sb_squad_postprocess(&s, &f, &sl[0][0], &el[0][0], 20, 30, &p, &e), SB_OK);
    if (p.n == 3) CHECK_STR(p.texts[0], "Paris is the capital");
    sb_squad_predictions_free(&p);
    CHECK_EQ_INT(sb_squad_postprocess(&s, &f, &sl[0][0], &el[0][0], 1, 30, &p, &e), SB_OK);
    /* n_best 1: window 0 start [CLS]/end [CLS] only -> invalid; window 1:
     * start 3 (capital, 2) end 7 ([SEP]) invalid -> q1 has no span. */
    if (p.n == 3) CHECK_STR(p.texts[0], "empty");
    sb_squad_predictions_free(&p);
    f.is_eval = 0;
    CHECK_EQ_INT(sb_squad_postprocess(&s, &f, &sl[0][0], &el[0][0], 20, 30, &p, &e), SB_EUSAGE);
    sb_squad_free(&s);
}

int main(void)
{
    test_normalize();
    test_score();
    test_pyfloat();
    test_postprocess();
    return test_report("test_squad_eval");
}
