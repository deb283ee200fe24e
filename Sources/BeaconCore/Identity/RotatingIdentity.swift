import Crypto
import Foundation

/// Which side of a ride a beacon identity belongs to; each side advertises its own.
public enum BeaconSide: String, Sendable, CaseIterable, Codable {
    /// The driver's device's beacon (the car).
    case driver
    /// The passenger's device's beacon.
    case passenger

    /// The HMAC label of the derivation in docs/ARCHITECTURE.md ("Rotating beacon identity").
    public var label: String { "ridebeacon/v1/\(rawValue)" }

    /// The other side: the beacon this side's device looks for.
    public var counterpart: BeaconSide { self == .driver ? .passenger : .driver }
}

/// What a beacon is recognised by: the iBeacon's UUID, major and minor (not its measured power,
/// which describes the transmitter, not the ride).
public struct BeaconIdentity: Hashable, Sendable, CustomStringConvertible {
    /// The proximity UUID (the HMAC's first 16 bytes).
    public var uuid: UUID
    /// The major (bytes 16 and 17, big-endian).
    public var major: UInt16
    /// The minor (bytes 18 and 19, big-endian).
    public var minor: UInt16

    /// An identity from its three parts.
    public init(uuid: UUID, major: UInt16, minor: UInt16) {
        self.uuid = uuid
        self.major = major
        self.minor = minor
    }

    /// The identity of a received frame (its measured power dropped).
    public init(_ beacon: IBeacon) {
        self.init(uuid: beacon.uuid, major: beacon.major, minor: beacon.minor)
    }

    /// The frame to advertise, with the transmitter's `measuredPower` at 1 m.
    public func beacon(measuredPower: Int8) -> IBeacon {
        IBeacon(uuid: uuid, major: major, minor: minor, measuredPower: measuredPower)
    }

    /// "UUID major minor", as the CLI prints identities.
    public var description: String { "\(uuid.uuidString) \(major) \(minor)" }
}

/// The rotating beacon identity of one ride (docs/ARCHITECTURE.md, "Rotating beacon identity"): for slot
/// `s = floor((t - offset) / period)`, `h = HMAC-SHA256(rideKey, label || UInt64BE(s))`; UUID = h[0..<16],
/// major = h[16..<18], minor = h[18..<20], both big-endian. Only holders of the 32-byte ride key can
/// compute or recognise it, and a recorded identity is stale one slot later.
///
/// `offset` moves the ride's slot boundaries off the wall clock's multiples of the period, by an
/// amount only the ride key gives (`offsetLabel`): were every device to change identity (and
/// address) at the same instants, a bystander could chain one device's identities by the times
/// they change (issue 36).
public struct RotatingIdentity: Sendable {
    /// Deployments choose between 10 s (less time for a replay) and 15 min (fewer re-registrations).
    public static let periodRange: ClosedRange<Int> = 10...900
    /// Seconds per slot unless the deployment chooses otherwise.
    public static let defaultPeriod = 30
    /// Bytes in a ride key.
    public static let keyLength = 32

    /// A key or period the derivation refuses.
    public enum Error: Swift.Error, Equatable, CustomStringConvertible {
        /// The ride key is not 32 bytes.
        case keyLength(Int)
        /// The period is outside `periodRange`.
        case period(Int)

        /// What is wrong and what is allowed.
        public var description: String {
            switch self {
            case .keyLength(let n): "ride key must be \(RotatingIdentity.keyLength) bytes, not \(n)"
            case .period(let p): "identity period must be \(RotatingIdentity.periodRange.lowerBound)…\(RotatingIdentity.periodRange.upperBound) s, not \(p)"
            }
        }
    }

    /// Seconds per slot.
    public let period: Int
    /// Where this ride's slots begin, s after each multiple of `period`: 0 ≤ offset < period, in
    /// whole milliseconds, `UInt32BE(HMAC-SHA256(rideKey, offsetLabel)[0..<4]) mod (period × 1000)` ms.
    public let offset: Double
    /// The HMAC label of the slot offset.
    public static let offsetLabel = "ridebeacon/v1/slot-offset"
    /// Kept as bytes: `SymmetricKey` is not Sendable, and identities are derived once per slot.
    private let key: [UInt8]

    /// The identities of the ride whose key is `rideKey`; throws for a key not 32 bytes or a period
    /// outside `periodRange`:
    ///
    /// ```swift
    /// let identity = try RotatingIdentity(rideKey: key, period: 30)
    /// let now = identity.identity(of: .driver, slot: identity.slot(at: Date().timeIntervalSince1970))
    /// ```
    public init(rideKey: some Collection<UInt8>, period: Int = defaultPeriod) throws(Error) {
        guard rideKey.count == Self.keyLength else { throw .keyLength(rideKey.count) }
        guard Self.periodRange.contains(period) else { throw .period(period) }
        self.key = Array(rideKey)
        self.period = period
        let h = Array(HMAC<SHA256>.authenticationCode(for: Array(Self.offsetLabel.utf8), using: SymmetricKey(data: key)))
        let draw = UInt32(h[0]) << 24 | UInt32(h[1]) << 16 | UInt32(h[2]) << 8 | UInt32(h[3])
        self.offset = Double(draw % UInt32(period * 1000)) / 1000
    }

    /// The slot containing `unixSeconds` (times before the first boundary after 1970 fall in slot 0).
    public func slot(at unixSeconds: Double) -> UInt64 {
        let since = unixSeconds - offset
        guard since.isFinite, since > 0 else { return 0 }
        return UInt64((since / Double(period)).rounded(.down))
    }

    /// When `slot` begins, unix seconds: the next identity's boundary is `start(of: slot + 1)`.
    public func start(of slot: UInt64) -> Double {
        Double(slot) * Double(period) + offset
    }

    /// The identity `side` advertises during `slot`.
    public func identity(of side: BeaconSide, slot: UInt64) -> BeaconIdentity {
        var message = Array(side.label.utf8)
        withUnsafeBytes(of: slot.bigEndian) { message.append(contentsOf: $0) }
        let h = Array(HMAC<SHA256>.authenticationCode(for: message, using: SymmetricKey(data: key)))
        let uuid = UUID(uuid: (h[0], h[1], h[2], h[3], h[4], h[5], h[6], h[7],
                               h[8], h[9], h[10], h[11], h[12], h[13], h[14], h[15]))
        return BeaconIdentity(uuid: uuid, major: UInt16(h[16]) << 8 | UInt16(h[17]),
                              minor: UInt16(h[18]) << 8 | UInt16(h[19]))
    }

    /// The slots a scanner or the server accepts at `unixSeconds`: s-1, s and s+1, so that
    /// clocks a slot apart still agree.
    public func acceptedSlots(at unixSeconds: Double) -> ClosedRange<UInt64> {
        let s = slot(at: unixSeconds)
        return (s == 0 ? 0 : s - 1)...(s + 1)
    }

    /// The slot in which `side` advertised `identity`, if it is one of the slots accepted at `unixSeconds`.
    public func match(_ identity: BeaconIdentity, of side: BeaconSide, at unixSeconds: Double) -> UInt64? {
        acceptedSlots(at: unixSeconds).first { self.identity(of: side, slot: $0) == identity }
    }
}
