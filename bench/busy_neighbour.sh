#!/usr/bin/env bash
# Parallel event runs beside a busy neighbour (issue 44): one busy process at nice 0 takes one
# CPU's worth of time, as another user's job on a shared machine would; kausal's runs then
# get what is left. Prints, for PHOLD (kausal-phold-bench: 64 components, lookahead 1, two
# event groups as threads) and for the shipped event scenarios in both layouts, the parallel
# runs against the sequential run beside the same neighbour (wall time; > 1 means the
# parallel run is faster; the scenarios run to 50 times their shipped end, so that the
# process layout's start-up is not all there is). The neighbour is ended by PID whatever
# happens.
# Usage: bash bench/busy_neighbour.sh [END]   (PHOLD's end time, default 10000)
set -euo pipefail
cd "$(dirname "$0")/.."
end=${1:-10000}
[ -x build/bin/kausal ] && [ -x build/bin/kausal-phold-bench ] ||
  cmake --build build --target kausal kausal-phold-bench
work=$(mktemp -d)
neighbour=
cleanup() {
  [ -n "$neighbour" ] && kill "$neighbour" 2>/dev/null && wait "$neighbour" 2>/dev/null
  rm -rf "$work"
}
trap cleanup EXIT
sh -c 'while :; do :; done' &
neighbour=$!
echo "one busy process beside (PID $neighbour), $(nproc) CPUs"
echo
echo "PHOLD, kausal-phold-bench --end $end --repeat 3 (committed events per second):"
build/bin/kausal-phold-bench --end "$end" --repeat 3 |
  awk -F'|' '/^\| [0-9]/ {
      key = $2 "|" $3; rate = $6 + 0
      if ($4 ~ /sequential/) seq[key] = rate
      else printf "  remote %s mean %s %-13s %6.2f M/s  %.2f of sequential (%.2f M/s)\n", \
        $2 + 0, $3 + 0, $4, rate, rate / seq[key], seq[key]
    }' | sed 's/  */ /g; s/^ /  /'
echo
wall() {  # wall seconds of one kausal run
  local start
  start=$(date +%s.%N)
  build/bin/kausal run "$@" --out "$work/run" --force >/dev/null
  awk -v a="$start" -v b="$(date +%s.%N)" 'BEGIN { printf "%.3f", b - a }'
}
printf '  %-24s %-13s %-8s %8s %s\n' scenario method layout "wall s" "against sequential"
for scenario in phold queueing-network three-components; do
  file=$work/$scenario.toml
  awk '/^end = / { $3 = $3 * 50 } { print }' "scenarios/$scenario.toml" >"$file"
  seq=$(wall "$file" --method sequential)
  printf '  %-24s %-13s %-8s %8.3f\n' "$scenario" sequential - "$seq"
  for method in conservative optimistic; do
    for layout in single process; do
      t=$(wall "$file" --method $method --layout $layout)
      printf '  %-24s %-13s %-8s %8.3f %.2f\n' "$scenario" $method $layout "$t" \
        "$(awk -v s="$seq" -v t="$t" 'BEGIN { print s / t }')"
    done
  done
done
