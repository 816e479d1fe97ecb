#!/usr/bin/env bash
# Prints the figures of docs/performance.md, measured on this machine:
#  1. kausal_bench (Google Benchmark): round trips, one conservative step, sequential
#     throughput, then the derived figures (ratios within the same run);
#  2. whole runs of every method on thesis.toml and heterogeneous.toml (`kausal compare`:
#     all methods in one run, ratios against sequential and against conservative step);
#  3. bench/layouts.sh: every method in every layout on thesis.toml, wall time and Calc cost.
# Usage: bash bench/run.sh [extra Google Benchmark flags]   (or: make bench)
set -euo pipefail
cd "$(dirname "$0")/.."
[ -x build/bin/kausal_bench ] || make build
build/bin/kausal_bench --benchmark_repetitions=5 --benchmark_report_aggregates_only=true "$@"
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
for scenario in thesis heterogeneous; do
  echo
  build/bin/kausal compare "scenarios/$scenario.toml" --out "$out/$scenario" | head -n 8
done
echo
bash bench/layouts.sh
