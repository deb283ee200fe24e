import BeaconCore
#if canImport(Glibc)
import Glibc
#endif

/// A Bluetooth LE radio that can advertise one iBeacon and scan for advertisements.
///
/// Every radio (`bluez`, `hci`, `h4`, `sim`) keeps working across controller loss: the scan
/// stream reports `.lost`, the radio reconnects with backoff, re-applies its advertisement and
/// scanning, and reports `.restored`. Only `shutdown()` (or the consumer cancelling) ends it.
public protocol Radio: Sendable {
    /// Starts (or restarts, with new parameters) advertising `advertisement`.
    func startAdvertising(_ advertisement: BeaconAdvertisement) async throws
    /// Replaces the frame being advertised, keeping interval and type (identity rotation); a
    /// `.rotatingPrivate` advertisement moves to a fresh address with it.
    func replaceAdvertisedBeacon(_ beacon: IBeacon) async throws
    /// Changes the interval of what is advertised, keeping frame, type and address (fast
    /// advertising in the last metre); throws when nothing is advertised.
    func setAdvertisingInterval(milliseconds: Int) async throws
    /// The transmit power the controller reported for advertising, dBm (after `.highest` was
    /// asked: the highest it allows); nil before advertising, or when the controller does not say.
    var advertisingTransmitPower: Int8? { get async }
    /// Stops advertising; scanning, if any, goes on.
    func stopAdvertising() async throws
    /// Advertisements seen, plus radio lost / restored events. Scanning runs while at least one
    /// stream is being consumed; ending the consumer's task stops it.
    func scan() -> AsyncThrowingStream<RadioEvent, any Error>
    /// Only `.lost` and `.restored`, without starting a scan (for an advertiser's status).
    func connectionEvents() -> AsyncThrowingStream<RadioEvent, any Error>
    /// Stops advertising and scanning, ends every stream and releases the controller.
    func shutdown() async
}

/// What to advertise and how.
public struct BeaconAdvertisement: Equatable, Sendable {
    /// The iBeacon frame on the air (replaced in place when the identity rotates).
    public var beacon: IBeacon
    /// Advertising interval; controllers accept 20 ms ... 10.24 s.
    public var intervalMilliseconds: Int
    /// Which legacy PDU carries it; `.nonConnectable` unless a peer needs otherwise.
    public var type: AdvertisingKind
    /// Which address sends it.
    public var address: AdvertisingAddress
    /// What transmit power to ask the controller for.
    public var transmitPower: TransmitPowerRequest

    /// The shortest interval any controller accepts (Core Spec Vol 4 Part E §7.8.5 and §7.8.53:
    /// 0x0020 × 0.625 ms). Legacy non-connectable and scannable PDUs may use it since Core 5.0;
    /// a 4.x controller's floor for them is 100 ms, and the HCI radio asks no less of one.
    public static let shortestIntervalMilliseconds = 20
    /// A ride's interval outside the last metre (what the product always used): about 10
    /// advertising events a second, a fifth of the airtime and battery of the shortest.
    public static let rideIntervalMilliseconds = 100

    /// `beacon` every `intervalMilliseconds` as `type`:
    ///
    /// ```swift
    /// try await radio.startAdvertising(BeaconAdvertisement(beacon: identity, intervalMilliseconds: 100))
    /// ```
    public init(beacon: IBeacon, intervalMilliseconds: Int = 100, type: AdvertisingKind = .nonConnectable,
                address: AdvertisingAddress = .controllerPublic, transmitPower: TransmitPowerRequest = .controllerDefault) {
        self.beacon = beacon
        self.intervalMilliseconds = intervalMilliseconds
        self.type = type
        self.address = address
        self.transmitPower = transmitPower
    }

    /// What a device advertising for a ride sends (issue 36): a non-connectable PDU from a fresh
    /// non-resolvable private address with every identity, at the highest power the controller
    /// allows, every `intervalMilliseconds`.
    public static func ride(beacon: IBeacon, intervalMilliseconds: Int = rideIntervalMilliseconds) -> BeaconAdvertisement {
        BeaconAdvertisement(beacon: beacon, intervalMilliseconds: intervalMilliseconds, type: .nonConnectable,
                            address: .rotatingPrivate, transmitPower: .highest)
    }
}

