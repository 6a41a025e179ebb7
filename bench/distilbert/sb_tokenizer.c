#include "sb_tokenizer.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <utf8proc.h>
#include "sb_io.h"

/* Hugging Face's WordPiece gives up on a word longer than this (in chars). */
enum { SB_MAX_WORD_CHARS = 100 };

/* ---------------------------------------------------------------- vocab */

static uint32_t hash_bytes(const char *s, size_t n)
{
    uint32_t h = 2166136261u;
    for (size_t i = 0; i < n; i++) {
        h ^= (uint8_t)s[i];
        h *= 16777619u;
    }
    return h;
}

int32_t sb_vocab_find(const sb_vocab *v, const char *tok, size_t len)
{
    if (!v->hash) return -1;
    uint32_t slot = hash_bytes(tok, len) & v->hash_mask;
    for (;;) {
        int32_t id = v->hash[slot];
        if (id < 0) return -1;
        if ((size_t)v->lens[id] == len && memcmp(v->tokens[id], tok, len) == 0) return id;
        slot = (slot + 1) & v->hash_mask;
    }
}

void sb_vocab_free(sb_vocab *v)
{
    if (!v) return;
    free(v->tokens);
    free(v->lens);
    free(v->blob);
    free(v->hash);
    memset(v, 0, sizeof *v);
}

/* Line-oriented parse: id = line number; a trailing "\r" is dropped (Windows
 * files), a final newline does not start a token. */
int sb_vocab_parse(const char *data, size_t len, const char *name, sb_vocab *v, sb_err *e)
{
    memset(v, 0, sizeof *v);
    v->pad_id = v->unk_id = v->cls_id = v->sep_id = v->mask_id = -1;
    if (len == 0) return sb_errf(e, SB_EUSAGE, "%s: empty vocabulary", name);
    int32_t lines = 0;
    for (size_t i = 0; i < len; i++)
        if (data[i] == '\n') lines++;
    if (data[len - 1] != '\n') lines++;
    if (lines > 16 * 1024 * 1024) return sb_errf(e, SB_EUSAGE, "%s: too many lines", name);
    v->blob = malloc(len + 1);
    v->tokens = calloc((size_t)lines, sizeof *v->tokens);
    v->lens = calloc((size_t)lines, sizeof *v->lens);
    uint32_t cap = 16;
    while (cap < (uint32_t)lines * 2u) cap <<= 1;
    v->hash = malloc(sizeof *v->hash * cap);
    if (!v->blob || !v->tokens || !v->lens || !v->hash) {
        sb_vocab_free(v);
        return sb_errf(e, SB_EFAIL, "%s: out of memory", name);
    }
    memset(v->hash, 0xff, sizeof *v->hash * cap);
    v->hash_mask = cap - 1;
    memcpy(v->blob, data, len);
    v->blob[len] = '\0';
    size_t pos = 0;
    for (int32_t id = 0; id < lines; id++) {
        size_t b = pos;
        while (pos < len && v->blob[pos] != '\n') pos++;
        size_t n = pos - b;
        if (n > 0 && v->blob[b + n - 1] == '\r') n--;
        v->blob[b + n] = '\0';
        pos++;
        const char *tok = v->blob + b;
        if (memchr(tok, '\0', n)) {
            sb_vocab_free(v);
            return sb_errf(e, SB_EUSAGE, "%s:%d: NUL byte in token", name, id + 1);
        }
        for (size_t k = 0; k < n;) {
            utf8proc_int32_t cp;
            utf8proc_ssize_t step = utf8proc_iterate((const utf8proc_uint8_t *)tok + k,
                                                     (utf8proc_ssize_t)(n - k), &cp);
            if (step <= 0) {
                sb_vocab_free(v);
                return sb_errf(e, SB_EUSAGE, "%s:%d: invalid UTF-8", name, id + 1);
            }
            k += (size_t)step;
        }
        v->tokens[id] = v->blob + b;
        v->lens[id] = (int32_t)n;
        if (n == 0) continue; /* an empty line holds an id but matches nothing */
        uint32_t slot = hash_bytes(tok, n) & v->hash_mask;
        while (v->hash[slot] >= 0) {
            int32_t other = v->hash[slot];
            if ((size_t)v->lens[other] == n && memcmp(v->tokens[other], tok, n) == 0) {
                sb_errf(e, SB_EUSAGE, "%s:%d: duplicate token \"%.64s\" (also line %d)", name,
                        id + 1, tok, other + 1);
                sb_vocab_free(v);
                return SB_EUSAGE;
            }
            slot = (slot + 1) & v->hash_mask;
        }
        v->hash[slot] = id;
    }
    v->size = lines;
    v->pad_id = sb_vocab_find(v, "[PAD]", 5);
    v->unk_id = sb_vocab_find(v, "[UNK]", 5);
    v->cls_id = sb_vocab_find(v, "[CLS]", 5);
    v->sep_id = sb_vocab_find(v, "[SEP]", 5);
    v->mask_id = sb_vocab_find(v, "[MASK]", 6);
    const char *missing = v->unk_id < 0 ? "[UNK]"
        : v->cls_id < 0                 ? "[CLS]"
        : v->sep_id < 0                 ? "[SEP]"
        : v->pad_id < 0                 ? "[PAD]"
                                        : NULL;
    if (missing) {
        sb_vocab_free(v);
        return sb_errf(e, SB_EUSAGE, "%s: not a BERT vocabulary: no %s token", name, missing);
    }
    return SB_OK;
}

