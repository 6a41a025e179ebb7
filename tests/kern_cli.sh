#!/usr/bin/env bash
# sprbench peak and the kernels as a user meets them: help, the result file,
# skip reasons (forced with SB_FORCE_NO_*), the exit 3 rule of a path named
# with --paths that cannot run here, bad input, and `sprbench gemm` on every
# registered kernel: run where `sprbench info` says it is available, skipped
# with info's reason (exit 3) where not. Nothing here assumes a particular CPU.
. "$(dirname "$0")/lib.sh"

# json FILE EXPR: prints EXPR evaluated with d = the JSON document in FILE
json() { python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(eval(sys.argv[2]))' "$1" "$2"; }
# expect_json FILE EXPR: EXPR (with d) is true
expect_json() {
  if python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); sys.exit(0 if eval(sys.argv[2]) else 1)' "$1" "$2"; then ok
  else fail "$1: not ($2)"; head -c 1500 "$1" >&2; fi
}

paths="avx2_f32 avx2_int8 f32 bf16 int8 amx_bf16 amx_int8"
metric_of() { case $1 in *int8) echo "${1}_gops" ;; *) echo "${1}_gflops" ;; esac; }

expect_rc 0 "$SPRBENCH" peak --help
expect_grep 'usage: sprbench peak' "$T/out"
for p in $paths; do expect_grep "$(metric_of "$p")" "$T/out"; done
expect_grep '[-][-]paths LIST' "$T/out"
expect_grep '3 a path named with --paths cannot run here' "$T/out"

expect_rc 2 "$SPRBENCH" peak --bogus
expect_one_error_line '^sprbench peak: .*--bogus'
expect_rc 2 "$SPRBENCH" peak --threads 0
expect_one_error_line '^sprbench peak: .*--threads'
expect_rc 2 "$SPRBENCH" peak --seconds abc
expect_one_error_line '^sprbench peak: .*--seconds'
expect_rc 2 "$SPRBENCH" peak extra
expect_one_error_line '^sprbench peak: '
expect_rc 2 "$SPRBENCH" peak --paths avx2_f32,fp64
expect_one_error_line "^sprbench peak: --paths: unknown path 'fp64'"
expect_rc 2 "$SPRBENCH" peak --paths ,
expect_one_error_line '^sprbench peak: --paths'
# a bad --paths is refused where it stands, before a later --help
expect_rc 2 "$SPRBENCH" peak --paths fp64 --help
expect_one_error_line "^sprbench peak: --paths: unknown path 'fp64'"

# the result file: one JSON object, every metric either measured (with its
# one-core figure and an effective clock or the reason for none) or skipped
expect_rc 0 "$SPRBENCH" peak --threads 2 --seconds 0.03 --result-file "$T/peak.json"
expect_grep '"workload": "peak"' "$T/peak.json"
expect_grep '"threads": 2' "$T/peak.json"
expect_grep '"machine_fingerprint"' "$T/peak.json"
for p in $paths; do
  m=$(metric_of "$p")
  expect_json "$T/peak.json" "('$m' in d['metrics']) != ('$m' in d['skipped'])"
  if [ "$(json "$T/peak.json" "'$m' in d['metrics']")" = True ]; then
    expect_json "$T/peak.json" "d['metrics']['${m}_1t'] > 0 and d['metrics']['$m'] > 0"
    expect_json "$T/peak.json" "(d['metrics'].get('${p}_clock_ghz', 0) > 0 and d['units']['${p}_clock_ghz'] == 'GHz') != ('$p' in d['no_clock'])"
  else
    expect_json "$T/peak.json" "len(d['skipped']['$m']) > 0"   # skipped with its reason
  fi
done
# the table names every path; AVX2 before AVX-512
expect_rc 0 "$SPRBENCH" peak --threads 1 --seconds 0.02
for p in $paths; do expect_grep "^$p " "$T/out"; done
[ "$(grep -n '^avx2_f32 ' "$T/out" | cut -d: -f1)" -lt "$(grep -n '^f32 ' "$T/out" | cut -d: -f1)" ] && ok || fail "avx2_f32 not listed before f32"

# forced off without --paths: skipped with the reason, still exit 0, still a file
SB_FORCE_NO_AVX512=1 SB_FORCE_NO_AMX=1 expect_rc 0 "$SPRBENCH" peak --threads 1 --seconds 0.02 \
  --result-file "$T/off.json"
