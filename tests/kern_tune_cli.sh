#!/usr/bin/env bash
# sprbench tune as a user meets it: help, bad input (exit 2, nothing
# written), a refused tune file (corrupt, another machine's), a tiny tune run
# that writes the file, info saying tuned, and gemm/train recording the
# tuned blocking in their config (--no-tune the defaults, --blocking its
# own, a corrupt file a warning and the defaults). No timing is asserted.
. "$(dirname "$0")/lib.sh"

json() { python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(eval(sys.argv[2]))' "$1" "$2"; }
expect_json() {
  if python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); sys.exit(0 if eval(sys.argv[2]) else 1)' "$1" "$2"; then ok
  else fail "$1: not ($2)"; head -c 1500 "$1" >&2; fi
}

K=$(first_available avx512-f32 avx2-f32)
[ -n "$K" ] || skip "no f32 kernel of the GEMM driver runs here"
"$SPRBENCH" info --json >"$T/info.json"
fp=$(json "$T/info.json" 'd["fingerprint"]')
export SPRBENCH_DB="$T/r/sprbench.db"
unset SPRBENCH_TUNE_FILE SB_GEMM_KC SB_GEMM_MC SB_GEMM_NC
tf="$T/r/tune-$fp.json"

expect_rc 0 "$SPRBENCH" tune --help
expect_grep '^usage: sprbench tune' "$T/out"
expect_grep '[-][-]seconds S' "$T/out"
expect_grep '[-][-]no-tune' "$T/out"
expect_rc 0 "$SPRBENCH" --help
expect_grep 'tune' "$T/out"

# not tuned yet
expect_json "$T/info.json" 'True'
SPRBENCH_DB="$T/r/sprbench.db" "$SPRBENCH" info --json >"$T/i0.json"
expect_json "$T/i0.json" 'd["tuning"]["tuned"] is False and d["tuning"]["file"].endswith("tune-'"$fp"'.json")'
expect_rc 0 "$SPRBENCH" info
expect_grep '^tuning +not tuned' "$T/out"

# bad input: one line, exit 2, nothing written
for args in "--kernel nope" "--kernel onednn-f32" "--kernel scalar-f32" "--shapes 0x4x4" \
            "--shapes XX:4x4x4" "--shapes 4x4x4:XX" "--shapes 4x4x4@0" "--shapes ," "--seconds abc" "--seconds 0" \
            "--threads 0" "--min-gain 90" "--bogus" "extra" "--tune-file="; do
  # shellcheck disable=SC2086
  expect_rc 2 "$SPRBENCH" tune $args
  expect_one_error_line '^sprbench tune: '
done
expect_rc 2 env SB_GEMM_KC=64 "$SPRBENCH" tune --kernel "$K" --shapes 32x32x32 --seconds 0.01
expect_one_error_line '^sprbench tune: SB_GEMM_KC is set'
[ ! -e "$T/r" ] && ok || fail "bad input wrote $T/r"

# a corrupt file and another machine's: refused, left as they were
mkdir -p "$T/r"
printf '{"sprbench_tune": 1, "fingerprint": ' >"$tf"
cp "$tf" "$T/before"
expect_rc 2 "$SPRBENCH" tune --kernel "$K" --shapes 32x32x32 --seconds 0.01
expect_one_error_line "^sprbench tune: .*tune-$fp.json: not valid JSON"
cmp -s "$tf" "$T/before" && ok || fail "tune rewrote a corrupt file"
printf '{"sprbench_tune": 1, "fingerprint": "0000000000000000", "entries": []}\n' >"$tf"
expect_rc 2 "$SPRBENCH" tune --kernel "$K" --shapes 32x32x32 --seconds 0.01
expect_one_error_line "^sprbench tune: .*tuned on machine 0000000000000000, this one is $fp"
# workers: a warning and the built-in blocking
expect_rc 0 "$SPRBENCH" gemm --kernel "$K" --m 40 --n 40 --k 40 --reps 2 --threads 1 \
  --result-file "$T/g0.json"
expect_one_error_line '^sprbench gemm: warning: .*tuned on machine 0000000000000000.*built-in blocking'
expect_json "$T/g0.json" 'd["config"]["tuning"].startswith("default (tune file ignored: ")'
rm -f "$tf"

