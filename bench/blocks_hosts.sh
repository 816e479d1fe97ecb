#!/usr/bin/env bash
# A long pendulum chain in two blocks on two emulated hosts, against the sequential run, under
# kausal's emulated link delay (docs/multi-host.md). What it builds, on this machine only:
#   - Linux network namespaces: a hub with a bridge, and hosts head, alpha and beta, each
#     joined to the bridge by a veth pair on 10.232.0.0/24 (head .1, alpha .2, beta .3; the
#     integration tests use 10.231.0.0/24). Each process runs in its host's namespace under
#     the host's own name (its own UTS namespace, as in tests/integration), so omniORB never
#     takes a Unix socket between hosts: everything between hosts is TCP over the veths.
#   - omniNames and the monitor (`kausal run`) in head, `kausal node` in alpha and in beta,
#     and a deployment file that puts block-1 on alpha and every other block (block-2) on
#     beta: --layout block-processes:2, each block of the chain in a kausal-block process.
# Per repeat it runs the sequential reference once (in head; sequential always runs inside the
# monitor, no --deploy), then for every delay of DELAYS: conservative step, conservative
# lookahead and optimistic, with --pin none (the OS places everything). It prints per method
# and delay the median wall_s of summary.json (the stepping, from step 0 to the last commit;
# starting the component processes is not in it), σ = median sequential wall / median wall
# (ratios within this one invocation), the median rounds (conservative: one per grant and per
# step a block had no grant for) or rollbacks (optimistic), and whether every run gave the
# sequential digest (exit 1 if not).
#
# What the link delay is (docs/multi-host.md, "Latency"): --link-delay D makes every process
# of the run (the monitor, and the kausal-block processes, to which the nodes pass D) hold back
# each GIOP message it sends over TCP or TLS by D, in an omniORB interceptor: requests it sends
# as a client and replies it sends as a server. omniNames and the node agents themselves send
# undelayed (they run without --link-delay); the monitor's own calls to them are delayed.
# A two-way call therefore costs at least 2·D on top of the real transport. It is a sleep in
# the sending thread, not a network queue: no bandwidth limit, no jitter, no loss. Messages
# over Unix sockets and collocated calls are not delayed (with a delay > 0 kausal gives no
# Unix sockets at all). Here the blocks talk only to the monitor, so every delayed message
# crosses hosts. Delay 0 is plain TCP over the veths (no interceptor).
#
# What it does not measure: real machines or a real network. The three "hosts" share this
# machine's CPUs (`nproc`, 2 on the shared VM), its memory and its kernel; the veths cost
# little more than loopback, so all latency beyond that is the emulated delay. σ is a speed-up
# over the sequential run on this same machine, not the speed-up two separate machines would
# give (each block here competes with the other and with the monitor for the same CPUs).
#
# Usage: bash bench/blocks_hosts.sh [N] [STEPS] [DELAYS] [REPEAT]
#        defaults: 100000 200 "0 1ms" 3
#   N pendulums in one row; STEPS steps of 1 ms; DELAYS as for --link-delay (0, 500us, 2ms).
#   ROW=quiet (default: the first pendulum released from -1 rad, the rest at rest 0.2 m apart:
#   no impact in the first ~400 steps) or ROW=busy (neighbours swinging into each other,
#   impacts everywhere and across the block boundary from the tenth step), as bench/blocks.sh.
#   WORK=U gives every Calc U units of artificial work (calc_work, docs/scenarios.md;
#   default 0). INTEGRATOR=euler|rk4 (default euler). KEEP=1 keeps the work directory.
# Needs root (network namespaces), iproute2, util-linux unshare, omniNames, python3, and the
# build in build/bin (this script does not build).
set -euo pipefail
cd "$(dirname "$0")/.."
# shellcheck source=bench/chain_rows.sh
. bench/chain_rows.sh
root=$(pwd)

