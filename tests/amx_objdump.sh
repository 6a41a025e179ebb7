#!/bin/bash
# What the compiler made of the real AMX code, read from the objects with
# objdump -d (no AMX CPU needed): test_kern_amxcfg checks the configuration
# the code loads at run time; this checks, statically, that no tile
# instruction can run before it is loaded, and that the kernels emit what
# they are written to emit.
#   gemm_amx.c.o   amx-bf16 / amx-int8: each thread_begin (amx_*_begin)
#                  loads the tile configuration with ldtilecfg and touches no
#                  tile; each thread_end releases; every function holding a
#                  tile instruction either loads the configuration itself
#                  before its first tile instruction, or is one of the static
#                  kernel functions the driver reaches only between
#                  thread_begin and thread_end (amx_*_{kernel,block,tiles,
#                  merge}), called only from such functions; the kernels hold
#                  tdpbf16ps / tdpbusd, tileloadd, tilestored, tilezero, the
#                  AVX-512 epilogue (masked zmm stores) and prefetcht0.
#   sb_peak_amx.c.o  the peak loops: ldtilecfg before their first tile
#                  instruction, tilerelease at the end (tiles_end, static,
#                  called only from them after their ldtilecfg).
#   gemm_amx_model.c.o  no tile instruction at all (the model's calls), the
#                  same AVX-512 epilogue.
#   sb_pack_avx512.c.o  the A packer's zmm transpose (vshufi32x4).
# A bad object assembled here (a tile load in a function that loads no
# configuration) must fail the same check: the test can fail.
# Arguments: the sb_kernels objects ($<TARGET_OBJECTS:sb_kernels>), as
# separate arguments or one ';'-separated list.
set -u
fails=0
checks=0
fail() { echo "FAIL: $*" >&2; fails=$((fails + 1)); }
ok() { checks=$((checks + 1)); }
command -v objdump >/dev/null || { echo "SKIP: objdump not found (binutils)"; exit 77; }
T=$(mktemp -d /tmp/sb-test-XXXXXX)
trap 'rm -rf "$T"' EXIT

obj() { # obj NAME: the argument whose file name is NAME
  local a
  for a in "${ARGS[@]}"; do [ "$(basename "$a")" = "$1" ] && { echo "$a"; return 0; }; done
  return 1
}
# ctest hands the object list over as one ';'-separated argument
joined=$(IFS=';'; echo "$*")
IFS=';' read -r -a ARGS <<<"$joined"

# table OBJ > lines "function<TAB>address<TAB>mnemonic<TAB>operands"
table() {
  objdump -d --no-show-raw-insn "$1" | awk '
    /^[0-9a-f]+ <[^>]+>:$/ { f = $2; gsub(/[<>:]/, "", f); next }
    /^ +[0-9a-f]+:\t/ {
      line = $0; sub(/^ +/, "", line)
      n = split(line, p, "\t"); addr = p[1]; sub(/:$/, "", addr)
      ins = p[2]; mn = ins; ops = ""
      if (match(ins, /[ ]+/)) { mn = substr(ins, 1, RSTART - 1); ops = substr(ins, RSTART + RLENGTH) }
      print f "\t" addr "\t" mn "\t" ops
    }'
}

TILE_RE='^(tileloadd|tileloaddt1|tilestored|tilezero|tdpbf16ps|tdpbusd|tdpbssd|tdpbsud|tdpbuud|tdpfp16ps)$'

