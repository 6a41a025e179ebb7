#!/usr/bin/env bash
# scripts/local-cluster keeps its state where no other user can reach it and
# never signals a process it did not start: a planted sshd*.pid (in the old
# fixed /tmp/sprbench-cluster, or in a state dir) naming another process
# leaves that process alone; up refuses a state dir that is not private (a
# link, mode 0755, another's); without SB_CLUSTER_DIR up makes a mktemp dir
# of mode 0700 and down removes it. Skips (77) without root or netns.
. "${SB_SOURCE_DIR:?}/tests/lib.sh"
LC="$SB_SOURCE_DIR/scripts/local-cluster"
export SB_CLUSTER_PREFIX=sbst SB_CLUSTER_BRIDGE=sbbrst SB_CLUSTER_SUBNET=10.213.11
unset SB_CLUSTER_DIR
[ "$(id -u)" -eq 0 ] || skip "needs root"
command -v ip >/dev/null || skip "no ip"

# a victim: a process of its own that down must not touch
sleep 300 &
victim=$!
planted=""
cleanup() {
  kill "$victim" 2>/dev/null
  "$LC" down >/dev/null 2>&1
  [ -n "$planted" ] && rm -rf "$planted"
  rm -rf "$T"
}
trap cleanup EXIT
alive() { [ -d "/proc/$1" ] && [ "$(awk '{print $3}' "/proc/$1/stat")" != Z ]; }

# 1. the old fixed path, planted (only when nobody uses it)
if [ ! -e /tmp/sprbench-cluster ]; then
  mkdir -m 777 /tmp/sprbench-cluster && planted=/tmp/sprbench-cluster
  echo "$victim" >/tmp/sprbench-cluster/sshd1.pid
  : >/tmp/sprbench-cluster/.sprbench-cluster
  "$LC" down >"$T/out" 2>&1
  alive "$victim" && ok || fail "down killed the process a planted /tmp/sprbench-cluster/sshd1.pid named"
  [ -e /tmp/sprbench-cluster/sshd1.pid ] && ok || fail "down removed a directory it did not make"
fi
# 2. a planted pid file inside a state dir (ours, private): a pid that is
#    not the sshd up started for that host is not signalled
mkdir -m 700 "$T/st"
echo "$victim" >"$T/st/sshd1.pid"; : >"$T/st/.sprbench-cluster"
SB_CLUSTER_DIR="$T/st" "$LC" down >"$T/out" 2>&1
alive "$victim" && ok || fail "down killed a process that is not its sshd"
[ -e "$T/st" ] && fail "down left its own state dir" || ok
# 3. a state dir that is not private: down neither reads nor removes it
mkdir -m 755 "$T/open"
echo "$victim" >"$T/open/sshd1.pid"; : >"$T/open/.sprbench-cluster"
SB_CLUSTER_DIR="$T/open" "$LC" down >"$T/out" 2>&1
alive "$victim" && ok || fail "down signalled from a non-private dir"
[ -e "$T/open/sshd1.pid" ] && ok || fail "down removed a non-private dir"
expect_grep "left .*open alone" "$T/out"

if ! ip netns add sbst-probe 2>/dev/null; then finish mpi_cluster_state; exit; fi
ip netns del sbst-probe
command -v sshd >/dev/null || [ -x /usr/sbin/sshd ] || { finish mpi_cluster_state; exit; }
# 4. up refuses a state dir another user could write or swap
for d in open link; do
  [ "$d" = link ] && ln -s "$T/open" "$T/link"
  SB_CLUSTER_DIR="$T/$d" "$LC" up 1 >"$T/out" 2>&1 && fail "up took $d" || ok
  expect_grep "not a private directory" "$T/out"
  ip link show sbbrst >/dev/null 2>&1 && fail "up over a refused dir made the bridge" || ok
done
# 5. without SB_CLUSTER_DIR: a fresh mktemp dir, 0700, root's; down removes it
"$LC" up 1 >"$T/up.out" 2>&1 || { cat "$T/up.out" >&2; fail "up 1"; }
hf=$(tail -n 1 "$T/up.out"); d=${hf%/hostfile}
case "$d" in /tmp/sprbench-cluster.??????) ok ;; *) fail "state dir is '$d'" ;; esac
[ "$(stat -c '%a %u' "$d")" = "700 0" ] && ok || fail "state dir mode/owner $(stat -c '%a %u' "$d")"
[ "$(ssh -F "$d/ssh_config" sbst1 hostname)" = sbst1 ] && ok || fail "ssh sbst1"
"$LC" down >/dev/null 2>&1 || fail "down"
[ -e "$d" ] && fail "down left $d" || ok
[ -e /run/sprbench-cluster/sbst ] && fail "down left its record" || ok
ip netns list | grep -q '^sbst' && fail "namespaces left after down" || ok
alive "$victim" && ok || fail "the victim died"
finish mpi_cluster_state
