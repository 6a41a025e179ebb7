#!/bin/bash
# Results that cannot hurt, as a user meets them: an output path that is a
# symlink writes its target (the link stays), a device or FIFO is written in
# place and never replaced (a FIFO without a reader is refused, not waited on), a failed write exits 1 with one line and leaves
# the old file and no temp file, a failed write on standard output exits 1,
# and every input is refused past its size limit (exit 2, one line) at
# bounded memory, as are a NUL byte in a text input and an input that is not
# a regular file.
. "$SB_SOURCE_DIR/tests/lib.sh"
W="$T/work"
mkdir "$W" && cd "$W" || exit 1
# The address-space limit (KiB) of the bounded-memory checks, read by their
# bash -c from the environment: 1 GiB, far below what the old readers took
# (24 GB for /dev/zero) yet room for the binary to start.
export VMAX=1048576
GEMM=("$SPRBENCH" gemm --kernel scalar-f32 --m 8 --n 8 --k 8 --reps 5)

# expect_files DIR NAME... : DIR holds exactly these names (no temp file left)
expect_files() {
  local dir=$1; shift
  local want got
  want=$(printf '%s\n' "$@" | sort | tr '\n' ' ')
  got=$(ls -A "$dir" | sort | tr '\n' ' ')
  if [ "$want" = "$got" ]; then ok; else fail "$dir holds [$got], expected [$want]"; fi
}
# expect_content FILE TEXT : FILE holds exactly TEXT and a newline
expect_content() {
  if [ "$(cat "$1")" = "$2" ]; then ok; else fail "$1 changed: $(head -c 80 "$1")"; fi
}
# no_dev_temp : nothing was created beside the device nodes, which are
# still devices
no_dev_temp() {
  if ls -A /dev "$T" | grep -qE '^(full|null)\.tmp\.'; then fail "temp file left beside a device"; else ok; fi
  [ -c /dev/full ] && [ -c /dev/null ] && ok || fail "/dev/full or /dev/null is no longer a device"
}

# --- outputs --------------------------------------------------------------

# --result-file through a symlink (relative, into another directory): the
# target gets the result, the link stays a link.
mkdir links data
echo old >data/r.json
ln -s ../data/r.json links/r.json
expect_rc 0 "${GEMM[@]}" --result-file links/r.json
[ -L links/r.json ] && ok || fail "links/r.json is no longer a symlink"
expect_grep '"kernel": "scalar-f32"' data/r.json
expect_files links r.json
expect_files data r.json
# a dangling link creates its target, as > in a shell does
ln -s ../data/new.json links/new.json
expect_rc 0 "${GEMM[@]}" --result-file links/new.json
[ -L links/new.json ] && ok || fail "links/new.json is no longer a symlink"
expect_grep '"status": "ok"' data/new.json

# --result-file into a device: exit 1 for /dev/full, one line naming the
# device and the error, and the node is still a device (as root, rename
# replaced it). As root a regression would destroy the machine's /dev/full
# and /dev/null, so root writes to private nodes made here (same major and
# minor numbers); elsewhere /dev cannot be replaced and is used directly.
if [ "$(id -u)" -eq 0 ]; then
  FULL="$T/full" NULLDEV="$T/null"
  if ! mknod -m 666 "$FULL" c 1 7 2>/dev/null || ! mknod -m 666 "$NULLDEV" c 1 3 2>/dev/null ||
     (echo x >"$FULL") 2>&1 | grep -qv 'No space left'; then
    echo "root cannot make usable device nodes in $T (nodev?): device checks skipped"
    FULL= NULLDEV=
  fi
else
  FULL=/dev/full NULLDEV=/dev/null
fi
if [ -n "$FULL" ]; then
  expect_rc 1 "${GEMM[@]}" --result-file "$FULL"
  expect_one_error_line "^sprbench gemm: $FULL: write failed: No space left on device\$"
  [ -c "$FULL" ] && ok || fail "$FULL is no longer a character device"
  no_dev_temp
  # /dev/null is written in place too, and stays a device
  expect_rc 0 "${GEMM[@]}" --result-file "$NULLDEV"
  [ -c "$NULLDEV" ] && ok || fail "$NULLDEV is no longer a character device"
  no_dev_temp
  # through a symlink to the device: the same
  ln -s "$FULL" links/full
  expect_rc 1 "${GEMM[@]}" --result-file links/full
  expect_one_error_line '^sprbench gemm: links/full: write failed: No space left on device$'
  [ -L links/full ] && [ -c "$FULL" ] && ok || fail "links/full or $FULL replaced"
  rm links/full
  # a streamed output (features --out) and squad-synth --out: the same
  "$SPRBENCH" squad-synth --questions 4 --out s.json --write-vocab v.txt >/dev/null || fail "squad-synth"
  expect_rc 1 "$SPRBENCH" features --vocab v.txt --data s.json --out "$FULL"
  expect_one_error_line "^sprbench features: $FULL: write failed: No space left on device\$"
  expect_rc 1 "$SPRBENCH" squad-synth --questions 4 --out "$FULL"
  expect_one_error_line "^sprbench squad-synth: $FULL: write failed: No space left on device\$"
  [ -c "$FULL" ] && ok || fail "$FULL is no longer a character device"
  rm s.json v.txt
