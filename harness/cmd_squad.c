/* sprbench tokenize | features | evaluate | squad-synth: the SQuAD data path
 * as commands, useful on their own and how the path is checked end to end.
 * The lines they print are bench/distilbert/sb_squad_lines'; this parses,
 * calls and reports. */
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "sb_cli.h"
#include "sb_cmds.h"
#include "sb_opts.h"
#include "sb_squad_eval.h"
#include "sb_squad_lines.h"
#include "sb_squad_synth.h"

/* The squad commands' numbers and their ranges, keyed by option. */
static int to_long(const char *key, const char *v, const char *what, long *out, sb_err *e)
{
    static const struct {
        const char *key;
        long lo, hi;
    } r[] = {{"max-seq", 8, 65536},
             {"stride", 0, 32767},
             {"questions", 1, 10000000},
             {"seed", 0, 0x7fffffffL}};
    for (size_t i = 0; i < sizeof r / sizeof r[0]; i++)
        if (!strcmp(key, r[i].key)) return sb_parse_long(v, r[i].lo, r[i].hi, what, out, e);
    return sb_errf(e, SB_EFAIL, "%s: no range", what);
}
static const sb_opt_ranges g_ranges = {to_long, NULL, NULL, NULL};

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

typedef struct tokenize_opts {
    const char *vocab;
    int pair, json_in;
} tokenize_opts;
#define O(f) offsetof(tokenize_opts, f)
static const sb_opt g_tokenize_opts[] = {
    {"vocab", SB_OPT_STR, O(vocab), SB_OPT_NOSET, NULL},
    {"pair", SB_OPT_FLAG, O(pair), SB_OPT_NOSET, NULL},
    {"json-input", SB_OPT_FLAG, O(json_in), SB_OPT_NOSET, NULL},
    {NULL, 0, 0, 0, NULL}};
#undef O