# check_order OBJ ALLOW_RE: prints one line per violation of the ordering
# rules (no output: none). ALLOW_RE: the static functions that run only
# after a configuration loaded elsewhere (base names, suffixes like .isra.0
# stripped).
check_order() {
  local o=$1 allow=$2
  table "$o" >"$T/tab"
  objdump -t "$o" | awk '$2 == "l" && $3 == "F" { print $NF }' >"$T/local"
  awk -F'\t' -v tre="$TILE_RE" -v allow="$allow" '
    FNR == NR { local[$1] = 1; next }
    function base(f) { sub(/\..*$/, "", f); return f }
    function hex(h,   i, v) { v = 0; h = tolower(h)
      for (i = 1; i <= length(h); i++) v = v * 16 + index("0123456789abcdef", substr(h, i, 1)) - 1
      return v }
    {
      f = $1; a = hex($2); mn = $3
      if (!(f in seen)) { seen[f] = 1; order[++nf] = f }
      if (mn == "ldtilecfg" && !(f in cfg)) cfg[f] = a
      if (mn ~ tre && !(f in first)) first[f] = a
      if (mn == "call" && match($4, /<[^>+]+>/)) {
        t = substr($4, RSTART + 1, RLENGTH - 2); ncall++; cf[ncall] = f; ct[ncall] = t; ca[ncall] = a
      }
    }
    END {
      for (i = 1; i <= nf; i++) {
        f = order[i]
        if (!(f in first)) continue
        if ((f in cfg) && cfg[f] < first[f]) continue
        if (base(f) ~ allow && (f in local)) continue
        printf "%s: tile instruction at 0x%x with no tile configuration loaded before it\n", f, first[f]
      }
      for (i = 1; i <= ncall; i++) {
        t = ct[i]; f = cf[i]
        if (!(t in first) || ((t in cfg) && cfg[t] < first[t])) continue
        if (base(f) ~ allow) continue
        if ((f in cfg) && cfg[f] < ca[i]) continue
        printf "%s: calls %s (tile instructions, no ldtilecfg) at 0x%x without loading the configuration first\n", f, t, ca[i]
      }
    }' "$T/local" "$T/tab"
}

# has OBJ FUNC_RE MNEMONIC_RE [OPERAND_RE]: some function matching FUNC_RE holds it
has() {
  table "$1" | awk -F'\t' -v fr="$2" -v mr="$3" -v orx="${4:-}" '
    $1 ~ fr && $3 ~ mr && (orx == "" || $4 ~ orx) { found = 1 } END { exit !found }'
}
expect_has() { # expect_has WHAT OBJ FUNC_RE MNEMONIC_RE [OPERAND_RE]
  local what=$1; shift
  if has "$@"; then ok; else fail "$(basename "$1"): no $what (/$3/ in functions /$2/)"; fi
}

amx=$(obj gemm_amx.c.o) || { fail "gemm_amx.c.o not among the arguments"; amx=; }
peak=$(obj sb_peak_amx.c.o) || { fail "sb_peak_amx.c.o not among the arguments"; peak=; }
model=$(obj gemm_amx_model.c.o) || { fail "gemm_amx_model.c.o not among the arguments"; model=; }
pack=$(obj sb_pack_avx512.c.o) || { fail "sb_pack_avx512.c.o not among the arguments"; pack=; }

if [ -n "$amx" ]; then
  out=$(check_order "$amx" '^amx_(bf16|int8)_(kernel|block|tiles|merge)$')
  if [ -z "$out" ]; then ok; else fail "gemm_amx.c.o: $out"; fi
  table "$amx" >"$T/amx"
  for dt in bf16 int8; do
    # thread_begin: the whole 64-byte configuration from memory, no tile touched
    if awk -F'\t' -v f="amx_${dt}_begin" '$1 == f && $3 == "ldtilecfg" && $4 ~ /\(/ { n++ }
        END { exit n != 1 }' "$T/amx"; then ok; else
      fail "amx_${dt}_begin: no (or more than one) ldtilecfg from memory: the configuration load is missing"
    fi
    if awk -F'\t' -v f="amx_${dt}_begin" -v tre="$TILE_RE" '$1 == f && $3 ~ tre { bad = 1 }
        END { exit bad }' "$T/amx"; then ok; else fail "amx_${dt}_begin touches a tile"; fi
    expect_has "tilerelease in thread_end" "$amx" "^amx_${dt}_end" '^tilerelease$'
    expect_has "tileloadd" "$amx" "^amx_${dt}_" '^tileloadd$'
    expect_has "tilestored" "$amx" "^amx_${dt}_" '^tilestored$'
    expect_has "tilezero" "$amx" "^amx_${dt}_" '^tilezero$'
    expect_has "prefetcht0 of the streamed operand" "$amx" "^amx_${dt}_(kernel|block|tiles)" '^prefetcht0$'
  done
  expect_has "tdpbf16ps" "$amx" '^amx_bf16_' '^tdpbf16ps$'
  expect_has "tdpbusd" "$amx" '^amx_int8_' '^tdpbusd$'
  expect_has "the bf16 epilogue's masked zmm store" "$amx" '^amx_bf16_' '^vmovups$' 'zmm[0-9]+,.*\{%k[1-7]\}$'
  expect_has "the bf16 epilogue's zmm alpha/beta FMA" "$amx" '^amx_bf16_' '^vfmadd[0-9]+ps$' 'zmm'
  expect_has "the int8 epilogue's masked zmm store" "$amx" '^amx_int8_' '^vmovdqu32$' 'zmm[0-9]+,.*\{%k[1-7]\}$'
  expect_has "the int8 epilogue's zmm add" "$amx" '^amx_int8_' '^vpaddd$' 'zmm'
  # _tile_loadconfig's form never: every ldtilecfg in the object is one of the two begins'
  n=$(awk -F'\t' '$3 == "ldtilecfg"' "$T/amx" | wc -l)
  if [ "$n" -eq 2 ]; then ok; else fail "gemm_amx.c.o: $n ldtilecfg, want 2 (the two thread_begin)"; fi
