import BeaconCore
import RadioCore

/// Advertises one side's rotating identity for a ride, switching to the next identity at every
/// slot boundary (DESIGN.md "Beacon identity"). Both sides run this one loop.
public struct IdentityAdvertiser: Sendable {
    public let radio: any Radio
    public let identity: RotatingIdentity
    public let side: BeaconSide
    /// Interval, PDU type and measured power; the frame is replaced every slot.
    public let template: BeaconAdvertisement
    public let clock: any SessionClock
    /// Told of every identity put on the air (slot, frame).
    public var onSlot: @Sendable (UInt64, IBeacon) -> Void = { _, _ in }
    public let log: @Sendable (String) -> Void

    public init(radio: any Radio, identity: RotatingIdentity, side: BeaconSide, template: BeaconAdvertisement,
                clock: any SessionClock, log: @escaping @Sendable (String) -> Void) {
        self.radio = radio
        self.identity = identity
        self.side = side
        self.template = template
        self.clock = clock
        self.log = log
    }

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
