#!/usr/bin/env bash
# Blocks of pendulums against the sequential run (docs/performance.md, "Issue 17"): a generated
# row of N pendulums (the first released from -1 rad, the rest at rest 0.2 m apart; it reaches
# its neighbour only after about 0.4 s, so 300 steps of 1 ms have no impact and measure the
# stepping and the contact check), every N of SIZES sequential and in blocks:K for every K of
# BLOCKS and every method of METHODS (conservative: step by step; lookahead: conservative with
# a lookahead per boundary; optimistic; default all three). One run each, all in one go, so the
# ratios come from one machine state.
# Prints wall time, speed-up σ = sequential / blocks and efficiency η = σ / CPUs, and checks that
# every run gives the sequential digest. With PLOT=FILE.svg also draws σ against N.
# The sequential run uses a second CPU too: its recorder hashes and writes on a thread of its
# own. So it also runs confined to one CPU (taskset), and σ₁ = that run / blocks is the speed-up
# over a one-CPU program, the classical definition (ONE_CPU=0 leaves it out).
# ROW=busy takes a row whose neighbours start swinging into each other (at rest angle, 0.2 m
# apart, +1 and −1 rad/s alternately): impacts everywhere from the tenth step on, across every
# block boundary too, where the default row has none in 300 steps.
# Usage: bash bench/blocks.sh [euler|rk4] [STEPS]   (SIZES="1000 10000" BLOCKS="2 4"
# METHODS=optimistic to choose; WINDOW=W for optimistic --window;
# CALC_WORK=U gives every Calc U units of artificial work, docs/scenarios.md "calc_work";
# LAYOUT=block-processes runs the blocks in kausal-block processes instead of threads)
set -euo pipefail
cd "$(dirname "$0")/.."
[ -x build/bin/kausal ] || make build
integrator=${1:-euler}
steps=${2:-300}
sizes=${SIZES:-"100 1000 10000 100000 1000000"}
blocks=${BLOCKS:-"2 4 8"}
methods=${METHODS:-"conservative lookahead optimistic"}
window=${WINDOW:-128}
layout=${LAYOUT:-blocks}
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT

# shellcheck source=bench/chain_rows.sh
. bench/chain_rows.sh

for n in $sizes; do
  write_row "${ROW:-quiet}" "$n" "$out/row-$n.toml" "$integrator" "$steps" "${CALC_WORK:-0}"
  build/bin/kausal run "$out/row-$n.toml" --method sequential --trace off \
    --out "$out/$n/sequential" >/dev/null
  if [ "${ONE_CPU:-1}" = 1 ]; then
    taskset -c 0 build/bin/kausal run "$out/row-$n.toml" --method sequential --trace off \
      --out "$out/$n/sequential-1cpu" >/dev/null
  fi
  for method in $methods; do
    for k in $blocks; do
      [ "$k" -le "$n" ] || continue
      case $method in
        optimistic) args=(--method optimistic --window "$window") ;;
        lookahead) args=(--method conservative --guarantee lookahead) ;;
        *) args=(--method "$method") ;;
      esac
      build/bin/kausal run "$out/row-$n.toml" "${args[@]}" --layout "$layout:$k" \
        --trace off --out "$out/$n/$method-$k" >/dev/null
    done
  done
done

