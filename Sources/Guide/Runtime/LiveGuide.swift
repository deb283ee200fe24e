import BeaconCore
import Foundation
import GuideAudio
import Phrasebook
import RadioCore
import RideSession

/// The guide in real time: `GuideCore` driven by a radio's sightings, the ride's live event
/// stream, a 20 Hz tick and the passenger's keys, its cues played by a `LiveCuePlayer`, its
/// touch proof posted through the `RideService`. From the driver's arrival the passenger's own
/// rotating identity is advertised (the driver's side proves the touch with it): not before, so
/// a waiting passenger sends nothing a scanner could follow (issue 36); fast when the guide says
/// "very close" or asks her to hold the phones together (`IdentityAdvertiser.hurry()`, issue 34).
///
/// The core's timeline is `clock.now` (`SystemClock` in the product, a virtual clock in tests):
/// every input is stamped on it, each sighting with its arrival (`RadioSighting.receivedAt`,
/// not the moment it was read), and the tick and the scan's duty cycle sleep on it. The ride
/// service being unreachable is said aloud and guiding goes on from the radio: the identity was
/// derived from the ride key before guiding began. A radio that cannot scan is said once, in
/// words, and the scan is retried.
public struct LiveGuide: Sendable {
    public let ride: GuideRide
    public let rideID: String
    /// The driver had already arrived when guiding began.
    public let alreadyArrived: Bool
    public let verbosity: Verbosity
    public let phrases: PhraseTable
    public let calibration: Calibration
    public let radio: any Radio
    public let service: any RideService
    /// The guide's timeline (`now`), the wall clock for the identity slots (`unixTime`), and
    /// what the tick and the duty cycle sleep on.
    public let clock: any SessionClock
    public let player: LiveCuePlayer
    public let keys: AsyncStream<GuideKey>
    public let log: @Sendable (String) -> Void
    /// Scan duty cycle before the driver arrives: on, then off, s.
    public var dutyCycle = (on: 2.0, off: 3.0)
    /// Scanning duty-cycled until the driver arrives. (It was off while the HCI radio could
    /// leave scanning stopped when one window's stream ended as the next began; its
    /// reconciliations are serialised now, `ScanRestartTests`.)
    public var dutyCycling = true
    /// Headings for turn-to-find (`TurnToFind`); nil times the turn. Its owner releases it.
    public var compass: (any Compass)?
    /// Tell the ride service when guiding starts (on arrival) and stops (`guide_started`,
    /// `guide_stopped`), so the passenger page says the phone is guiding.
    public var reportsGuide = true
    /// Stop (and close) the player at the end; false when its owner goes on using it
    /// (`passenger follow` announces the ride's end after the guide).
    public var ownsPlayer = true
    /// Where the vibrations go (feedbackd, `GuideHaptics`); nil: none.
    public var haptics: (any HapticOutput)?
    /// How confirming is named ("Press Enter" in a terminal, "Press the Confirm button" when a
    /// front end feeds the keys).
    public var confirmControl = PhraseID.guideConfirmEnter
    /// The two positions as the device's sharing gives them (`PositionSharing.updates`, issue
    /// 35): hers and the driver's (with the car's parked course); nil: no positions, the guide
    /// as before them. The latest of each is given to the guide once a second while its fix is
    /// at most `positionFreshness` s old by the wall clock (the sharing yields only changes; a
    /// parked phone's unchanged fix is re-reported every 10 s and polled every 2 s).
    public var positions: AsyncStream<PositionUpdate>?
    public var positionFreshness = 15.0
    /// The traffic side where she is (the setting), for the car's kerb side.
    public var traffic = TrafficSide.right

    public init(ride: GuideRide, alreadyArrived: Bool, verbosity: Verbosity, phrases: PhraseTable = .english,
                calibration: Calibration = Calibration(model: .default), radio: any Radio, service: any RideService,
                clock: any SessionClock = SystemClock(), player: LiveCuePlayer, keys: AsyncStream<GuideKey>,
                log: @escaping @Sendable (String) -> Void) {
        self.ride = ride
        self.rideID = ride.rideID
        self.alreadyArrived = alreadyArrived
        self.verbosity = verbosity
        self.phrases = phrases
        self.calibration = calibration
        self.radio = radio
        self.service = service
        self.clock = clock
        self.player = player
        self.keys = keys
        self.log = log
    }

