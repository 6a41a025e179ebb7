/* The WordPiece tokenizer on a hand-written vocab: normalisation (accents,
 * combining marks, CJK, control and whitespace characters), punctuation,
 * long words, special tokens, offsets, pair encodings and bad input. */
#include <stdlib.h>
#include <string.h>
#include "sb_tokenizer.h"
#include "sb_squad_synth.h"
#include "testutil.h"

static sb_vocab g_v;

/* "tok/start-end tok/start-end ..." for a text. */
static const char *render(const char *text, size_t len)
{
    static char out[8192];
    sb_tokens t = {0};
    sb_err e = {0};
    if (sb_tokenize(&g_v, text, len, &t, &e)) {
        snprintf(out, sizeof out, "ERROR %s", e.msg);
        return out;
    }
    size_t o = 0;
    out[0] = '\0';
    for (int32_t i = 0; i < t.n && o < sizeof out - 64; i++)
        o += (size_t)snprintf(out + o, sizeof out - o, "%s%s/%d-%d", i ? " " : "",
                              g_v.tokens[t.ids[i]], t.start[i], t.end[i]);
    sb_tokens_free(&t);
    return out;
}

#define CHECK_TOK(text, expect)                                                            \
    do {                                                                                   \
        const char *got_ = render(text, sizeof(text) - 1);                                 \
        g_test_checks++;                                                                   \
        if (strcmp(got_, expect)) {                                                        \
            g_test_failures++;                                                             \
            fprintf(stderr, "%s:%d: tokenize(%s)\n  got:    %s\n  expect: %s\n", __FILE__, \
                    __LINE__, #text, got_, expect);                                        \
        }                                                                                  \
    } while (0)

static void test_vocab_errors(void)
{
    sb_vocab v;
    sb_err e = {0};
    const char no_unk[] = "[PAD]\n[CLS]\n[SEP]\nthe\n";
    CHECK_EQ_INT(sb_vocab_parse(no_unk, sizeof no_unk - 1, "v.txt", &v, &e), SB_EUSAGE);
    CHECK(strstr(e.msg, "v.txt") && strstr(e.msg, "[UNK]"));
    const char no_sep[] = "[PAD]\n[UNK]\n[CLS]\n";
    CHECK_EQ_INT(sb_vocab_parse(no_sep, sizeof no_sep - 1, "v.txt", &v, &e), SB_EUSAGE);
    CHECK(strstr(e.msg, "[SEP]") != NULL);
    const char dup[] = "[PAD]\n[UNK]\n[CLS]\n[SEP]\nthe\nthe\n";
    CHECK_EQ_INT(sb_vocab_parse(dup, sizeof dup - 1, "v.txt", &v, &e), SB_EUSAGE);
    CHECK(strstr(e.msg, "v.txt:6") && strstr(e.msg, "duplicate"));
    const char bad[] = "[PAD]\n[UNK]\n[CLS]\n[SEP]\nth\xc3\n";
    CHECK_EQ_INT(sb_vocab_parse(bad, sizeof bad - 1, "v.txt", &v, &e), SB_EUSAGE);
    CHECK(strstr(e.msg, "v.txt:5") && strstr(e.msg, "UTF-8"));
    CHECK_EQ_INT(sb_vocab_parse("", 0, "v.txt", &v, &e), SB_EUSAGE);
    CHECK_EQ_INT(sb_vocab_load("/nonexistent/vocab.txt", &v, &e), SB_EUSAGE);
    CHECK(strstr(e.msg, "/nonexistent/vocab.txt") != NULL);
    /* CRLF files and a missing final newline are fine. */
    const char crlf[] = "[PAD]\r\n[UNK]\r\n[CLS]\r\n[SEP]\r\nthe";
    CHECK_EQ_INT(sb_vocab_parse(crlf, sizeof crlf - 1, "v.txt", &v, &e), SB_OK);
    CHECK_EQ_INT(v.size, 5);
    CHECK_EQ_INT(sb_vocab_find(&v, "the", 3), 4);
    CHECK_EQ_INT(v.sep_id, 3);
    CHECK_EQ_INT(v.mask_id, -1);
    sb_vocab_free(&v);
}

static void test_tokenize(void)
{
    CHECK_EQ_INT(g_v.pad_id, 0);
    CHECK_EQ_INT(g_v.unk_id, 2);
    CHECK_EQ_INT(g_v.cls_id, 3);
    CHECK_EQ_INT(g_v.sep_id, 4);
    CHECK_EQ_INT(g_v.mask_id, 5);
    CHECK_TOK("Hello, world!", "hello/0-5 ,/5-6 world/7-12 !/12-13");
    CHECK_TOK("", "");
    CHECK_TOK("   \t\n ", "");
    /* Accents: lowercase, NFD, nonspacing marks dropped; offsets in code points. */
    CHECK_TOK("\xc3\x89lise Marchetti na\xc3\xafve fa\xc3\xa7"
              "ade caf\xc3\xa9",
              "elise/0-5 marc/6-10 ##hetti/10-15 naive/16-21 facade/22-28 cafe/29-33");
    /* An already decomposed accent: the mark is dropped and not covered. */
    CHECK_TOK("cafe\xcc\x81 x", "cafe/0-4 x/6-7");
    /* A mark after a space starts no word. */
    CHECK_TOK("x \xcc\x81tea", "x/0-1 tea/3-6");
    /* CJK ideographs become words of their own; one unknown is [UNK]. */
    CHECK_TOK("\xe5\x8c\x97\xe4\xba\xac\xe8\x8c\xb6\xe9\xa4\xa8tea",
              "\xe5\x8c\x97/0-1 \xe4\xba\xac/1-2 \xe8\x8c\xb6/2-3 [UNK]/3-4 tea/4-7");
    /* Unicode punctuation splits; WordPiece continuations. */
    CHECK_TOK("\xe2\x80\x94\xe2\x80\x9cunbelievable\xe2\x80\x9d\xe2\x80\xa6",
              "\xe2\x80\x94/0-1 \xe2\x80\x9c/1-2 un/2-4 ##believ/4-10 ##able/10-14 "
              "\xe2\x80\x9d/14-15 \xe2\x80\xa6/15-16");
    /* ASCII symbols that Unicode does not call punctuation still split. */
    CHECK_TOK("a$e^x", "a/0-1 [UNK]/1-2 e/2-3 [UNK]/3-4 x/4-5");
    /* Control and format characters vanish (joining the word); the span of a
     * token still covers them. Whitespace of any kind separates. */
    CHECK_TOK("hel\x01lo\tworld\x7f!", "hello/0-6 world/7-12 !/13-14");
    CHECK_TOK("un\xe2\x80\x8b"
              "believable",
              "un/0-2 ##believ/3-9 ##able/9-13");
    CHECK_TOK("\xc2\xa0 x\xe3\x80\x80x\xe2\x80\xa8x", "x/2-3 x/4-5 x/6-7");
    CHECK_TOK("x\xef\xbf\xbdx", "[UNK]/0-3");
    /* A word with no cover is one [UNK] over the whole word. */
    CHECK_TOK("towers lighthouses lighted",
              "[UNK]/0-6 lighthouse/7-17 ##s/17-18 light/19-24 ##ed/24-26");
    /* Special tokens are matched verbatim, even glued; lowercase ones are not. */
    CHECK_TOK("[CLS]x[SEP] [MASK]", "[CLS]/0-5 x/5-6 [SEP]/6-11 [MASK]/12-18");
    CHECK_TOK("[cls]", "[/0-1 [UNK]/1-4 ]/4-5");
    /* 100 characters is the longest word WordPiece tries; 101 is [UNK]. */
    char w[256];
    memset(w, 'a', 100);
    sb_tokens t = {0};
    sb_err e = {0};
    CHECK_EQ_INT(sb_tokenize(&g_v, w, 100, &t, &e), SB_OK);
    CHECK_EQ_INT(t.n, 100);
    CHECK_EQ_INT(t.ids[0], sb_vocab_find(&g_v, "a", 1));
    CHECK_EQ_INT(t.ids[99], sb_vocab_find(&g_v, "##a", 3));
    CHECK_EQ_INT(t.start[99], 99);
    CHECK_EQ_INT(t.end[99], 100);
    sb_tokens_clear(&t);
    memset(w, 'a', 101);
    memcpy(w + 101, " x", 2);
    CHECK_EQ_INT(sb_tokenize(&g_v, w, 103, &t, &e), SB_OK);
    CHECK_EQ_INT(t.n, 2);
    CHECK_EQ_INT(t.ids[0], g_v.unk_id);
    CHECK_EQ_INT(t.end[0], 101);
    CHECK_EQ_INT(t.start[1], 102);
    sb_tokens_free(&t);
    /* Invalid UTF-8 is refused with its byte offset. */
    CHECK_EQ_INT(sb_tokenize(&g_v, "ab\xff", 3, &t, &e), SB_EUSAGE);
    CHECK(strstr(e.msg, "UTF-8") && strstr(e.msg, "byte 2"));
    CHECK_EQ_INT(sb_tokenize(&g_v, "\xed\xa0\x80", 3, &t, &e), SB_EUSAGE); /* a surrogate */
    CHECK_EQ_INT(sb_tokenize(&g_v, "\xc0\xaf", 2, &t, &e), SB_EUSAGE);     /* overlong */
    sb_tokens_free(&t);
    CHECK_EQ_INT(sb_utf8_count("a\xc3\xa9\xf0\x9f\x98\x80", 7), 3);
    CHECK_EQ_INT(sb_utf8_count("a\xc3", 2), -1);
}

static void test_encode(void)
{
    sb_encoding enc;
    sb_err e = {0};
    CHECK_EQ_INT(sb_encode(&g_v, "who?", 4, "the tea", 7, &enc, &e), SB_OK);
    CHECK_EQ_INT(enc.n, 7);
    int32_t want[] = {g_v.cls_id, sb_vocab_find(&g_v, "who", 3), sb_vocab_find(&g_v, "?", 1),
                      g_v.sep_id, sb_vocab_find(&g_v, "the", 3), sb_vocab_find(&g_v, "tea", 3),
                      g_v.sep_id};
    int8_t seq[] = {-1, 0, 0, -1, 1, 1, -1};
    int32_t st[] = {0, 0, 3, 0, 0, 4, 0}, en[] = {0, 3, 4, 0, 3, 7, 0};
    for (int i = 0; i < 7 && enc.n == 7; i++) {
        CHECK_EQ_INT(enc.ids[i], want[i]);
        CHECK_EQ_INT(enc.seq[i], seq[i]);
        CHECK_EQ_INT(enc.start[i], st[i]);
        CHECK_EQ_INT(enc.end[i], en[i]);
    }
    sb_encoding_free(&enc);
    CHECK_EQ_INT(sb_encode(&g_v, "", 0, NULL, 0, &enc, &e), SB_OK);
    CHECK_EQ_INT(enc.n, 2);
    sb_encoding_free(&enc);
}

static void test_builtin(void)
{
    sb_vocab v;
    sb_err e = {0};
    CHECK_EQ_INT(sb_vocab_builtin_synth(&v, &e), SB_OK);
    CHECK_EQ_INT(v.pad_id, 0);
    CHECK_EQ_INT(v.unk_id, 1);
    CHECK_EQ_INT(v.cls_id, 2);
    CHECK_EQ_INT(v.sep_id, 3);
    const char *const *words = sb_squad_synth_words();
    int missing = 0;
    for (int i = 0; words[i]; i++)
        if (sb_vocab_find(&v, words[i], strlen(words[i])) < 0) missing++;
    CHECK_EQ_INT(missing, 0);
    /* Plain ASCII text never needs [UNK]. */
    sb_tokens t = {0};
    const char *s = "Zyxwv qqq-42 HELLO!";
    CHECK_EQ_INT(sb_tokenize(&v, s, strlen(s), &t, &e), SB_OK);
    for (int32_t i = 0; i < t.n; i++) CHECK(t.ids[i] != v.unk_id);
    sb_tokens_free(&t);
    sb_vocab_free(&v);
}

int main(void)
{
    const char *src = getenv("SB_SOURCE_DIR");
    char path[4096];
    snprintf(path, sizeof path, "%s/tests/fixtures/squad/vocab_small.txt", src ? src : ".");
    sb_err e = {0};
    if (sb_vocab_load(path, &g_v, &e)) {
        fprintf(stderr, "%s\n", e.msg);
        return 1;
    }
    test_vocab_errors();
    test_tokenize();
    test_encode();
    test_builtin();
    sb_vocab_free(&g_v);
    return test_report("test_squad_tokenizer");
}
