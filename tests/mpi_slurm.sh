#!/usr/bin/env bash
# Sweeps under a real Slurm (slurmctld, a slurmd per host, munge) on a
# 2-host emulated cluster: a training sweep over --nodes 1,2 --ppn 1,2 inside
# `salloc` lands 4 ok points, each a job step of that job, the 2-node ones on
# both hosts; `--sbatch FILE --submit` runs the same sweep as a batch job; a
# step Slurm ends is that point's failure and the sweep goes on. Bad input
# (no allocation, too small an allocation, no srun/sbatch) is one line,
# exit 2, nothing written.
. "$(dirname "$0")/lib.sh"
[ "$(id -u)" -eq 0 ] || skip "needs root (network namespaces, Slurm daemons)"
for p in munged slurmctld slurmd sinfo salloc sbatch srun scontrol nsenter; do
  command -v "$p" >/dev/null || [ -x "/usr/sbin/$p" ] || skip "$p not installed (scripts/setup installs it)"
done
command -v sshd >/dev/null || [ -x /usr/sbin/sshd ] || skip "no sshd"
# slurmd 22.05 starts its cgroup plugin whatever the proctrack and task plugins are
mountpoint -q /sys/fs/cgroup || skip "no cgroup file system at /sys/fs/cgroup (slurmd will not start without one)"
ip netns add sbsl-probe 2>/dev/null || skip "ip netns not permitted"
ip netns del sbsl-probe
LC="${SB_SOURCE_DIR:?}/scripts/local-cluster"
# Names, subnet and Slurm ports of its own, beside any other cluster.
export SB_CLUSTER_DIR="$T/cluster" SB_CLUSTER_PREFIX=sbsl SB_CLUSTER_BRIDGE=sbbrsl \
  SB_CLUSTER_SUBNET=10.213.23 SB_CLUSTER_SLURM_PORT=7217
# Open MPI's session dirs of the hosts' daemons (named after the hosts; a
# cancelled step leaves them) go too.
trap '"$LC" down >/dev/null 2>&1; rm -rf "$T" /tmp/ompi.sbsl[12].$(id -u)' EXIT
K=$(best_f32_kernel)
TRAIN=(--workload train --kernels "$K" --model tiny --batch 4 --synth-train 200 --threads 1
       --project-nodes none)

# No allocation, no cluster needed: one line each, exit 2, no database.
expect_rc 2 env -u SLURM_JOB_ID "$SPRBENCH" sweep "${TRAIN[@]}" --max-steps 3 --nodes 1,2 \
  --launcher slurm --db "$T/x.db"
expect_one_error_line 'not inside a Slurm allocation.*salloc or sbatch'
mkdir "$T/nobin"
expect_rc 2 env PATH="$T/nobin" SLURM_JOB_ID=5 SLURM_JOB_NODELIST='sbsl[1-2]' "$SPRBENCH" sweep \
  "${TRAIN[@]}" --max-steps 3 --nodes 1,2 --db "$T/x.db"
expect_one_error_line 'srun not found.*slurm-client'
expect_rc 2 env PATH="$T/nobin" "$SPRBENCH" sweep "${TRAIN[@]}" --nodes 1,2 --db "$T/x.db" \
  --sbatch "$T/x.sh" --submit
expect_one_error_line 'sbatch not found.*slurm-client'
expect_rc 2 "$SPRBENCH" sweep "${TRAIN[@]}" --nodes 1,2 --hostfile /dev/null --sbatch "$T/x.sh"
expect_one_error_line 'sbatch runs the sweep with --launcher slurm'
[ ! -e "$T/x.db" ] && ok || fail "a refused sweep wrote a database"

out=$("$LC" up 2 --slurm 2>&1) || { echo "$out" >&2; fail "cluster with Slurm did not come up"; finish mpi_slurm; exit 1; }
. "$SB_CLUSTER_DIR/slurm.env"
[ "$(sinfo -h -t idle -o '%D')" = 2 ] && ok || fail "sinfo does not show 2 idle nodes: $(sinfo 2>&1)"
[ "$(srun -N 2 hostname | sort | tr '\n' ' ')" = "sbsl1 sbsl2 " ] && ok || fail "srun -N 2 hostname"
margs=$(cat "$SB_CLUSTER_DIR/mpirun-args")

# The sweep inside an allocation (launcher slurm by default there).
DB="$T/s.db"
expect_rc 0 salloc -N 2 --ntasks-per-node=2 bash -c 'echo "$SLURM_JOB_ID" > "$0"; exec "$@"' \
  "$T/job" "$SPRBENCH" sweep "${TRAIN[@]}" --max-steps 3 --ppn 1,2 --nodes 1,2 \
  --mpirun-args "$margs" --point-timeout 120 --db "$DB"
tail -8 "$T/out"
job=$(cat "$T/job")
q() { sqlite3 "$DB" "$1"; }
[ "$(q "SELECT COUNT(*) FROM point WHERE status='ok'")" = 4 ] && ok || fail "4 ok points expected"
[ "$(q "SELECT COUNT(*) FROM point WHERE json_extract(result_json, '\$.slurm.job_id') = '$job'")" = 4 ] \
  && ok || fail "each point carries job id $job"
[ "$(q "SELECT COUNT(DISTINCT json_extract(result_json, '\$.slurm.step_id')) FROM point
        WHERE json_extract(result_json, '\$.slurm_step.job_id') = '$job'")" = 4 ] \
  && ok || fail "each point ran as its own job step"
