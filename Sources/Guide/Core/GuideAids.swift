/// Which direction-finding aids the guide may use beside distance and trend (`--aids`).
public enum GuideAids: String, Sendable, CaseIterable {
    case none, turn, locator, all

    /// Turn-to-find: the passenger turns on the spot while the body's shadow shows the direction.
    public var includesTurn: Bool { self == .turn || self == .all }
    /// The car's locator sound: ticks from the driver's device, found by ear.
    public var includesLocator: Bool { self == .locator || self == .all }
}