python3 - "$out" "$sizes" "$blocks" "$(nproc)" "${PLOT:-}" "$methods" "$layout" <<'PY'
import json, os, sys
out, sizes, blocks, cpus, plot = sys.argv[1], sys.argv[2].split(), sys.argv[3].split(), int(sys.argv[4]), sys.argv[5]
runs = [(m, k) for m in sys.argv[6].split() for k in blocks]
short = {"conservative": "cons", "lookahead": "look", "optimistic": "opt"}
layout = {"blocks": "blocks", "block-processes": "procs"}.get(sys.argv[7], sys.argv[7])
label = lambda m, k: f"{short.get(m, m)} {layout}:{k}"
rb = lambda m: f"{'rollbacks':>11}" if m == "optimistic" else (f"{'grants':>9}" if m == "lookahead" else "")
one_cpu = os.path.exists(os.path.join(out, sizes[0], "sequential-1cpu"))
print(f"{'N':>9}{'sequential s':>14}" + (f"{'1 CPU s':>9}" if one_cpu else "") + "".join(f"{label(m, k) + ' s':>18}{'σ':>7}{'η':>7}" + (f"{'σ₁':>7}" if one_cpu else "") + rb(m) for m, k in runs) + "  digest")
points = {run: [] for run in runs}
for n in sizes:
    seq = json.load(open(os.path.join(out, n, "sequential", "summary.json")))
    line = f"{int(n):>9,}{seq['wall_s']:14.3f}"
    same = True
    if one_cpu:
        seq1 = json.load(open(os.path.join(out, n, "sequential-1cpu", "summary.json")))
        same = seq1["trajectory_sha256"] == seq["trajectory_sha256"]
        line += f"{seq1['wall_s']:9.3f}"
    for m, k in runs:
        f = os.path.join(out, n, f"{m}-{k}", "summary.json")
        if not os.path.exists(f):
            line += f"{'-':>18}{'-':>7}{'-':>7}" + (f"{'-':>7}" if one_cpu else "") + (f"{'-':>11}" if m == "optimistic" else (f"{'-':>9}" if m == "lookahead" else ""))
            continue
        r = json.load(open(f))
        same = same and r["trajectory_sha256"] == seq["trajectory_sha256"]
        sigma = seq["wall_s"] / r["wall_s"]
        points[(m, k)].append((int(n), sigma))
        line += f"{r['wall_s']:18.3f}{sigma:7.2f}{sigma / min(cpus, int(k)):7.2f}"
        if one_cpu:
            line += f"{seq1['wall_s'] / r['wall_s']:7.2f}"
        if m == "optimistic":
            line += f"{r['rollbacks']:>11,}"
        elif m == "lookahead":
            line += f"{r['rounds']:>9,}"
    print(line + ("  same" if same else "  DIFFERS"))
if plot:
    import math
    w, h, left, bottom = 640, 360, 60, 40
    ns = [int(n) for n in sizes]
    lo, hi = math.log10(min(ns)), math.log10(max(ns))
    top = max([2.0] + [s for run in runs for _, s in points[run]]) * 1.1
    X = lambda n: left + (math.log10(n) - lo) / max(hi - lo, 1e-9) * (w - left - 20)
    Y = lambda s: h - bottom - s / top * (h - bottom - 20)
    svg = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{w}" height="{h}" font-family="sans-serif" font-size="12">',
           f'<rect width="{w}" height="{h}" fill="white"/>',
           f'<line x1="{left}" y1="{Y(1)}" x2="{w-20}" y2="{Y(1)}" stroke="#888" stroke-dasharray="4"/>',
           f'<text x="{w-20}" y="{Y(1)-4}" text-anchor="end" fill="#888">break-even (σ = 1)</text>',
           f'<line x1="{left}" y1="{h-bottom}" x2="{w-20}" y2="{h-bottom}" stroke="black"/>',
           f'<line x1="{left}" y1="20" x2="{left}" y2="{h-bottom}" stroke="black"/>',
           f'<text x="{(w+left)/2}" y="{h-6}" text-anchor="middle">pendulums N (log scale)</text>',
           f'<text x="14" y="{(h-bottom)/2}" transform="rotate(-90 14 {(h-bottom)/2})" text-anchor="middle">speed-up σ over sequential</text>']
    for n in ns:
        svg.append(f'<text x="{X(n)}" y="{h-bottom+14}" text-anchor="middle">{n:,}</text>')
    for s in range(0, int(top) + 1):
        svg.append(f'<text x="{left-6}" y="{Y(s)+4}" text-anchor="end">{s}</text>')
    colours = ["#1f77b4", "#d62728", "#2ca02c", "#9467bd"]
    for i, (m, k) in enumerate(runs):
        pts = points[(m, k)]
        if not pts: continue
        c = colours[blocks.index(k) % len(colours)]
        dash = {"optimistic": ' stroke-dasharray="6 3"', "lookahead": ' stroke-dasharray="2 2"'}.get(m, "")
        svg.append('<polyline fill="none" stroke="%s" stroke-width="2"%s points="%s"/>' % (c, dash, " ".join(f"{X(n)},{Y(s)}" for n, s in pts)))
        for n, s in pts:
            svg.append(f'<circle cx="{X(n)}" cy="{Y(s)}" r="3" fill="{c}"/>')
        svg.append(f'<text x="{left+10}" y="{24+16*i}" fill="{c}">{m} blocks:{k}</text>')
    svg.append("</svg>")
    open(plot, "w").write("\n".join(svg) + "\n")
    print("plot:", plot)
PY
