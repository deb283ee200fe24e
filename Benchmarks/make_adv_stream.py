#!/usr/bin/env python3
"""Writes the byte stream both sides of the per-advertisement benchmark parse: H4-framed HCI
LE Advertising Report events (legacy, one report per event, as beacontools expects), 90 % iBeacons
from 8 beacons with a random-walk RSSI, 10 % other frames (Apple Nearby, a name). Deterministic."""
import random, struct, sys, uuid

def ibeacon_ad(u, major, minor, power):
    return bytes([2, 0x01, 0x06, 0x1A, 0xFF, 0x4C, 0x00, 0x02, 0x15]) + u.bytes + struct.pack('>HHb', major, minor, power)

def event(addr, data, rssi):
    report = bytes([0x03, 0x01]) + addr + bytes([len(data)]) + data + struct.pack('b', rssi)
    params = bytes([0x02, 0x01]) + report            # subevent 0x02, one report
    return bytes([0x04, 0x3E, len(params)]) + params   # H4 event indicator, LE Meta

def main(path, count):
    rng = random.Random(7)
    beacons = [(bytes(rng.randrange(256) for _ in range(6)), uuid.UUID(int=rng.getrandbits(128)),
                rng.randrange(65536), rng.randrange(65536)) for _ in range(8)]
    others = [bytes([7, 0xFF, 0x4C, 0x00, 0x10, 0x02, 0x0B, 0x00]), bytes([2, 0x01, 0x06, 4, 0x09]) + b'car']
    rssi = [-70] * len(beacons)
    with open(path, 'wb') as f:
        for _ in range(count):
            i = rng.randrange(len(beacons))
            if rng.random() < 0.9:
                rssi[i] = max(-100, min(-30, rssi[i] + rng.choice((-2, -1, 0, 0, 1, 2))))
                addr, u, major, minor = beacons[i]
                f.write(event(addr, ibeacon_ad(u, major, minor, -59), rssi[i]))
            else:
                f.write(event(beacons[i][0], rng.choice(others), -80))

if __name__ == '__main__':
    main(sys.argv[1], int(sys.argv[2]) if len(sys.argv) > 2 else 1_000_000)
