/* sprbench tokenize | features | evaluate | squad-synth: the SQuAD data path
 * as commands, useful on their own and how the path is checked end to end. */
#include <errno.h>
#include <getopt.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "sb_cli.h"
#include "sb_cmds.h"
#include "sb_features.h"
#include "sb_io.h"
#include "sb_squad.h"
#include "sb_squad_eval.h"
#include "sb_squad_synth.h"
#include "sb_tokenizer.h"

/* A growable byte buffer for JSON lines written by hand: jansson would
 * allocate a node per number, far too slow for 88k x 384 ids. */
typedef struct outbuf {
    char *p;
    size_t n, cap;
    int oom;
} outbuf;

static void ob_reserve(outbuf *b, size_t more)
{
    if (b->oom || b->n + more <= b->cap) return;
    size_t cap = b->cap ? b->cap : 1 << 16;
    while (cap < b->n + more) cap *= 2;
    char *q = realloc(b->p, cap);
    if (!q) {
        b->oom = 1;
        return;
    }
    b->p = q;
    b->cap = cap;
}
static void ob_put(outbuf *b, const char *s, size_t n)
{
    ob_reserve(b, n);
    if (b->oom) return;
    memcpy(b->p + b->n, s, n);
    b->n += n;
}
static void ob_str(outbuf *b, const char *s) { ob_put(b, s, strlen(s)); }
static void ob_int(outbuf *b, long v)
{
    char t[24];
    int n = snprintf(t, sizeof t, "%ld", v);
    ob_put(b, t, (size_t)n);
}
/* A JSON string via jansson's encoder (escapes, UTF-8 checked). */
static void ob_json_string(outbuf *b, const char *s, size_t len)
{
    json_t *j = json_stringn(s, len);
    char *enc = j ? json_dumps(j, JSON_ENCODE_ANY) : NULL;
    if (enc)
        ob_str(b, enc);
    else
        b->oom = 1;
    free(enc);
    json_decref(j);
}

/* --out FILE goes through sb_out (a file whole or not at all, a device or
 * FIFO in place, every write checked); no --out, or "-", is standard output. */
static int sink_open(sb_out *o, const char *path, sb_err *e)
{
    if (!path || !strcmp(path, "-")) {
        sb_out_stdout(o);
        return SB_OK;
    }
    return sb_out_open(o, path, e);
}

/* ------------------------------------------------------------- tokenize */

/* One text (or question and context) per line: SQuAD's longest context is a
 * few KB, so 16 MiB leaves room for whole documents while an input without
 * newlines (< /dev/zero) cannot take all memory, as getline would let it. */
#define TOKENIZE_LINE_MAX (16 * SB_MIB)

/* Reads one line (embedded NULs kept, the newline kept) of at most max bytes
 * before its newline. Returns its length, -1 at the end of input, -2 when the
 * line is longer than max, -3 out of memory. */
static long read_line_max(FILE *f, char **buf, size_t *cap, size_t max)
{
    size_t n = 0;
    int c = EOF;
    while ((c = getc_unlocked(f)) != EOF) {
        if (c != '\n' && n == max) return -2;
        if (n + 2 > *cap) {
            size_t ncap = *cap ? *cap * 2 : 4096;
            if (ncap > max + 2) ncap = max + 2;
            char *nb = realloc(*buf, ncap);
            if (!nb) return -3;
            *buf = nb;
            *cap = ncap;
        }
        (*buf)[n++] = (char)c;
        if (c == '\n') break;
    }
    if (n == 0 && c == EOF) return -1;
    (*buf)[n] = '\0';
    return (long)n;
}

static void tokenize_help(void)
{
    printf("usage: sprbench tokenize --vocab FILE [--pair] [--json-input] < texts\n\n"
           "BERT uncased WordPiece tokenisation, as Hugging Face's BertTokenizerFast for\n"
           "bert-base-uncased. One text per stdin line; with --pair a line is\n"
           "QUESTION<TAB>CONTEXT. Prints one JSON line per input:\n"
           "  {\"ids\": [...], \"tokens\": [...], \"offsets\": [[start, end], ...]}\n"
           "ids include [CLS]/[SEP]; offsets are code-point offsets (Python string\n"
           "indices) into the text each token came from; special tokens get [0, 0].\n\n"
           "  --vocab FILE     vocab.txt (one token per line)\n"
           "  --pair           encode question and context as a pair\n"
           "  --json-input     each line is a JSON string (or, with --pair, a JSON\n"
           "                   array [question, context]) so texts may hold newlines\n\n"
           "Exit status: 0 ok, 2 bad usage or input (a bad vocab, invalid UTF-8).\n");
}

