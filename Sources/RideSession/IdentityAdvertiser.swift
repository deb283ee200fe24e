import BeaconCore
import RadioCore

/// Advertises one side's rotating identity for a ride, switching to the next identity at every
/// slot boundary (docs/ARCHITECTURE.md, "Rotating beacon identity"). Both sides run this one loop.
public struct IdentityAdvertiser: Sendable {
    /// The radio the identity is advertised on.
    public let radio: any Radio
    /// The ride's rotating identity (from the ride key).
    public let identity: RotatingIdentity
    /// Whose identity this side advertises.
    public let side: BeaconSide
    /// Interval, PDU type and measured power; the frame is replaced every slot.
    public let template: BeaconAdvertisement
    /// When slots begin (`unixTime`), and what the loop sleeps on.
    public let clock: any SessionClock
    /// Told of every identity put on the air (slot, frame).
    public var onSlot: @Sendable (UInt64, IBeacon) -> Void = { _, _ in }
    /// Where a failed rotation is reported (it is retried).
    public let log: @Sendable (String) -> Void

    /// An advertiser; nothing goes on the air until `run()`.
    ///
    /// ```swift
    /// let advertiser = IdentityAdvertiser(radio: radio, identity: identity, side: .passenger, template: template,
    ///                                     clock: SystemClock(), log: { print($0) })
    /// let task = Task { await advertiser.run() }   // cancel it to stop
    /// ```
    public init(radio: any Radio, identity: RotatingIdentity, side: BeaconSide, template: BeaconAdvertisement,
                clock: any SessionClock, log: @escaping @Sendable (String) -> Void) {
        self.radio = radio
        self.identity = identity
        self.side = side
        self.template = template
        self.clock = clock
        self.log = log
    }

    /// The iBeacon frame this side advertises in `slot`.
    public func frame(slot: UInt64) -> IBeacon {
        identity.identity(of: side, slot: slot).beacon(measuredPower: template.beacon.measuredPower)
    }

    /// Runs until cancelled. Returns a reason only when the radio cannot advertise at all; a
    /// radio that fails a rotation is retried every second (it reconnects by itself and
    /// re-applies the advertisement, so the identity must stay current).
    public func run() async -> String? {
        var slot = identity.slot(at: clock.unixTime)
        var first = template
        first.beacon = frame(slot: slot)
        do {
            try await radio.startAdvertising(first)
        } catch {
            return "cannot advertise: \(error)"
        }
        onSlot(slot, first.beacon)
        while !Task.isCancelled {
            do { try await clock.sleep(untilUnixTime: Double(slot + 1) * Double(identity.period)) } catch { return nil }
            // Never behind the clock, never the same identity twice (a sleep that ends a hair early).
            slot = max(slot + 1, identity.slot(at: clock.unixTime))
            while !Task.isCancelled {
                do {
                    try await radio.replaceAdvertisedBeacon(frame(slot: slot))
                    break
                } catch {
                    log("radio: \(error); retrying")
                    do { try await clock.sleep(seconds: 1) } catch { return nil }
                }
            }
            if Task.isCancelled { return nil }
            onSlot(slot, frame(slot: slot))
        }
        return nil
    }
}