# a tiny tune run writes the file; info says tuned
expect_rc 0 "$SPRBENCH" tune --kernel "$K" --shapes 48x40x36,20x30x40:NT@1 --seconds 0.05 --verbose
expect_grep "^$K +NN +48x +40x +36 NN-ttt 2t|^$K +NN +48x +40x +36 NN-ttt [0-9]+t" "$T/out"
expect_grep 'k x m blocks: [0-9]+ candidate' "$T/out"
expect_grep "wrote .*tune-$fp.json" "$T/out"
expect_json "$tf" 'd["fingerprint"] == "'"$fp"'" and sorted(e["class"] for e in d["entries"]) == ["NN-ttt", "NT-ttt"]'
expect_json "$tf" 'all(e["kernel"] == "'"$K"'" and e["tuned_at"].endswith("Z") for e in d["entries"])'
expect_json "$tf" '[e["threads"] for e in d["entries"] if e["class"] == "NT-ttt"] == [1]'
"$SPRBENCH" info --json >"$T/i1.json"
expect_json "$T/i1.json" 'd["tuning"]["tuned"] is True and d["tuning"]["kernels"][0]["name"] == "'"$K"'" and d["tuning"]["kernels"][0]["classes"] == 2'
expect_rc 0 "$SPRBENCH" info
expect_grep "^tuning +tuned \(.*tune-$fp.json\)" "$T/out"
expect_grep "^  $K +2 shape class\(es\)" "$T/out"
# a second run keeps the other kernels' and classes' entries (and reads the
# old spelling XY:MxNxK of a shape)
expect_rc 0 "$SPRBENCH" tune --kernel "$K" --shapes 200x40x36,NT:20x30x40@1 --seconds 0.05
expect_json "$tf" 'sorted(e["class"] for e in d["entries"]) == ["NN-stt", "NN-ttt", "NT-ttt"]'

# gemm uses the stored blocking: a hand-made entry shows exactly what it ran
python3 - "$tf" "$K" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
for e in d["entries"]:
    if e["class"] == "NN-ttt":
        e["blocking"] = "kc=16,mc=0,nc=0,order=ir-jr,pf=8,split=rows"
json.dump(d, open(sys.argv[1], "w"))
PY
expect_rc 0 "$SPRBENCH" gemm --kernel "$K" --m 48 --n 40 --k 36 --reps 2 --result-file "$T/g1.json"
expect_json "$T/g1.json" 'd["config"]["tuning"] == "tuned"'
expect_json "$T/g1.json" 'd["config"]["blocking"].startswith("kc=16,") and ",order=ir-jr,pf=8,split=rows" in d["config"]["blocking"]'
expect_json "$T/g1.json" '"--blocking " + d["config"]["blocking"] in d["repro"]'
expect_json "$T/g1.json" 'd["status"] == "ok" and d["metrics"]["max_rel_error"] == 0'
# the class not tuned: the built-in blocking, said so
expect_rc 0 "$SPRBENCH" gemm --kernel "$K" --m 48 --n 40 --k 500 --reps 2 --result-file "$T/g2.json"
expect_json "$T/g2.json" 'd["config"]["tuning"] == "default ('"$K"' not tuned for NN-ttm)"'
# --no-tune: the defaults
expect_rc 0 "$SPRBENCH" gemm --kernel "$K" --m 48 --n 40 --k 36 --reps 2 --no-tune --result-file "$T/g3.json"
expect_json "$T/g3.json" 'd["config"]["tuning"] == "default (--no-tune)" and ",order=jr-ir,pf=0,split=auto" in d["config"]["blocking"]'
# --blocking: its own, repeated exactly by the sealed command
expect_rc 0 "$SPRBENCH" gemm --kernel "$K" --m 48 --n 40 --k 36 --reps 2 --blocking kc=16,order=ir-jr \
  --result-file "$T/g4.json"
expect_json "$T/g4.json" 'd["config"]["tuning"] == "explicit (--blocking)" and d["config"]["blocking"].startswith("kc=16,") and "order=ir-jr" in d["config"]["blocking"]'
expect_rc 2 "$SPRBENCH" gemm --kernel "$K" --m 8 --n 8 --k 8 --blocking kc=x
expect_one_error_line '^sprbench gemm: blocking .kc=x.: kc must be an integer'
expect_rc 2 "$SPRBENCH" gemm --kernel "$K" --m 8 --n 8 --k 8 --tune-file ''
expect_one_error_line '^sprbench gemm: --tune-file'
# an empty blocking, or a field twice (the last would silently win): refused
for b in '' kc=16,kc=32 order=ir-jr,kc=16,order=jr-ir; do
  expect_rc 2 "$SPRBENCH" gemm --kernel "$K" --m 8 --n 8 --k 8 --blocking "$b"
  expect_one_error_line "^sprbench gemm: blocking '.*': (empty|[a-z]+ given twice)"
done
# a library kernel records no blocking
if kernel_available onednn-f32; then
  expect_rc 0 "$SPRBENCH" gemm --kernel onednn-f32 --m 48 --n 40 --k 36 --reps 2 --result-file "$T/g5.json"
  expect_json "$T/g5.json" '"blocking" not in d["config"] and d["config"]["tuning"].startswith("default")'