static int tokenize_line(const sb_vocab *v, const char *a, size_t alen, const char *b, size_t blen,
                         outbuf *ob, sb_err *e)
{
    sb_encoding enc;
    int rc = sb_encode(v, a, alen, b, blen, &enc, e);
    if (rc) return rc;
    ob_str(ob, "{\"ids\": [");
    for (int32_t i = 0; i < enc.n; i++) {
        if (i) ob_str(ob, ", ");
        ob_int(ob, enc.ids[i]);
    }
    ob_str(ob, "], \"tokens\": [");
    for (int32_t i = 0; i < enc.n; i++) {
        if (i) ob_str(ob, ", ");
        ob_json_string(ob, v->tokens[enc.ids[i]], (size_t)v->lens[enc.ids[i]]);
    }
    ob_str(ob, "], \"offsets\": [");
    for (int32_t i = 0; i < enc.n; i++) {
        ob_str(ob, i ? ", [" : "[");
        ob_int(ob, enc.start[i]);
        ob_str(ob, ", ");
        ob_int(ob, enc.end[i]);
        ob_str(ob, "]");
    }
    ob_str(ob, "]}\n");
    sb_encoding_free(&enc);
    return ob->oom ? sb_errf(e, SB_EFAIL, "out of memory") : SB_OK;
}

int sb_cmd_tokenize(int argc, char **argv)
{
    static const struct option opts[] = {{"vocab", required_argument, 0, 'v'},
                                         {"pair", no_argument, 0, 'p'},
                                         {"json-input", no_argument, 0, 'j'},
                                         {"help", no_argument, 0, 'h'},
                                         {0, 0, 0, 0}};
    const char *vocab_path = NULL;
    int pair = 0, json_in = 0, c;
    optind = 1;
    opterr = 0;
    while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
        switch (c) {
        case 'v': vocab_path = optarg; break;
        case 'p': pair = 1; break;
        case 'j': json_in = 1; break;
        case 'h': tokenize_help(); return 0;
        default:
            return sb_cli_usage_error("tokenize", "unknown or incomplete option '%s' (see --help)",
                                      argv[optind - 1]);
        }
    }
    if (optind < argc)
        return sb_cli_usage_error("tokenize", "unexpected argument '%s'", argv[optind]);
    if (!vocab_path) return sb_cli_usage_error("tokenize", "--vocab FILE is required (see --help)");
    sb_err e = {0};
    sb_vocab v;
    if (sb_vocab_load(vocab_path, &v, &e)) return sb_cli_report("tokenize", &e);
    char *line = NULL;
    size_t cap = 0;
    long len;
    long lineno = 0;
    int rc = SB_OK;
    outbuf ob = {0};
    while (!rc && (len = read_line_max(stdin, &line, &cap, TOKENIZE_LINE_MAX)) != -1) {
        lineno++;
        if (len == -2) {
            rc = sb_errf(&e, SB_EUSAGE,
                         "stdin line %ld: longer than 16 MiB, the limit for one text", lineno);
            break;
        }
        if (len == -3) {
            rc = sb_errf(&e, SB_EFAIL, "stdin line %ld: out of memory", lineno);
            break;
        }
        if (len > 0 && line[len - 1] == '\n') line[--len] = '\0';
        ob.n = 0;
        const char *a = line, *b = NULL;
        size_t alen = (size_t)len, blen = 0;
        json_t *doc = NULL;
        if (json_in) {
            json_error_t jerr;
            doc = json_loadb(line, (size_t)len, JSON_DECODE_ANY | JSON_ALLOW_NUL, &jerr);
            if (!doc) {
                rc = sb_errf(&e, SB_EUSAGE, "stdin line %ld: column %d: %s", lineno, jerr.column,
                             jerr.text);
                break;
            }
            const json_t *ja = pair ? json_array_get(doc, 0) : doc,
                         *jb = pair ? json_array_get(doc, 1) : NULL;
            if (!json_is_string(ja) ||
                (pair && (!json_is_string(jb) || json_array_size(doc) != 2))) {
                json_decref(doc);
                rc = sb_errf(&e, SB_EUSAGE, "stdin line %ld: expected %s", lineno,
                             pair ? "a JSON array of two strings" : "a JSON string");
                break;
            }
            a = json_string_value(ja);
            alen = json_string_length(ja);
            if (jb) {
                b = json_string_value(jb);
                blen = json_string_length(jb);
            }
        } else if (pair) {
            char *tab = memchr(line, '\t', (size_t)len);
            if (!tab) {
                rc = sb_errf(&e, SB_EUSAGE, "stdin line %ld: no TAB between question and context",
                             lineno);
                break;
            }
            alen = (size_t)(tab - line);
            b = tab + 1;
            blen = (size_t)len - alen - 1;
        }
        rc = tokenize_line(&v, a, alen, b, blen, &ob, &e);
        json_decref(doc);
        if (rc) {
            char msg[sizeof e.msg];
            snprintf(msg, sizeof msg, "%s", e.msg);
            sb_errf(&e, rc, "stdin line %ld: %s", lineno, msg);
            break;
        }
        if (fwrite(ob.p, 1, ob.n, stdout) != ob.n)
            rc = sb_errf(&e, SB_EFAIL, "stdout: write failed");
    }
    /* A read error would otherwise look like the end of the input. */
    if (!rc && ferror(stdin)) rc = sb_errf(&e, SB_EUSAGE, "stdin: read error: %s", strerror(errno));
    free(line);
    free(ob.p);
    sb_vocab_free(&v);
    if (!rc && fflush(stdout) != 0) rc = sb_errf(&e, SB_EFAIL, "stdout: write failed");
    return rc ? sb_cli_report("tokenize", &e) : 0;
}

