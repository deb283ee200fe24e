/// Which direction-finding aids the guide may offer beyond the proximity pulse, distance and
/// trend: turn-to-find (`TurnToFind`) and the car's locator sound. `--aids` in `ridebeacon demo`
/// and GuideBenchmark; the live guide offers all of them.
public enum GuideAids: String, CaseIterable, Sendable, Codable {
    case none, turn, locator, all

    /// Turn-to-find starts by itself after a while without a confident direction (the key `f`
    /// starts it whatever the aids: the passenger asked).
    public var includesTurn: Bool { self == .turn || self == .all }
    /// The guide may ask for the car's locator sound (`LocatorAsking`).
    public var includesLocator: Bool { self == .locator || self == .all }

    /// One line naming the option and its values, for a bad `--aids`.
    public static let usage = "--aids must be one of " + allCases.map(\.rawValue).joined(separator: ", ")
}