[ "$(q "SELECT COUNT(*) FROM point WHERE nodes = 2 AND
        json_extract(result_json, '\$.slurm.nodes') = '[\"sbsl1\",\"sbsl2\"]'")" = 2 ] \
  && ok || fail "the 2-node points record both nodes"
# where the ranks ran, in their own recorded bindings ("HOST CPUSET: threads ...")
for p in "1 1" "1 2" "2 1" "2 2"; do
  set -- $p
  hosts=$(q "SELECT group_concat(DISTINCT substr(json_extract(r.value, '\$.binding'), 1, 5))
             FROM point, json_each(point.result_json, '\$.per_rank') r WHERE nodes = $1 AND ppn = $2")
  want=sbsl1; [ "$1" = 2 ] && want=sbsl1,sbsl2
  [ "$hosts" = "$want" ] && ok || fail "nodes=$1 ppn=$2 ranks ran on '$hosts', expected $want"
done
[ "$(q "SELECT COUNT(*) FROM point WHERE command LIKE 'mpirun %--mca plm slurm %'")" = 4 ] \
  && ok || fail "the exact mpirun command is each point's repro line"

# Too small an allocation: exit 2 before any point runs.
expect_rc 2 salloc -N 1 --ntasks-per-node=2 "$SPRBENCH" sweep "${TRAIN[@]}" --max-steps 3 \
  --nodes 1,2 --mpirun-args "$margs" --db "$T/x.db"
grep -v '^salloc:' "$T/err" > "$T/err2"; mv "$T/err2" "$T/err"
expect_one_error_line 'asks for 2 nodes, Slurm job [0-9]+ holds 1'
expect_rc 2 salloc -N 2 --ntasks-per-node=1 "$SPRBENCH" sweep "${TRAIN[@]}" --max-steps 3 \
  --nodes 1,2 --ppn 2 --mpirun-args "$margs" --db "$T/x.db"
grep -v '^salloc:' "$T/err" > "$T/err2"; mv "$T/err2" "$T/err"
expect_one_error_line '2 rank\(s\) per node.*--ntasks-per-node=2'
[ ! -e "$T/x.db" ] && ok || fail "a refused sweep wrote a database"

# The batch script of the same sweep, submitted; its points land in --db.
DB2="$T/b.db"
( cd "$T" && "$SPRBENCH" sweep "${TRAIN[@]}" --max-steps 3 --ppn 1,2 --nodes 1,2 \
    --mpirun-args "$margs" --point-timeout 120 --db "$DB2" --sbatch "$T/sweep.sbatch" --submit ) \
  >"$T/out" 2>"$T/err" && ok || fail "--sbatch --submit failed: $(cat "$T/err")"
expect_grep '^#SBATCH --nodes=2$' "$T/sweep.sbatch"
expect_grep '^#SBATCH --ntasks-per-node=2$' "$T/sweep.sbatch"
expect_grep '^#SBATCH --cpus-per-task=1$' "$T/sweep.sbatch"
expect_grep '^#SBATCH --exclusive$' "$T/sweep.sbatch"
expect_grep '^#SBATCH --time=00:13:00$' "$T/sweep.sbatch"   # 4 points x 120 s + 5 min
bjob=$(sed -n 's/^submitted batch job \([0-9][0-9]*\)$/\1/p' "$T/out")
[ -n "$bjob" ] && ok || fail "no job id printed: $(cat "$T/out")"
for i in $(seq 1 600); do [ -z "$(squeue -h -j "$bjob" 2>/dev/null)" ] && break; sleep 0.2; done
[ "$(sqlite3 "$DB2" "SELECT COUNT(*) FROM point WHERE status='ok' AND
      json_extract(result_json, '\$.slurm.job_id') = '$bjob'")" = 4 ] \
  && ok || { fail "batch job $bjob: 4 ok points expected"; cat "$T"/slurm-*.out >&2; }

# A step Slurm ends (scancel here; a time limit or node failure alike) is
# that point's failure, with the job in its reason, and the next point runs.
DB3="$T/k.db"
salloc -N 2 --ntasks-per-node=1 "$SPRBENCH" sweep "${TRAIN[@]}" --max-steps 1000000 --ppn 1 \
  --nodes 2,1 --mpirun-args "$margs" --point-timeout 120 --db "$DB3" >"$T/kout" 2>&1 &
sweep_pid=$!
cancelled="" job2=""
for i in $(seq 1 300); do
  st=$(squeue -h -s -o '%i' 2>/dev/null | grep -E '^[0-9]+\.[0-9]+$' | head -1)
  if [ -n "$st" ] && ! grep -qx "$st" <<<"$cancelled"; then
    sleep 1; scancel "$st"; cancelled="$cancelled$st"$'\n'; job2=${st%.*}
  fi
  [ "$(grep -c . <<<"$cancelled")" -ge 2 ] && break
  sleep 0.2
done
wait "$sweep_pid"; rc=$?
[ "$rc" = 1 ] && ok || fail "the sweep with cancelled steps exited $rc, expected 1"
# Slurm's line is the step's CANCELLED notice, or srun's abort notice when the
# step was torn down before slurmstepd's line reached the worker's output
[ "$(sqlite3 "$DB3" "SELECT COUNT(*) FROM point WHERE status='failed' AND
      (reason LIKE 'Slurm: *** STEP $job2.% ON sbsl_ CANCELLED AT %' OR
       reason LIKE 'Slurm: srun: Job step aborted%') AND reason LIKE '%(job $job2 on sbsl1%'")" = 2 ] \
  && ok || { fail "both cancelled points stored as failed with Slurm's reason and job";
             sqlite3 "$DB3" "SELECT reason FROM point" >&2; }
finish mpi_slurm