/* ------------------------------------------------------------- features */

static void features_help(void)
{
    printf("usage: sprbench features --vocab FILE --data SQUAD.json [options]\n\n"
           "SQuAD features exactly as Hugging Face's run_qa.py makes them with\n"
           "pad_to_max_length: [CLS] question [SEP] context [SEP], only the context\n"
           "truncated, overflowing windows overlapping by the stride. One JSON line per\n"
           "feature, in question order then window order, with HF's field names:\n"
           "  example_id, input_ids (padded to --max-seq), attention_mask, and\n"
           "  start_positions/end_positions (training; 0 = [CLS] when the answer is not\n"
           "  wholly in the window) or, with --eval, offset_mapping ([start, end]\n"
           "  code-point offsets into the context for context tokens, null otherwise).\n"
           "A count summary goes to stderr.\n\n"
           "  --vocab FILE      vocab.txt\n"
           "  --data FILE       SQuAD v1.1 JSON (train-v1.1.json, dev-v1.1.json, ...)\n"
           "  --max-seq N       default 384\n"
           "  --stride N        default 128 (doc_stride)\n"
           "  --eval            evaluation features (offset_mapping instead of positions)\n"
           "  --out FILE        write the lines to FILE (atomically); default stdout\n"
           "  --count-only      build the features, print only the summary\n\n"
           "Check with the real files: the real vocab and train-v1.1.json give 88524\n"
           "training features from 87599 questions.\n"
           "Exit status: 0 ok, 1 write failure, 2 bad usage or input.\n");
}

