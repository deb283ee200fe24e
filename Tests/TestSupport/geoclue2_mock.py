'''GeoClue2 as python3-dbusmock has no template for it (issue 35): the parts a client uses.

Run as `/usr/bin/python3 -m dbusmock --system --template THIS_FILE` on a private bus
(DBUS_SYSTEM_BUS_ADDRESS). As geoclue exports them:

- /org/freedesktop/GeoClue2/Manager, org.freedesktop.GeoClue2.Manager: GetClient() -> o, one
  client object per caller (its unique name), CreateClient() -> o, a new one each call.
- each client, org.freedesktop.GeoClue2.Client: properties Location (o, "/" until the first
  fix), DesktopId (s), RequestedAccuracyLevel (u), DistanceThreshold (u), TimeThreshold (u),
  Active (b); Start(), Stop(); signal LocationUpdated(o old, o new), sent to started clients.
- each fix a Location object, org.freedesktop.GeoClue2.Location: Latitude, Longitude,
  Accuracy, Altitude, Speed, Heading (d), Description (s), Timestamp ((tt) s and us).

On org.freedesktop.GeoClue2.Mock of the Manager, for the test:

- EmitLocation(latitude, longitude, accuracy, heading, speed, seconds, microseconds): a new
  Location object, made every started client's Location, with LocationUpdated(old, new).
- State() -> s: JSON list of clients: path, owner, desktopId, accuracyLevel, active, and the
  calls (Start, Stop) in order.
'''

import json

import dbus

from dbusmock import mockobject

BUS_NAME = 'org.freedesktop.GeoClue2'
MAIN_OBJ = '/org/freedesktop/GeoClue2/Manager'
MAIN_IFACE = 'org.freedesktop.GeoClue2.Manager'
SYSTEM_BUS = True

CLIENT_IFACE = 'org.freedesktop.GeoClue2.Client'
LOCATION_IFACE = 'org.freedesktop.GeoClue2.Location'
MOCK_IFACE = 'org.freedesktop.GeoClue2.Mock'

clients = {}        # path -> {'owner': unique name, 'calls': [...]}
owners = {}         # unique name -> path (GetClient)
counters = {'client': 0, 'location': 0}


def load(mock, parameters):
    mock.AddProperties(MAIN_IFACE, dbus.Dictionary({
        'InUse': False,
        'AvailableAccuracyLevel': dbus.UInt32(8),
    }, signature='sv'))


def new_client(manager, owner):
    counters['client'] += 1
    path = f'/org/freedesktop/GeoClue2/Client/{counters["client"]}'
    manager.AddObject(path, CLIENT_IFACE, dbus.Dictionary({
        'Location': dbus.ObjectPath('/'),
        'DesktopId': '',
        'RequestedAccuracyLevel': dbus.UInt32(0),
        'DistanceThreshold': dbus.UInt32(0),
        'TimeThreshold': dbus.UInt32(0),
        'Active': False,
    }, signature='sv'), [])
    clients[path] = {'owner': owner, 'calls': []}
    return dbus.ObjectPath(path)


@dbus.service.method(MAIN_IFACE, in_signature='', out_signature='o', sender_keyword='sender')
def GetClient(self, sender=None):
    if sender not in owners:
        owners[sender] = new_client(self, sender)
    return owners[sender]


@dbus.service.method(MAIN_IFACE, in_signature='', out_signature='o', sender_keyword='sender')
def CreateClient(self, sender=None):
    return new_client(self, sender)


@dbus.service.method(CLIENT_IFACE, in_signature='', out_signature='')
def Start(self):
    clients[self.path]['calls'].append('Start')
    self.Set(CLIENT_IFACE, 'Active', True)


@dbus.service.method(CLIENT_IFACE, in_signature='', out_signature='')
def Stop(self):
    clients[self.path]['calls'].append('Stop')
    self.Set(CLIENT_IFACE, 'Active', False)


@dbus.service.method(MOCK_IFACE, in_signature='dddddtt', out_signature='')
def EmitLocation(self, latitude, longitude, accuracy, heading, speed, seconds, microseconds):
    counters['location'] += 1
    path = f'/org/freedesktop/GeoClue2/Location/{counters["location"]}'
    self.AddObject(path, LOCATION_IFACE, dbus.Dictionary({
        'Latitude': dbus.Double(latitude),
        'Longitude': dbus.Double(longitude),
        'Accuracy': dbus.Double(accuracy),
        'Altitude': dbus.Double(-1.7976931348623157e308),
        'Speed': dbus.Double(speed),
        'Heading': dbus.Double(heading),
        'Description': '',
        'Timestamp': dbus.Struct((dbus.UInt64(seconds), dbus.UInt64(microseconds)), signature='tt'),
    }, signature='sv'), [])
    for client_path in clients:
        client = mockobject.get_object(client_path)
        if not client.props[CLIENT_IFACE]['Active']:
            continue
        old = client.props[CLIENT_IFACE]['Location']
        client.props[CLIENT_IFACE]['Location'] = dbus.ObjectPath(path)
        client.EmitSignal(CLIENT_IFACE, 'LocationUpdated', 'oo', [old, dbus.ObjectPath(path)])


@dbus.service.method(MOCK_IFACE, in_signature='', out_signature='s')
def State(self):
    out = []
    for path, client in clients.items():
        props = mockobject.get_object(path).props[CLIENT_IFACE]
        out.append({
            'path': path,
            'owner': client['owner'],
            'desktopId': str(props['DesktopId']),
            'accuracyLevel': int(props['RequestedAccuracyLevel']),
            'active': bool(props['Active']),
            'calls': client['calls'],
        })
    return json.dumps(out)
