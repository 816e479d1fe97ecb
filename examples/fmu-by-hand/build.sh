#!/usr/bin/env bash
# Builds decay.fmu (an FMU written by hand in C, docs/fmi.md "An FMU written by hand") into
# OUT, with the scenario that runs it:
#   examples/fmu-by-hand/build.sh OUT && build/bin/kausal run OUT/decay.toml
# Needs a C compiler and cmake (for the zip). The FMI 2.0 functions come from the frame of
# kausal's test FMUs (tests/fmus/fmu_frame.c); the GUID is compiled in from the XML.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
out=${1:?usage: build.sh OUT}
mkdir -p "$out"
out=$(cd "$out" && pwd)
stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT

guid=$(sed -n 's/.*guid="\([^"]*\)".*/\1/p' "$here/modelDescription.xml")
[ -n "$guid" ] || { echo "build.sh: no guid in modelDescription.xml" >&2; exit 2; }
mkdir -p "$stage/binaries/linux64"
# The binary: binaries/linux64/<modelIdentifier>.so, only the fmi2 functions visible.
${CC:-cc} -std=c99 -O2 -shared -fPIC -fvisibility=hidden \
  -I"$root" -I"$root/tests/fmus" \
  -DFMU_GUID="\"$guid\"" -DFMU_IDENTIFIER="\"decay\"" \
  "$here/decay.c" "$root/tests/fmus/fmu_frame.c" -lm -o "$stage/binaries/linux64/decay.so"
cp "$here/modelDescription.xml" "$stage/"
rm -f "$out/decay.fmu"
(cd "$stage" && cmake -E tar cf "$out/decay.fmu" --format=zip modelDescription.xml \
  binaries/linux64/decay.so)
cp "$here/decay.toml" "$out/decay.toml"
echo "$out/decay.fmu"
