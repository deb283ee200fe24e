import BeaconCore
import RideWire
import RadioCore
import Phrasebook

/// `DriverCore` in real time: the ride's identity advertised on a radio, the passenger's beacon
/// heard on the same radio, the ride followed through a `RideService`, Enter presses from
/// `confirmations`, and what the core says passed to `say` (spoken) and `log` (operator lines).
public struct DriverSession: Sendable {
    /// The ride at the kerb.
    public let rideID: String
    /// Advertises the driver's identity and hears the passenger's.
    public let radio: any Radio
    /// The ride service as the driver's account sees it.
    public let service: any RideService
    /// The session's times: inputs are stamped on it, the identity rotates on it.
    public let clock: any SessionClock
    /// The driver's rotating identity on `radio` (one line logged per slot).
    public let advertiser: IdentityAdvertiser
    /// Enter presses: prove the latest touch.
    public let confirmations: AsyncStream<Void>
    /// What the driver hears (and the CLI prints for a screen reader).
    public let say: @Sendable (String) -> Void
    /// Operator lines (stderr), not spoken.
    public let log: @Sendable (String) -> Void
    /// Plays or stops the car's locator sound (the CLI: ticks through the device's audio).
    public let locator: @Sendable (DriverCore.LocatorSound) -> Void
    /// After the tick starts: nil once it reached an audio output, else why not (`PlaybackReportingSink`).
    public let locatorPlayed: @Sendable () async -> String?
    /// The driver's other keys (y, n, c, x, w).
    public let keys: AsyncStream<DriverKey>
    /// The two satellite fixes as the device shares them (`PositionSharing.updates`: its own with
    /// the car's parked course, the passenger's from the ride service; issue 35), told to the
    /// driver by the core while the radio does not range her. nil: no positions.
    public var positions: AsyncStream<PositionUpdate>?
    private let core: DriverCore

    /// A session for `rideID`; `template` gives the advertising interval, PDU type and the measured
    /// power used until the radio reports its own; the advertisement is always a ride's (a fresh
    /// private address with every identity, the highest power: issue 36). Nothing runs until `run()`.
    ///
    /// ```swift
    /// let session = DriverSession(rideID: ride.id, identity: identity, calibration: calibration, autoConfirm: false,
    ///                             radio: radio, template: template, service: client, clock: SystemClock(),
    ///                             confirmations: enterPresses, say: { print($0) }, log: { warn($0) })
    /// let outcome = await session.run()   // .confirmed once both devices proved the touch
    /// ```
    public init(rideID: String, identity: RotatingIdentity, calibration: Calibration, autoConfirm: Bool,
                radio: any Radio, template: BeaconAdvertisement, service: any RideService, clock: any SessionClock,
                confirmations: AsyncStream<Void>, say: @escaping @Sendable (String) -> Void,
                log: @escaping @Sendable (String) -> Void, locator: @escaping @Sendable (DriverCore.LocatorSound) -> Void = { _ in },
                locatorPlayed: @escaping @Sendable () async -> String? = { "this session has no audio output" },
                keys: AsyncStream<DriverKey> = AsyncStream { $0.finish() }, meeting: DriverMeeting = DriverMeeting(),
                distanceBounds: (@Sendable (RangeEstimate) -> (low: Double, high: Double))? = nil,
                claims: (any DistanceClaims)? = nil, book: Phrasebook = .english) {
        self.rideID = rideID
        self.radio = radio
        self.service = service
        self.clock = clock
        self.confirmations = confirmations
        self.say = say
        self.log = log
        self.locator = locator
        self.locatorPlayed = locatorPlayed
        self.keys = keys
        var ride = template
        ride.address = .rotatingPrivate
        ride.transmitPower = .highest
        var advertiser = IdentityAdvertiser(radio: radio, identity: identity, side: .driver, template: ride,
                                            clock: clock, log: log)
        advertiser.onSlot = { slot, _ in
            let id = identity.identity(of: .driver, slot: slot)
            log("advertising driver identity \(id.uuid.uuidString) major \(id.major) minor \(id.minor) "
                + "slot \(slot) period \(identity.period) s every \(template.intervalMilliseconds) ms")
        }
        self.advertiser = advertiser
        var core = DriverCore(identity: identity, calibration: calibration, autoConfirm: autoConfirm, meeting: meeting,
                              distanceBounds: distanceBounds, claims: claims)
        // What the device says is in the driver's language.
        core.book = book
        self.core = core
    }

    /// How near the passenger must surely be, m (`DriverCore.passengerFarthest`), for the
    /// driver's device to advertise fast (`IdentityAdvertiser.hurry()`): the guide's "very close"
    /// band (`DistanceBands.veryCloseLimit`, 2.4 m), so both devices hurry at about the same time.
    public static let hurryWithin = 2.4