int sb_vocab_load(const char *path, sb_vocab *v, sb_err *e)
{
    char *data;
    size_t len;
    /* bert-base-uncased's vocab.txt is 232 KB and the largest BERT vocabularies
     * (multilingual, 250k tokens) a few MB: 64 MiB is far past any of them. */
    int rc = sb_read_file_max(path, 64 * SB_MIB, "vocabulary", &data, &len, e);
    if (rc) return rc;
    rc = sb_vocab_parse(data, len, path, v, e);
    free(data);
    return rc;
}

/* ------------------------------------------------------------ characters */

/* Rust's char::is_whitespace (the White_Space property), which tokenizers'
 * BertNormalizer and BertPreTokenizer use. */
static int is_ws(int32_t c)
{
    if (c == ' ' || (c >= 9 && c <= 13)) return 1;
    if (c < 0x85) return 0;
    return c == 0x85 || c == 0xA0 || c == 0x1680 || (c >= 0x2000 && c <= 0x200A) || c == 0x2028 ||
        c == 0x2029 || c == 0x202F || c == 0x205F || c == 0x3000;
}

/* Rust's char::is_other (categories C*), except tab, newline and return. */
static int is_control(int32_t c)
{
    if (c == '\t' || c == '\n' || c == '\r') return 0;
    if (c < 0x20 || c == 0x7F) return 1;
    if (c < 0x80) return 0;
    switch (utf8proc_category(c)) {
    case UTF8PROC_CATEGORY_CC:
    case UTF8PROC_CATEGORY_CF:
    case UTF8PROC_CATEGORY_CN:
    case UTF8PROC_CATEGORY_CO:
    case UTF8PROC_CATEGORY_CS: return 1;
    default: return 0;
    }
}

static int is_punct(int32_t c)
{
    if ((c >= 33 && c <= 47) || (c >= 58 && c <= 64) || (c >= 91 && c <= 96) ||
        (c >= 123 && c <= 126))
        return 1;
    if (c < 0x80) return 0;
    switch (utf8proc_category(c)) {
    case UTF8PROC_CATEGORY_PC:
    case UTF8PROC_CATEGORY_PD:
    case UTF8PROC_CATEGORY_PS:
    case UTF8PROC_CATEGORY_PE:
    case UTF8PROC_CATEGORY_PI:
    case UTF8PROC_CATEGORY_PF:
    case UTF8PROC_CATEGORY_PO: return 1;
    default: return 0;
    }
}