fi

if [ -n "$peak" ]; then
  out=$(check_order "$peak" '^tiles_end$')
  if [ -z "$out" ]; then ok; else fail "sb_peak_amx.c.o: $out"; fi
  for dt in bf16 int8; do
    expect_has "ldtilecfg in the $dt peak loop" "$peak" "^sb_peak_loop_amx_${dt}$" '^ldtilecfg$'
  done
  expect_has "tilerelease" "$peak" '.' '^tilerelease$'
fi

if [ -n "$model" ]; then
  table "$model" >"$T/model"
  n=$(awk -F'\t' -v tre="$TILE_RE|^(ldtilecfg|tilerelease|sttilecfg)$" '$3 ~ tre' "$T/model" | wc -l)
  if [ "$n" -eq 0 ]; then ok; else fail "gemm_amx_model.c.o holds $n real tile instructions"; fi
  expect_has "the model build's masked zmm epilogue (bf16)" "$model" '^amxm_bf16_' '^vmovups$' 'zmm[0-9]+,.*\{%k[1-7]\}$'
  expect_has "the model build's masked zmm epilogue (int8)" "$model" '^amxm_int8_' '^vmovdqu32$' 'zmm[0-9]+,.*\{%k[1-7]\}$'
fi

if [ -n "$pack" ]; then
  expect_has "the A packer's zmm transpose" "$pack" '.' '^vshufi32x4$' 'zmm'
fi

# The check can fail: a global function with a tile load and no ldtilecfg,
# and a configuring function that calls a static tile function before it
# loads the configuration.
if command -v as >/dev/null; then
  cat >"$T/bad.s" <<'EOF'
	.text
	.globl	bad_kernel
	.type	bad_kernel, @function
bad_kernel:
	tileloadd (%rax,%rdx,1), %tmm0
	ret
	.type	amx_bf16_tiles, @function
amx_bf16_tiles:
	tilezero %tmm1
	ret
	.globl	early
	.type	early, @function
early:
	call	amx_bf16_tiles
	ldtilecfg (%rsp)
	ret
EOF
  if as -o "$T/bad.o" "$T/bad.s" 2>"$T/as.err"; then
    out=$(check_order "$T/bad.o" '^amx_(bf16|int8)_(kernel|block|tiles|merge)$')
    if grep -q "bad_kernel: tile instruction" <<<"$out"; then ok; else
      fail "the checker missed a tile load without configuration: '$out'"; fi
    if grep -q "early: calls amx_bf16_tiles" <<<"$out"; then ok; else
      fail "the checker missed a call before the configuration: '$out'"; fi
    if ! grep -q "^amx_bf16_tiles:" <<<"$out"; then ok; else
      fail "the checker refused a static kernel function: '$out'"; fi
  else
    echo "note: as cannot assemble AMX here ($(head -1 "$T/as.err")): the checker's own test skipped"
  fi
fi

echo "amx_objdump: $checks checks, $fails failed"
[ "$fails" -eq 0 ]
