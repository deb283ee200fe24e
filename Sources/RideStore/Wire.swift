// The store's API speaks the wire types (Account, RideEvent, RideState, Role, ...) and maps its
// own records (RideRecord, RideRequestRecord) to them; importing RideStore imports them.
@_exported import RideWire