/* The CJK Unified Ideograph blocks BERT pads with spaces (not Hangul, kana). */
static int is_cjk(int32_t c)
{
    return (c >= 0x4E00 && c <= 0x9FFF) || (c >= 0x3400 && c <= 0x4DBF) ||
        (c >= 0x20000 && c <= 0x2A6DF) || (c >= 0x2A700 && c <= 0x2B73F) ||
        (c >= 0x2B740 && c <= 0x2B81F) || (c >= 0x2B820 && c <= 0x2CEAF) ||
        (c >= 0xF900 && c <= 0xFAFF) || (c >= 0x2F800 && c <= 0x2FA1F);
}

int64_t sb_utf8_count(const char *s, size_t len)
{
    int64_t n = 0;
    for (size_t i = 0; i < len;) {
        if ((uint8_t)s[i] < 0x80) {
            i++;
        } else {
            utf8proc_int32_t cp;
            utf8proc_ssize_t k = utf8proc_iterate((const utf8proc_uint8_t *)s + i,
                                                  (utf8proc_ssize_t)(len - i), &cp);
            if (k <= 0) return -1;
            i += (size_t)k;
        }
        n++;
    }
    return n;
}

/* ------------------------------------------------------------- tokenize */

void sb_tokens_clear(sb_tokens *t) { t->n = 0; }

void sb_tokens_free(sb_tokens *t)
{
    if (!t) return;
    free(t->ids);
    free(t->start);
    free(t->end);
    memset(t, 0, sizeof *t);
}

static int tokens_push(sb_tokens *t, int32_t id, int32_t start, int32_t end)
{
    if (t->n == t->cap) {
        int32_t cap = t->cap ? t->cap * 2 : 64;
        int32_t *a = realloc(t->ids, sizeof *a * (size_t)cap);
        if (!a) return -1;
        t->ids = a;
        a = realloc(t->start, sizeof *a * (size_t)cap);
        if (!a) return -1;
        t->start = a;
        a = realloc(t->end, sizeof *a * (size_t)cap);
        if (!a) return -1;
        t->end = a;
        t->cap = cap;
    }
    t->ids[t->n] = id;
    t->start[t->n] = start;
    t->end[t->n] = end;
    t->n++;
    return 0;
}

/* One word being assembled: normalised code points, their UTF-8 bytes (with
 * room for a "##" prefix) and, per code point, its index in the original text. */
typedef struct word_buf {
    int32_t n; /* code points */
    int32_t orig[SB_MAX_WORD_CHARS + 1];
    int32_t byte_at[SB_MAX_WORD_CHARS + 2]; /* byte offset of each code point */
    char bytes[2 + 4 * (SB_MAX_WORD_CHARS + 1)];
    int32_t first_orig, last_orig; /* for [UNK] offsets of overlong words */
    int overlong;
} word_buf;

static int word_flush(const sb_vocab *v, word_buf *w, sb_tokens *out)
{
    if (w->n == 0 && !w->overlong) return 0;
    int rc = 0;
    if (w->overlong) {
        rc = tokens_push(out, v->unk_id, w->first_orig, w->last_orig + 1);
    } else {
        /* Greedy longest-match-first; continuation pieces are looked up with
         * "##" written just before them in the byte buffer. */
        char *word = w->bytes + 2;
        int32_t n = w->n, start = 0, first = out->n;
        while (start < n) {
            int32_t end = n, id = -1;
            for (; end > start; end--) {
                size_t b0 = (size_t)w->byte_at[start], b1 = (size_t)w->byte_at[end];
                if (start > 0) {
                    char *piece = w->bytes + b0; /* == word + b0 - 2 */
                    char save0 = piece[0], save1 = piece[1];
                    piece[0] = '#';
                    piece[1] = '#';
                    id = sb_vocab_find(v, piece, b1 - b0 + 2);
                    piece[0] = save0;
                    piece[1] = save1;
                } else {
                    id = sb_vocab_find(v, word, b1 - b0);
                }
                if (id >= 0) break;
            }
            if (id < 0) {
                out->n = first;
                rc = tokens_push(out, v->unk_id, w->orig[0], w->orig[n - 1] + 1);
                break;
            }
            if ((rc = tokens_push(out, id, w->orig[start], w->orig[end - 1] + 1))) break;
            start = end;
        }
    }
    w->n = 0;
    w->overlong = 0;
    return rc;
}

