#!/usr/bin/env bash
# A training sweep over --nodes 1,2 --ppn 1,2 on a 2-host emulated cluster:
# real mpirun over ssh and TCP; every point lands in SQLite with its command
# and binding, and the scaling plot exists. Bad hostfiles and unreachable
# hosts are one clear line, exit 2, nothing written.
. "$(dirname "$0")/lib.sh"
if [ "$(id -u)" -ne 0 ]; then echo "skip: needs root"; exit 77; fi
if ! ip netns add sbsw-probe 2>/dev/null; then echo "skip: ip netns not permitted"; exit 77; fi
ip netns del sbsw-probe
command -v sshd >/dev/null || [ -x /usr/sbin/sshd ] || { echo "skip: no sshd"; exit 77; }
LC="${SB_SOURCE_DIR:?}/scripts/local-cluster"
export SB_CLUSTER_DIR="$T/cluster" SB_CLUSTER_PREFIX=sbsw SB_CLUSTER_BRIDGE=sbbrsw SB_CLUSTER_SUBNET=10.213.9
trap '"$LC" down >/dev/null 2>&1; rm -rf "$T"' EXIT
hostfile=$("$LC" up 2 | tail -n 1)
[ -f "$hostfile" ] && ok || { fail "cluster did not come up"; finish mpi_cluster_sweep; exit 1; }
margs=$(cat "$SB_CLUSTER_DIR/mpirun-args")
K=$(best_f32_kernel)
DB="$T/c.db"
expect_rc 0 "$SPRBENCH" sweep --workload train --kernels "$K" --model tiny --max-steps 3 \
  --batch 4 --synth-train 200 --threads 1 --ppn 1,2 --nodes 1,2 --hostfile "$hostfile" \
  --mpirun-args "$margs" --point-timeout 120 --db "$DB" --plots "$T/plots"
cat "$T/out" | tail -12
[ "$(sqlite3 "$DB" "SELECT COUNT(*) FROM point WHERE workload='train' AND status='ok'")" -eq 4 ] && ok || fail "4 ok training points expected"
[ "$(sqlite3 "$DB" "SELECT COUNT(*) FROM point WHERE command LIKE 'mpirun %--hostfile%'")" -eq 4 ] && ok || fail "commands stored"
[ "$(sqlite3 "$DB" "SELECT COUNT(*) FROM point WHERE ppn*nodes > 1 AND binding LIKE '%core%'")" -eq 3 ] && ok || fail "bindings of the multi-rank points stored"
[ "$(sqlite3 "$DB" "SELECT COUNT(*) FROM point WHERE nodes=2 AND result_json LIKE '%sbsw2%'")" -ge 1 ] && ok || fail "a 2-node point did not run on sbsw2"
[ -s "$T/plots/scaling-nodes.png" ] && ok || fail "scaling plot missing"
# the sweep's end: each measured series (ppn 1, ppn 2) is projected to 1,2,4,8
# nodes, or one line says why not (a 2-node step no slower than 1-node)
np=$(grep -c "^projected $K .* at nodes 1,2,4,8 (not measured)" "$T/out")
nn=$(grep -c "^not projected: $K " "$T/out")
[ $((np + nn)) -eq 2 ] && ok || fail "one projection line per measured series expected ($np projected, $nn not)"
[ "$(sqlite3 "$DB" "SELECT COUNT(*) FROM point WHERE status = 'projected' AND command IS NULL")" -eq $((np * 4)) ] && ok || fail "projected points"
[ "$(sqlite3 "$DB" "SELECT COUNT(*) FROM metric m JOIN point p ON p.id = m.point_id WHERE p.status = 'projected' AND m.projected = 0")" -eq 0 ] && ok || fail "a projected point has a measured metric"

# malformed hostfile, unreachable host: one line, exit 2, no database
printf 'sbsw1 slots=two\n' >"$T/bad.hosts"
expect_rc 2 "$SPRBENCH" sweep --workload train --kernels "$K" --nodes 1,2 --hostfile "$T/bad.hosts" --db "$T/x.db"
expect_one_error_line 'bad.hosts:1'
printf 'sbsw1\n10.213.9.99\n' >"$T/gone.hosts"
expect_rc 2 "$SPRBENCH" sweep --workload train --kernels "$K" --nodes 1,2 --hostfile "$T/gone.hosts" \
  --mpirun-args "$margs" --db "$T/x.db"
expect_one_error_line 'unreachable'
[ ! -e "$T/x.db" ] && ok || fail "a refused sweep wrote a database"
finish mpi_cluster_sweep