    /// Guides until the ride is confirmed or cancelled, or the passenger quits; returns the
    /// final state.
    public func run() async -> GuideState {
        let (inputs, feed) = AsyncStream<GuideInput>.makeStream()
        var core = GuideCore(ride: ride, verbosity: verbosity, phrases: phrases, calibration: calibration, aids: .all, traffic: traffic)
        core.confirmControl = confirmControl
        player.start()
        let (player, log) = (player, log)
        let scanner = ScanControl(radio: radio, feed: feed, clock: clock, dutyCycle: dutyCycle) { trouble in
            log(trouble)
            player.say(trouble, urgent: true)
        }
        let advertiser = passengerAdvertiser()
        let tasks: [Task<Void, Never>] = [
            Task { await followRide(feed) },
            Task {
                while !Task.isCancelled {
                    feed.yield(.tick(time: clock.now))
                    try? await clock.sleep(seconds: Self.tickInterval)
                }
            },
            Task {
                for await key in keys { feed.yield(.key(time: clock.now, key)) }
            },
            Task { [compass] in
                // Stamped on arrival with the guide's clock.
                guard let compass else { return }
                for await reading in compass.readings { feed.yield(.heading(time: clock.now, degrees: reading.degrees)) }
            },
        ] + positionTasks(feed)
        var actions = core.start(time: clock.now, arrived: alreadyArrived)
        if alreadyArrived { actions += core.handle(.arrived(time: clock.now)) }
        var finished = false
        var felt = haptics.map { LiveHaptics(output: $0) }
        var reported = false
        var advertising: Task<Void, Never>?
        var wasInLastMetre = false
        func reportStart() {
            guard core.state != .waiting, !finished else { return }
            if advertising == nil {
                let log = log
                advertising = Task {
                    if let failure = await advertiser.run() { log("radio: the passenger's beacon: \(failure)") }
                }
            }
            guard reportsGuide, !reported else { return }
            reported = true
            let (service, rideID, log) = (service, rideID, log)
            Task { if let failure = await service.reportGuide(rideID: rideID, .started) { log("guide_started not delivered: \(failure)") } }
        }
        felt?.after(actions, core: core, now: clock.now)
        if let mode = perform(actions, feed: feed, finished: &finished) { await scanner.set(scanMode(mode)) }
        reportStart()
        if !finished {
            for await input in inputs {
                let actions = core.handle(input)
                felt?.after(actions, core: core, now: clock.now)
                if let mode = perform(actions, feed: feed, finished: &finished) { await scanner.set(scanMode(mode)) }
                post(core.takeOutbox(), feed: feed)
                reportStart()
                // Entering the last metre hurries her beacon (once per entry; bounded by `hurrySeconds`).
                let inLastMetre = Self.inLastMetre(core)
                if inLastMetre, !wasInLastMetre, advertising != nil, !finished { Task { await advertiser.hurry() } }
                wasInLastMetre = inLastMetre
                if finished { break }
            }
        }
        if reported, core.state != .cancelled {
            // Awaited: the process may exit right after.
            if let failure = await service.reportGuide(rideID: rideID, .stopped) { log("guide_stopped not delivered: \(failure)") }
        }
        for task in tasks + [advertising].compactMap({ $0 }) { task.cancel() }
        await scanner.set(.off)
        try? await radio.stopAdvertising()
        if ownsPlayer {
            do { try player.stop() } catch { log("audio: \(error)") }
        } else {
            player.setPulse(interval: nil)
        }
        return core.state
    }

    /// How often the core is ticked (20 Hz), s.
    static let tickInterval = 0.05

    /// The core's ride-service posts (`GuidePost`), answered through the feed.
    private func post(_ posts: [GuidePost], feed: AsyncStream<GuideInput>.Continuation) {
        for post in posts {
            switch post {
            case .confirmByWord(let word):
                Task { feed.yield(.wordAnswered(time: clock.now, await service.confirmByRideWord(rideID: rideID, word: word))) }
            case .carAcross:
                Task { if let failure = await service.meetingMove(rideID: rideID, .across) { log("car_across not delivered: \(failure)") } }
            }
        }
    }

    private func scanMode(_ asked: ScanMode) -> ScanMode { asked == .dutyCycled && !dutyCycling ? .continuous : asked }

