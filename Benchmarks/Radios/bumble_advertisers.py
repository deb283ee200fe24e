"""N Bumble virtual advertisers and one scanner controller on one LocalLink.

The scanner controller is served as H4 on tcp-server:127.0.0.1:PORT for RideBeacon
(`ridebeacon scan --radio h4:tcp:127.0.0.1:PORT`). Each advertiser sends a connectable ADV_IND
iBeacon (UUID fixed, major = index, minor = 0) at the interval given; every PDU put on the link
is counted, and the counts are printed as JSON when SECONDS have passed.

usage: .venv/bin/python Benchmarks/Radios/bumble_advertisers.py PORT COUNT INTERVAL_MS SECONDS
"""
import asyncio
import json
import sys
import uuid

from bumble import hci
from bumble.controller import Controller
from bumble.link import LocalLink
from bumble.transport import open_transport

UUID = uuid.UUID("E2C56DB5-DFFB-48D2-B060-D0F5A71096E0").bytes


def ibeacon(major: int) -> bytes:
    payload = bytes([0x4C, 0x00, 0x02, 0x15]) + UUID + major.to_bytes(2, "big") + bytes([0, 0, 0xC5])
    return bytes([2, 1, 6, len(payload) + 1, 0xFF]) + payload


async def main(port: int, count: int, interval_ms: int, seconds: float) -> None:
    link = LocalLink()
    sent = [0] * count
    original = link.send_advertising_pdu

    def counting(sender, packet):
        index = getattr(sender, "benchmark_index", None)
        if index is not None:
            sent[index] += 1
        original(sender, packet)

    link.send_advertising_pdu = counting
    transport = await open_transport(f"tcp-server:127.0.0.1:{port}")
    Controller("scanner", host_source=transport.source, host_sink=transport.sink, link=link)
    print(json.dumps({"ready": True}), flush=True)
    # Wait for the scanner's host to connect and enable scanning before advertising starts.
    await asyncio.sleep(float(sys.argv[5]) if len(sys.argv) > 5 else 3.0)
    advertisers = []
    for index in range(count):
        c = Controller(f"adv{index}", link=link, public_address=hci.Address(f"F0:00:00:00:00:{index:02X}"))
        c.benchmark_index = index
        adv = c.le_legacy_advertiser
        adv.advertising_type = 0  # ADV_IND: the only legacy type the LocalLink relays
        # Bumble's legacy timer reads the interval as milliseconds (not 0.625 ms units).
        adv.advertising_interval_min = interval_ms
        adv.advertising_data = ibeacon(index)
        advertisers.append(adv)
    for adv in advertisers:
        adv.start()
    await asyncio.sleep(seconds)
    for adv in advertisers:
        adv.stop()
    await asyncio.sleep(0.5)
    print(json.dumps({"sent": sent, "total": sum(sent)}), flush=True)


if __name__ == "__main__":
    asyncio.run(main(int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3]), float(sys.argv[4])))
