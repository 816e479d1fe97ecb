#!/usr/bin/env bash
# The real-time table of docs/performance.md: the thesis chain at h = 1 ms paced at factor 1
# (1 kHz) for DURATION seconds (default 60), for conservative lookahead and optimistic in the
# process, pendulum, single and blocks:2 layouts, with --pin cores and --pin none, and each
# release wait (sleep, spin, hybrid). Prints overruns and the p50/p99/max of lateness and
# start delay per run (summary.json "realtime"), and what the run's stall watch saw: the
# overruns the machine's stalls explain, the stalls over 100 µs and the longest (µs);
# docs/realtime.md defines them. PRIORITIES
# adds runs under SCHED_FIFO (--rt-priority N; needs root) beside the default scheduler (0).
# Usage: bash bench/realtime.sh [DURATION_S] [RELEASES] [LAYOUTS] [PRIORITIES]
#   e.g. bash bench/realtime.sh 10 "hybrid" "pendulum" "0 50"
set -euo pipefail
cd "$(dirname "$0")/.."
[ -x build/bin/kausal ] || make build
duration=${1:-60}
releases=${2:-"sleep spin hybrid"}
layouts=${3:-"process pendulum single blocks:2"}
priorities=${4:-"0"}
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
sed "s/^duration = 20.0 /duration = $duration /" scenarios/thesis.toml > "$out/thesis.toml"
for method in "conservative --guarantee lookahead" optimistic; do
  for layout in $layouts; do
    for pin in cores none; do
      for release in $releases; do
        for priority in $priorities; do
          dir="$out/$(echo "$method" | cut -d' ' -f1)-${method##* }-${layout/:/}-$pin-$release"
          fifo=()
          if [ "$priority" != 0 ]; then dir="$dir-fifo$priority"; fifo=(--rt-priority "$priority"); fi
          build/bin/kausal run "$out/thesis.toml" --method $method --layout "$layout" --pin "$pin" \
            --realtime 1 --release "$release" --trace off --skip-feasibility-check "${fifo[@]}" \
            --out "$dir" >/dev/null 2>&1 || true
        done
      done
    done
  done
done
python3 - "$out" <<'PY'
import json, os, sys
out = sys.argv[1]
print(f"{'run':44}{'steps':>7}{'overruns':>9}{'machine':>8}{'stalls':>7}{'longest':>9}"
      f"{'late p50':>10}{'late p99':>10}{'late max':>10}"
      f"{'start p50':>10}{'start p99':>10}{'start max':>10}   (µs)")
for d in sorted(os.listdir(out)):
    f = os.path.join(out, d, "summary.json")
    if not os.path.exists(f):
        continue
    j = json.load(open(f))
    rt = j.get("realtime")
    if not rt:
        print(f"{d:44} {j['status']}: {j.get('error', '')[:60]}")
        continue
    late, start = rt["lateness_s"], rt["start_delay_s"]
    us = lambda v: f"{1e6 * v:10.1f}"
    m = rt.get("machine", {})
    print(f"{d:44}{j['steps']:7}{rt['overruns']:9}{m.get('overruns_machine', 0):8}"
          f"{m.get('stalls', 0):7}{1e6 * m.get('longest_s', 0):9.0f}{us(late['p50'])}{us(late['p99'])}"
          f"{us(late['max'])}{us(start['p50'])}{us(start['p99'])}{us(start['max'])}")
PY
