#!/usr/bin/env bash
# Prints the figures of docs/performance.md, all measured in one run on this machine:
# Google Benchmark's table, then the derived figures (ratios within the same run).
# Usage: bash bench/run.sh [extra Google Benchmark flags]   (or: make bench)
set -euo pipefail
cd "$(dirname "$0")/.."
[ -x build/bin/kausal_bench ] || make build
exec build/bin/kausal_bench --benchmark_repetitions=5 --benchmark_report_aggregates_only=true "$@"