/* Appends one normalised code point to the current word. */
static void word_add(word_buf *w, int32_t cp, int32_t orig)
{
    if (w->overlong) {
        w->last_orig = orig;
        return;
    }
    if (w->n == SB_MAX_WORD_CHARS) {
        w->overlong = 1;
        w->first_orig = w->orig[0];
        w->last_orig = orig;
        return;
    }
    int32_t b = w->n ? w->byte_at[w->n] : 0;
    w->orig[w->n] = orig;
    w->byte_at[w->n] = b;
    b += (int32_t)utf8proc_encode_char(cp, (utf8proc_uint8_t *)w->bytes + 2 + b);
    w->n++;
    w->byte_at[w->n] = b;
}

/* The normaliser and pre-tokenizer for one original code point: dropped,
 * whitespace (ends a word), punctuation (a word of its own), else appended
 * after NFD, removal of nonspacing marks (Mn) and lowercasing. */
static int feed_char(const sb_vocab *v, word_buf *w, int32_t cp, int32_t orig, sb_tokens *out)
{
    if (cp < 0x80) {
        if (cp == ' ' || cp == '\t' || cp == '\n' || cp == '\r') return word_flush(v, w, out);
        if (cp < 0x20 || cp == 0x7F) return 0;
        if (is_punct(cp)) {
            if (word_flush(v, w, out)) return -1;
            word_add(w, cp, orig);
            return word_flush(v, w, out);
        }
        if (cp >= 'A' && cp <= 'Z') cp += 32;
        word_add(w, cp, orig);
        return 0;
    }
    if (cp == 0xFFFD || is_control(cp)) return 0;
    if (is_ws(cp)) return word_flush(v, w, out);
    if (is_cjk(cp)) {
        if (word_flush(v, w, out)) return -1;
        utf8proc_int32_t d[4];
        int lb;
        utf8proc_ssize_t nd = utf8proc_decompose_char(cp, d, 4, UTF8PROC_DECOMPOSE, &lb);
        for (utf8proc_ssize_t i = 0; i < nd && i < 4; i++) word_add(w, d[i], orig);
        if (nd <= 0) word_add(w, cp, orig);
        return word_flush(v, w, out);
    }
    utf8proc_int32_t d[32];
    int lb = 0;
    utf8proc_ssize_t nd = utf8proc_decompose_char(cp, d, 32, UTF8PROC_DECOMPOSE, &lb);
    if (nd <= 0 || nd > 32) {
        d[0] = cp;
        nd = 1;
    }
    for (utf8proc_ssize_t i = 0; i < nd; i++) {
        int32_t c = d[i];
        if (utf8proc_category(c) == UTF8PROC_CATEGORY_MN) continue;
        c = utf8proc_tolower(c);
        /* A decomposition can yield whitespace or punctuation (rare; the
         * pre-tokenizer sees the normalised text, so split there too). */
        if (is_ws(c)) {
            if (word_flush(v, w, out)) return -1;
        } else if (is_punct(c)) {
            if (word_flush(v, w, out)) return -1;
            word_add(w, c, orig);
            if (word_flush(v, w, out)) return -1;
        } else {
            word_add(w, c, orig);
        }
    }
    return 0;
}

/* The special tokens a BertTokenizerFast matches verbatim in raw text before
 * any normalisation. */