    /// Plays, posts and notes the end; returns the scan mode asked for, if any (applied in order
    /// by the caller).
    private func perform(_ actions: [GuideAction], feed: AsyncStream<GuideInput>.Continuation, finished: inout Bool) -> ScanMode? {
        var scan: ScanMode?
        for action in actions {
            switch action {
            case .cue(let cue):
                switch cue.sound {
                case .earcon(let earcon): player.play(earcon)
                case .speech(let utterance):
                    log(utterance.text)
                    player.say(utterance.text, urgent: utterance.isUrgent)
                }
            case .pulse(let interval):
                player.setPulse(interval: interval)
            case .scan(let mode):
                scan = mode
            case .postProof(let observation):
                Task { feed.yield(.proofAnswered(time: clock.now, await service.submitProof(observation, rideID: rideID))) }
            case .requestLocator:
                Task { feed.yield(.locatorAnswered(time: clock.now, await service.requestLocator(rideID: rideID))) }
            case .finished:
                finished = true
            }
        }
        return scan
    }

    /// Ride events: arrival, the driver's device feeling the touch, confirmation (perhaps by the
    /// driver's proof, last), cancellation;
    /// a broken stream is the service being unreachable until it reconnects.
    private func followRide(_ feed: AsyncStream<GuideInput>.Continuation) async {
        for await update in service.rideUpdates(rideID) {
            switch update {
            case .reachable(let reachable): feed.yield(.service(time: clock.now, reachable: reachable))
            case .arrived: feed.yield(.arrived(time: clock.now))
            case .touchObserved(by: .driver, let from, let until): feed.yield(.driverFeltTouch(time: clock.now, from: from, until: until))
            case .touchObserved(by: .passenger, _, _): break
            case .confirmed: feed.yield(.rideConfirmed(time: clock.now))
            case .cancelled: feed.yield(.rideCancelled(time: clock.now))
            case .locatorAnswered(let sound, let unixTime):
                feed.yield(.driverSounded(time: clock.now, sound, age: max(0, clock.unixTime - unixTime)))
            case .meeting(let move, let unixTime):
                // A replayed history's old news is not told again.
                if clock.unixTime - unixTime < 120 { feed.yield(.driverMeeting(time: clock.now, move)) }
            case .comeAnswered(.coming, let unixTime):
                // His answer to her come request: he walks to her, as `coming` says (issue 37, point 2).
                if clock.unixTime - unixTime < 120 { feed.yield(.driverMeeting(time: clock.now, .coming)) }
            // The passenger's own request, answered already by the service.
            case .completed, .locatorRequested, .comeRequested, .comeAnswered: break
            case .failed(let reason):
                log("ride events: \(reason)")
                feed.yield(.service(time: clock.now, reachable: false))
            }
        }
    }

    /// The passenger's own beacon, replaced at every slot boundary: non-connectable, from a fresh
    /// private address with every identity, at the radio's highest power (issue 36).
    private func passengerAdvertiser() -> IdentityAdvertiser {
        let template = BeaconAdvertisement.ride(beacon: IBeacon(uuid: UUID(), major: 0, minor: 0, measuredPower: -59))
        return IdentityAdvertiser(radio: radio, identity: ride.identity, side: .passenger, template: template,
                                  clock: clock, log: log)
    }

    /// The positions' two tasks: one keeps the sharing's latest update, one gives it to the
    /// guide once a second, each fix only while fresh by the wall clock (none without positions).
    func positionTasks(_ feed: AsyncStream<GuideInput>.Continuation) -> [Task<Void, Never>] {
        guard let positions else { return [] }
        let latest = LatestPositions()
        let (clock, freshness) = (clock, positionFreshness)
        return [
            Task { for await update in positions { await latest.set(update) } },
            Task {
                while !Task.isCancelled {
                    try? await clock.sleep(seconds: 1)
                    let update = await latest.update
                    let now = clock.unixTime
                    let own = update.own.flatMap { now - $0.unixTime <= freshness ? $0 : nil }
                    let driver = update.other.flatMap { now - $0.unixTime <= freshness ? $0 : nil }
                    guard own != nil || driver != nil else { continue }
                    feed.yield(.positions(time: clock.now, own: own, driver: driver))
                }
            },
        ]
    }

    /// Whether the guide is in the last metre, where both devices advertise fast: "very close" is
    /// the band it last told (`spokenBand`, whatever the verbosity lets it say aloud), or it is
    /// holding or feeling the touch ("Hold the phones together" may come before any band).
    public static func inLastMetre(_ core: GuideCore) -> Bool {
        core.spokenBand == .veryClose || core.state == .holding || core.state == .touch
    }
}

