#!/usr/bin/env bash
# Two emulated hosts (network namespaces + sshd), real mpirun over ssh and TCP:
# the two ranks report different host names, the allreduce crosses the bridge,
# and down leaves nothing behind. Skips (77) without root or netns permission.
set -u
: "${SB_SOURCE_DIR:?}" "${SPRBENCH:?}"
LC="$SB_SOURCE_DIR/scripts/local-cluster"
# A cluster of its own, so a parallel test with the default one cannot clash.
export SB_CLUSTER_DIR=$(mktemp -d /tmp/sb-mpi-cluster.XXXXXX)
export SB_CLUSTER_PREFIX=sbmpi SB_CLUSTER_BRIDGE=sbbrmpi SB_CLUSTER_SUBNET=10.213.7
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
fail() { echo "FAIL: $*" >&2; exit 1; }

if [ "$(id -u)" -ne 0 ]; then echo "skip: needs root"; exit 77; fi
if ! ip netns add sbmpi-probe 2>/dev/null; then echo "skip: ip netns not permitted"; exit 77; fi
ip netns del sbmpi-probe
command -v sshd >/dev/null || [ -x /usr/sbin/sshd ] || { echo "skip: no sshd"; exit 77; }

trap '"$LC" down >/dev/null 2>&1; rm -rf "$SB_CLUSTER_DIR" "$work"' EXIT
work=$(mktemp -d)

"$LC" up 2 > "$work/up.out" 2>&1 || { cat "$work/up.out"; fail "local-cluster up 2"; }
hostfile=$(tail -n 1 "$work/up.out")
[ "$hostfile" = "$SB_CLUSTER_DIR/hostfile" ] || fail "last line of up is '$hostfile'"
grep -qx "sbmpi1 slots=2" "$hostfile" && grep -qx "sbmpi2 slots=2" "$hostfile" || fail "hostfile: $(cat "$hostfile")"
[ "$(ssh -F "$SB_CLUSTER_DIR/ssh_config" sbmpi2 hostname)" = sbmpi2 ] || fail "ssh sbmpi2 hostname"
# Password logins are off: only the cluster key opens a host.
ssh -F /dev/null -o BatchMode=yes -o StrictHostKeyChecking=no -o UserKnownHostsFile=/dev/null \
    -o ConnectTimeout=5 root@10.213.7.11 true 2>/dev/null && fail "login without the key worked"
"$LC" up 2 >/dev/null 2>&1 && fail "second up over a live cluster succeeded"

eval "margs=($(cat "$SB_CLUSTER_DIR/mpirun-args"))"
timeout 90 mpirun --hostfile "$hostfile" "${margs[@]}" \
    -x OMPI_ALLOW_RUN_AS_ROOT -x OMPI_ALLOW_RUN_AS_ROOT_CONFIRM \
    -np 2 --map-by ppr:1:node \
    "$SPRBENCH" allreduce --sizes 4..64K,1M --iters 5 --warmup 1 --result-file "$work/ar.json" \
    > "$work/mpirun.out" 2>&1 || { cat "$work/mpirun.out"; fail "mpirun over the cluster"; }
cat "$work/mpirun.out"
grep -q "^# hosts: sbmpi1 sbmpi2$" "$work/mpirun.out" || fail "ranks did not run on sbmpi1 and sbmpi2"
python3 - "$work/ar.json" <<'PY' || fail "result file"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["status"] == "ok" and d["ranks"] == 2 and d["nodes"] == 2 and d["ppn"] == 1, d
assert sorted(d["config"]["hosts"]) == ["sbmpi1", "sbmpi2"], d["config"]["hosts"]
assert d["metrics"]["busbw_gbs_1048576"] > 0
PY

# The data-parallel engine (comm threads, MPI_THREAD_MULTIPLE) across the hosts.
if [ -n "${SB_TEST_MPI_DP:-}" ]; then
  OMP_NUM_THREADS=1 timeout 90 mpirun --hostfile "$hostfile" "${margs[@]}" \
      -x OMPI_ALLOW_RUN_AS_ROOT -x OMPI_ALLOW_RUN_AS_ROOT_CONFIRM -x OMP_NUM_THREADS \
      -np 2 --map-by ppr:1:node "$SB_TEST_MPI_DP" > "$work/dp.out" 2>&1 \
    || { cat "$work/dp.out"; fail "sb_dp test across the cluster"; }
  grep -q "world 2, nodes 2" "$work/dp.out" || fail "sb_dp did not see 2 nodes: $(cat "$work/dp.out")"
fi

"$LC" down >/dev/null 2>&1 || fail "down"
ip netns list | grep -q '^sbmpi' && fail "namespaces left after down"
ip link show sbbrmpi >/dev/null 2>&1 && fail "bridge left after down"
[ -e "$SB_CLUSTER_DIR" ] && fail "state dir left after down"
"$LC" down >/dev/null 2>&1 || fail "second down is not idempotent"
echo "ok: 2-host emulated cluster"
