#!/usr/bin/env bash
# Whole `kausal run --method sequential` runs, as a user waits for them (process start to exit:
# parsing, stepping, contacts, digest, trajectory.csv, checkpoints, summary and trace), against
# the stepping kernel alone (kausal_bench BM_Sequential). Prints one table; medians of REPEAT.
# Usage: bash bench/sequential.sh [REPEAT] [STEPS]     (defaults 5, 200000)
set -euo pipefail
cd "$(dirname "$0")/.."
repeat=${1:-5}
steps=${2:-200000}
[ -x build/bin/kausal ] || make build
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# large.toml (N = 32) and thesis.toml (N = 5), run for `steps` steps of 1 ms.
duration=$(awk -v s="$steps" 'BEGIN { printf "%.3f", s / 1000 }')
for name in large thesis; do
  sed "s/^duration = .*/duration = $duration/" "scenarios/$name.toml" > "$work/$name.toml"
done

median() { sort -g | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }

printf '%-10s %4s %8s %10s %14s\n' scenario N steps "wall s" "M pend-steps/s"
for name in large thesis; do
  n=$(grep -c '^\[\[pendulum\]\]' "$work/$name.toml")
  walls=()
  for ((k = 0; k < repeat; k++)); do
    out="$work/run-$name-$k"
    start=$(date +%s.%N)
    build/bin/kausal run "$work/$name.toml" --method sequential --out "$out" > /dev/null
    end=$(date +%s.%N)
    walls+=("$(awk -v a="$start" -v b="$end" 'BEGIN { printf "%.4f", b - a }')")
    rm -rf "$out"
  done
  wall=$(printf '%s\n' "${walls[@]}" | median)
  rate=$(awk -v n="$n" -v s="$steps" -v w="$wall" 'BEGIN { printf "%.1f", n * s / w / 1e6 }')
  printf '%-10s %4s %8s %10s %14s\n' "$name" "$n" "$steps" "$wall" "$rate"
done
echo
build/bin/kausal_bench --benchmark_color=false --benchmark_filter='BM_Sequential|BM_ContactSweep' \
  --benchmark_repetitions="$repeat" --benchmark_report_aggregates_only=true 2>/dev/null |
  sed 's/\x1b\[[0-9;]*m//g' | grep -E '^BM_.*_median' || true
