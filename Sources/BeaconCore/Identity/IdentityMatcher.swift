/// Recognises one side of one ride among everything a scanner hears. Identities for the
/// accepted slots, and the next one, are computed once per slot, so matching a packet is a few
/// comparisons and rotation leaves no gap: the next slot's identity is known before it is on air.
public struct IdentityMatcher: Sendable {
    /// The ride's identity derivation (its key and period).
    public let identity: RotatingIdentity
    /// The side whose beacon is looked for (a passenger looks for the driver's).
    public let side: BeaconSide
    private var cachedSlot: UInt64?
    private var known: [(slot: UInt64, identity: BeaconIdentity)] = []

    /// A matcher for `side`'s beacon of the ride `identity` derives:
    ///
    /// ```swift
    /// var matcher = IdentityMatcher(identity: try RotatingIdentity(rideKey: key), lookingFor: .driver)
    /// ```
    public init(identity: RotatingIdentity, lookingFor side: BeaconSide) {
        self.identity = identity
        self.side = side
    }

    /// The slot `beacon` was advertised in, if it is this ride's `side` within s-1…s+1 of `unixSeconds`.
    public mutating func match(_ beacon: IBeacon, at unixSeconds: Double) -> UInt64? {
        refresh(for: identity.slot(at: unixSeconds))
        let accepted = identity.acceptedSlots(at: unixSeconds)
        let seen = BeaconIdentity(beacon)
        return known.first { accepted.contains($0.slot) && $0.identity == seen }?.slot
    }

    /// The identities currently recognised, oldest slot first (s-1 … s+2).
    public mutating func identities(at unixSeconds: Double) -> [(slot: UInt64, identity: BeaconIdentity)] {
        refresh(for: identity.slot(at: unixSeconds))
        return known
    }

    private mutating func refresh(for slot: UInt64) {
        guard cachedSlot != slot else { return }
        let wanted = (slot == 0 ? 0 : slot - 1)...(slot + 2)
        let kept = known.filter { wanted.contains($0.slot) }
        known = wanted.map { s in kept.first { $0.slot == s } ?? (s, identity.identity(of: side, slot: s)) }
        cachedSlot = slot
    }
}
