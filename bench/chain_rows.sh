# The generated chains of the blocks benchmarks (bench/blocks.sh, bench/blocks_hosts.sh), to be
# sourced. write_row KIND N FILE INTEGRATOR STEPS CALC_WORK writes a scenario of N equal
# pendulums 0.2 m apart, steps of 1 ms:
#   quiet: the first released from -1 rad, the rest at rest; it reaches its neighbour only
#          after about 0.4 s, so a few hundred steps have no impact;
#   busy:  neighbours swinging into each other (+1 and -1 rad/s alternately): impacts
#          everywhere from the tenth step on, across every block boundary too.
write_row() {
  local kind=$1 n=$2 file=$3 integrator=$4 steps=$5 work=$6
  if [ "$kind" = busy ]; then
    python3 - "$n" "$file" "$integrator" "$steps" "$work" <<'PY'
import sys
n, path, integrator, steps, work = int(sys.argv[1]), sys.argv[2], sys.argv[3], int(sys.argv[4]), sys.argv[5]
with open(path, "w") as f:
    f.write(f'name = "busy-row-{n}"\ndescription = "neighbours swinging into each other"\n')
    f.write(f'[simulation]\nintegrator = "{integrator}"\nstep = 0.001\n')
    f.write(f'duration = {steps * 0.001}\noutput_interval = {steps * 0.001}\n')
    f.write(f'[model]\ntype = "pendulum-chain"\nrestitution = 0.9\ncalc_work = {work}\n')
    for i in range(n):
        f.write(f'[[pendulum]]\npivot_x = {0.2 * i:.1f}\nlength = 1.0\nmass = 1.0\n'
                f'radius = 0.09\nangle = 0.0\nangular_velocity = {1 if i % 2 == 0 else -1}\n')
PY
    return
  fi
  local duration
  duration=$(python3 -c "print($steps * 0.001)")
  cat >"$file" <<TOML
name = "row-$n"
description = "a row of $n equal pendulums, the first released from -1 rad"
[simulation]
integrator = "$integrator"
step = 0.001
duration = $duration
output_interval = $duration
[model]
type = "pendulum-chain"
restitution = 0.9
calc_work = $work
[[pendulum]]
pivot_x = -0.2
length = 1.0
mass = 1.0
radius = 0.09
angle = -1.0
[[row]]
count = $((n - 1))
pivot_x = 0.0
spacing = 0.2
length = 1.0
mass = 1.0
radius = 0.09
angle = 0.0
TOML
}
