#!/usr/bin/env bash
# The layouts table of docs/performance.md: every method in every layout on one scenario
# (default thesis.toml), one run each (`kausal compare --layout process,pendulum,single`),
# plus the single layout once more with collocated calls through the POA instead of the
# -Wbshortcut shortcut (KAUSAL_COLLOCATED_CALLS=poa). Prints wall time per method and
# layout, and the mean Calc cost: System busy time / Calc calls (the time inside Calc, as
# the System measures it) and Integrator busy time / Calc calls (its own work per step).
# Usage: bash bench/layouts.sh [SCENARIO.toml]
set -euo pipefail
cd "$(dirname "$0")/.."
[ -x build/bin/kausal ] || make build
scenario=${1:-scenarios/thesis.toml}
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
build/bin/kausal compare "$scenario" --layout process,pendulum,single --out "$out/all" >/dev/null
KAUSAL_COLLOCATED_CALLS=poa build/bin/kausal compare "$scenario" --layout single \
  --out "$out/poa" >/dev/null
python3 - "$out" <<'PY'
import json, os, sys
out = sys.argv[1]
runs = [("sequential", "-", os.path.join(out, "all", "sequential"))]
for layout in ("process", "pendulum", "single"):
    for m in ("conservative-step", "conservative-lookahead", "optimistic"):
        runs.append((m, layout, os.path.join(out, "all", layout, m)))
for m in ("conservative-step", "conservative-lookahead", "optimistic"):
    runs.append((m, "single, via POA", os.path.join(out, "poa", m)))
print(f"{'method':24}{'layout':17}{'wall s':>9}{'µs/step':>9}{'Calc calls':>12}"
      f"{'Calc µs (System)':>18}{'Integrator µs/Calc':>20}")
for method, layout, d in runs:
    j = json.load(open(os.path.join(d, "summary.json")))
    sys_busy = sum(c["busy_s"] for c in j["components"] if c["role"] == "system")
    sys_calc = sum(c["calc_calls"] for c in j["components"] if c["role"] == "system")
    int_busy = sum(c["busy_s"] for c in j["components"] if c["role"] == "integrator")
    calc = f"{1e6 * sys_busy / sys_calc:.3f}" if sys_calc else "-"
    integ = f"{1e6 * int_busy / sys_calc:.3f}" if sys_calc else "-"
    print(f"{method:24}{layout:17}{j['wall_s']:9.3f}{1e6 * j['wall_s'] / j['steps']:9.2f}"
          f"{j['calc_calls']:12}{calc:>18}{integ:>20}")
PY
