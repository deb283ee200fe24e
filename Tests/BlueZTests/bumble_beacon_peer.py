'''A Bumble host (bumble.device.Device) on one of Bumble's virtual controllers: the other end
of our radio in BumbleHostPeerTests.

  scan --transport tcp-client:127.0.0.1:PORT [--count N] [--seconds S]
      Passive scan; prints one JSON line per iBeacon advertisement decoded here (not by our
      code): {"address", "rssi", "uuid", "major", "minor", "measured_power"}. Exits after N.
  advertise --transport ... --uuid U --major M --minor N --measured-power P [--seconds S]
      Advertises that iBeacon (legacy ADV_IND, which Bumble's virtual link relays); prints
      "advertising" once the controller accepted it.

Run with the repository's .venv python (Bumble is pinned in the Makefile).
'''

import argparse
import asyncio
import json
import sys
import uuid

from bumble.device import AdvertisingType, Device
from bumble.hci import Address
from bumble.transport import open_transport


def decode_ibeacon(data):
    '''The iBeacon in advertising data, by the spec: AD type 0xFF, Apple 0x004C, 0x02 0x15.'''
    i = 0
    while i < len(data):
        length = data[i]
        if length == 0 or i + 1 + length > len(data):
            return None
        kind, value = data[i + 1], bytes(data[i + 2:i + 1 + length])
        if kind == 0xFF and len(value) == 25 and value[:4] == bytes([0x4C, 0x00, 0x02, 0x15]):
            return {
                'uuid': str(uuid.UUID(bytes=value[4:20])).upper(),
                'major': int.from_bytes(value[20:22], 'big'),
                'minor': int.from_bytes(value[22:24], 'big'),
                'measured_power': int.from_bytes(value[24:25], 'big', signed=True),
            }
        i += 1 + length
    return None


def encode_ibeacon(args):
    payload = bytes([0x4C, 0x00, 0x02, 0x15]) + uuid.UUID(args.uuid).bytes \
        + args.major.to_bytes(2, 'big') + args.minor.to_bytes(2, 'big') \
        + args.measured_power.to_bytes(1, 'big', signed=True)
    return bytes([2, 0x01, 0x06, len(payload) + 1, 0xFF]) + payload


async def run(args):
    async with await open_transport(args.transport) as hci:
        device = Device.with_hci('ridebeacon-peer', Address('F0:F1:F2:F3:F4:F5'), hci.source, hci.sink)
        await device.power_on()
        if args.command == 'scan':
            done = asyncio.get_running_loop().create_future()
            seen = 0

            def on_advertisement(advertisement):
                nonlocal seen
                beacon = decode_ibeacon(advertisement.data_bytes)
                if beacon is None or done.done():
                    return
                print(json.dumps({'address': str(advertisement.address), 'rssi': advertisement.rssi, **beacon}), flush=True)
                seen += 1
                if seen >= args.count:
                    done.set_result(None)

            device.on('advertisement', on_advertisement)
            await device.start_scanning(active=False, filter_duplicates=False)
            print('scanning', file=sys.stderr, flush=True)
            try:
                await asyncio.wait_for(done, args.seconds)
            except asyncio.TimeoutError:
                sys.exit(f'scan: {seen} of {args.count} iBeacons in {args.seconds} s')
        else:
            await device.start_advertising(advertising_type=AdvertisingType.UNDIRECTED_CONNECTABLE_SCANNABLE,
                                           advertising_data=encode_ibeacon(args),
                                           advertising_interval_min=50, advertising_interval_max=50)
            print('advertising', flush=True)
            await asyncio.sleep(args.seconds)


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument('command', choices=['scan', 'advertise'])
    parser.add_argument('--transport', required=True)
    parser.add_argument('--count', type=int, default=3)
    parser.add_argument('--seconds', type=float, default=30)
    parser.add_argument('--uuid')
    parser.add_argument('--major', type=int)
    parser.add_argument('--minor', type=int)
    parser.add_argument('--measured-power', type=int)
    args = parser.parse_args()
    if args.command == 'advertise' and None in (args.uuid, args.major, args.minor, args.measured_power):
        parser.error('advertise needs --uuid, --major, --minor and --measured-power')
    asyncio.run(run(args))


if __name__ == '__main__':
    main()