fi

# --result-file into a FIFO read concurrently: the reader gets the document,
# the FIFO stays a FIFO.
mkfifo pipe
timeout 60 cat pipe >piped.json &
reader=$!
expect_rc 0 "${GEMM[@]}" --result-file pipe
wait "$reader" && ok || fail "the FIFO's reader failed"
[ -p pipe ] && ok || fail "pipe is no longer a FIFO"
expect_grep '^ "kernel": "scalar-f32",$' piped.json
expect_grep '^}$' piped.json
rm -f pipe piped.json
# a link to standard output (what /dev/stdout is) when it is a pipe: written
# into the pipe, the link kept (a private link: a regression must not
# replace the machine's /dev/stdout)
ln -s /proc/self/fd/1 links/stdout
"${GEMM[@]}" --result-file links/stdout 2>"$T/err" | cat >piped.out
expect_grep '"kernel": "scalar-f32"' piped.out
[ -L links/stdout ] && ok || fail "links/stdout replaced"
rm -f links/stdout piped.out

# A write that fails half way (a file size limit stands in for a full disk):
# exit 1, one line, the old file intact, no temp file.
echo precious >keep.json
expect_rc 1 bash -c 'trap "" XFSZ; ulimit -f 2; exec "$@"' - "$SPRBENCH" gemm --kernel scalar-f32 \
  --m 8 --n 8 --k 8 --reps 500 --result-file keep.json
expect_one_error_line '^sprbench gemm: keep.json: write failed: File too large$'
expect_content keep.json precious
expect_files . data keep.json links

# A database that cannot be created for lack of space (a file size limit
# stands in for a full disk): exit 1, not 2 (it is the machine, not the
# input), one line, and no half-made database left behind.
expect_rc 1 bash -c 'trap "" XFSZ; ulimit -f 4; exec "$@"' - "$SPRBENCH" sweep --kernels scalar-f32 \
  --threads 1 --shapes 8x8x8 --reps 5 --no-peak --db full.db
expect_one_error_line '^sprbench sweep: full.db: cannot open database: '
expect_files . data keep.json links

# report and JUnit through symlinks
expect_rc 0 "$SPRBENCH" sweep --kernels scalar-f32 --threads 1 --shapes 8x8x8 --reps 5 --no-peak \
  --db a.db --label one
expect_rc 0 "$SPRBENCH" sweep --kernels scalar-f32 --threads 1 --shapes 8x8x8 --reps 5 --no-peak \
  --db a.db --label two
mkdir rep
echo old >data/report.md
echo old >data/report.html
ln -s ../data/report.md rep/report.md
ln -s "$W/data/report.html" rep/report.html
expect_rc 0 "$SPRBENCH" report --db a.db --baseline 1 --candidate 2 --out rep
[ -L rep/report.md ] && [ -L rep/report.html ] && ok || fail "report links replaced"
expect_grep '^# ' data/report.md
expect_grep '<html' data/report.html
# Two databases are read through a merged copy made in a private directory
# under $TMPDIR (never a name in a shared directory), removed afterwards.
cp a.db b.db
mkdir tmpd rep2
expect_rc 0 env TMPDIR="$W/tmpd" "$SPRBENCH" report --db a.db --db b.db --baseline 1 \
  --candidate 2 --out rep2
[ -z "$(ls -A tmpd)" ] && ok || fail "report left $(ls -A tmpd) in TMPDIR"
expect_rc 2 env TMPDIR="$W/nosuch" "$SPRBENCH" report --db a.db --db b.db --baseline 1 \
  --candidate 2 --out rep2