case "${1:-}" in
  -h | --help)
    sed -n '2,/^set -euo/p' "$0" | sed '$d' | sed 's/^# \{0,1\}//'
    exit 0
    ;;
esac

n=${1:-100000}
steps=${2:-200}
delays=${3:-0 1ms}
repeat=${4:-3}
row_kind=${ROW:-quiet}
work=${WORK:-0}
integrator=${INTEGRATOR:-euler}
node_timeout=15

die() {
  echo "blocks_hosts.sh: $*" >&2
  exit 2
}
[[ $n =~ ^[0-9]+$ ]] && [ "$n" -ge 2 ] || die "N must be a whole number >= 2 (got '$n')"
[[ $steps =~ ^[0-9]+$ ]] && [ "$steps" -ge 1 ] || die "STEPS must be a whole number >= 1"
[[ $repeat =~ ^[0-9]+$ ]] && [ "$repeat" -ge 1 ] || die "REPEAT must be a whole number >= 1"
[ -n "${delays// /}" ] || die "DELAYS is empty"
case $row_kind in quiet | busy) ;; *) die "ROW must be quiet or busy (got '$row_kind')" ;; esac
[[ $work =~ ^[0-9]+$ ]] || die "WORK must be a whole number (got '$work')"
[ "$(id -u)" -eq 0 ] || die "needs root (network namespaces); run it as root"
for b in kausal kausal-block; do
  [ -x "$root/build/bin/$b" ] || die "build/bin/$b is missing: build first (make build)"
done
for c in ip unshare omniNames python3 hostname; do
  command -v "$c" >/dev/null || die "'$c' not found"
done
kausal=$root/build/bin/kausal

prefix=kbh$$
hosts=(head alpha beta)
declare -A addr=([head]=10.232.0.1 [alpha]=10.232.0.2 [beta]=10.232.0.3)
ns() { echo "$prefix-$1"; }
hub=$prefix-hub
naming=corbaloc::${addr[head]}:2809/NameService
work_dir=$(mktemp -d /tmp/kausal-blocks-hosts.XXXXXX)
names_pid=""
declare -A node_pid=()
run_pid=""

# Ends a process this script started, by its PID: its children first (a node's kausal-block
# processes also die with it, PR_SET_PDEATHSIG), then it, SIGTERM and after 5 s SIGKILL.
stop_pid() {
  local pid=$1 k child
  [ -n "$pid" ] || return 0
  kill -0 "$pid" 2>/dev/null || {
    wait "$pid" 2>/dev/null || true
    return 0
  }
  kill -TERM "$pid" 2>/dev/null || true
  for k in $(seq 50); do
    kill -0 "$pid" 2>/dev/null || break
    sleep 0.1
  done
  if kill -0 "$pid" 2>/dev/null; then
    for child in $(pgrep -P "$pid" || true); do kill -KILL "$child" 2>/dev/null || true; done
    kill -KILL "$pid" 2>/dev/null || true
  fi
  wait "$pid" 2>/dev/null || true
}

