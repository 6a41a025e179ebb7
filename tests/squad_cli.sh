#!/bin/bash
# The SQuAD commands as a user meets them: tokenize, features, evaluate and
# squad-synth on the project's fixtures; --help; and bad input (exit 2, one
# line on stderr naming the file and place).
set -u
FIX="$SB_SOURCE_DIR/tests/fixtures/squad"
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
fail=0
check() { if ! eval "$1"; then echo "FAILED: $2" >&2; fail=1; fi; }
# expect_bad CODE PATTERN CMD...: exit CODE, exactly one stderr line matching PATTERN.
expect_bad() {
    local code=$1 pat=$2; shift 2
    "$@" >"$T/out" 2>"$T/err" </dev/null; local rc=$?
    if [ $rc -ne "$code" ] || [ "$(wc -l <"$T/err")" -ne 1 ] || ! grep -q -- "$pat" "$T/err"; then
        echo "FAILED: '$*' -> rc $rc (want $code), stderr: $(cat "$T/err") (want /$pat/)" >&2; fail=1
    fi
}

for c in tokenize features evaluate squad-synth; do
    check '"$SPRBENCH" $c --help >"$T/h" && grep -q "usage: sprbench $c" "$T/h"' "$c --help"
done

# tokenize: ids with [CLS]/[SEP] (ids 3 and 4 in the fixture vocab), offsets.
printf 'Hello, world!\n' | "$SPRBENCH" tokenize --vocab "$FIX/vocab_small.txt" >"$T/tok"
check 'grep -qF "{\"ids\": [3, 72, 11, 73, 6, 4], \"tokens\": [\"[CLS]\", \"hello\", \",\", \"world\", \"!\", \"[SEP]\"], \"offsets\": [[0, 0], [0, 5], [5, 6], [7, 12], [12, 13], [0, 0]]}" "$T/tok"' "tokenize single"
printf 'who?\tthe tea\n' | "$SPRBENCH" tokenize --vocab "$FIX/vocab_small.txt" --pair >"$T/tok"
check 'grep -qF "\"offsets\": [[0, 0], [0, 3], [3, 4], [0, 0], [0, 3], [4, 7], [0, 0]]" "$T/tok"' "tokenize pair"
printf '"a\\nb"\n' | "$SPRBENCH" tokenize --vocab "$FIX/vocab_small.txt" --json-input >"$T/tok"
check 'grep -qF "\"offsets\": [[0, 0], [0, 1], [2, 3], [0, 0]]" "$T/tok"' "tokenize --json-input"

# features: one line per feature, counts on stderr, files written whole.
"$SPRBENCH" features --vocab "$FIX/vocab_small.txt" --data "$FIX/mini.json" --max-seq 32 --stride 8 \
    --out "$T/train.jsonl" 2>"$T/err"
check '[ $? -eq 0 ]' "features exit"
n=$(wc -l <"$T/train.jsonl")
check 'grep -q "6 questions, 3 paragraphs -> $n training features" "$T/err"' "features summary ($n lines)"
check '[ "$n" -gt 6 ]' "features windows"
check 'head -1 "$T/train.jsonl" | grep -q "^{\"example_id\": \"q-varn-1\", \"input_ids\": \[3, 33, 30, 25, 36, 15, 4, 25, 36, 28, 2, 29, "' "features first line"
check '! grep -q offset_mapping "$T/train.jsonl" && grep -q "\"start_positions\": " "$T/train.jsonl"' "train fields"
"$SPRBENCH" features --vocab "$FIX/vocab_small.txt" --data "$FIX/mini.json" --max-seq 32 --stride 8 --eval >"$T/eval.jsonl" 2>/dev/null
check '[ "$(wc -l <"$T/eval.jsonl")" -eq "$n" ] && grep -q "\"offset_mapping\": \[null, null, " "$T/eval.jsonl"' "eval features"
check '! grep -q start_positions "$T/eval.jsonl"' "eval fields"
check '[ -z "$(ls "$T" | grep tmp)" ]' "no temp files left"

# evaluate: the official output line.
cat >"$T/p.json" <<'JSON'
{"q-varn-1": "engineer Élise Marchetti", "q-varn-2": "in the year 1887", "q-tea-1": "Ota",
 "q-tea-2": "北京茶館", "q-misaligned": "1887", "not-a-question": "x"}
JSON
"$SPRBENCH" evaluate --data "$FIX/mini.json" --predictions "$T/p.json" >"$T/ev" 2>"$T/everr"
# q-varn-1 exact; q-varn-2 "in year 1887" vs "in 1887": F1 0.8; q-varn-3
# unanswered; q-tea-1 "ota" vs "ōta": 0; q-tea-2 exact; q-misaligned exact.
check 'grep -qxF "{\"exact_match\": 50.0, \"f1\": 63.333333333333336}" "$T/ev"' "evaluate output: $(cat "$T/ev")"
check 'grep -q "1 of 6 questions unanswered" "$T/everr"' "evaluate unanswered note"

