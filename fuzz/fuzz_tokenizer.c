/* libFuzzer: the tokenizer (and vocab parser) on arbitrary bytes. First byte
 * picks the mode: vocab parsing, or tokenising (single text, or a pair split
 * at the first TAB) with the built-in vocab or $SB_FUZZ_VOCAB. Checks the
 * invariants offsets must keep. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "sb_tokenizer.h"
#include "sb_squad_synth.h"

static sb_vocab g_vocab;

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    sb_err e = {0};
    const char *path = getenv("SB_FUZZ_VOCAB");
    if (path ? sb_vocab_load(path, &g_vocab, &e) : sb_vocab_builtin_synth(&g_vocab, &e)) abort();
    return 0;
}

static void check_tokens(const sb_tokens *t, int64_t ncp)
{
    for (int32_t i = 0; i < t->n; i++) {
        if (t->ids[i] < 0 || t->ids[i] >= g_vocab.size) abort();
        if (t->start[i] < 0 || t->start[i] >= t->end[i] || t->end[i] > ncp) abort();
        if (i && t->start[i] < t->start[i - 1]) abort();
    }
}

/* libFuzzer's entry point (it declares none). */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1) return 0;
    const char *s = (const char *)data + 1;
    size_t n = size - 1;
    sb_err e = {0};
    if (data[0] % 4 == 0) {
        sb_vocab v;
        if (sb_vocab_parse(s, n, "fuzz", &v, &e) == SB_OK) {
            sb_tokens t = {0};
            if (sb_tokenize(&v, s, n, &t, &e) == SB_OK) check_tokens(&t, sb_utf8_count(s, n));
            sb_tokens_free(&t);
            sb_vocab_free(&v);
        }
        return 0;
    }
    sb_tokens t = {0};
    int64_t ncp = sb_utf8_count(s, n);
    int rc = sb_tokenize(&g_vocab, s, n, &t, &e);
    if ((rc == SB_OK) != (ncp >= 0)) abort(); /* refused exactly when the UTF-8 is invalid */
    if (rc == SB_OK) check_tokens(&t, ncp);
    sb_tokens_free(&t);
    const char *tab = memchr(s, '\t', n);
    if (tab) {
        sb_encoding enc;
        size_t alen = (size_t)(tab - s);
        if (sb_encode(&g_vocab, s, alen, tab + 1, n - alen - 1, &enc, &e) == SB_OK) {
            if (enc.n < 3 || enc.ids[0] != g_vocab.cls_id || enc.ids[enc.n - 1] != g_vocab.sep_id)
                abort();
            sb_encoding_free(&enc);
        }
    }
    return 0;
}
