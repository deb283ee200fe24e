import BeaconCore
import BlueZ
import Foundation
import GuideAudio
import RideClient

/// The guide in real time: `GuideCore` driven by a radio's sightings, the ride's live event
/// stream, a 20 Hz tick and the passenger's keys, its cues played by a `LiveCuePlayer`, its
/// touch proof posted through the ride client. Meanwhile the passenger's own rotating identity
/// is advertised (the driver's side proves the touch with it).
///
/// The core's clock is the player's (`LiveCuePlayer.now`), so a cue is requested on the same
/// timeline it sounds on. The ride service being unreachable is said aloud and guiding goes
/// on from the radio: the identity was derived from the ride key before guiding began.
public struct LiveGuide: Sendable {
    public let ride: GuideRide
    public let rideID: String
    public let initialState: RideState
    public let verbosity: Verbosity
    public let phrases: PhraseTable
    public let calibration: Calibration
    public let radio: any Radio
    public let client: RideServiceClient
    public let player: LiveCuePlayer
    public let keys: AsyncStream<GuideKey>
    public let log: @Sendable (String) -> Void
    /// Scan duty cycle before the driver arrives: on, then off, s.
    public var dutyCycle = (on: 2.0, off: 3.0)
    /// Off by default: the h4 radio lost scanning for tens of seconds when a duty-cycle window's
    /// scan stream ended and the continuous one began (GuideOverBumbleTests failed about one
    /// run in three with it on, never in five with it off), so until the radio restarts scans
    /// reliably the guide scans continuously from the start.
    public var dutyCycling = false

    public init(ride: GuideRide, initialState: RideState, verbosity: Verbosity, phrases: PhraseTable = .english,
                calibration: Calibration = Calibration(model: .default), radio: any Radio, client: RideServiceClient, player: LiveCuePlayer, keys: AsyncStream<GuideKey>,
                log: @escaping @Sendable (String) -> Void) {
        self.ride = ride
        self.rideID = ride.rideID
        self.initialState = initialState
        self.verbosity = verbosity
        self.phrases = phrases
        self.calibration = calibration
        self.radio = radio
        self.client = client
        self.player = player
        self.keys = keys
        self.log = log
    }