/// Starts, duty-cycles and stops the radio's scan, feeding sightings to the guide stamped with
/// their arrival on the guide's clock. A scan that fails is reported once (`report`) until a
/// scan hears something again, and retried: at the next window when duty-cycled, after
/// `retryAfter` when continuous.
actor ScanControl {
    private let radio: any Radio
    private let feed: AsyncStream<GuideInput>.Continuation
    private let clock: any SessionClock
    private let dutyCycle: (on: Double, off: Double)
    private let report: @Sendable (String) -> Void
    private var task: Task<Void, Never>?
    private var mode = ScanMode.off
    /// A failure was reported and no scan has heard anything since.
    private var failing = false
    /// How long a continuous scan waits after a failure before trying again, s.
    static let retryAfter = 1.0

    init(radio: any Radio, feed: AsyncStream<GuideInput>.Continuation, clock: any SessionClock, dutyCycle: (on: Double, off: Double),
         report: @escaping @Sendable (String) -> Void) {
        self.radio = radio
        self.feed = feed
        self.clock = clock
        self.dutyCycle = dutyCycle
        self.report = report
    }

    func set(_ newMode: ScanMode) {
        guard newMode != mode else { return }
        mode = newMode
        // The old scan ends only after the new one has begun: the radio scans while any stream
        // is consumed, so the switch never turns scanning off and on again.
        let previous = task
        defer { previous?.cancel() }
        task = nil
        let (radio, feed, clock, cycle) = (radio, feed, clock, dutyCycle)
        switch newMode {
        case .off: break
        case .continuous:
            task = Task {
                while !Task.isCancelled {
                    let ended = await Self.scan(radio, feed, clock, for: nil)
                    self.note(ended)
                    guard ended.failure != nil else { break }
                    try? await clock.sleep(seconds: Self.retryAfter)
                }
            }
        case .dutyCycled:
            task = Task {
                while !Task.isCancelled {
                    self.note(await Self.scan(radio, feed, clock, for: cycle.on))
                    try? await clock.sleep(seconds: cycle.off)
                }
            }
        }
    }

    /// How a scan ended: whether it heard anything, and the radio's error if it failed.
    struct Ended: Sendable {
        var heard = false
        var failure: String?
    }

    /// A failure is told once; a scan that hears something again re-arms the report.
    private func note(_ ended: Ended) {
        if ended.heard { failing = false }
        guard let failure = ended.failure, !Task.isCancelled, !failing else { return }
        failing = true
        report("The radio cannot scan for the car: \(failure). Retrying.")
    }

    /// Scans for `seconds` (nil: until cancelled or the radio fails); ending the stream's
    /// consumer stops the scan.
    private static func scan(_ radio: any Radio, _ feed: AsyncStream<GuideInput>.Continuation, _ clock: any SessionClock,
                             for seconds: Double?) async -> Ended {
        await withTaskGroup(of: Ended?.self) { group in
            group.addTask {
                var ended = Ended()
                do {
                    for try await event in radio.scan() {
                        guard case .sighting(let sighting) = event, let beacon = sighting.beacon, let rssi = sighting.rssi else { continue }
                        ended.heard = true
                        feed.yield(.sighting(time: clock.now(at: sighting.receivedAt), unixTime: Double(sighting.unixMicroseconds) / 1e6,
                                             rssi: Double(rssi), beacon: beacon))
                    }
                } catch where !(error is CancellationError) && !Task.isCancelled {
                    ended.failure = String(describing: error)
                } catch {}  // The window ended: the scan was cut short, not failed.
                return ended
            }
            if let seconds {
                group.addTask {
                    try? await clock.sleep(seconds: seconds)
                    return nil
                }
            }
            // The first to end: the scan (its result) or the window (nil; the scan is then cut
            // short, and what it heard so far is its result).
            let first = await group.next() ?? nil
            group.cancelAll()
            if let first { return first }
            return await group.next().flatMap { $0 } ?? Ended()
        }
    }
}

/// The latest positions the device's sharing gave (`LiveGuide.positionTasks`).
actor LatestPositions {
    private(set) var update = PositionUpdate(own: nil, other: nil)
    func set(_ new: PositionUpdate) { update = new }
}