    /// Runs until the ride is confirmed, completed or cancelled, the radio cannot advertise,
    /// or the caller's task is cancelled (nil).
    public func run() async -> DriverCore.Outcome? {
        let (inputs, feed) = AsyncStream<DriverCore.Input>.makeStream()
        let (advertiser, radio, clock, service, rideID, log) = (advertiser, radio, clock, service, rideID, log)
        let confirmations = confirmations
        // The operator's lines too are in the driver's language (issue 37, point 12).
        let book = core.book
        let tasks: [Task<Void, Never>] = [
            Task {
                if let failure = await advertiser.run() { feed.yield(.ride(.failed(failure))) }
            },
            Task {
                do {
                    for try await event in radio.scan() {
                        switch event {
                        case .lost(let loss): log(book(.driverLogRadioLost, ["reason": .text("\(loss)")]))
                        case .restored: log(book(.driverLogRadioRestored))
                        case .sighting(let sighting):
                            guard let beacon = sighting.beacon, let rssi = sighting.rssi else { continue }
                            // Stamped with its arrival, not the moment it is read.
                            feed.yield(.sighting(time: clock.now(at: sighting.receivedAt), unixTime: Double(sighting.unixMicroseconds) / 1e6,
                                                 rssi: Double(rssi), beacon: beacon))
                        }
                    }
                } catch {
                    feed.yield(.ride(.failed("radio: \(error)")))
                }
            },
            Task {
                for await update in service.rideUpdates(rideID) {
                    if case .locatorRequested(let requestedAt) = update {
                        feed.yield(.locatorRequested(time: clock.now, unixTime: clock.unixTime, requestedAt: requestedAt))
                    } else if case .comeRequested(let requestedAt) = update {
                        feed.yield(.comeRequested(time: clock.now, unixTime: clock.unixTime, requestedAt: requestedAt))
                    } else if case .meeting(.across, let at) = update {
                        // A replayed history's old news is not told again.
                        if clock.unixTime - at < 60 { feed.yield(.passengerSaysAcross(time: clock.now)) }
                    } else {
                        feed.yield(.ride(update))
                    }
                }
            },
            Task {
                for await _ in confirmations { feed.yield(.confirm(time: clock.now)) }
            },
            Task { [keys] in
                for await key in keys { feed.yield(.key(time: clock.now, key)) }
            },
            Task { [positions] in
                guard let positions else { return }
                for await update in positions { feed.yield(.positions(time: clock.now, own: update.own, passenger: update.other)) }
            },
        ]
        defer { tasks.forEach { $0.cancel() } }
        var core = core
        let (locator, locatorPlayed, say) = (locator, locatorPlayed, say)
        defer { locator(.stop) }
        var withinReach = false
        return await withTaskCancellationHandler {
            for await input in inputs {
                let actions = core.handle(input)
                if case .sighting(let time, _, _, _) = input {
                    // Her entering reach hurries the car's beacon, as "very close" hurries hers.
                    let within = core.passengerFarthest(at: time).map { $0 <= Self.hurryWithin } ?? false
                    if within, !withinReach { Task { await advertiser.hurry() } }
                    withinReach = within
                }
                for action in actions {
                    switch action {
                    case .say(let phrase): say(phrase.text(in: core.book))
                    case .log(let line): log(line)
                    case .locator(let sound):
                        locator(sound)
                        if case .start = sound {
                            Task { let reason = await locatorPlayed(); feed.yield(.locatorPlayed(time: clock.now, played: reason == nil, reason: reason ?? "")) }
                        }
                    case .tell(let words): say(words)
                    case .answerLocator(let sound):
                        Task {
                            let failure = await service.answerLocator(rideID: rideID, sound: sound)
                            feed.yield(.posted(.locatorAnswer(sound), time: clock.now, failure: failure))
                        }
                    // What the passenger is told is said to the driver once the post was delivered (`.posted`).
                    case .answerCome(let answer):
                        Task {
                            let failure = await service.answerCome(rideID: rideID, answer)
                            feed.yield(.posted(.comeAnswer(answer), time: clock.now, failure: failure))
                        }
                    case .meeting(let move):
                        Task {
                            let failure = await service.meetingMove(rideID: rideID, move)
                            feed.yield(.posted(.meeting(move), time: clock.now, failure: failure))
                        }
                    case .postProof(let observation, let repeating):
                        Task { feed.yield(.proofAnswered(await service.submitProof(observation, rideID: rideID), repeating: repeating)) }
                    case .finished(let outcome):
                        return outcome
                    }
                }
            }
            return nil
        } onCancel: {
            feed.finish()
        }
    }
}
