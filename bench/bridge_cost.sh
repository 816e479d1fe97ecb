#!/usr/bin/env bash
# What locating crossings costs (docs/events.md, "Across the boundary"; docs/performance.md,
# "Issue 40"): scenarios/two-tanks-level-switch.toml at several crossing tolerances, the
# largest one a whole step (the crossing then lands on the step's end, as on a fixed grid).
# Prints per tolerance the crossings, the f evaluations of the partition whose level is
# watched beyond its plain steps (4 per RK4 step), per crossing, and the run's wall time.
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
kausal=${KAUSAL:-$here/build/bin/kausal}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
printf '%-10s %9s %12s %14s %10s\n' tolerance crossings "extra f" "f per crossing" "wall ms"
for tolerance in 0.5 1e-3 1e-6 1e-9; do
  sed "s/^tolerance = 1e-6/tolerance = $tolerance/" "$here/scenarios/two-tanks-level-switch.toml" \
    > "$work/s.toml"
  "$kausal" run "$work/s.toml" --out "$work/out-$tolerance" > /dev/null
  python3 - "$work/out-$tolerance/summary.json" "$tolerance" <<'PY'
import json, sys
s = json.load(open(sys.argv[1]))
lower = next(p for p in s["partitions"] if p["name"] == "lower")
crossings = s["events"]["crossings"]
extra = lower["derivative_calls"] - 4 * lower["steps_computed"]
per = extra / crossings if crossings else 0
print(f"{sys.argv[2]:<10} {crossings:>9} {extra:>12} {per:>14.1f} {1000 * s['wall_s']:>10.1f}")
PY
done