cleanup() {
  local code=$? h
  trap - EXIT INT TERM
  stop_pid "$run_pid"
  # The nodes end the processes of their runs and unregister on SIGTERM.
  for h in "${!node_pid[@]}"; do stop_pid "${node_pid[$h]}"; done
  stop_pid "$names_pid"
  # Deleting a namespace removes its veth end, and with the hub the bridge.
  for h in "${hosts[@]}"; do ip netns del "$(ns "$h")" 2>/dev/null || true; done
  ip netns del "$hub" 2>/dev/null || true
  if [ "${KEEP:-}" = 1 ]; then
    echo "work directory kept: $work_dir" >&2
  else
    rm -rf "$work_dir"
  fi
  exit "$code"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

# Leftovers of an earlier invocation that was killed before its trap ran (kbh<PID>-..., that
# PID gone).
for name in $(ip netns list | awk '{print $1}' | grep '^kbh[0-9]*-' || true); do
  owner=${name#kbh}
  owner=${owner%%-*}
  if ! kill -0 "$owner" 2>/dev/null; then ip netns del "$name" 2>/dev/null || true; fi
done

# --- the network ---------------------------------------------------------------------------
ip netns add "$hub"
ip netns exec "$hub" ip link set lo up
ip netns exec "$hub" ip link add br0 type bridge
ip netns exec "$hub" ip link set br0 up
k=0
for h in "${hosts[@]}"; do
  ip netns add "$(ns "$h")"
  ip link add "${prefix#kbh}h$k" netns "$(ns "$h")" type veth peer name "${prefix#kbh}b$k" \
    netns "$hub"
  ip netns exec "$(ns "$h")" ip link set lo up
  ip netns exec "$(ns "$h")" ip addr add "${addr[$h]}/24" dev "${prefix#kbh}h$k"
  ip netns exec "$(ns "$h")" ip link set "${prefix#kbh}h$k" up
  ip netns exec "$hub" ip link set "${prefix#kbh}b$k" master br0
  ip netns exec "$hub" ip link set "${prefix#kbh}b$k" up
  k=$((k + 1))
done

# Runs a command in host $1's namespace under its own host name. Only in the background
# (`on H CMD... &`): it execs in place of the subshell, as does every step after it, so $! is
# the command's own PID.
on() {
  local h=$1
  shift
  exec ip netns exec "$(ns "$h")" unshare --uts sh -c 'hostname "$0" && exec "$@"' "$h" "$@"
}

# --- omniNames in head, a node in alpha and in beta -----------------------------------------
mkdir -p "$work_dir/names"
on head omniNames -start 2809 -logdir "$work_dir/names" \
  -ORBendPoint "giop:tcp:${addr[head]}:2809" >"$work_dir/omninames.out" 2>&1 &
names_pid=$!
# wait_until TENTHS PID CMD...: polls CMD every 0.1 s until it succeeds (0), PID is gone or
# TENTHS polls have failed (1).
wait_until() {
  local tenths=$1 pid=$2
  shift 2
  for _ in $(seq "$tenths"); do
    "$@" 2>/dev/null && return 0
    kill -0 "$pid" 2>/dev/null || return 1
    sleep 0.1
  done
  return 1
}
wait_until 50 "$names_pid" ip netns exec "$(ns alpha)" bash -c "exec 3<>/dev/tcp/${addr[head]}/2809" || {
  cat "$work_dir/omninames.out" >&2
  die "omniNames did not come up on ${addr[head]}:2809"
}

for h in alpha beta; do
  on "$h" "$kausal" node --name "$h" --naming "$naming" --host "${addr[$h]}" \
    --work-dir "$work_dir/node-$h" >"$work_dir/node-$h.out" 2>"$work_dir/node-$h.err" &
  node_pid[$h]=$!
done
for h in alpha beta; do
  wait_until $((node_timeout * 10)) "${node_pid[$h]}" grep -q registered "$work_dir/node-$h.out" || {
    cat "$work_dir/node-$h.out" "$work_dir/node-$h.err" >&2
    die "node $h did not register within ${node_timeout} s"
  }
done

deploy=$work_dir/deploy.toml
cat >"$deploy" <<TOML
naming = "$naming"
monitor_host = "${addr[head]}"
[[node]]
name = "alpha"
components = ["block-1"]
[[node]]
name = "beta"
components = ["*"]
TOML

# --- the scenario (bench/blocks.sh's rows) ---------------------------------------------------
scenario=$work_dir/row-$n.toml
write_row "$row_kind" "$n" "$scenario" "$integrator" "$steps" "$work"

# --- the runs --------------------------------------------------------------------------------
# One run of the monitor in head, in the background so that the trap can end it by PID.
monitor_run() {  # monitor_run OUT ARGS...
  local out=$1 code=0
  shift
  on head "$kausal" run "$scenario" --trace off --pin none --out "$out" "$@" \
    >"$out.log" 2>&1 &
  run_pid=$!
  wait "$run_pid" || code=$?
  run_pid=""
  if [ "$code" -ne 0 ] || [ ! -f "$out/summary.json" ]; then
    echo "blocks_hosts.sh: kausal run $* failed (exit $code); its output:" >&2
    tail -n 30 "$out.log" >&2
    exit 1
  fi
}

methods="conservative-step conservative-lookahead optimistic"
total=$((repeat * (1 + $(wc -w <<<"$delays") * 3)))
done_runs=0
progress() {  # on a terminal only
  done_runs=$((done_runs + 1))
  [ -t 2 ] && printf '\r  run %d of %d: %-48s' "$done_runs" "$total" "$1" >&2 || true
}
for r in $(seq "$repeat"); do
  mkdir -p "$work_dir/$r"
  progress "sequential (repeat $r)"
  monitor_run "$work_dir/$r/sequential" --method sequential
  for delay in $delays; do
    for m in $methods; do
      case $m in
        conservative-step) args=(--method conservative) ;;
        conservative-lookahead) args=(--method conservative --guarantee lookahead) ;;
        optimistic) args=(--method optimistic) ;;
      esac
      progress "$m, delay $delay (repeat $r)"
      monitor_run "$work_dir/$r/$m-$delay" "${args[@]}" --layout block-processes:2 \
        --deploy "$deploy" --link-delay "$delay"
    done
  done