expect_one_error_line "^sprbench report: cannot create a temporary directory in $W/nosuch: "
rm -r b.db tmpd rep2
echo old >data/j.xml
ln -s ../data/j.xml links/j.xml
expect_rc 0 "$SPRBENCH" gate --db a.db --baseline one --candidate two --junit links/j.xml --allow-nothing-judged
[ -L links/j.xml ] && ok || fail "links/j.xml replaced"
expect_grep '<testsuites' data/j.xml
if [ -n "$FULL" ]; then
  expect_rc 0 "$SPRBENCH" gate --db a.db --baseline one --candidate two --junit "$NULLDEV" --allow-nothing-judged
  [ -c "$NULLDEV" ] && ok || fail "$NULLDEV is no longer a character device"
  # (exit 2, not 1: the candidate did not FAIL, the verdict was not written)
  expect_rc 2 "$SPRBENCH" gate --db a.db --baseline one --candidate two --junit "$FULL"
  expect_one_error_line "^sprbench gate: $FULL: write failed: No space left on device\$"
  [ -c "$FULL" ] && ok || fail "$FULL is no longer a character device"
  no_dev_temp
fi

# standard output: a lost write is exit 1 and one line
"$SPRBENCH" info --json >/dev/full 2>"$T/err"; rc=$?
[ "$rc" -eq 1 ] && ok || fail "info --json > /dev/full exited $rc, expected 1"
expect_one_error_line '^sprbench: error writing standard output: No space left on device$'
"$SPRBENCH" --version >/dev/full 2>"$T/err"; rc=$?
[ "$rc" -eq 1 ] && ok || fail "--version > /dev/full exited $rc, expected 1"
expect_one_error_line '^sprbench: error writing standard output'
# a command that failed keeps its own code and its own single line
"$SPRBENCH" gemm --kernel nosuch >/dev/full 2>"$T/err"; rc=$?
[ "$rc" -eq 2 ] && ok || fail "gemm --kernel nosuch > /dev/full exited $rc, expected 2"
expect_one_error_line '^sprbench gemm: '
expect_rc 0 "$SPRBENCH" info --json
expect_files . a.db data keep.json links rep

# --- inputs ---------------------------------------------------------------

# Inputs are regular files. An endless device (the old reader grew to
# 24 GB), a pipe and a named FIFO with no writer (which hung the open
# forever) are refused at once: one line, exit 2, no database made.
expect_rc 2 bash -c 'ulimit -v $VMAX; exec "$@"' - "$SPRBENCH" sweep --plan /dev/zero --db p.db
expect_one_error_line '^sprbench sweep: /dev/zero: is a character device, not a regular file$'
expect_rc 2 bash -c 'ulimit -v $VMAX; exec "$@" --plan <(yes "# a comment")' - "$SPRBENCH" sweep \
  --db p.db
expect_one_error_line ': is a FIFO, not a regular file$'
mkfifo fifo
expect_rc 2 timeout 20 "$SPRBENCH" sweep --plan fifo --db p.db --dry-run
expect_one_error_line '^sprbench sweep: fifo: is a FIFO, not a regular file$'
# ... as model.safetensors (mapped, so it must be a file)
expect_rc 0 "$SPRBENCH" train --model tiny --synth-train 20 --batch 4 --seq 32 --stride 8 \
  --max-steps 1 --threads 1 --save fck
rm fck/model.safetensors && mkfifo fck/model.safetensors
expect_rc 2 timeout 20 "$SPRBENCH" infer --init fck --batch 1 --seq 32
expect_one_error_line 'fck/model.safetensors: is a FIFO, not a regular file$'
rm -r fck
# an output FIFO that nobody reads is refused at once, not waited on
expect_rc 2 timeout 20 "$SPRBENCH" sweep --kernels scalar-f32 --threads 1 --shapes 8x8x8 \
  --sbatch fifo
expect_one_error_line '^sprbench sweep: fifo: cannot write: a FIFO with no reader$'
expect_rc 2 timeout 20 "${GEMM[@]}" --result-file fifo
expect_one_error_line '^sprbench gemm: fifo: cannot write: a FIFO with no reader$'
[ -p fifo ] && ok || fail "fifo is no longer a FIFO"
rm fifo
# a NUL byte ended the plan silently (and the default plan ran): refused
printf 'kernels = scalar-f32\n\0threads = 1\n' >nul.plan
expect_rc 2 "$SPRBENCH" sweep --plan nul.plan --db p.db --dry-run
expect_one_error_line '^sprbench sweep: nul.plan: NUL byte at offset 21: a plan file is text$'
# a plan file over the limit, as a sparse file: refused before reading
truncate -s 2M big.plan
expect_rc 2 "$SPRBENCH" sweep --plan big.plan --db p.db --dry-run
expect_one_error_line '^sprbench sweep: big.plan: larger than 1 MiB, the limit for a plan file$'
# a hostfile with a NUL byte
printf 'node1 slots=1\n\0node2\n' >nul.hosts
expect_rc 2 "$SPRBENCH" sweep --kernels scalar-f32 --threads 1 --shapes 8x8x8 --nodes 2 \
  --hostfile nul.hosts --db p.db --dry-run