static int32_t match_special(const sb_vocab *v, const char *s, size_t left, size_t *mlen)
{
    static const char *const names[] = {"[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"};
    for (int i = 0; i < 5; i++) {
        size_t l = strlen(names[i]);
        if (left >= l && memcmp(s, names[i], l) == 0) {
            int32_t id = sb_vocab_find(v, names[i], l);
            if (id >= 0) {
                *mlen = l;
                return id;
            }
        }
    }
    return -1;
}

int sb_tokenize(const sb_vocab *v, const char *text, size_t len, sb_tokens *out, sb_err *e)
{
    word_buf w;
    w.n = 0;
    w.overlong = 0;
    w.byte_at[0] = 0;
    int32_t orig = 0;
    for (size_t i = 0; i < len;) {
        uint8_t b = (uint8_t)text[i];
        int32_t cp;
        if (b == '[') {
            size_t ml;
            int32_t id = match_special(v, text + i, len - i, &ml);
            if (id >= 0) {
                if (word_flush(v, &w, out) || tokens_push(out, id, orig, orig + (int32_t)ml))
                    return sb_errf(e, SB_EFAIL, "out of memory");
                i += ml;
                orig += (int32_t)ml;
                continue;
            }
        }
        if (b < 0x80) {
            cp = b;
            i++;
        } else {
            utf8proc_int32_t c;
            utf8proc_ssize_t k = utf8proc_iterate((const utf8proc_uint8_t *)text + i,
                                                  (utf8proc_ssize_t)(len - i), &c);
            if (k <= 0) return sb_errf(e, SB_EUSAGE, "invalid UTF-8 at byte %zu", i);
            cp = c;
            i += (size_t)k;
        }
        if (feed_char(v, &w, cp, orig, out)) return sb_errf(e, SB_EFAIL, "out of memory");
        orig++;
    }
    if (word_flush(v, &w, out)) return sb_errf(e, SB_EFAIL, "out of memory");
    return SB_OK;
}

/* ------------------------------------------------------------- encodings */

void sb_encoding_free(sb_encoding *enc)
{
    if (!enc) return;
    free(enc->ids);
    free(enc->start);
    free(enc->end);
    free(enc->seq);
    memset(enc, 0, sizeof *enc);
}

int sb_encode(const sb_vocab *v, const char *a, size_t alen, const char *b, size_t blen,
              sb_encoding *out, sb_err *e)
{
    memset(out, 0, sizeof *out);
    sb_tokens ta = {0}, tb = {0};
    int rc = sb_tokenize(v, a, alen, &ta, e);
    if (!rc && b) rc = sb_tokenize(v, b, blen, &tb, e);
    if (rc) goto done;
    int32_t n = ta.n + tb.n + (b ? 3 : 2);
    out->ids = malloc(sizeof(int32_t) * (size_t)n);
    out->start = malloc(sizeof(int32_t) * (size_t)n);
    out->end = malloc(sizeof(int32_t) * (size_t)n);
    out->seq = malloc((size_t)n);
    if (!out->ids || !out->start || !out->end || !out->seq) {
        sb_encoding_free(out);
        rc = sb_errf(e, SB_EFAIL, "out of memory");
        goto done;
    }
    int32_t k = 0;
#define SB_EMIT(id_, s_, e_, q_) \
    do {                         \
        out->ids[k] = (id_);     \
        out->start[k] = (s_);    \
        out->end[k] = (e_);      \
        out->seq[k] = (q_);      \
        k++;                     \
    } while (0)
    SB_EMIT(v->cls_id, 0, 0, -1);
    for (int32_t i = 0; i < ta.n; i++) SB_EMIT(ta.ids[i], ta.start[i], ta.end[i], 0);
    SB_EMIT(v->sep_id, 0, 0, -1);
    if (b) {
        for (int32_t i = 0; i < tb.n; i++) SB_EMIT(tb.ids[i], tb.start[i], tb.end[i], 1);
        SB_EMIT(v->sep_id, 0, 0, -1);
    }
#undef SB_EMIT
    out->n = k;
done:
    sb_tokens_free(&ta);
    sb_tokens_free(&tb);
    return rc;
}
