'''Debian python3-dbusmock's bluez5 template plus what the BlueZ radio needs.

Run as `/usr/bin/python3 -m dbusmock --system --template THIS_FILE` on a private bus
(DBUS_SYSTEM_BUS_ADDRESS). Everything of bluez5 stays (Adapter1, Device1, AddAdapter, AddDevice,
...). Added, on the org.bluez.Mock interface of /:

- AddLEAdapter(name): AddAdapter plus org.bluez.LEAdvertisingManager1 on the adapter, whose
  RegisterAdvertisement reads the advertisement's properties back from the caller with
  Properties.GetAll *before* replying, as bluetoothd does.
- AdvertisingLog(): JSON list of register/unregister calls with the properties read back.
- ReleaseAdvertisements(): drops every registered advertisement and calls its Release, as
  bluetoothd does when it removes one on its own.
- DiscoveryFilter(adapter): JSON of the last SetDiscoveryFilter dict and Discovering.
- SetBeacon(adapter, address, manufacturer data hex, rssi): adds the device if new, then emits
  Device1 PropertiesChanged {RSSI, ManufacturerData} as bluetoothd does per advertising report.
- EmitBeacons(adapter, address, hex, count, per second): that signal `count` times at a fixed
  rate (RSSI cycling -40...-89); EmitterStatus() reports how many went out and over how long.
'''

import json
import time

import dbus
import dbus.lowlevel
from gi.repository import GLib

from dbusmock import mockobject
from dbusmock.templates import bluez5
from dbusmock.templates.bluez5 import *  # noqa: F401,F403 -- the bluez5 D-Bus methods, loaded with this template

BUS_NAME = 'org.bluez'
MAIN_OBJ = '/'
SYSTEM_BUS = True
IS_OBJECT_MANAGER = True

LE_ADVERTISING_MANAGER_IFACE = 'org.bluez.LEAdvertisingManager1'
LE_ADVERTISEMENT_IFACE = 'org.bluez.LEAdvertisement1'
MOCK_IFACE = 'org.bluez.Mock'

advertising_log = []
emitter = {'sent': 0, 'first': None, 'last': None}


def load(mock, parameters):
    bluez5.load(mock, parameters)


def plain(value):
    '''dbus-python values as JSON: byte arrays as lists of ints, dict keys as strings.'''
    if isinstance(value, dbus.Dictionary) or isinstance(value, dict):
        return {str(plain(k)): plain(v) for k, v in value.items()}
    if isinstance(value, (dbus.Array, list, tuple)):
        return [plain(v) for v in value]
    if isinstance(value, dbus.Boolean):
        return bool(value)
    if isinstance(value, (dbus.Byte, dbus.Int16, dbus.UInt16, dbus.Int32, dbus.UInt32, dbus.Int64, dbus.UInt64)):
        return int(value)
    if isinstance(value, (dbus.String, dbus.ObjectPath, str)):
        return str(value)
    return value


@dbus.service.method(LE_ADVERTISING_MANAGER_IFACE, in_signature='oa{sv}', out_signature='',
                     sender_keyword='sender', async_callbacks=('reply', 'error'))
def RegisterAdvertisement(adapter, path, options, sender=None, reply=None, error=None):
    def got(properties):
        advertising_log.append({'event': 'register', 'adapter': adapter.path, 'path': str(path),
                                'owner': sender, 'properties': plain(properties)})
        reply()

    def failed(e):
        advertising_log.append({'event': 'register-failed', 'path': str(path), 'owner': sender, 'error': str(e)})
        error(dbus.exceptions.DBusException('cannot read advertisement: ' + str(e), name='org.bluez.Error.Failed'))

    adapter.connection.call_async(sender, path, dbus.PROPERTIES_IFACE, 'GetAll', 's',
                                  (LE_ADVERTISEMENT_IFACE,), got, failed, timeout=5)


@dbus.service.method(LE_ADVERTISING_MANAGER_IFACE, in_signature='o', out_signature='', sender_keyword='sender')
def UnregisterAdvertisement(adapter, path, sender=None):
    registered = [e for e in advertising_log if e['path'] == str(path) and e['owner'] == sender]
    if not registered or registered[-1]['event'] != 'register':
        raise dbus.exceptions.DBusException('not registered', name='org.bluez.Error.DoesNotExist')
    advertising_log.append({'event': 'unregister', 'adapter': adapter.path, 'path': str(path), 'owner': sender})