static void write_feature(outbuf *ob, const sb_squad_set *set, const sb_features *f, int32_t i)
{
    const int32_t L = f->max_seq;
    const sb_squad_example *x = &set->examples[f->example_index[i]];
    ob_str(ob, "{\"example_id\": ");
    ob_json_string(ob, x->id, strlen(x->id));
    ob_str(ob, ", \"input_ids\": [");
    const int32_t *ids = f->input_ids + (size_t)i * (size_t)L;
    for (int32_t k = 0; k < L; k++) {
        if (k) ob_str(ob, ", ");
        ob_int(ob, ids[k]);
    }
    ob_str(ob, "], \"attention_mask\": [");
    const uint8_t *m = f->attention_mask + (size_t)i * (size_t)L;
    for (int32_t k = 0; k < L; k++) ob_str(ob, k ? (m[k] ? ", 1" : ", 0") : (m[k] ? "1" : "0"));
    ob_str(ob, "]");
    if (f->is_eval) {
        ob_str(ob, ", \"offset_mapping\": [");
        const int32_t *os = f->offset_start + (size_t)i * (size_t)L;
        const int32_t *oe = f->offset_end + (size_t)i * (size_t)L;
        for (int32_t k = 0; k < L; k++) {
            if (k) ob_str(ob, ", ");
            if (os[k] < 0) {
                ob_str(ob, "null");
            } else {
                ob_str(ob, "[");
                ob_int(ob, os[k]);
                ob_str(ob, ", ");
                ob_int(ob, oe[k]);
                ob_str(ob, "]");
            }
        }
        ob_str(ob, "]");
    } else {
        ob_str(ob, ", \"start_positions\": ");
        ob_int(ob, f->start_positions[i]);
        ob_str(ob, ", \"end_positions\": ");
        ob_int(ob, f->end_positions[i]);
    }
    ob_str(ob, "}\n");
}

int sb_cmd_features(int argc, char **argv)
{
    static const struct option opts[] = {{"vocab", required_argument, 0, 'v'},
                                         {"data", required_argument, 0, 'd'},
                                         {"max-seq", required_argument, 0, 'm'},
                                         {"stride", required_argument, 0, 's'},
                                         {"eval", no_argument, 0, 'E'},
                                         {"out", required_argument, 0, 'o'},
                                         {"count-only", no_argument, 0, 'c'},
                                         {"help", no_argument, 0, 'h'},
                                         {0, 0, 0, 0}};
    const char *vocab_path = NULL, *data_path = NULL, *out_path = NULL;
    long max_seq = 384, stride = 128;
    int is_eval = 0, count_only = 0, c;
    sb_err e = {0};
    optind = 1;
    opterr = 0;
    while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
        switch (c) {
        case 'v': vocab_path = optarg; break;
        case 'd': data_path = optarg; break;
        case 'm':
            if (sb_parse_long(optarg, 8, 65536, "--max-seq", &max_seq, &e))
                return sb_cli_report("features", &e);
            break;
        case 's':
            if (sb_parse_long(optarg, 0, 32767, "--stride", &stride, &e))
                return sb_cli_report("features", &e);
            break;
        case 'E': is_eval = 1; break;
        case 'o': out_path = optarg; break;
        case 'c': count_only = 1; break;
        case 'h': features_help(); return 0;
        default:
            return sb_cli_usage_error("features", "unknown or incomplete option '%s' (see --help)",
                                      argv[optind - 1]);
        }
    }
    if (optind < argc)
        return sb_cli_usage_error("features", "unexpected argument '%s'", argv[optind]);
    if (!vocab_path || !data_path)
        return sb_cli_usage_error("features",
                                  "--vocab FILE and --data FILE are required (see --help)");
    if (stride >= max_seq / 2)
        return sb_cli_usage_error("features", "--stride %ld must be below half of --max-seq %ld",
                                  stride, max_seq);
    /* an output that cannot be written is found before the tokenising */
    if (!count_only && out_path && strcmp(out_path, "-") != 0 &&
        sb_cli_check_out_file("--out", out_path, &e))
        return sb_cli_report("features", &e);
    sb_vocab v;
    if (sb_vocab_load(vocab_path, &v, &e)) return sb_cli_report("features", &e);
    double t0 = sb_now();
    sb_squad_set set;
    if (sb_squad_load(data_path, &set, &e)) {
        sb_vocab_free(&v);
        return sb_cli_report("features", &e);
    }
    double t1 = sb_now();
    sb_features f;
    int rc = sb_features_build(&v, &set, (int32_t)max_seq, (int32_t)stride, is_eval, &f, &e);
    double t2 = sb_now();
    if (rc) {
        char msg[sizeof e.msg];
        snprintf(msg, sizeof msg, "%s", e.msg);
        sb_errf(&e, rc, "%s: %s", data_path, msg);
        sb_squad_free(&set);
        sb_vocab_free(&v);
        return sb_cli_report("features", &e);
    }
    if (!count_only) {
        sb_out s;
        int opened = (rc = sink_open(&s, out_path, &e)) == SB_OK;
        outbuf ob = {0};
        for (int32_t i = 0; !rc && i < f.n; i++) {
            ob.n = 0;
            write_feature(&ob, &set, &f, i);
            if (ob.oom)
                rc = sb_errf(&e, SB_EFAIL, "out of memory");
            else
                rc = sb_out_write(&s, ob.p, ob.n, &e);
        }
        free(ob.p);
        if (opened) {
            if (!rc)
                rc = sb_out_commit(&s, &e);
            else
                sb_out_abort(&s);
        }
    }
    if (!rc) {
        long bytes = 0;
        FILE *df = fopen(data_path, "rb");
        if (df && fseek(df, 0, SEEK_END) == 0) bytes = ftell(df);
        if (df) fclose(df);
        fprintf(
            stderr,
            "features: %d questions, %d paragraphs -> %d %s features (max_seq %ld, stride %ld); "
            "%d questions truncated, %d answers not at answer_start\n"
            "features: read %.2f s, tokenised+featurised %.2f s (%.0f features/s, %.2f MB/s of "
            "JSON)\n",
            set.n_examples, set.n_contexts, f.n, is_eval ? "eval" : "training", max_seq, stride,
            f.n_truncated_questions, set.n_misaligned, t1 - t0, t2 - t1,
            f.n / (t2 - t1 > 1e-9 ? t2 - t1 : 1e-9),
            bytes / 1e6 / (t2 - t1 > 1e-9 ? t2 - t1 : 1e-9));
    }
    sb_features_free(&f);
    sb_squad_free(&set);
    sb_vocab_free(&v);
    return rc ? sb_cli_report("features", &e) : 0;
}