int sb_cmd_tokenize(int argc, char **argv)
{
    tokenize_opts o = {0};
    int code = sb_cli_opts("tokenize", argc, argv, g_tokenize_opts, &o, &g_ranges, tokenize_help);
    if (code >= 0) return code;
    if (!o.vocab) return sb_cli_usage_error("tokenize", "--vocab FILE is required (see --help)");
    sb_err e = {0};
    sb_vocab v;
    if (sb_vocab_load(o.vocab, &v, &e)) return sb_cli_report("tokenize", &e);
    int rc = sb_tokenize_stream(&v, stdin, stdout, o.pair, o.json_in, &e);
    sb_vocab_free(&v);
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

typedef struct features_opts {
    const char *vocab, *data, *out;
    long max_seq, stride;
    int is_eval, count_only;
} features_opts;
#define O(f) offsetof(features_opts, f)
static const sb_opt g_features_opts[] = {
    {"vocab", SB_OPT_STR, O(vocab), SB_OPT_NOSET, NULL},
    {"data", SB_OPT_STR, O(data), SB_OPT_NOSET, NULL},
    {"max-seq", SB_OPT_LONG, O(max_seq), SB_OPT_NOSET, "max-seq"},
    {"stride", SB_OPT_LONG, O(stride), SB_OPT_NOSET, "stride"},
    {"eval", SB_OPT_FLAG, O(is_eval), SB_OPT_NOSET, NULL},
    {"out", SB_OPT_STR, O(out), SB_OPT_NOSET, NULL},
    {"count-only", SB_OPT_FLAG, O(count_only), SB_OPT_NOSET, NULL},
    {NULL, 0, 0, 0, NULL}};
#undef O

int sb_cmd_features(int argc, char **argv)
{
    features_opts o = {.max_seq = 384, .stride = 128};
    int code = sb_cli_opts("features", argc, argv, g_features_opts, &o, &g_ranges, features_help);
    if (code >= 0) return code;
    sb_err e = {0};
    if (!o.vocab || !o.data)
        return sb_cli_usage_error("features",
                                  "--vocab FILE and --data FILE are required (see --help)");
    if (o.stride >= o.max_seq / 2)
        return sb_cli_usage_error("features", "--stride %ld must be below half of --max-seq %ld",
                                  o.stride, o.max_seq);
    /* an output that cannot be written is found before the tokenising */
    if (!o.count_only && o.out && strcmp(o.out, "-") != 0 &&
        sb_cli_check_out_file("--out", o.out, &e))
        return sb_cli_report("features", &e);
    sb_features_job j;
    int rc = sb_features_job_run(&j, o.vocab, o.data, (int32_t)o.max_seq, (int32_t)o.stride,
                                 o.is_eval, &e);
    if (rc) return sb_cli_report("features", &e);
    if (!o.count_only) {
        sb_out s;
        if (!(rc = sink_open(&s, o.out, &e))) {
            rc = sb_features_write(&s, &j.set, &j.f, &e);
            if (!rc)
                rc = sb_out_commit(&s, &e);
            else
                sb_out_abort(&s);
        }
    }
    if (!rc) {
        double build_s = j.build_s > 1e-9 ? j.build_s : 1e-9;
        fprintf(
            stderr,
            "features: %d questions, %d paragraphs -> %d %s features (max_seq %ld, stride %ld); "
            "%d questions truncated, %d answers not at answer_start\n"
            "features: read %.2f s, tokenised+featurised %.2f s (%.0f features/s, %.2f MB/s of "
            "JSON)\n",
            j.set.n_examples, j.set.n_contexts, j.f.n, o.is_eval ? "eval" : "training", o.max_seq,
            o.stride, j.f.n_truncated_questions, j.set.n_misaligned, j.read_s, j.build_s,
            j.f.n / build_s, j.json_bytes / 1e6 / build_s);
    }
    sb_features_job_free(&j);
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

typedef struct evaluate_opts {
    const char *data, *predictions;
} evaluate_opts;
#define O(f) offsetof(evaluate_opts, f)
static const sb_opt g_evaluate_opts[] = {
    {"data", SB_OPT_STR, O(data), SB_OPT_NOSET, NULL},
    {"predictions", SB_OPT_STR, O(predictions), SB_OPT_NOSET, NULL},
    {NULL, 0, 0, 0, NULL}};
#undef O

int sb_cmd_evaluate(int argc, char **argv)
{
    evaluate_opts o = {0};
    int code = sb_cli_opts("evaluate", argc, argv, g_evaluate_opts, &o, &g_ranges, evaluate_help);
    if (code >= 0) return code;
    if (!o.data || !o.predictions)
        return sb_cli_usage_error("evaluate",
                                  "--data FILE and --predictions FILE are required (see --help)");
    sb_err e = {0};
    double em, f1;
    int32_t answered, questions;
    if (sb_squad_score_files(o.data, o.predictions, &em, &f1, &answered, &questions, &e))
        return sb_cli_report("evaluate", &e);
    char a[64], b[64];
    sb_format_pyfloat(em, a, sizeof a);
    sb_format_pyfloat(f1, b, sizeof b);
    printf("{\"exact_match\": %s, \"f1\": %s}\n", a, b);
    if (answered < questions)
        fprintf(stderr, "evaluate: %d of %d questions unanswered (scored 0)\n",
                questions - answered, questions);
    return 0;
}

/* ---------------------------------------------------------- squad-synth */

static void synth_help(void)
{
    printf("usage: sprbench squad-synth --questions N --out FILE.json [--seed S] [--dev]\n"
           "                          [--lengths squad|short]\n\n"
           "Writes a deterministic synthetic data set in the official SQuAD v1.1 layout.\n"
           "Paragraphs state 3-5 facts \"<Name> likes <value>.\" with values of distinct\n"
           "kinds (a color, a city, a sport...) and questions ask \"Which <kind> does\n"
           "<Name> like?\"; the answer is the one-word value of that kind. A small model\n"
           "trained from scratch learns it, so the default run and the tests work without\n"
           "the real SQuAD files. Every word is a whole token of bert-base-uncased and of\n"
           "the built-in vocabulary. By default filler sentences (\"Tom saw the book near\n"
           "the door today.\") and question tails stretch paragraphs and questions to\n"
           "token lengths drawn from SQuAD v1.1 dev's, so features at seq 384 / stride 128\n"
           "are about %.0f %% padding, as SQuAD's are; --lengths short gives the 12-20\n"
           "token paragraphs `train --model tiny` learns at seq 32.\n\n"
           "  --questions N       number of questions (1..10000000)\n"
           "  --seed S            default 1; same N and S give the same file\n"
           "  --dev               a held-apart split (another random stream)\n"
           "  --lengths L         squad (default) or short\n"
           "  --out FILE          the JSON file (written atomically)\n"
           "  --write-vocab FILE  also write the built-in vocabulary (vocab.txt format)\n\n"
           "Exit status: 0 ok, 1 write failure, 2 bad usage.\n",
           SB_SQUAD_DEV_PADDING_PCT);
}

typedef struct synth_opts {
    long n, seed;
    int dev;
    const char *out, *vocab_out, *lengths;
} synth_opts;
#define O(f) offsetof(synth_opts, f)
static const sb_opt g_synth_opts[] = {{"questions", SB_OPT_LONG, O(n), SB_OPT_NOSET, "questions"},
                                      {"seed", SB_OPT_LONG, O(seed), SB_OPT_NOSET, "seed"},
                                      {"dev", SB_OPT_FLAG, O(dev), SB_OPT_NOSET, NULL},
                                      {"out", SB_OPT_STR, O(out), SB_OPT_NOSET, NULL},
                                      {"write-vocab", SB_OPT_STR, O(vocab_out), SB_OPT_NOSET, NULL},
                                      {"lengths", SB_OPT_STR, O(lengths), SB_OPT_NOSET, NULL},
                                      {NULL, 0, 0, 0, NULL}};
#undef O

int sb_cmd_squad_synth(int argc, char **argv)
{
    synth_opts o = {.n = -1, .seed = 1};
    int code = sb_cli_opts("squad-synth", argc, argv, g_synth_opts, &o, &g_ranges, synth_help);
    if (code >= 0) return code;
    sb_err e = {0};
    if (o.n < 0 || !o.out)
        return sb_cli_usage_error("squad-synth",
                                  "--questions N and --out FILE are required (see --help)");
    int short_set = o.lengths && !strcmp(o.lengths, "short");
    if (o.lengths && !short_set && strcmp(o.lengths, "squad"))
        return sb_cli_usage_error("squad-synth", "--lengths '%s': squad or short", o.lengths);
    if (sb_cli_check_out_file("--out", o.out, &e) ||
        (o.vocab_out && sb_cli_check_out_file("--write-vocab", o.vocab_out, &e)))
        return sb_cli_report("squad-synth", &e);
    if (sb_squad_synth_write(o.out, (int32_t)o.n, (uint64_t)o.seed, o.dev,
                             short_set ? SB_SYNTH_SHORT : SB_SYNTH_SQUAD, &e))
        return sb_cli_report("squad-synth", &e);
    if (o.vocab_out) {
        sb_vocab v;
        if (sb_vocab_builtin_synth(&v, &e)) return sb_cli_report("squad-synth", &e);
        int rc = sb_vocab_write(o.vocab_out, &v, &e);
        sb_vocab_free(&v);
        if (rc) return sb_cli_report("squad-synth", &e);
    }
    return 0;
}
