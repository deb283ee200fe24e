// The client decodes the wire types (Ride, RideRequest, RideEvent, APIErrorCode, ...);
// importing RideClient imports them, so roles and the guide name them as before.
@_exported import RideWire
