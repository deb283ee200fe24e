#!/usr/bin/env bash
# Issue 35's figures (BENCHMARKS.md, "Issue 35: satellite positions"): from 25 m and 10 m, all
# aids, each driver mode, with and without both phones' satellite positions (the first direction
# a coin toss either way: she knows which way only if the product tells her), without and with a
# compass; then each GNSS assumption swept. Reporting seeds 10001-11000 (the far field's constants
# were chosen on 1-500 only); bootstrap 95 % intervals. RELEASE build. Writes out/positions/*.txt.
set -euo pipefail
cd "$(dirname "$0")/../.."
bench=.build/release/GuideBenchmark
seeds=${SEEDS:-1000}
sweep_seeds=${SWEEP_SEEDS:-200}
mkdir -p out/positions
for start in 25 10; do
  for driver in silent busy helpful legacy; do
    common=(--first-seed 10001 --seeds "$seeds" --start-distance "$start" --aids all --driver "$driver" --first-direction coin)
    $bench "${common[@]}" > "out/positions/$driver-$start-off.txt"
    $bench "${common[@]}" --positions > "out/positions/$driver-$start-on.txt"
    $bench "${common[@]}" --positions --simulated-compass > "out/positions/$driver-$start-on-compass.txt"
  done
done
# Left-hand traffic (the street mirrored), the headline pair.
for driver in silent helpful; do
  $bench --first-seed 10001 --seeds "$seeds" --start-distance 25 --aids all --driver "$driver" --first-direction coin \
    --positions --traffic left > "out/positions/$driver-25-on-left.txt"
done
# Each GNSS assumption at low / mid / high.
for driver in silent helpful; do
  $bench --first-seed 10001 --seeds "$sweep_seeds" --start-distance 25 --aids all --driver "$driver" --first-direction coin \
    --gnss-sweep all > "out/positions/gnss-sweep-$driver-25.txt"
  # The compass's steady error matters only with a compass.
  $bench --first-seed 10001 --seeds "$sweep_seeds" --start-distance 25 --aids all --driver "$driver" --first-direction coin \
    --simulated-compass --gnss-sweep gnss-compass-bias > "out/positions/gnss-sweep-compass-$driver-25.txt"
done
echo "wrote out/positions/"