    /// Guides until the ride is confirmed or cancelled, or the passenger quits; returns the
    /// final state.
    public func run() async -> GuideState {
        let (inputs, feed) = AsyncStream<GuideInput>.makeStream()
        var core = GuideCore(ride: ride, verbosity: verbosity, phrases: phrases, calibration: calibration)
        player.start()
        let scanner = ScanControl(radio: radio, feed: feed, clock: player, dutyCycle: dutyCycle)
        let tasks: [Task<Void, Never>] = [
            Task { await advertisePassengerIdentity() },
            Task { await followRide(feed) },
            Task {
                while !Task.isCancelled {
                    feed.yield(.tick(time: player.now))
                    try? await Task.sleep(for: .milliseconds(50))
                }
            },
            Task {
                for await key in keys { feed.yield(.key(time: player.now, key)) }
            },
        ]
        var actions = core.start(time: player.now)
        if initialState == .arrived { actions += core.handle(.arrived(time: player.now)) }
        var finished = false
        if let mode = perform(actions, feed: feed, finished: &finished) { await scanner.set(dutyCycling || mode != .dutyCycled ? mode : .continuous) }
        if !finished {
            for await input in inputs {
                if let mode = perform(core.handle(input), feed: feed, finished: &finished) { await scanner.set(mode) }
                if finished { break }
            }
        }
        for task in tasks { task.cancel() }
        await scanner.set(.off)
        try? await radio.stopAdvertising()
        do { try player.stop() } catch { log("audio: \(error)") }
        return core.state
    }

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
                    let urgent = utterance.keys.contains { [.touchDetected, .confirmed, .signalLost, .driverArrived].contains($0) }
                    player.say(utterance.text, urgent: urgent)
                }
            case .pulse(let interval):
                player.setPulse(interval: interval)
            case .scan(let mode):
                scan = mode
            case .postProof(let observation):
                Task { feed.yield(.proofAnswered(time: player.now, await post(observation))) }
            case .finished:
                finished = true
            }
        }
        return scan
    }

    private func post(_ observation: TouchObservation) async -> ProofAnswer {
        let proof = TouchProof(identity: observation.identity, slot: observation.slot, peakRSSI: observation.peakFilteredRSSI,
                               samples: observation.samples, observedAt: Date(timeIntervalSince1970: observation.unixTime))
        do {
            switch try await client.submitTouchProof(proof, rideID: rideID) {
            case .accepted(let result): return result.outcome == .confirmed ? .confirmed : .awaitingCounterpart
            case .notVerified(let message): return .rejected(message)
            }
        } catch {
            if case .rejected(let problem) = error { return .rejected(problem.message) }
            return .rejected(error.description)
        }
    }

    /// Ride events: arrival, confirmation (perhaps by the driver's proof, last), cancellation;
    /// a broken stream is the service being unreachable until it reconnects.
    private func followRide(_ feed: AsyncStream<GuideInput>.Continuation) async {
        do {
            for try await update in client.rideEvents(rideID) {
                switch update {
                case .connected: feed.yield(.service(time: player.now, reachable: true))
                case .interrupted: feed.yield(.service(time: player.now, reachable: false))
                case .event(let event):
                    switch event.state {
                    case .arrived: feed.yield(.arrived(time: player.now))
                    case .confirmed: feed.yield(.rideConfirmed(time: player.now))
                    case .cancelled: feed.yield(.rideCancelled(time: player.now))
                    case .requested, .accepted, .completed: break
                    }
                }
            }
        } catch {
            log("ride events: \(error)")
            feed.yield(.service(time: player.now, reachable: false))
        }
    }

    /// The passenger's own beacon, re-registered at every slot boundary.
    private func advertisePassengerIdentity() async {
        func frame(_ slot: UInt64) -> IBeacon { ride.identity.identity(of: .passenger, slot: slot).beacon(measuredPower: -59) }
        var slot = ride.identity.slot(at: Date().timeIntervalSince1970)
        do {
            try await radio.startAdvertising(BeaconAdvertisement(beacon: frame(slot), intervalMilliseconds: 100, type: .connectable))
        } catch {
            log("radio: cannot advertise the passenger's beacon: \(error)")
            return
        }
        while !Task.isCancelled {
            let wait = Double(slot + 1) * Double(ride.identity.period) - Date().timeIntervalSince1970
            if wait > 0 { try? await Task.sleep(for: .milliseconds(Int64((wait * 1000).rounded(.up)))) }
            if Task.isCancelled { return }
            slot = max(slot + 1, ride.identity.slot(at: Date().timeIntervalSince1970))
            try? await radio.replaceAdvertisedBeacon(frame(slot))
        }
    }
}

/// Starts, duty-cycles and stops the radio's scan, feeding sightings to the guide.
actor ScanControl {
    private let radio: any Radio
    private let feed: AsyncStream<GuideInput>.Continuation
    private let clock: LiveCuePlayer
    private let dutyCycle: (on: Double, off: Double)
    private var task: Task<Void, Never>?
    private var mode = ScanMode.off

    init(radio: any Radio, feed: AsyncStream<GuideInput>.Continuation, clock: LiveCuePlayer, dutyCycle: (on: Double, off: Double)) {
        self.radio = radio
        self.feed = feed
        self.clock = clock
        self.dutyCycle = dutyCycle
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
            task = Task { await Self.scan(radio, feed, clock, for: nil) }
        case .dutyCycled:
            task = Task {
                while !Task.isCancelled {
                    await Self.scan(radio, feed, clock, for: cycle.on)
                    try? await Task.sleep(for: .milliseconds(Int64(cycle.off * 1000)))
                }
            }
        }
    }

    /// Scans for `seconds` (nil: until cancelled); ending the stream's consumer stops the scan.
    private static func scan(_ radio: any Radio, _ feed: AsyncStream<GuideInput>.Continuation, _ clock: LiveCuePlayer,
                             for seconds: Double?) async {
        await withTaskGroup(of: Void.self) { group in
            group.addTask {
                do {
                    for try await event in radio.scan() {
                        guard case .sighting(let sighting) = event, let beacon = sighting.beacon, let rssi = sighting.rssi else { continue }
                        feed.yield(.sighting(time: clock.now, unixTime: Double(sighting.unixMicroseconds) / 1e6,
                                             rssi: Double(rssi), beacon: beacon))
                    }
                } catch {}
            }
            if let seconds {
                group.addTask { try? await Task.sleep(for: .milliseconds(Int64(seconds * 1000))) }
            }
            await group.next()
            group.cancelAll()
        }
    }
}
