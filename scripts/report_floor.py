#!/usr/bin/env python3
"""The weakest levels each shared set's receivers reported (the street's receiver sensitivity
range, StreetParameters.sensitivity): minimum and 0.1th / 1st percentiles, dBm."""
import csv, glob, gzip, sys

root = sys.argv[1] if len(sys.argv) > 1 else "../shared/data"
for name in ["herald", "philotuxo", "pcng"]:
    levels = []
    for path in sorted(glob.glob(f"{root}/{name}/*.csv*")):
        with (gzip.open if path.endswith(".gz") else open)(path, "rt") as f:
            for row in csv.DictReader(f):
                try:
                    levels.append(float(row["rssi_dbm"]))
                except (KeyError, ValueError):
                    pass
    levels.sort()
    n = len(levels)
    print(f"{name}: {n} reports, min {levels[0]:.0f}, p0.1 {levels[int(n * 0.001)]:.0f}, p1 {levels[int(n * 0.01)]:.0f} dBm")