/* ------------------------------------------------------------- evaluate */

static void evaluate_help(void)
{
    printf("usage: sprbench evaluate --data DEV.json --predictions PREDS.json\n\n"
           "Official SQuAD v1.1 scores (evaluate-v1.1.py): answers normalised (lower\n"
           "case, no punctuation, no articles a/an/the, single spaces); exact match and\n"
           "token F1, each the best over a question's ground truths; a question without a\n"
           "prediction scores 0, predictions for unknown ids are ignored. Prints\n"
           "  {\"exact_match\": EM, \"f1\": F1}\n"
           "as the official script does (percentages).\n\n"
           "  --data FILE          SQuAD v1.1 JSON with answers\n"
           "  --predictions FILE   JSON object: question id -> answer text\n\n"
           "Exit status: 0 ok, 2 bad usage or input.\n");
}

int sb_cmd_evaluate(int argc, char **argv)
{
    static const struct option opts[] = {{"data", required_argument, 0, 'd'},
                                         {"predictions", required_argument, 0, 'p'},
                                         {"help", no_argument, 0, 'h'},
                                         {0, 0, 0, 0}};
    const char *data_path = NULL, *pred_path = NULL;
    int c;
    optind = 1;
    opterr = 0;
    while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
        switch (c) {
        case 'd': data_path = optarg; break;
        case 'p': pred_path = optarg; break;
        case 'h': evaluate_help(); return 0;
        default:
            return sb_cli_usage_error("evaluate", "unknown or incomplete option '%s' (see --help)",
                                      argv[optind - 1]);
        }
    }
    if (optind < argc)
        return sb_cli_usage_error("evaluate", "unexpected argument '%s'", argv[optind]);
    if (!data_path || !pred_path)
        return sb_cli_usage_error("evaluate",
                                  "--data FILE and --predictions FILE are required (see --help)");
    sb_err e = {0};
    sb_squad_set set;
    if (sb_squad_load(data_path, &set, &e)) return sb_cli_report("evaluate", &e);
    sb_squad_predictions p;
    if (sb_squad_predictions_read(pred_path, &p, &e)) {
        sb_squad_free(&set);
        return sb_cli_report("evaluate", &e);
    }
    double em, f1;
    int32_t answered;
    sb_squad_score(&set, &p, &em, &f1, &answered);
    char a[64], b[64];
    sb_format_pyfloat(em, a, sizeof a);
    sb_format_pyfloat(f1, b, sizeof b);
    printf("{\"exact_match\": %s, \"f1\": %s}\n", a, b);
    if (answered < set.n_examples)
        fprintf(stderr, "evaluate: %d of %d questions unanswered (scored 0)\n",
                set.n_examples - answered, set.n_examples);
    sb_squad_predictions_free(&p);
    sb_squad_free(&set);
    return 0;
}

