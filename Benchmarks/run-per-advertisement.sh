#!/usr/bin/env bash
# Per-advertisement benchmark: Swift BeaconCore vs beacontools (PyPI) on one byte stream, in one
# run, so the ratio is meaningful on a noisy machine. Usage: Benchmarks/run-per-advertisement.sh [REPORTS]
set -euo pipefail
cd "$(dirname "$0")/.."
REPORTS=${1:-1000000}
STREAM=${TMPDIR:-/tmp}/ridebeacon-adv-stream-$REPORTS.bin
[ -f "$STREAM" ] || python3 Benchmarks/make_adv_stream.py "$STREAM" "$REPORTS"
SWIFT_JSON=$(taskset -c 0 .build/release/PerAdvertisementBenchmark "$STREAM" 5 2>/dev/null || .build/release/PerAdvertisementBenchmark "$STREAM" 5)
# beacontools is ~10^4 times slower: 100 000 reports of the same stream are plenty.
PY_JSON=$(.venv/bin/python Benchmarks/beacontools_baseline.py "$STREAM" 100000)
python3 - "$SWIFT_JSON" "$PY_JSON" <<'PY'
import json, sys
s, p = json.loads(sys.argv[1]), json.loads(sys.argv[2])
print(f"| implementation | reports | ns/report | reports/s |")
print(f"| --- | ---: | ---: | ---: |")
for r in (s, p):
    print(f"| {r['implementation']} | {r['reports']} | {r['ns_per_report']:.1f} | {1e9 / r['ns_per_report']:,.0f} |")
st = s['stages']
print(f"\nSwift stages (cumulative ns/report): decode {st['decode']['ns_per_report']:.1f}, "
      f"+ iBeacon {st['ibeacon']['ns_per_report']:.1f}, + ranging {st['ranging']['ns_per_report']:.1f}")
print(f"\nspeed-up: {p['ns_per_report'] / s['ns_per_report']:,.0f}x (goal >= 100x); "
      f"Swift {1e9 / s['ns_per_report'] / 1e6:.2f} M reports/s on one core (goal >= 5 M)")
PY
