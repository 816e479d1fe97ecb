#!/usr/bin/env bash
# Re-creates the pictures of docs/tutorial.md and docs/experiments.md from real runs:
# every picture in docs/img/ is drawn by kausal-animation from a run of this project.
# Usage: bash scripts/doc-pictures.sh [BUILD_DIR]   (after `make build`)
set -euo pipefail
build=${1:-build}
kausal=$build/bin/kausal
view=$build/bin/kausal-animation
img=docs/img
runs=$(mktemp -d /tmp/kausal-doc-pictures-XXXXXX)
trap 'rm -rf "$runs"' EXIT
mkdir -p "$img"

# The tutorial example under every method (kausal compare runs them all).
"$kausal" compare scenarios/tutorial.toml --out "$runs/tutorial" >/dev/null
# The first collision: the first output row where K3 (pendulum 2) moves.
first=$(awk -F, 'NR > 2 && $5 != 0 { print int($1 / 0.001 + 0.5); exit }' \
  "$runs/tutorial/sequential/trajectory.csv")
"$view" --snapshot "$img/tutorial-start.png" --run "$runs/tutorial/sequential" --step 0 --size 640x420
"$view" --snapshot "$img/tutorial-collision.png" --run "$runs/tutorial/sequential" --step "$first" --size 640x420
for run in conservative-step conservative-lookahead optimistic; do
  "$view" --timeline "$img/tutorial-timeline-$run.png" --run "$runs/tutorial/$run" --size 900x260
done
"$view" --chart "$img/tutorial-wall-time.png" --runs "$runs"/tutorial/{sequential,conservative-step,conservative-lookahead,optimistic} --size 640x300

# The heterogeneous experiment (docs/experiments.md): a slow host beside fast ones.
"$kausal" compare scenarios/heterogeneous.toml --out "$runs/heterogeneous" >/dev/null
for run in conservative-step optimistic; do
  "$view" --timeline "$img/heterogeneous-timeline-$run.png" --run "$runs/heterogeneous/$run" --size 900x360
done
echo "pictures written to $img/ (first collision at step $first)"
