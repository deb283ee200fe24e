/// An iBeacon's measured power: the level a receiver reads 1 m from the transmitter, dBm.
/// A device that advertises for a ride puts in its frame the level of the power its controller
/// reported, not a constant, so the frame says what is really on the air.
public enum MeasuredPower {
    /// dB between the transmit power and the level read at 1 m, phone to phone. Fitted, not
    /// derived: herald's Android transmitters at `ADVERTISE_TX_POWER_LOW` (−15 dBm in Android's
    /// `AdvertisingSetParameters`) read a median −74.6 dBm at 1 m (issue 34), 59.6 dB below the
    /// power; free space alone would lose 40.2 dB at 2.44 GHz, the rest is the phones' antennas
    /// and hands. Rounded to 60, it gives −59 dBm at 0 dBm, the figure the product used before
    /// it chose its power. One offset for every phone is an assumption: receivers do not range
    /// with it (their calibration does), so a few dB either way changes only what the frame says.
    public static let oneMetreLoss = 60

    /// The measured power of a transmitter at `transmitPower` dBm, clamped to what the frame holds.
    public static func atOneMetre(transmitPower: Int8) -> Int8 {
        Int8(clamping: Int(transmitPower) - oneMetreLoss)
    }
}