@dbus.service.method(MOCK_IFACE, in_signature='s', out_signature='s')
def AddLEAdapter(self, name):
    path = bluez5.AddAdapter(self, name, 'ridebeacon-test')
    adapter = mockobject.objects[path]
    adapter.AddProperties(LE_ADVERTISING_MANAGER_IFACE, {
        'ActiveInstances': dbus.Byte(0, variant_level=1),
        'SupportedInstances': dbus.Byte(5, variant_level=1),
        'SupportedIncludes': dbus.Array(['tx-power'], signature='s', variant_level=1),
        # Experimental in bluetoothd: what the controller reported (LE Read Transmit Power).
        'SupportedCapabilities': dbus.Dictionary({
            'MaxAdvLen': dbus.Byte(31), 'MaxScnRspLen': dbus.Byte(31),
            'MinTxPower': dbus.Int16(-20), 'MaxTxPower': dbus.Int16(9)}, signature='sv', variant_level=1),
    })
    return path


@dbus.service.method(MOCK_IFACE, in_signature='', out_signature='s')
def AdvertisingLog(self):
    return json.dumps(advertising_log)


@dbus.service.method(MOCK_IFACE, in_signature='', out_signature='')
def ReleaseAdvertisements(self):
    last = {}
    for entry in advertising_log:
        last[(entry['owner'], entry['path'])] = entry['event']
    for (owner, path), event in last.items():
        if event == 'register':
            advertising_log.append({'event': 'released', 'path': path, 'owner': owner})
            release = dbus.lowlevel.MethodCallMessage(owner, path, LE_ADVERTISEMENT_IFACE, 'Release')
            release.set_no_reply(True)
            self.connection.send_message(release)


@dbus.service.method(MOCK_IFACE, in_signature='s', out_signature='s')
def DiscoveryFilter(self, name):
    props = mockobject.objects['/org/bluez/' + name].props[bluez5.ADAPTER_IFACE]
    return json.dumps({'filter': plain(props.get('DiscoveryFilter')), 'discovering': bool(props['Discovering'])})


def device_path(adapter_name, address):
    return '/org/bluez/' + adapter_name + '/dev_' + address.replace(':', '_').upper()


def emit_report(adapter_name, address, data, rssi):
    '''One advertising report, as bluetoothd signals it with DuplicateData and an RSSI filter.'''
    path = device_path(adapter_name, address)
    device = mockobject.objects[path]
    company = data[0] | data[1] << 8
    manufacturer = dbus.Dictionary({dbus.UInt16(company): dbus.Array(data[2:], signature='y', variant_level=1)},
                                   signature='qv', variant_level=1)
    device.props[bluez5.DEVICE_IFACE]['RSSI'] = dbus.Int16(rssi, variant_level=1)
    device.props[bluez5.DEVICE_IFACE]['ManufacturerData'] = manufacturer
    signal = dbus.lowlevel.SignalMessage(path, dbus.PROPERTIES_IFACE, 'PropertiesChanged')
    signal.append(bluez5.DEVICE_IFACE, {'RSSI': dbus.Int16(rssi, variant_level=1), 'ManufacturerData': manufacturer},
                  dbus.Array([], signature='s'), signature='sa{sv}as')
    device.connection.send_message(signal)


@dbus.service.method(MOCK_IFACE, in_signature='sssn', out_signature='')
def SetBeacon(self, adapter_name, address, data_hex, rssi):
    if device_path(adapter_name, address) not in mockobject.objects:
        bluez5.AddDevice(self, adapter_name, address, 'beacon')
    emit_report(adapter_name, address, list(bytes.fromhex(data_hex)), rssi)


@dbus.service.method(MOCK_IFACE, in_signature='sssuu', out_signature='')
def EmitBeacons(self, adapter_name, address, data_hex, count, per_second):
    if device_path(adapter_name, address) not in mockobject.objects:
        bluez5.AddDevice(self, adapter_name, address, 'beacon')
    data = list(bytes.fromhex(data_hex))
    emitter.update(sent=0, first=None, last=None)
    start = time.monotonic()

    def tick():
        # Catch up to where a perfect clock would be: GLib timers drift, the rate must not.
        due = min(count, int((time.monotonic() - start) * per_second) + 1)
        while emitter['sent'] < due:
            emit_report(adapter_name, address, data, -40 - emitter['sent'] % 50)
            emitter['sent'] += 1
            now = time.monotonic()
            emitter['first'] = emitter['first'] or now
            emitter['last'] = now
        return emitter['sent'] < count

    GLib.timeout_add(max(1, int(1000 / per_second)), tick)


@dbus.service.method(MOCK_IFACE, in_signature='', out_signature='s')
def EmitterStatus(self):
    span = (emitter['last'] - emitter['first']) if emitter['first'] else 0
    return json.dumps({'sent': emitter['sent'], 'seconds': span})
