#!/usr/bin/env bash
# The street's figures (BENCHMARKS.md, "The street" and "Finding each other"): the old open
# field beside the street for today's guide (driver legacy), every aid, from 25 m and 10 m; the
# driver modes on the street; each assumption swept. Reporting seeds 10001-11000 (constants are
# chosen on 1-500 only); bootstrap 95 % intervals. Writes out/street/*.txt.
set -euo pipefail
cd "$(dirname "$0")/../.."
bench=.build/release/GuideBenchmark
seeds=${SEEDS:-1000}
sweep_seeds=${SWEEP_SEEDS:-100}
mkdir -p out/street
for start in 25 10; do
  for aids in none turn locator all; do
    for world in open street; do
      $bench --first-seed 10001 --seeds "$seeds" --start-distance "$start" --aids "$aids" --world "$world" --driver legacy \
        > "out/street/$world-legacy-$start-$aids.txt"
    done
  done
  for driver in helpful busy silent; do
    $bench --first-seed 10001 --seeds "$seeds" --start-distance "$start" --aids all --driver "$driver" \
      > "out/street/street-$driver-$start-all.txt"
  done
  # The helpful headline both ways (issue 34): the first direction known, and a coin toss; and
  # both again on seeds nobody looked at before.
  $bench --first-seed 10001 --seeds "$seeds" --start-distance "$start" --aids all --driver helpful --first-direction coin \
    > "out/street/street-helpful-coin-$start-all.txt"
  $bench --first-seed 20001 --seeds "$seeds" --start-distance "$start" --aids all --driver helpful \
    > "out/street/street-helpful-$start-all-20001.txt"
  $bench --first-seed 20001 --seeds "$seeds" --start-distance "$start" --aids all --driver helpful --first-direction coin \
    > "out/street/street-helpful-coin-$start-all-20001.txt"
done
for driver in legacy helpful; do
  $bench --first-seed 10001 --seeds "$sweep_seeds" --start-distance 25 --aids all --driver "$driver" --sweep all \
    > "out/street/sweep-$driver-25-all.txt"
done
echo "wrote out/street/"
