#!/usr/bin/env python3
"""beacontools (PyPI) parsing the benchmark stream: its scanner's own per-packet path,
Monitor.process_packet (prefilter, address, RSSI, iBeacon parse, callback), fed the same H4 events
the Swift benchmark reads. Its socket backend needs PyBluez, which only opens the HCI socket, so a
stand-in module is registered; no parsing code is replaced. Prints JSON."""
import json, sys, time, types

bluetooth = types.ModuleType('bluetooth')
bluetooth._bluetooth = types.ModuleType('bluetooth._bluetooth')
sys.modules['bluetooth'], sys.modules['bluetooth._bluetooth'] = bluetooth, bluetooth._bluetooth

from beacontools.scanner import Monitor  # noqa: E402
from beacontools.scanner import HCIVersion  # noqa: E402

def main(path, limit):
    stream = open(path, 'rb').read()
    packets, i = [], 0
    while i + 3 <= len(stream) and len(packets) < limit:
        n = stream[i + 2]
        packets.append(stream[i:i + 3 + n])
        i += 3 + n
    seen = [0]
    def callback(addr, rssi, packet, properties):
        seen[0] += 1
    monitor = Monitor(callback, 0, None, None, {})
    monitor.hci_version = HCIVersion.BT_CORE_SPEC_4_2  # legacy reports
    start = time.perf_counter()
    for p in packets:
        monitor.process_packet(p)
    elapsed = time.perf_counter() - start
    print(json.dumps({'implementation': 'beacontools 2.1.0 (CPython %d.%d)' % sys.version_info[:2],
                      'reports': len(packets), 'ibeacons': seen[0], 'seconds': elapsed,
                      'ns_per_report': elapsed * 1e9 / len(packets)}))

if __name__ == '__main__':
    main(sys.argv[1], int(sys.argv[2]) if len(sys.argv) > 2 else 200_000)