/// The address an advertisement is sent from.
public enum AdvertisingAddress: String, Sendable, CaseIterable {
    /// The controller's own (public) address: one address for the device's life, so whoever
    /// records it can follow the device. For a fixed beacon (`ridebeacon advertise`).
    case controllerPublic = "public"
    /// A non-resolvable private address, a fresh one with every new frame: nothing on the air
    /// links one identity's address to the next. HCI radios set it themselves; through BlueZ the
    /// kernel chooses it (docs in SECURITY.md, "What a bystander with a scanner learns").
    case rotatingPrivate = "private"
}

/// The transmit power an advertisement asks for.
public enum TransmitPowerRequest: String, Sendable, CaseIterable {
    /// Whatever the controller uses by default (its own choice; HCI: "no preference").
    case controllerDefault = "default"
    /// The highest power the controller allows: a ride's devices must hear each other at the kerb.
    case highest = "highest"
}

/// The legacy PDU an advertisement uses. iBeacons are normally non-connectable; some virtual
/// controllers (Bumble's legacy path) only relay connectable ADV_IND.
public enum AdvertisingKind: String, Sendable, CaseIterable {
    /// ADV_NONCONN_IND: what an iBeacon normally is.
    case nonConnectable = "nonconn"
    /// ADV_IND: for controllers that relay nothing else.
    case connectable = "conn"
    /// ADV_SCAN_IND.
    case scannable = "scannable"
}

/// One event on a scan stream.
public enum RadioEvent: Equatable, Sendable {
    /// An advertisement was received.
    case sighting(RadioSighting)
    /// The controller went away (socket closed, tty unplugged, bluetoothd gone); the radio is
    /// reconnecting.
    case lost(RadioLoss)
    /// The controller is back and advertising / scanning have been re-applied.
    case restored
}

/// Why the controller went away, in words for the log (`"tcp:127.0.0.1:9000: connection reset"`).
public struct RadioLoss: Equatable, Sendable, CustomStringConvertible {
    /// What the transport reported.
    public var reason: String
    /// A loss for `reason`.
    public init(reason: String) { self.reason = reason }
    /// The reason itself.
    public var description: String { reason }
}

/// One advertisement as received.
public struct RadioSighting: Equatable, Sendable {
    /// The advertiser's device address.
    public var address: BDAddress
    /// Public or random (rotating phones advertise random addresses).
    public var addressType: AddressType
    /// nil when the controller reported none.
    public var rssi: Int8?
    /// Monotonic time the controller's bytes (or the D-Bus signal) arrived.
    public var receivedAt: ContinuousClock.Instant
    /// Wall-clock time of arrival, for output.
    public var unixMicroseconds: Int64
    /// The advertising data (AD structures) as received.
    public var advertisingData: [UInt8]
    /// The iBeacon in `advertisingData`, if there is one.
    public var beacon: IBeacon?

    /// A sighting as a radio stamps it; tests and the simulator build them the same way.
    public init(address: BDAddress, addressType: AddressType, rssi: Int8?, receivedAt: ContinuousClock.Instant,
                unixMicroseconds: Int64, advertisingData: [UInt8], beacon: IBeacon?) {
        self.address = address
        self.addressType = addressType
        self.rssi = rssi
        self.receivedAt = receivedAt
        self.unixMicroseconds = unixMicroseconds
        self.advertisingData = advertisingData
        self.beacon = beacon
    }

    /// The wall clock now, as `unixMicroseconds` is stamped.
    package static func unixMicrosecondsNow() -> Int64 {
        var now = timespec()
        clock_gettime(CLOCK_REALTIME, &now)
        return Int64(now.tv_sec) * 1_000_000 + Int64(now.tv_nsec) / 1000
    }

    /// The `BeaconSighting` the CSV writers and ranging take, when this is an iBeacon.
    public var beaconSighting: BeaconSighting? {
        beacon.map { BeaconSighting(unixMicroseconds: unixMicroseconds, address: address, addressType: addressType,
                                    beacon: $0, rssi: rssi) }
    }
}

/// A radio that cannot do what was asked: a `--radio` value it cannot parse, a controller that
/// refuses a command, a call after `shutdown()`. The message names the radio and what failed.
public struct RadioError: Error, Equatable, Sendable, CustomStringConvertible {
    /// What failed, for the person reading the error.
    public var message: String
    /// An error saying `message`.
    public init(_ message: String) { self.message = message }
    /// The message itself.
    public var description: String { message }
}
