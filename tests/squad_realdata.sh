#!/bin/bash
# The commands on the real reference data: conformance texts through
# `sprbench tokenize --json-input`, the XQuAD dev file through features
# (train and eval), and with SB_SQUAD_TRAIN the 88,524-feature check on the
# full train-v1.1.json. Exit 77 without the reference data.
set -u
D="${SB_SHARED_DATA:-}"
if [ -z "$D" ] || [ ! -d "$D" ]; then echo "skipped: reference data absent"; exit 77; fi
V="$D/bert-base-uncased/vocab.txt"
X="$D/squad/squad_v1.1_dev_xquad_en.json"
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
fail=0
"$SPRBENCH" tokenize --vocab "$V" --json-input <"$D/tokenizer-conformance/tokref_sample_input.jsonl" >"$T/tok" || fail=1
# The reference lines hold {"text", "ids", "tokens", "offsets"}; ours
# {"ids", "tokens", "offsets"}: compare the ids lists line by line.
paste -d '\n' <(grep -o '"ids": *\[[^]]*\]' "$T/tok" | tr -d ' ') \
              <(grep -o '"ids": *\[[^]]*\]' "$D/tokenizer-conformance/tokref_sample.jsonl" | tr -d ' ') \
    | awk 'NR%2==1{a=$0} NR%2==0{n++; if (a==$0) ok++} END{print ok+0, n+0; exit !(n==36 && ok==36)}' \
    || { echo "FAILED: tokenize ids differ from the reference" >&2; fail=1; }
"$SPRBENCH" features --vocab "$V" --data "$X" --out "$T/f.jsonl" 2>"$T/err" || fail=1
n=$(wc -l <"$T/f.jsonl")
grep -q "1190 questions, 240 paragraphs -> $n training features" "$T/err" || { echo "FAILED: $(cat "$T/err")" >&2; fail=1; }
"$SPRBENCH" features --vocab "$V" --data "$X" --eval --count-only 2>"$T/err" || fail=1
grep -q "> $n eval features" "$T/err" || { echo "FAILED: eval count: $(cat "$T/err")" >&2; fail=1; }
# A SQuAD file is not a predictions file: refused, exit 2.
"$SPRBENCH" evaluate --data "$X" --predictions "$X" >"$T/ev" 2>/dev/null
[ $? -eq 2 ] || { echo "FAILED: a SQuAD file accepted as predictions" >&2; fail=1; }
# The documented check on the full training set, when a user points at it:
# run_qa.py makes 88,524 training features from train-v1.1.json's 87,599
# questions (max_seq 384, stride 128). CI lacks the file.
if [ -n "${SB_SQUAD_TRAIN:-}" ] && [ -f "$SB_SQUAD_TRAIN" ]; then
    "$SPRBENCH" features --vocab "$V" --data "$SB_SQUAD_TRAIN" --count-only 2>"$T/err" || fail=1
    grep -q "87599 questions, .* -> 88524 training features" "$T/err" \
        || { echo "FAILED: train-v1.1.json: $(head -1 "$T/err") (want 88524 features)" >&2; fail=1; }
else
    echo "train-v1.1.json check skipped (set SB_SQUAD_TRAIN=/path/train-v1.1.json to run it)"
fi
[ $fail -eq 0 ] && echo "squad_realdata: ok ($n features)"
exit $fail
