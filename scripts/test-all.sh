#!/usr/bin/env bash
# `make test`: every build and every test run, in the order that keeps both CPUs busy.
#
#   1. the release build (product, tests of real processes, benchmarks, examples), on every CPU;
#   2. the release tests (unit and real processes), while the sanitizer builds compile at
#      nice 19 beside them: the real-process tests leave about 40 % of the CPUs idle (they
#      wait for processes, sockets and paced clocks), and a test that fails because a build
#      runs beside it is a defect anyway (docs/performance.md, "Build and test times");
#   3. the unit tests under ASan + UBSan, then the fuzzers, once the sanitizer build is done;
#   4. the threaded unit tests under ThreadSanitizer, once their build is done.
#
# Prints a table of what each phase took; exits non-zero if any build or test failed, after
# running every phase it can. The background builds' output is in build/logs/ (BUILD,
# SANITIZE and TSAN name the build directories, as in the Makefile).
set -uo pipefail
cd "$(dirname "$0")/.."

make_cmd=${MAKE:-make}
build=${BUILD:-build}
sanitize=${SANITIZE:-build/sanitize}
logs=$build/logs
mkdir -p "$logs"
rm -f "$logs"/*.rc "$logs"/*.done
phases=()
failed=()

now() { date +%s; }
# read_cpu: sets CPU to the CPU time (user + system, in clock ticks) of this shell's (or
# subshell's) finished children so far; a phase's CPU time is the difference (cpu_s). The
# host's speed varies from run to run: CPU time says how much work a phase is.
ticks=$(getconf CLK_TCK)
read_cpu() {
  local stat
  read -r stat <"/proc/$BASHPID/stat"
  local -a field=(${stat##*) })  # from the state on: cutime and cstime are the 14th and 15th
  CPU=$((field[13] + field[14]))
}
cpu_s() { echo $((($1) / ticks)); }
# run_phase NAME COMMAND...: runs it in the foreground and books its wall and CPU time.
run_phase() {
  local name=$1 start cpu rc
  shift
  echo "== $name"
  start=$(now)
  read_cpu
  cpu=$CPU
  "$@"
  rc=$?
  read_cpu
  phases+=("$(printf '%-34s %5d s  %5d CPU-s  %s' "$name" $(($(now) - start)) $(cpu_s "CPU - cpu") "$([ $rc -eq 0 ] && echo ok || echo FAILED)")")
  [ $rc -eq 0 ] || failed+=("$name")
  return $rc
}

total_start=$(now)
run_phase "release build" $make_cmd --no-print-directory build-all || {
  printf '%s\n' "${phases[@]}"
  exit 1
}

# background_build NAME: `make NAME` at the lowest priority; its exit code and wall time land
# in $logs/NAME-build.rc and .done.
background_build() {
  local start cpu rc
  start=$(now)
  read_cpu
  cpu=$CPU
  nice -n 19 $make_cmd --no-print-directory "$1" >"$logs/$1-build.log" 2>&1
  rc=$?
  read_cpu
  echo "$(($(now) - start)) s  $(cpu_s "CPU - cpu") CPU-s" >"$logs/$1-build.done"
  echo $rc >"$logs/$1-build.rc"
}

# The sanitizer builds, one after the other.
(
  background_build sanitize
  background_build tsan
) &
builds=$!

run_phase "release tests" bash -c "cd '$build' && ctest --output-on-failure -j 2"

# wait_build NAME: waits for a background build; fails the phase (and shows its log's end) if
# it failed.
wait_build() {
  local name=$1 waited
  waited=$(now)
  while [ ! -f "$logs/$name-build.rc" ]; do
    if ! kill -0 $builds 2>/dev/null && [ ! -f "$logs/$name-build.rc" ]; then
      echo "1" >"$logs/$name-build.rc"
      break
    fi
    sleep 1
  done
  local rc
  rc=$(cat "$logs/$name-build.rc")
  phases+=("$(printf '%-34s %s  %s' "$name build (background, nice 19)" \
    "$(cat "$logs/$name-build.done" 2>/dev/null || echo '?')" \
    "$([ "$rc" -eq 0 ] && echo ok || echo FAILED); waited $(($(now) - waited)) s for it")")
  if [ "$rc" -ne 0 ]; then
    failed+=("$name build")
    echo "== $name build failed; the end of $logs/$name-build.log:" >&2
    tail -n 40 "$logs/$name-build.log" >&2
    return 1
  fi
}

if wait_build sanitize; then
  run_phase "unit tests under ASan + UBSan" bash -c "cd '$sanitize' && ctest --output-on-failure -j 2 -LE fuzz"
  run_phase "fuzzers (ASan + UBSan)" bash -c "cd '$sanitize' && ctest --output-on-failure -j 2 -L fuzz"
fi
if wait_build tsan; then
  run_phase "threaded unit tests under TSan" $make_cmd --no-print-directory tsan-tests
fi
wait $builds 2>/dev/null

echo
echo "make test, phase by phase (wall clock):"
printf '  %s\n' "${phases[@]}"
read_cpu
printf '  %-34s %5d s  %5d CPU-s\n' "in all" $(($(now) - total_start)) "$(cpu_s "$CPU")"
if [ ${#failed[@]} -gt 0 ]; then
  echo "make test: FAILED: ${failed[*]}" >&2
  exit 1
fi
echo "make test: every phase passed"