fi
# --tune-file and $SPRBENCH_TUNE_FILE name another file
cp "$tf" "$T/other.json"
rm -f "$tf"
expect_rc 0 "$SPRBENCH" gemm --kernel "$K" --m 48 --n 40 --k 36 --reps 2 --tune-file "$T/other.json" --result-file "$T/g6.json"
expect_json "$T/g6.json" 'd["config"]["tuning"] == "tuned" and "order=ir-jr" in d["config"]["blocking"]'
SPRBENCH_TUNE_FILE="$T/other.json" "$SPRBENCH" gemm --kernel "$K" --m 48 --n 40 --k 36 --reps 2 --result-file "$T/g7.json" >/dev/null
expect_json "$T/g7.json" 'd["config"]["tuning"] == "tuned" and "order=ir-jr" in d["config"]["blocking"]'
# a tune file named but missing or unusable: one line, exit 2, nothing run
# (only the file found by default may be absent: not tuned)
printf '{"sprbench_tune": 1, "fingerprint": ' >"$T/bad.json"
for w in "gemm --kernel $K --m 48 --n 40 --k 36 --reps 2" \
         "train --model tiny --kernel $K --max-steps 1 --threads 1 --synth-train 8" \
         "infer --model tiny --kernel $K --threads 1 --requests 1 --batch 1"; do
  cmd=${w%% *}
  # shellcheck disable=SC2086
  expect_rc 2 "$SPRBENCH" $w --tune-file "$T/none.json" --result-file "$T/w.json"
  expect_one_error_line "^sprbench $cmd: --tune-file .*none.json: no such file"
  [ ! -e "$T/w.json" ] && ok || fail "$cmd ran without its named tune file"
done
expect_rc 2 "$SPRBENCH" info --tune-file "$T/none.json"
expect_one_error_line "^sprbench info: --tune-file .*none.json: no such file"
for cmd in gemm info; do
  args=(--kernel "$K" --m 48 --n 40 --k 36 --reps 2 --result-file "$T/w.json")
  [ "$cmd" = info ] && args=()
  expect_rc 2 "$SPRBENCH" "$cmd" "${args[@]}" --tune-file "$T/bad.json"
  expect_one_error_line "^sprbench $cmd: .*bad.json: not valid JSON"
done
[ ! -e "$T/w.json" ] && ok || fail "gemm ran with a named tune file it could not use"
# a tune file with every kernel's every shape class (more than the 1024 the
# driver's table once held): all of it used, no warning
python3 - "$T/other.json" "$T/info.json" "$T/big.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
kernels = [k["name"] for k in json.load(open(sys.argv[2]))["kernels"]]
have = {(e["kernel"], e["class"]) for e in d["entries"]}
for k in kernels:
    for c in [a + b + "-" + m + n + kk for a in "NT" for b in "NT" for m in "tsml"
              for n in "tsml" for kk in "tsml"]:
        if (k, c) not in have:
            d["entries"].append({"kernel": k, "class": c, "blocking": "kc=64,order=jr-ir"})
assert len(d["entries"]) > 1024, len(d["entries"])
json.dump(d, open(sys.argv[3], "w"))
PY
expect_rc 0 "$SPRBENCH" gemm --kernel "$K" --m 48 --n 40 --k 36 --reps 2 --tune-file "$T/big.json" \
  --result-file "$T/g8.json"
[ ! -s "$T/err" ] && ok || { fail "a large tune file was not used whole"; cat "$T/err" >&2; }
expect_json "$T/g8.json" 'd["config"]["tuning"] == "tuned" and "order=ir-jr" in d["config"]["blocking"]'
expect_rc 0 "$SPRBENCH" gemm --kernel "$K" --m 48 --n 40 --k 500 --reps 2 --tune-file "$T/big.json" \
  --result-file "$T/g9.json"
expect_json "$T/g9.json" 'd["config"]["tuning"] == "tuned" and d["config"]["blocking"].startswith("kc=64,")'
cp "$T/other.json" "$tf"

# train records the tuned entries of its kernel; --no-tune the defaults
if [ "$K" = avx512-f32 ] || [ "$K" = avx2-f32 ]; then
  expect_rc 0 "$SPRBENCH" train --model tiny --kernel "$K" --max-steps 1 --threads 1 --synth-train 8 \
    --result-file "$T/t1.json"
  expect_json "$T/t1.json" 'd["config"]["tuning"] == "tuned" and "NN-ttt:kc=16," in d["config"]["blocking"]'
  expect_rc 0 "$SPRBENCH" train --model tiny --kernel "$K" --max-steps 1 --threads 1 --synth-train 8 \
    --no-tune --result-file "$T/t2.json"
  expect_json "$T/t2.json" 'd["config"]["tuning"] == "default (--no-tune)" and d["config"]["blocking"] == "default"'
fi

# the sweep passes --no-tune to its gemm points
expect_rc 0 "$SPRBENCH" sweep --dry-run --no-tune --kernels "$K" --threads 1 --shapes 64x64x64
expect_grep "gemm --kernel $K .*--no-tune" "$T/out"
expect_rc 0 "$SPRBENCH" sweep --dry-run --kernels "$K" --threads 1 --shapes 64x64x64
if grep -q -- '--no-tune' "$T/out"; then fail "--no-tune without being asked"; else ok; fi

finish kern_tune_cli