/* ---------------------------------------------------------- squad-synth */

static void synth_help(void)
{
    printf("usage: sprbench squad-synth --questions N --out FILE.json [--seed S] [--dev]\n\n"
           "Writes a deterministic synthetic data set in the official SQuAD v1.1 layout.\n"
           "Paragraphs state 3-5 facts \"<Name> likes <value>.\" with values of distinct\n"
           "kinds (a color, a city, a sport...) and questions ask \"Which <kind> does\n"
           "<Name> like?\"; the answer is the one-word value of that kind. A small model\n"
           "trained from scratch learns it, so the default run and the tests work without\n"
           "the real SQuAD files. Every word is a whole token of bert-base-uncased and of\n"
           "the built-in vocabulary.\n\n"
           "  --questions N       number of questions (1..10000000)\n"
           "  --seed S            default 1; same N and S give the same file\n"
           "  --dev               a held-apart split (another random stream)\n"
           "  --out FILE          the JSON file (written atomically)\n"
           "  --write-vocab FILE  also write the built-in vocabulary (vocab.txt format)\n\n"
           "Exit status: 0 ok, 1 write failure, 2 bad usage.\n");
}

int sb_cmd_squad_synth(int argc, char **argv)
{
    static const struct option opts[] = {{"questions", required_argument, 0, 'n'},
                                         {"seed", required_argument, 0, 's'},
                                         {"dev", no_argument, 0, 'D'},
                                         {"out", required_argument, 0, 'o'},
                                         {"write-vocab", required_argument, 0, 'V'},
                                         {"help", no_argument, 0, 'h'},
                                         {0, 0, 0, 0}};
    long n = -1, seed = 1;
    int dev = 0, c;
    const char *out = NULL, *vocab_out = NULL;
    sb_err e = {0};
    optind = 1;
    opterr = 0;
    while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
        switch (c) {
        case 'n':
            if (sb_parse_long(optarg, 1, 10000000, "--questions", &n, &e))
                return sb_cli_report("squad-synth", &e);
            break;
        case 's':
            if (sb_parse_long(optarg, 0, 0x7fffffffL, "--seed", &seed, &e))
                return sb_cli_report("squad-synth", &e);
            break;
        case 'D': dev = 1; break;
        case 'o': out = optarg; break;
        case 'V': vocab_out = optarg; break;
        case 'h': synth_help(); return 0;
        default:
            return sb_cli_usage_error(
                "squad-synth", "unknown or incomplete option '%s' (see --help)", argv[optind - 1]);
        }
    }
    if (optind < argc)
        return sb_cli_usage_error("squad-synth", "unexpected argument '%s'", argv[optind]);
    if (n < 0 || !out)
        return sb_cli_usage_error("squad-synth",
                                  "--questions N and --out FILE are required (see --help)");
    if (sb_cli_check_out_file("--out", out, &e) ||
        (vocab_out && sb_cli_check_out_file("--write-vocab", vocab_out, &e)))
        return sb_cli_report("squad-synth", &e);
    if (sb_squad_synth_write(out, (int32_t)n, (uint64_t)seed, dev, &e))
        return sb_cli_report("squad-synth", &e);
    if (vocab_out) {
        sb_vocab v;
        if (sb_vocab_builtin_synth(&v, &e)) return sb_cli_report("squad-synth", &e);
        outbuf ob = {0};
        for (int32_t i = 0; i < v.size; i++) {
            ob_put(&ob, v.tokens[i], (size_t)v.lens[i]);
            ob_put(&ob, "\n", 1);
        }
        int rc = ob.oom ? sb_errf(&e, SB_EFAIL, "out of memory")
                        : sb_write_file_atomic(vocab_out, ob.p, ob.n, &e);
        free(ob.p);
        sb_vocab_free(&v);
        if (rc) return sb_cli_report("squad-synth", &e);
    }
    return 0;
}
