import BeaconCore
import RadioCore
import Synchronization

/// Advertises one side's rotating identity for a ride, switching to the next identity at every
/// slot boundary (docs/ARCHITECTURE.md, "Rotating beacon identity"). Both sides run this one loop.
///
/// The frame's measured power follows the transmit power the radio reports (`MeasuredPower`);
/// `hurry()` advertises at the shortest interval for a while, so that in the last metre the
/// other device hears many reports a second, then falls back to the template's interval.
public struct IdentityAdvertiser: Sendable {
    /// The radio the identity is advertised on.
    public let radio: any Radio
    /// The ride's rotating identity (from the ride key).
    public let identity: RotatingIdentity
    /// Whose identity this side advertises.
    public let side: BeaconSide
    /// Interval, PDU type, address, power request and (until the radio reports its power)
    /// measured power; the frame is replaced every slot.
    public let template: BeaconAdvertisement
    /// When slots begin (`unixTime`), and what the loop sleeps on.
    public let clock: any SessionClock
    /// Told of every identity put on the air (slot, frame).
    public var onSlot: @Sendable (UInt64, IBeacon) -> Void = { _, _ in }
    /// Where a failed rotation is reported (it is retried), and the power and pace chosen.
    public let log: @Sendable (String) -> Void
    private let pace = Pace()

    /// How long one `hurry()` keeps the interval short, s: the last metre is walked in a few
    /// seconds, and the touch wanted after it in two (issue 34); each "very close" starts it again.
    public static let hurrySeconds = 15.0

    /// An advertiser; nothing goes on the air until `run()`.
    ///
    /// ```swift
    /// let advertiser = IdentityAdvertiser(radio: radio, identity: identity, side: .passenger,
    ///                                     template: .ride(beacon: placeholder), clock: SystemClock(), log: { print($0) })
    /// let task = Task { await advertiser.run() }   // cancel it to stop
    /// await advertiser.hurry()                      // "very close": fast for `hurrySeconds`
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

    /// The iBeacon frame this side advertises in `slot`, with the measured power of the power
    /// the radio reported (the template's until it reports one).
    public func frame(slot: UInt64) -> IBeacon {
        let measured = pace.transmitPower.map(MeasuredPower.atOneMetre(transmitPower:)) ?? template.beacon.measuredPower
        return identity.identity(of: side, slot: slot).beacon(measuredPower: measured)
    }

    /// The interval asked of the radio now: the shortest while hurrying, else the template's.
    public var intervalMilliseconds: Int {
        pace.hurrying(at: clock.unixTime) ? BeaconAdvertisement.shortestIntervalMilliseconds : template.intervalMilliseconds
    }

    /// Runs until cancelled. Returns a reason only when the radio cannot advertise at all; a
    /// radio that fails a rotation is retried every second (it reconnects by itself and
    /// re-applies the advertisement, so the identity must stay current).
    public func run() async -> String? {
        var slot = identity.slot(at: clock.unixTime)
        var first = template
        first.beacon = frame(slot: slot)
        first.intervalMilliseconds = intervalMilliseconds
        do {
            try await radio.startAdvertising(first)
        } catch {
            return "cannot advertise: \(error)"
        }
        pace.applied = first.intervalMilliseconds
        await settle()   // a hurry() that came while the radio was starting
        await notePower()
        // The power is known once the controller advertises: the frame says it from now on.
        if frame(slot: slot) != first.beacon { try? await radio.replaceAdvertisedBeacon(frame(slot: slot)) }
        onSlot(slot, frame(slot: slot))
        while !Task.isCancelled {
            do { try await clock.sleep(untilUnixTime: identity.start(of: slot + 1)) } catch { return nil }
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
            await notePower()
            onSlot(slot, frame(slot: slot))
        }
        return nil
    }

    /// Advertises at the shortest interval for `seconds` (again from now when already
    /// hurrying), then at the template's; a radio that is not advertising yet is left alone.
    public func hurry(for seconds: Double = IdentityAdvertiser.hurrySeconds) async {
        let wasHurrying = pace.hurrying(at: clock.unixTime)
        let until = clock.unixTime + seconds
        pace.hurry(until: until)
        if !wasHurrying {
            log("advertising every \(BeaconAdvertisement.shortestIntervalMilliseconds) ms for \(Int(seconds)) s (the last metre)")
        }
        await settle()
        let (clock, log, template) = (clock, log, template)
        let advertiser = self
        Task {
            try? await clock.sleep(untilUnixTime: until)
            guard !advertiser.pace.hurrying(at: clock.unixTime), await advertiser.settle() else { return }
            log("advertising every \(template.intervalMilliseconds) ms again")
        }
    }

    /// Brings the radio's interval to what the pace wants now, again if a `hurry()` changed it
    /// meanwhile (two settles interleaving end on the last wish). False if it did not change.
    @discardableResult
    private func settle() async -> Bool {
        var changed = false
        while true {
            let (wanted, version) = (intervalMilliseconds, pace.version)
            if pace.applied != wanted {
                do {
                    try await radio.setAdvertisingInterval(milliseconds: wanted)
                    pace.applied = wanted
                    changed = true
                } catch {
                    // Not advertising yet (or any more): `run()` starts at the interval wanted then.
                    return changed
                }
            }
            if pace.version == version { return changed }
        }
    }

    /// Remembers the power the radio reports, and says it once it is first known or changes.
    private func notePower() async {
        guard let power = await radio.advertisingTransmitPower, power != pace.transmitPower else { return }
        pace.transmitPower = power
        log("transmit power \(power) dBm as the controller reported it (\(template.transmitPower.rawValue) asked); "
            + "measured power \(MeasuredPower.atOneMetre(transmitPower: power)) dBm in the frame")
    }
}

/// What `IdentityAdvertiser`'s copies share: until when to hurry, what interval the radio was
/// last brought to, and the power it reported.
private final class Pace: Sendable {
    private struct State {
        var hurryUntil = -Double.infinity
        var version = 0
        var applied: Int?
        var transmitPower: Int8?
    }
    private let state = Mutex(State())

    func hurrying(at unixTime: Double) -> Bool { state.withLock { unixTime < $0.hurryUntil } }

    func hurry(until unixTime: Double) {
        state.withLock {
            $0.hurryUntil = max($0.hurryUntil, unixTime)
            $0.version += 1
        }
    }

    /// Bumped by every `hurry`, so a settle can tell the wish changed while it waited on the radio.
    var version: Int { state.withLock { $0.version } }

    var applied: Int? {
        get { state.withLock { $0.applied } }
        set { state.withLock { $0.applied = newValue } }
    }

    var transmitPower: Int8? {
        get { state.withLock { $0.transmitPower } }
        set { state.withLock { $0.transmitPower = newValue } }
    }
}
