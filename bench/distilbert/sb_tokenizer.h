/* sb_tokenizer: the BERT uncased WordPiece tokenizer, as Hugging Face's
 * BertTokenizerFast for bert-base-uncased (tokenizers' BertNormalizer +
 * BertPreTokenizer + WordPiece + the special tokens matched verbatim).
 * Owns: vocab.txt loading (and a small built-in vocabulary for the synthetic
 * set), text -> token ids with code-point offsets into the original text,
 * and single/pair encodings with [CLS]/[SEP]. Unicode data from utf8proc. */
#ifndef SB_TOKENIZER_H
#define SB_TOKENIZER_H
#include <stddef.h>
#include <stdint.h>
#include "sb_err.h"

typedef struct sb_vocab {
    int32_t size;       /* number of tokens; ids are 0..size-1 (line order) */
    char **tokens;      /* id -> NUL-terminated token (points into blob) */
    int32_t *lens;      /* id -> byte length of the token */
    char *blob;         /* owned storage of all token text */
    uint32_t hash_mask; /* open addressing: capacity - 1 */
    int32_t *hash;      /* slot -> id or -1 */
    int32_t pad_id, unk_id, cls_id, sep_id, mask_id; /* mask_id -1 if absent */
} sb_vocab;

/* Loads a vocab.txt (one token per line, id = line number). Refuses a file
 * without [UNK], [CLS], [SEP] or [PAD], invalid UTF-8, or duplicate tokens
 * (naming the line). */
int sb_vocab_load(const char *path, sb_vocab *v, sb_err *e);
/* Same from memory; `name` names the source in messages. */
int sb_vocab_parse(const char *data, size_t len, const char *name, sb_vocab *v, sb_err *e);
void sb_vocab_free(sb_vocab *v);
/* id of an exact token (bytes), or -1. */
int32_t sb_vocab_find(const sb_vocab *v, const char *tok, size_t len);

/* A growable list of tokens. start/end are code-point offsets into the text
 * that was tokenized (Python string indices, end exclusive); special tokens
 * added by an encoding carry (0, 0) as Hugging Face does. */
typedef struct sb_tokens {
    int32_t n, cap;
    int32_t *ids;
    int32_t *start, *end;
} sb_tokens;

void sb_tokens_clear(sb_tokens *t); /* n = 0, keeps memory */
void sb_tokens_free(sb_tokens *t);

/* Tokenizes UTF-8 text (no [CLS]/[SEP]) and appends to out. SB_EUSAGE with
 * the byte offset on invalid UTF-8. Reentrant: the vocab is read-only. */
int sb_tokenize(const sb_vocab *v, const char *text, size_t len, sb_tokens *out, sb_err *e);

/* An encoding with special tokens: [CLS] a [SEP] or [CLS] a [SEP] b [SEP]. */
typedef struct sb_encoding {
    int32_t n;
    int32_t *ids, *start, *end;
    int8_t *seq; /* -1 special token, 0 first text, 1 second text */
} sb_encoding;
/* b == NULL for a single text. */
int sb_encode(const sb_vocab *v, const char *a, size_t alen, const char *b, size_t blen,
              sb_encoding *out, sb_err *e);
void sb_encoding_free(sb_encoding *enc);

/* Number of code points of valid UTF-8 (-1 if invalid). */
int64_t sb_utf8_count(const char *s, size_t len);

#endif
