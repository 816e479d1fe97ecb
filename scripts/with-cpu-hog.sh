#!/usr/bin/env bash
# with-cpu-hog.sh COMMAND...: runs COMMAND with one busy process per CPU beside it, at the
# same priority (nice 0), as a shared CI machine may have: a test that passes only on an idle
# machine fails here. The busy processes are ended by PID when COMMAND ends, however it ends.
# `make test-under-load` runs `make test` this way.
set -u
hogs=()
stop_hogs() {
  for pid in "${hogs[@]}"; do kill "$pid" 2>/dev/null; done
  for pid in "${hogs[@]}"; do wait "$pid" 2>/dev/null; done
}
trap stop_hogs EXIT
trap 'exit 130' INT TERM
for _ in $(seq "$(nproc)"); do
  sh -c 'while :; do :; done' &
  hogs+=($!)
done
echo "with-cpu-hog: ${#hogs[@]} busy processes beside: $*" >&2
"$@"
