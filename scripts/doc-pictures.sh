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
# Each timeline twice: the whole run, and a zoom around the first impact where one round (50
# µs of wall time) is wide enough to see; the column on the right says what the strips add up
# to over the window shown.
span_of() {
  case $1 in conservative-step) echo 0.002 ;; optimistic) echo 0.008 ;; *) echo 0.005 ;; esac
}
for run in conservative-step conservative-lookahead optimistic; do
  "$view" --timeline "$img/tutorial-timeline-$run.png" --run "$runs/tutorial/$run" --size 1000x200
  "$view" --timeline "$img/tutorial-timeline-$run-zoom.png" --run "$runs/tutorial/$run" \
    --around-first-event --time-span "$(span_of $run)" --size 1000x200
done
"$view" --chart "$img/tutorial-wall-time.png" --runs "$runs"/tutorial/{sequential,conservative-step,conservative-lookahead,optimistic} --size 640x300

# The live view of a paced run (tutorial §4): each window closed 60 ms (of model time, at
# factor 1) after the frame of the first collision, and saved as it was then.
for method in optimistic conservative; do
  QT_QPA_PLATFORM=offscreen KAUSAL_TEST_ANIMATION_CLOSE_AFTER_FRAMES=$((first + 60)) \
    KAUSAL_TEST_ANIMATION_GRAB_ON_CLOSE="$img/tutorial-live-$method.png" \
    "$kausal" run scenarios/tutorial.toml --method "$method" --animate \
    --out "$runs/live-$method" >/dev/null 2>&1
done

# The heterogeneous experiment (docs/experiments.md): a slow host beside fast ones.
"$kausal" compare scenarios/heterogeneous.toml --out "$runs/heterogeneous" >/dev/null
for run in conservative-step optimistic; do
  "$view" --timeline "$img/heterogeneous-timeline-$run.png" --run "$runs/heterogeneous/$run" --size 1000x360
done
echo "pictures written to $img/ (first collision at step $first)"
