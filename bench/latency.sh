#!/usr/bin/env bash
# How each method reacts to network latency (docs/multi-host.md): the thesis benchmark
# shortened to DURATION seconds of simulated time (default 0.5 s = 500 steps), run REPEAT
# times (default 3) per method and per emulated link delay (kausal --link-delay: every
# message between processes held back that long; the processes talk over TCP then, not
# Unix sockets), on this machine. Prints the median wall time, the time per step and the
# slow-down against the same method without a delay, in one table.
# PIN is kausal's --pin: cores (the default: the conservative monitor calls its components
# from one thread per CPU, in turn) or none (one monitor thread per component, so the
# round trips of a step overlap — what a slow network wants).
# LAYOUT is kausal's --layout: process (System and Integrator apart: every Calc is a round
# trip on the network) or pendulum (each pair in one process: only the monitor's traffic is).
# Usage: bash bench/latency.sh [REPEAT] [DELAYS] [DURATION] [PIN] [LAYOUT]
#        (defaults: 3 "0 100us 500us 2ms" 0.5 cores process)
set -euo pipefail
cd "$(dirname "$0")/.."
[ -x build/bin/kausal ] || make build
repeat=${1:-3}
delays=${2:-0 100us 500us 2ms}
duration=${3:-0.5}
pin=${4:-cores}
layout=${5:-process}
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
scenario=$out/thesis-short.toml
sed "s/^duration = .*/duration = $duration/" scenarios/thesis.toml > "$scenario"
methods="conservative:step conservative:lookahead optimistic:"
for k in $(seq "$repeat"); do
  for delay in $delays; do
    for spec in $methods; do
      method=${spec%%:*}
      guarantee=${spec#*:}
      extra=()
      [ -n "$guarantee" ] && extra=(--guarantee "$guarantee")
      build/bin/kausal run "$scenario" --method "$method" "${extra[@]}" --link-delay "$delay" \
        --pin "$pin" --layout "$layout" --out "$out/$k/$delay/$method$guarantee" >/dev/null
    done
  done
done
python3 - "$out" "$repeat" "$delays" "$methods" <<'PY'
import json, statistics, sys
out, repeat, delays, methods = sys.argv[1], int(sys.argv[2]), sys.argv[3].split(), sys.argv[4].split()
def median(delay, method):
    runs = [json.load(open(f"{out}/{k}/{delay}/{method}/summary.json")) for k in range(1, repeat + 1)]
    digests = {r["trajectory_sha256"] for r in runs}
    assert len(digests) == 1, "runs disagree"
    return statistics.median(r["wall_s"] for r in runs), runs[0]["steps"], digests.pop()
print(f"{'method':26}{'delay':>8}{'wall s':>10}{'µs/step':>10}{'× no delay':>12}")
digests = set()
for spec in methods:
    method, guarantee = spec.split(":")
    name = method + ("/" + guarantee if guarantee else "")
    base = None
    for delay in delays:
        wall, steps, digest = median(delay, method + guarantee)
        digests.add(digest)
        base = base or wall
        print(f"{name:26}{delay:>8}{wall:10.3f}{wall / steps * 1e6:10.0f}{wall / base:12.1f}")
print("digests:", "all equal" if len(digests) == 1 else "DIFFER")
PY
