#!/usr/bin/env bash
# The PHOLD layouts table of docs/performance.md (issue 15): PHOLD as benchmarks.md G
# defines it (64 components, one initial event each, lookahead 1), remote 0.1 / 0.5, mean
# 1 / 2, committed events per second for sequential and, in two event groups, conservative
# and optimistic in the single layout (two threads of kausal) and the process layout (two
# kausal-event-group processes, events peer to peer over CORBA). One `kausal run` each, all
# in one go (ratios within one run of this script). For the process layout it also prints
# the hand-overs between groups (calls), the events per call and the wall time per call.
# Usage: bash bench/phold_layouts.sh [END]   (default end 5000: about 320,000 events)
set -euo pipefail
cd "$(dirname "$0")/.."
[ -x build/bin/kausal ] || make build
end=${1:-5000}
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
for remote in 0.1 0.5; do
  for mean in 1.0 2.0; do
    name="r${remote}-m${mean}"
    cat >"$out/$name.toml" <<TOML
name = "$name"
[events]
model = "phold"
end = $end
groups = 2
[parameters]
components = 64
population = 1
remote = $remote
mean = $mean
lookahead = 1.0
TOML
    build/bin/kausal run "$out/$name.toml" --method sequential --out "$out/$name/seq" >/dev/null
    for method in conservative optimistic; do
      for layout in single process; do
        build/bin/kausal run "$out/$name.toml" --method $method --layout $layout \
          --out "$out/$name/$method-$layout" >/dev/null
      done
    done
  done
done
python3 - "$out" <<'PY'
import json, os, sys
out = sys.argv[1]
def load(d):
    return json.load(open(os.path.join(d, "summary.json")))
print("| remote, mean | method | layout | committed ev/s | efficiency | rollbacks / anti-messages"
      " | null messages | events between groups | calls | events per call | µs per call |")
print("|---|---|---|---|---|---|---|---|---|---|---|")
for remote in ("0.1", "0.5"):
    for mean in ("1.0", "2.0"):
        name = f"r{remote}-m{mean}"
        seq = load(os.path.join(out, name, "seq"))
        rows = [("sequential", "-", seq)]
        for method in ("conservative", "optimistic"):
            for layout in ("single", "process"):
                rows.append((method, layout, load(os.path.join(out, name, f"{method}-{layout}"))))
        for method, layout, j in rows:
            e = j["events"]
            rate = e["committed"] / j["wall_s"] if j["wall_s"] > 0 else 0
            same = "" if j["trajectory_sha256"] == seq["trajectory_sha256"] else " DIGEST DIFFERS"
            calls = e.get("batches", 0)
            per_call = f"{(e['messages'] + e['null_messages']) / calls:.1f}" if calls else "-"
            us = f"{1e6 * j['wall_s'] / calls:.0f}" if calls and layout == "process" else "-"
            print(f"| {remote}, {mean} | {method} | {layout} | {rate / 1e6:.2f} M{same} | "
                  f"{100 * e['efficiency']:.1f} % | {e['rollbacks']} / {e['anti_messages']} | "
                  f"{e['null_messages']} | {e['messages']} | {calls if calls else '-'} | "
                  f"{per_call} | {us} |")
PY
