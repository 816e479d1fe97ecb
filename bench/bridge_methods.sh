#!/usr/bin/env bash
# What the methods cost on the shipped hybrid models (docs/events.md, "Across the boundary";
# docs/performance.md, "Issue 40"): `kausal compare` of each, sequential against conservative
# and optimistic with the partitions on lanes of the kausal process (single) and in processes
# of their own (process), REPEAT rounds (default 3; medians). Prints compare's table per
# scenario: wall time, the ratio to sequential, Calc calls, the partitions' rollbacks and the
# steps they took again, the monitor's calls, one digest.
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
kausal=${KAUSAL:-$here/build/bin/kausal}
repeat=${REPEAT:-3}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
for scenario in two-tanks-level-switch machines-repair bouncing-ball-floor; do
  "$kausal" compare "$here/scenarios/$scenario.toml" --layout single,process --repeat "$repeat" \
    --out "$work/$scenario" 2>/dev/null | sed -n '/^method/,/^$/p'
done