# squad-synth: deterministic, loads, dev split differs.
"$SPRBENCH" squad-synth --questions 300 --seed 5 --out "$T/s1.json" --write-vocab "$T/v.txt"
"$SPRBENCH" squad-synth --questions 300 --seed 5 --out "$T/s2.json"
"$SPRBENCH" squad-synth --questions 300 --seed 5 --dev --out "$T/s3.json"
check 'cmp -s "$T/s1.json" "$T/s2.json"' "synth deterministic"
check '! cmp -s "$T/s1.json" "$T/s3.json"' "synth dev differs"
"$SPRBENCH" squad-synth --questions 300 --seed 5 --lengths short --out "$T/s0.json"
"$SPRBENCH" features --vocab "$T/v.txt" --data "$T/s0.json" --max-seq 128 --stride 32 --count-only 2>"$T/err"
check 'grep -q "300 questions, .* -> 300 training features" "$T/err"' "short synth features: $(head -1 "$T/err")"
# the default set has SQuAD v1.1's lengths: at seq 384 / stride 128 its
# features are 53.2 % +- 3 padding, as SQuAD v1.1 dev's are (the short set's 93 %)
for f in s1 s0; do
  "$SPRBENCH" features --vocab "$T/v.txt" --data "$T/$f.json" --max-seq 384 --stride 128 --out "$T/$f.jsonl" 2>/dev/null
  python3 -c 'import json,sys; f=[json.loads(l)["attention_mask"] for l in open(sys.argv[1])]
print("%.1f" % (100 - 100.0 * sum(map(sum, f)) / (384 * len(f))))' "$T/$f.jsonl" > "$T/$f.pad"
done
check 'python3 -c "import sys; sys.exit(0 if abs(float(open(\"$T/s1.pad\").read()) - 53.2) < 3 else 1)"' \
  "synth padding at seq 384: $(cat "$T/s1.pad") % (SQuAD v1.1 dev: 53.2 %)"
check 'python3 -c "import sys; sys.exit(0 if float(open(\"$T/s0.pad\").read()) > 90 else 1)"' \
  "short synth padding at seq 384: $(cat "$T/s0.pad") %"

# Bad input: one line, exit 2.
printf '{"data": [{"paragraphs": [{"context": "c", "qas": [{"question": "q", "answers": []}]}]}]}' >"$T/noid.json"
expect_bad 2 "noid.json: data\[0\].paragraphs\[0\].qas\[0\]: missing \"id\"" \
    "$SPRBENCH" features --vocab "$FIX/vocab_small.txt" --data "$T/noid.json"
printf '{"data": [' >"$T/trunc.json"
expect_bad 2 "trunc.json: line 1 column" "$SPRBENCH" evaluate --data "$T/trunc.json" --predictions "$T/p.json"
expect_bad 2 "trunc.json.missing: cannot open" "$SPRBENCH" evaluate --data "$T/trunc.json.missing" --predictions "$T/p.json"
printf '[PAD]\n[CLS]\n[SEP]\n' >"$T/nounk.txt"
expect_bad 2 "nounk.txt: not a BERT vocabulary: no \[UNK\]" "$SPRBENCH" tokenize --vocab "$T/nounk.txt"
expect_bad 2 "stdin line 2: invalid UTF-8 at byte 1" bash -c "printf 'ok\na\xffb\n' | \"$SPRBENCH\" tokenize --vocab \"$FIX/vocab_small.txt\" >/dev/null"
expect_bad 2 "stdin line 1: no TAB" bash -c "printf 'no tab\n' | \"$SPRBENCH\" tokenize --pair --vocab \"$FIX/vocab_small.txt\""
expect_bad 2 "--vocab FILE is required" "$SPRBENCH" tokenize
expect_bad 2 "unknown or incomplete option" "$SPRBENCH" features --bogus
expect_bad 2 "stride 200 must be below half" "$SPRBENCH" features --vocab x --data y --stride 200
expect_bad 2 "--questions" "$SPRBENCH" squad-synth --questions 0 --out "$T/x.json"
expect_bad 2 "--lengths 'long': squad or short" "$SPRBENCH" squad-synth --questions 5 --lengths long --out "$T/x.json"
printf '"x"' >"$T/str.json"
expect_bad 2 "str.json: line 1" "$SPRBENCH" evaluate --data "$FIX/mini.json" --predictions "$T/str.json"
check '[ ! -e "$T/x.json" ]' "nothing written on bad usage"
# an output that cannot be written is refused before any work, nothing written
expect_bad 2 "cannot write (--out): directory $T/none does not exist" "$SPRBENCH" squad-synth --questions 5 --out "$T/none/x.json"
expect_bad 2 "cannot write (--write-vocab)" "$SPRBENCH" squad-synth --questions 5 --out "$T/y.json" --write-vocab "$T/none/v.txt"
check '[ ! -e "$T/y.json" ]' "squad-synth wrote its data before refusing --write-vocab"
expect_bad 2 "cannot write (--out)" "$SPRBENCH" features --vocab "$FIX/vocab_small.txt" --data "$FIX/mini.json" --out "$T/none/f.jsonl"

[ $fail -eq 0 ] && echo "squad_cli: ok"
exit $fail