expect_grep '"f32_gflops": ".*forced off' "$T/off.json"
expect_grep '"int8_gops": ".*forced off' "$T/off.json"
expect_grep '"amx_bf16_gflops": ".*forced off' "$T/off.json"
SB_FORCE_NO_AVX2=1 expect_rc 0 "$SPRBENCH" peak --threads 1 --seconds 0.02 --result-file "$T/off2.json"
expect_grep '"avx2_f32_gflops": ".*forced off' "$T/off2.json"
expect_grep '"avx2_int8_gops": ".*forced off' "$T/off2.json"
expect_grep '"status": "skipped"' "$T/off2.json"

# --paths: a named path this machine runs is measured alone (exit 0); one it
# cannot run is one line on stderr, a result file with status "skipped" and
# the reason, exit 3 -- also when forced off on a machine that has it
runnable=""
for p in avx2_f32 f32 avx2_int8 int8; do
  if [ "$(json "$T/peak.json" "'$(metric_of $p)' in d['metrics']")" = True ]; then runnable=$p; break; fi
done
if [ -n "$runnable" ]; then
  m=$(metric_of "$runnable")
  expect_rc 0 "$SPRBENCH" peak --paths "$runnable" --threads 1 --seconds 0.02 --result-file "$T/one.json"
  expect_json "$T/one.json" "d['status'] == 'ok' and d['metrics']['$m'] > 0 and d['config']['paths'] == ['$runnable']"
  expect_json "$T/one.json" "sorted(k for k in d['metrics'] if not k.endswith('_clock_ghz')) == ['$m', '${m}_1t']"
  expect_grep "^$runnable " "$T/out"
  [ "$(grep -c 'skipped' "$T/out")" -eq 0 ] && ok || fail "--paths $runnable listed other paths"
else
  echo "note: no peak path runs on this machine; the runnable --paths case is not exercised"
