#!/usr/bin/env bash
# Benchmark D (docs/benchmarks.md D, F; docs/performance.md "Partitioned models"): the hydraulic
# drive with an artificial Calc cost, run REPEAT times (default 3) each as
#   1. sequential single-rate   (one partition, Euler 0.1 ms — the naive baseline)
#   2. sequential multirate     (valve Euler 0.1 ms, cylinder Euler 0.3 ms — like for like)
#   3. conservative multirate   (the same two partitions as processes, per layout)
#   4. optimistic multirate     (the same, running ahead; tolerance 0)
# and prints the median wall times with the speed-up σ and efficiency η = σ/p (p = 2
# partitions) against both baselines, as Clemens reports them (σ = 1.92, η = 96 % like for
# like; 3.8 for multirate against single-rate Euler, on 2 transputers).
# SCALE multiplies the artificial cost of every Calc (default 1: ≈0.17 ms per valve Calc,
# ≈0.5 ms per cylinder Calc): the larger it is, the smaller the share of communication.
# Usage: bash bench/partitioned.sh [REPEAT] [LAYOUTS] [SCALE]
#        (defaults: 3 "pendulum process" 1)
set -euo pipefail
cd "$(dirname "$0")/.."
[ -x build/bin/kausal ] || make build
repeat=${1:-3}
layouts=${2:-pendulum process}
scale=${3:-1}
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
scaled() {  # the scenario with every calc_work multiplied by $scale
  python3 - "$1" "$scale" "$2" <<'PY'
import re, sys
text = open(sys.argv[1]).read()
text = re.sub(r"calc_work = (\d+)", lambda m: f"calc_work = {int(m.group(1)) * int(sys.argv[2])}", text)
open(sys.argv[3], "w").write(text)
PY
}
multi=$out/multirate.toml
single=$out/single-rate.toml
scaled bench/scenarios/hydraulic-multirate-work.toml "$multi"
scaled bench/scenarios/hydraulic-single-rate-work.toml "$single"
for k in $(seq "$repeat"); do
  build/bin/kausal run "$single" --out "$out/$k/single" >/dev/null
  build/bin/kausal run "$multi" --out "$out/$k/multi" >/dev/null
  for layout in $layouts; do
    for method in conservative optimistic; do
      build/bin/kausal run "$multi" --method "$method" --layout "$layout" \
        --out "$out/$k/$method-$layout" >/dev/null
    done
  done
done
python3 - "$out" "$repeat" "$layouts" "$scale" <<'PY'
import json, os, statistics, sys
out, repeat, layouts, scale = sys.argv[1], int(sys.argv[2]), sys.argv[3].split(), sys.argv[4]
def run(name):
    walls, digests = [], set()
    for k in range(1, repeat + 1):
        j = json.load(open(os.path.join(out, str(k), name, "summary.json")))
        assert j["status"] == "completed", (name, j.get("error"))
        walls.append(j["wall_s"])
        digests.add(j["trajectory_sha256"])
    return statistics.median(walls), digests, j
single, _, _ = run("single")
multi, multi_digest, _ = run("multi")
rows = [("sequential single-rate (Euler 0.1 ms)", "-", single, None),
        ("sequential multirate (0.1 / 0.3 ms)", "-", multi, None)]
for layout in layouts:
    for method in ("conservative", "optimistic"):
        wall, digest, j = run(f"{method}-{layout}")
        rows.append((f"{method} multirate, 2 partitions", layout, wall, digest == multi_digest))
print(f"median of {repeat} runs; p = 2 partitions; Calc cost scale {scale}")
print(f"{'run':40}{'layout':10}{'wall s':>8}{'σ like':>8}{'η like':>8}{'σ naive':>9}{'η naive':>9}  digest")
for name, layout, wall, same in rows:
    like, naive = multi / wall, single / wall
    dist = layout != "-"
    print(f"{name:40}{layout:10}{wall:8.3f}"
          + (f"{like:8.2f}{like / 2:8.0%}{naive:9.2f}{naive / 2:9.0%}" if dist else f"{'':8}{'':8}{naive:9.2f}{'':9}")
          + ("  = sequential multirate" if same else ("  DIFFERS" if same is False else "")))
PY
