/// The non-speech sounds of the guide. Each must be recognisable on its own, by ear, at a glance.
public enum Earcon: String, CaseIterable, Sendable, Codable {
    /// Precedes every spoken phrase, so speech never starts unannounced.
    case attention
    /// Rising motif: the trend says the passenger is getting closer.
    case closer
    /// Falling motif: the trend says the passenger is moving away.
    case farther
    /// One proximity tick; the guide repeats it faster as the distance falls.
    case pulse
    /// The devices touched.
    case touch
    /// No beacon for too long: silence from here on means "no signal", never "arrived".
    case signalLost = "signal_lost"
    /// Turn-to-find's tracking tone, lowest to highest: how the signal now compares with the
    /// best heard in this turn (`track5` within 3 dB of it, each step 3 dB further below).
    case track1 = "track_1", track2 = "track_2", track3 = "track_3", track4 = "track_4", track5 = "track_5"

    /// The tracking tones, lowest first.
    public static let trackingTones: [Earcon] = [.track1, .track2, .track3, .track4, .track5]
}

/// How much the guide says.
public enum Verbosity: String, CaseIterable, Sendable, Codable {
    /// Earcons only; nothing spoken but the confirmation.
    case earcons
    /// Short phrases at distance-band changes and state changes.
    case brief
    /// Brief, plus trend words and reassurance while moving.
    case full
}