done
[ -t 2 ] && printf '\r%-70s\r' '' >&2 || true

# --- the table -------------------------------------------------------------------------------
python3 - "$work_dir" "$repeat" "$delays" "$methods" "$n" "$steps" "$row_kind" "$integrator" \
  "$work" "$(nproc)" <<'PY'
import json, os, statistics, sys
out, repeat, delays, methods = sys.argv[1], int(sys.argv[2]), sys.argv[3].split(), sys.argv[4].split()
n, steps, row, integrator, work, cpus = sys.argv[5:11]
load = lambda r, name: json.load(open(os.path.join(out, str(r), name, "summary.json")))
med = lambda xs: statistics.median(xs)
seq = [load(r, "sequential") for r in range(1, repeat + 1)]
reference = seq[0]["trajectory_sha256"]
differs = [f"sequential (repeat {r + 1})" for r, s in enumerate(seq) if s["trajectory_sha256"] != reference]
seq_wall = med([s["wall_s"] for s in seq])
print(f"{int(n):,} pendulums ({row} row, {integrator}, calc_work {work}), {steps} steps, "
      f"block-processes:2 (block-1 on alpha, block-2 on beta), monitor on head, --pin none, "
      f"{cpus} CPUs shared by all hosts, medians of {repeat}")
print(f"{'method':<24}{'delay':>7}{'wall s':>10}{'σ':>7}{'rounds':>9}{'rollbacks':>11}")
print(f"{'sequential (head)':<24}{'-':>7}{seq_wall:10.3f}{1.0:7.2f}{'-':>9}{'-':>11}")
for d in delays:
    for m in methods:
        runs = [load(r, f"{m}-{d}") for r in range(1, repeat + 1)]
        differs += [f"{m} {d} (repeat {r + 1})" for r, s in enumerate(runs)
                    if s["trajectory_sha256"] != reference]
        wall = med([s["wall_s"] for s in runs])
        rounds = f"{int(med([s['rounds'] for s in runs])):,}" if m != "optimistic" else "-"
        rollbacks = f"{int(med([s['rollbacks'] for s in runs])):,}" if m == "optimistic" else "-"
        print(f"{m:<24}{d:>7}{wall:10.3f}{seq_wall / wall:7.2f}{rounds:>9}{rollbacks:>11}")
count = repeat * (1 + 3 * len(delays))
if differs:
    print(f"digests: DIFFER from the sequential one ({reference[:16]}…) in: " + ", ".join(differs))
    sys.exit(1)
print(f"digests: all {count} runs equal the sequential digest {reference[:16]}…")
PY