fi
unrunnable=$(python3 -c 'import json,sys; d=json.load(open(sys.argv[1]))
for p in sys.argv[2].split():
    m = p + ("_gops" if p.endswith("int8") else "_gflops")
    if m in d["skipped"]: print(p); break' "$T/peak.json" "$paths")
if [ -n "$unrunnable" ]; then
  expect_rc 3 "$SPRBENCH" peak --paths "$unrunnable" --threads 1 --seconds 0.02 --result-file "$T/no.json"
  expect_one_error_line "^sprbench peak: path $unrunnable cannot run on this machine: ."
  expect_json "$T/no.json" "d['status'] == 'skipped' and d['reason'].startswith('path $unrunnable cannot run on this machine: ')"
fi
SB_FORCE_NO_AVX512=1 expect_rc 3 "$SPRBENCH" peak --paths f32 --threads 1 --seconds 0.02 \
  --result-file "$T/nof32.json"
expect_one_error_line '^sprbench peak: path f32 cannot run on this machine: .*forced off.*SB_FORCE_NO_AVX512'
expect_json "$T/nof32.json" "d['status'] == 'skipped' and 'forced off' in d['reason'] and 'f32_gflops' in d['skipped']"
SB_FORCE_NO_AVX2=1 expect_rc 3 "$SPRBENCH" peak --paths avx2_int8 --threads 1 --seconds 0.02 --json
expect_one_error_line '^sprbench peak: path avx2_int8 cannot run on this machine: .*SB_FORCE_NO_AVX2'
expect_grep '"status": "skipped"' "$T/out"
if [ "$runnable" = avx2_f32 ]; then
  # one runnable and one forced-off path named: the runnable one is measured, exit 3
  SB_FORCE_NO_AVX512=1 expect_rc 3 "$SPRBENCH" peak --paths avx2_f32,int8 --threads 1 --seconds 0.02 \
    --result-file "$T/mix.json"
  expect_one_error_line '^sprbench peak: path int8 cannot run on this machine: .*forced off'
  expect_json "$T/mix.json" "d['metrics']['avx2_f32_gflops'] > 0 and d['status'] == 'skipped'"
fi

# the --json form is the same document on stdout
expect_rc 0 "$SPRBENCH" peak --threads 1 --seconds 0.02 --json
expect_grep '"workload": "peak"' "$T/out"

# unwritable result file: one line, exit 2 (bad path), nothing left behind
expect_rc 2 "$SPRBENCH" peak --threads 1 --seconds 0.02 --result-file "$T/no/such/dir/p.json"
expect_one_error_line '^sprbench peak: '

# every registered kernel through `sprbench gemm`, odd shapes, each transpose:
# ok where info says available, else skipped with info's reason and exit 3
"$SPRBENCH" info --json >"$T/info.json" || fail "info --json"
python3 -c 'import json,sys
for k in json.load(open(sys.argv[1]))["kernels"]:
    print(k["name"], 1 if k["available"] else 0)' "$T/info.json" >"$T/kernels.txt"
[ "$(wc -l <"$T/kernels.txt")" -ge 11 ] && ok || fail "info lists fewer than 11 kernels"
grep -q '^avx2-f32 ' "$T/kernels.txt" && grep -q '^avx2-int8 ' "$T/kernels.txt" && ok || fail "avx2 kernels not registered"
while read -r k avail; do
  for tr in NN NT TN; do
    if [ "$avail" = 1 ]; then
      expect_rc 0 "$SPRBENCH" gemm --kernel "$k" --m 37 --n 45 --k 67 --trans "$tr" --threads 2 \
        --reps 1 --min-seconds 0.001 --result-file "$T/g.json"
      expect_json "$T/g.json" "d['status'] == 'ok'"
    else
      expect_rc 3 "$SPRBENCH" gemm --kernel "$k" --m 37 --n 45 --k 67 --trans "$tr" --threads 2 \
        --reps 1 --min-seconds 0.001 --result-file "$T/g.json"
      expect_one_error_line "^sprbench gemm: kernel $k cannot run on this machine: "
      expect_json "$T/g.json" "d['status'] == 'skipped' and d['reason'] == [k['reason'] for k in json.load(open('$T/info.json'))['kernels'] if k['name'] == '$k'][0]"
    fi
  done
done <"$T/kernels.txt"

# forced off: our kernels are skipped with the flag's reason
SB_FORCE_NO_AVX512=1 expect_rc 3 "$SPRBENCH" gemm --kernel avx512-f32 --m 8 --n 8 --k 8 \
  --reps 1 --min-seconds 0.001 --result-file "$T/s.json"
expect_grep '"status": "skipped"' "$T/s.json"
expect_grep 'forced off' "$T/s.json"
SB_FORCE_NO_AVX2=1 expect_rc 3 "$SPRBENCH" gemm --kernel avx2-f32 --m 8 --n 8 --k 8 \
  --reps 1 --min-seconds 0.001 --result-file "$T/s.json"
expect_grep '"reason": ".*forced off.*SB_FORCE_NO_AVX2' "$T/s.json"
SB_FORCE_NO_AMX=1 expect_rc 3 "$SPRBENCH" gemm --kernel amx-int8 --m 8 --n 8 --k 8 \
  --reps 1 --min-seconds 0.001 --result-file "$T/s.json"
expect_grep '"status": "skipped"' "$T/s.json"
# the AMX loop-nest knobs: a bad value is one line and exit 2 before any work;
# good ones are recorded in the result's config (ran, or skipped without AMX)
SB_AMX_RESIDENT=c expect_rc 2 "$SPRBENCH" gemm --kernel amx-bf16 --m 8 --n 8 --k 8
expect_one_error_line 'SB_AMX_RESIDENT=.c.: want a or b'
SB_AMX_PREFETCH=17 expect_rc 2 "$SPRBENCH" gemm --kernel amx-int8 --m 8 --n 8 --k 8
expect_one_error_line 'SB_AMX_PREFETCH=.17.: want 0..16'
SB_AMX_PREFETCH=x expect_rc 2 "$SPRBENCH" gemm --kernel amx-int8 --m 8 --n 8 --k 8
expect_one_error_line 'SB_AMX_PREFETCH'
"$SPRBENCH" gemm --help >"$T/gh.txt"
expect_grep 'SB_AMX_RESIDENT=a\|b' "$T/gh.txt"
SB_AMX_RESIDENT=a SB_AMX_PREFETCH=5 "$SPRBENCH" gemm --kernel amx-bf16 --m 40 --n 70 --k 100 \
  --reps 1 --min-seconds 0.001 --result-file "$T/amx.json" >/dev/null 2>&1
expect_json "$T/amx.json" "d['config']['amx_resident'] == 'a' and d['config']['amx_prefetch'] == 5 and d['status'] in ('ok', 'skipped')"
"$SPRBENCH" gemm --kernel amx-int8 --m 8 --n 8 --k 8 --reps 1 --min-seconds 0.001 \
  --result-file "$T/amx.json" >/dev/null 2>&1
expect_json "$T/amx.json" "d['config']['amx_resident'] == 'b' and d['config']['amx_prefetch'] == 2"
# not an AMX kernel: nothing of the kind in its config, the variables ignored
SB_AMX_RESIDENT=c expect_rc 0 "$SPRBENCH" gemm --kernel scalar-f32 --m 8 --n 8 --k 8 \
  --reps 1 --min-seconds 0.001 --result-file "$T/sc.json"
expect_json "$T/sc.json" "'amx_resident' not in d['config']"
# under SB_FORCE_NO_AVX512 the AVX2 kernels run as on an AVX2-only CPU (where the CPU has AVX2)
if kernel_available avx2-int8; then
  SB_FORCE_NO_AVX512=1 expect_rc 0 "$SPRBENCH" gemm --kernel avx2-int8 --m 61 --n 35 --k 300 \
    --reps 1 --min-seconds 0.001 --result-file "$T/a2.json"
  expect_json "$T/a2.json" "d['status'] == 'ok' and ('vpmaddwd' in d['impl'] or 'vpdpbusd' in d['impl'])"
  SB_FORCE_NO_AVX_VNNI=1 expect_rc 0 "$SPRBENCH" gemm --kernel avx2-int8 --m 61 --n 35 --k 300 \
    --reps 1 --min-seconds 0.001 --result-file "$T/a2.json"
  expect_json "$T/a2.json" "'vpmaddwd' in d['impl']"
fi

# oneDNN reports the implementation it ran, and the ISA cap changes it; the
# forces cap it as the CPU they stand for would; an unknown ISA cap is bad input
if kernel_available onednn-f32; then
  expect_rc 0 "$SPRBENCH" gemm --kernel onednn-f32 --m 256 --n 256 --k 256 --reps 1 \
    --min-seconds 0.001 --onednn-isa avx2 --result-file "$T/o.json"
  expect_grep '"status": "ok"' "$T/o.json"
  expect_grep '"impl": "[^"]+"' "$T/o.json"
  if grep -q '"impl": ".*avx512' "$T/o.json"; then fail "oneDNN ran AVX-512 code under an avx2 cap"; else ok; fi
  if kernel_available avx512-f32; then
    expect_rc 0 "$SPRBENCH" gemm --kernel onednn-f32 --m 256 --n 256 --k 256 --reps 1 \
      --min-seconds 0.001 --result-file "$T/o2.json"
    expect_grep '"impl": ".*avx512' "$T/o2.json"
  fi
  SB_FORCE_NO_AVX512=1 expect_rc 0 "$SPRBENCH" gemm --kernel onednn-f32 --m 256 --n 256 --k 256 \
    --reps 1 --min-seconds 0.001 --result-file "$T/o3.json"
  expect_json "$T/o3.json" "'avx512' not in d['impl']"
  if kernel_available avx2-f32; then expect_json "$T/o3.json" "'avx2' in d['impl']"; fi
  # asking for more than the forced CPU has gets what it has
  SB_FORCE_NO_AVX512=1 expect_rc 0 "$SPRBENCH" gemm --kernel onednn-f32 --m 64 --n 64 --k 64 \
    --reps 1 --min-seconds 0.001 --onednn-isa all --result-file "$T/o4.json"
  expect_json "$T/o4.json" "'avx512' not in d['impl']"
  SB_FORCE_NO_AVX2=1 expect_rc 0 "$SPRBENCH" gemm --kernel onednn-f32 --m 256 --n 256 --k 256 \
    --reps 1 --min-seconds 0.001 --result-file "$T/o5.json"
  expect_json "$T/o5.json" "'avx' not in d['impl']"
  # a user's lower cap stays under the force
  SB_FORCE_NO_AVX512=1 ONEDNN_MAX_CPU_ISA=SSE41 expect_rc 0 "$SPRBENCH" gemm --kernel onednn-f32 \
    --m 64 --n 64 --k 64 --reps 1 --min-seconds 0.001 --result-file "$T/o6.json"
  expect_json "$T/o6.json" "'avx' not in d['impl']"
fi
expect_rc 2 "$SPRBENCH" gemm --kernel onednn-f32 --m 16 --n 16 --k 16 --onednn-isa avx9000
expect_one_error_line '^sprbench gemm: .*avx9000'

finish kern_cli