expect_one_error_line '^sprbench sweep: nul.hosts: NUL byte at offset 14: a hostfile is text$'
[ ! -e p.db ] && [ ! -e results ] && ok || fail "a refused plan left a database behind"

# gate references: huge (sparse), endless, NUL byte
truncate -s 1G huge.ref
expect_rc 2 "$SPRBENCH" gate --references huge.ref --candidate a.db
expect_one_error_line '^sprbench gate: huge.ref: larger than 16 MiB, the limit for a references file$'
expect_rc 2 bash -c 'ulimit -v $VMAX; exec "$@"' - "$SPRBENCH" gate --references /dev/zero \
  --candidate a.db
expect_one_error_line '^sprbench gate: /dev/zero: is a character device, not a regular file$'
printf '* gemm scalar-f32 * * gflops 1 -5%% null\n\0' >nul.ref
expect_rc 2 "$SPRBENCH" gate --references nul.ref --candidate a.db
expect_one_error_line '^sprbench gate: nul.ref: NUL byte at offset 40: a references file is text$'

# db import of an over-limit export (sparse 2 GiB file)
truncate -s 2G huge.json
expect_rc 2 "$SPRBENCH" db import --db i.db huge.json
expect_one_error_line '^sprbench db: huge.json: larger than 512 MiB, the limit for a results export$'

# SQuAD data, vocabulary, predictions and config.json over their limits
truncate -s 600M huge.squad
truncate -s 65M huge.vocab
"$SPRBENCH" squad-synth --questions 4 --out s.json --write-vocab v.txt >/dev/null || fail "squad-synth"
expect_rc 2 "$SPRBENCH" features --vocab huge.vocab --data s.json
expect_one_error_line '^sprbench features: huge.vocab: larger than 64 MiB, the limit for a vocabulary$'
expect_rc 2 "$SPRBENCH" features --vocab v.txt --data huge.squad
expect_one_error_line '^sprbench features: huge.squad: larger than 512 MiB, the limit for a SQuAD file$'
expect_rc 2 "$SPRBENCH" evaluate --data s.json --predictions huge.squad
expect_one_error_line '^sprbench evaluate: huge.squad: larger than 512 MiB, the limit for a predictions file$'
# tokenize reads lines from stdin: one without an end is refused at 16 MiB
expect_rc 2 bash -c 'ulimit -v $VMAX; exec "$@" </dev/zero' - "$SPRBENCH" tokenize --vocab v.txt
expect_one_error_line '^sprbench tokenize: stdin line 1: longer than 16 MiB, the limit for one text$'

# a checkpoint whose safetensors header claims 2^60 bytes: refused from the
# length field, before anything is allocated
expect_rc 0 "$SPRBENCH" train --model tiny --synth-train 20 --batch 4 --seq 32 --stride 8 \
  --max-steps 1 --threads 1 --save ck
printf '\0\0\0\0\0\0\0\020' | dd of=ck/model.safetensors bs=8 count=1 conv=notrunc status=none \
  || fail "could not forge the safetensors header"
expect_rc 2 bash -c 'ulimit -v $VMAX; exec "$@"' - "$SPRBENCH" predict --init ck --data s.json \
  --out preds.json --seq 32 --stride 8
expect_one_error_line 'model.safetensors: header length 1152921504606846976 is too large$'
[ ! -e preds.json ] && ok || fail "predict wrote preds.json from a refused checkpoint"
truncate -s 2M ck/config.json
expect_rc 2 "$SPRBENCH" predict --init ck --data s.json --out preds.json --seq 32 --stride 8
expect_one_error_line 'config.json: larger than 1 MiB, the limit for a config.json$'

# nothing left but what the steps above made on purpose (the refused import
# created no i.db)
expect_files . a.db big.plan ck data huge.json huge.ref huge.squad huge.vocab keep.json links \
  nul.hosts nul.plan nul.ref rep s.json v.txt
no_dev_temp
finish results_outputs
