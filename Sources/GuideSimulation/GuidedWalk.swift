import Guide
import BeaconCore
import Foundation
import GuideAudio
import Phrasebook
import RideSession

/// A simulated passenger guided by `GuideCore` from the driver's arrival to confirmation, over
/// the simulated channel, in virtual time (a minute's walk takes a few milliseconds).
/// The driver's beacon carries the ride's rotating identity for the slot at `unixTime(t)`, and
/// the passenger's beacon its own, heard by the product's own driver side (`DriverCore`, as
/// `ridebeacon driver arrive --auto-confirm` runs it).
public struct GuidedWalk {
    public struct Configuration: Sendable {
        public var seed: UInt64
        public var startDistance = 25.0
        public var verbosity = Verbosity.full
        /// The language the guide speaks (`demo --language`); the scoring reads the phrase keys.
        public var phrases = PhraseTable.english
        public var timeLimit = 300.0
        public var channel: ChannelModel.Parameters?
        /// Both devices judge the touch by the step too (`Calibration.touchStep`; off in the product).
        public var touchStep = false
        /// Draw the channel from the fit to real traces (false: the pre-calibration ranges).
        public var calibratedChannel = true
        public var walker = Walker.Parameters()
        /// Other cars advertising their own rides at the same kerb (`CrowdedCurb`).
        public var otherCars = 0
        /// The rule before issue 12, for benchmarks' baselines: the passenger's device alone
        /// decides "Touch detected" (pair it with `MutualProofPolicy(simultaneity: false)`).
        public var oneSidedTouch = false
        /// Which direction-finding aids the guide offers (`--aids`).
        public var aids = GuideAids.all
        public var listener = LocatorListener.Parameters()
        /// The walker's phone reports compass headings and turn-to-find follows them; nil (the
        /// default, as on most phones this runs on) times the turn.
        public var compass: SimulatedCompass.Parameters?
        /// Who drives (`SimulatedDriver`): `legacy` is the product before issue 22.
        public var driver = DriverMode.legacy
        /// The guide's across-the-street judge (benchmarks choose its constants on seeds 1-500).
        public var across = AcrossTheStreet.Parameters()
        /// The street the walk happens in (`StreetScene`); nil: the open field of earlier
        /// rounds (no car body in the way, 10 Hz reports, the direct-path touch), kept as the
        /// baseline the street is compared with.
        public var street: StreetParameters?
        /// Vibrations (`GuideHaptics`): `on` records them beside the sounds; `only` is silent
        /// guidance, the walker hears no speech but what a vibration also says (closer, farther,
        /// very close, touch, the warnings), and no turn-to-find instruction.
        public var haptics = HapticsMode.off
        /// Both phones' satellite positions (issue 35, `SimulatedGNSS`), on the street only;
        /// nil: none (the guide as before them).
        public var positions: GNSSParameters?
        /// The traffic side (the guide's setting; the simulator mirrors the street's place on the
        /// Earth for left-hand traffic).
        public var traffic = TrafficSide.right
        /// The guide's far-field constants (benchmarks choose them on seeds 1-500).
        public var farField = FarField.Rules()

        public init(seed: UInt64, startDistance: Double = 25, verbosity: Verbosity = .full) {
            self.seed = seed
            self.startDistance = startDistance
            self.verbosity = verbosity
        }
    }

    public let ride: GuideRide
    public let configuration: Configuration
    public internal(set) var world: SimulatedWorld
    public internal(set) var guide: GuideCore
    public internal(set) var driver: DriverCore
    /// The person behind `driver`, and the meeting's state (GuidedWalk+Meeting.swift).
    var person: SimulatedDriver
    var meeting = MeetingTally()
    /// Both phones' advertising intervals as the product sets them (fast in the last metre).
    var advertising = ProductAdvertising()
    private var cueCounts: [String: Int] = [:]
    private var wrongCues = 0
    private var secondsTo1m: Double?
    private var secondsToTouch: Double?
    private var lastBand: DistanceBands.Band?
    private var curb: CrowdedCurb
    private var truth = SpokenTruth()
    private var compass: SimulatedCompass?
    private var haptics = GuideHaptics()
    private var hapticCadence = HapticCadence()
    private var hapticCounts: [String: Int] = [:]
    /// The two phones' satellite fixes (nil: no positions).
    var gnss: SimulatedGNSS?

    public init(ride: GuideRide, configuration: Configuration) {
        var ride = ride
        let legacy = configuration.driver == .legacy
        // The product before issue 22 had no ride word.
        if legacy { ride.rideWord = nil }
        self.ride = ride
        self.configuration = configuration
        world = SimulatedWorld(seed: configuration.seed, startDistance: configuration.startDistance,
                               channel: configuration.channel, calibrated: configuration.calibratedChannel,
                               walker: configuration.walker, listener: configuration.listener, street: configuration.street)
        var calibration = Calibration(model: .default)
        calibration.touchStep = configuration.touchStep
        guide = GuideCore(ride: ride, verbosity: configuration.verbosity, phrases: configuration.phrases, calibration: calibration,
                          aids: configuration.aids, traffic: configuration.traffic)
        guide.acrossJudge = AcrossTheStreet(parameters: configuration.across)
        guide.farFieldRules = configuration.farField
        let meeting = DriverMeeting(passengerName: "Ana", sounds: legacy ? [.device] : LocatorSoundName.makeable,
                                    rideWord: ride.rideWord, notes: "white cane")
        driver = DriverCore(identity: ride.identity, calibration: calibration, autoConfirm: true, meeting: meeting,
                            claims: legacy ? nil : DriverDistanceClaims(calibration: Calibration(model: .default)))
        person = SimulatedDriver(mode: configuration.driver, seed: configuration.seed)
        world.driverHoldsOut = configuration.driver != .silent
        curb = CrowdedCurb(count: configuration.otherCars, seed: configuration.seed)
        compass = configuration.compass.map { SimulatedCompass(parameters: $0, seed: configuration.seed) }
        driver.satellite.traffic = configuration.traffic
        if let positions = configuration.positions, let scene = world.scene {
            // The car drives on the right of its street frame: towards −x at the near kerb
            // (and double-parked), +x at the far one.
            let carHeading = scene.street.placement == .acrossStreet ? 0 : Double.pi
            gnss = SimulatedGNSS(parameters: positions, traffic: configuration.traffic, carHeading: carHeading, seed: configuration.seed)
        }
    }

    /// Runs the walk. `onCue` sees every cue with the moment it was made; `prove` posts one
    /// side's touch proof (the passenger's after Enter, the driver's as its core decides) and
    /// answers as the ride service would; `locate` posts the passenger's locator request (by
    /// default to `LocatorRequestPolicy`, the server's rule). Returns the summary.
    public mutating func run(unixTime: (Double) -> Double,
                             onCue: (GuideCue, WalkMoment) -> Void,
                             onPulse: (Double?, Double) -> Void = { _, _ in },
                             onHaptic: (GuideHaptic, WalkMoment) -> Void = { _, _ in },
                             onDriver: (DriverCore.Action, Double) -> Void = { _, _ in },
                             onStep: (SimulatedWorld) -> Void = { _ in },
                             onPositions: (Double, GeoFix?, GeoFix?) async -> Void = { _, _, _ in },
                             locate: ((Double) async -> LocatorAnswer)? = nil,
                             confirmWord: ((String) async -> ProofAnswer)? = nil,
                             prove: (BeaconSide, TouchObservation) async -> ProofAnswer) async -> WalkSummary {
        let policy = LocatorRequestPolicy()
        let locate: (Double) async -> LocatorAnswer = locate ?? { policy.request(at: $0) }
        var locatorRequests = 0
        var confirmedAt: Double?
        // The walk begins at the arrival: what the guide said while waiting is not part of it.
        var pending = guide.start(time: 0).filter { if case .cue = $0 { false } else { true } } + guide.handle(.arrived(time: 0))
        if configuration.oneSidedTouch {
            pending += guide.handle(.driverFeltTouch(time: 0, from: -.greatestFiniteMagnitude, until: .greatestFiniteMagnitude))
        }
        while world.time < configuration.timeLimit, confirmedAt == nil {
            if configuration.haptics.vibrates {
                for haptic in haptics.events(for: pending, core: guide) { feel(haptic, onHaptic) }
                for action in pending {
                    if case .pulse(let interval) = action { hapticCadence.set(interval, at: world.time) }
                }
            }
            while !pending.isEmpty {
                let action = pending.removeFirst()
                switch action {
                case .cue(let cue): note(cue, onCue)
                case .postProof(let observation):
                    let answer = await ProofPosting.$unixTime.withValue(unixTime(world.time)) { await prove(.passenger, observation) }
                    world.walkerConfirmed()
                    let answered = guide.handle(.proofAnswered(time: world.time, answer))
                    if configuration.haptics.vibrates {
                        for haptic in haptics.events(for: answered, core: guide) { feel(haptic, onHaptic) }
                    }
                    pending += answered
                    if answer == .confirmed { _ = driver.handle(.ride(.confirmed)) }
                case .pulse(let interval):
                    onPulse(interval, world.time)
                    if interval != nil { world.hear(.signal) }
                case .finished:
                    if guide.state == .confirmed { confirmedAt = world.time }
                case .scan:
                    break
                case .requestLocator:
                    // The ride service's answer, then the driver's device hears of it as its
                    // event stream would bring it (the same core as `driver arrive`).
                    let now = world.time
                    let answer = await locate(now)
                    // The service's answer reaches the guide first, then the driver's device
                    // hears of the request (its answer comes back on the ride's event stream).
                    pending += guide.handle(.locatorAnswered(time: now, answer))
                    if case .ticking = answer {
                        locatorRequests += 1
                        let actions = driver.handle(.locatorRequested(time: now, unixTime: unixTime(now), requestedAt: unixTime(now)))
                        if let asking = driver.asking, asking.time == now { person.asked(asking.instruction, at: now) }
                        pending += await driverActs(actions, at: now, unixTime: unixTime, onDriver: onDriver, prove: prove)
                    }
                }
            }
            if confirmedAt != nil { break }
            pending = []
            let heard = world.advance()
            onStep(world)
            let now = world.time
            if configuration.haptics.vibrates {
                for tap in hapticCadence.due(until: now) { feel(GuideHaptic(time: tap, event: .pulse), onHaptic) }
            }
            if secondsTo1m == nil, world.trueDistance < 1 { secondsTo1m = now }
            let passengerBeacon = ride.identity.identity(of: .passenger, slot: ride.identity.slot(at: unixTime(now)))
            for reception in heard.atDriver where curb.survives() {
                let actions = driver.handle(.sighting(time: reception.time, unixTime: unixTime(reception.time),
                                                      rssi: Double(reception.rssi), beacon: passengerBeacon.beacon(measuredPower: -59)))
                pending += await driverActs(actions, at: reception.time, unixTime: unixTime, onDriver: onDriver, prove: prove)
            }
            var sightings = curb.heard(until: now, unixTime: unixTime)
            for reception in heard.atPassenger where curb.survives() {
                let beacon = ride.identity.identity(of: .driver, slot: ride.identity.slot(at: unixTime(reception.time)))
                sightings.append((reception.time, Double(reception.rssi), beacon.beacon(measuredPower: -59)))
            }
            pending += await positionsStep(at: now, unixTime: unixTime, onDriver: onDriver, prove: prove, onPositions: onPositions)
            // With positions the compass reads in the Earth's frame (with its steady error).
            if let degrees = compass?.reading(at: now, heading: gnss?.compassHeading(world.walker.heading) ?? world.walker.heading) {
                pending += guide.handle(.heading(time: now, degrees: degrees))
            }
            for sighting in sightings.sorted(by: { $0.time < $1.time }) {
                pending += guide.handle(.sighting(time: sighting.time, unixTime: unixTime(sighting.time),
                                                  rssi: sighting.rssi, beacon: sighting.beacon))
            }
            pending += guide.handle(.tick(time: now))
            world.advertisingIntervals = advertising.update(now: now, guide: guide, driver: driver)
            pending += await meetingStep(at: now, unixTime: unixTime, onDriver: onDriver, confirmWord: confirmWord, prove: prove)
            if let at = world.walker.confirmAt, now >= at {
                world.walkerConfirmed()
                pending += guide.handle(.key(time: now, .confirm))
            }
        }
        return WalkSummary(confirmed: confirmedAt != nil, secondsTo1m: secondsTo1m.map(Self.rounded),
                           secondsToConfirm: confirmedAt.map(Self.rounded), secondsToTouch: secondsToTouch.map(Self.rounded),
                           straightLineSeconds: Self.rounded(world.straightLineSeconds),
                           cues: cueCounts, wrongDirectionCues: wrongCues, locatorRequests: locatorRequests,
                           locatorTicksPlayed: world.locatorTicksPlayed, locatorTicksHeard: world.locatorTicksHeard,
                           seed: configuration.seed, spokenDistances: truth.distances, spokenDistancesWithin2x: truth.within2x,
                           contradictions: truth.contradictions, spokenClaimsTrue: truth.claimsTrue,
                           safetyEvents: world.walker.safetyEvents, secondsToContact: world.contactAt.map(Self.rounded),
                           placement: world.scene.map { "\($0.street.placement.rawValue), device at \($0.street.device.rawValue)" },
                           confirmedBy: confirmedAt == nil ? nil : meeting.confirmedByWordAt != nil ? "word" : "touch",
                           rideWordOffered: meeting.wordOffered, soundsAnnounced: meeting.soundsAnnounced,
                           soundsAnnouncedNotMade: meeting.soundsNotMade, secondsDriverOut: meeting.driverCameAt.map(Self.rounded),
                           acrossJudgedWrongly: meeting.acrossSaid && world.scene.map { $0.street.placement != .acrossStreet } ?? false,
                           rideWordMisheard: meeting.wordMisheard, wrongCarsTried: world.walker.wrongCarsTried,
                           haptics: configuration.haptics.vibrates ? hapticCounts : nil)
    }

    static func rounded(_ seconds: Double) -> Double { (seconds * 100).rounded() / 100 }

    /// Counts the cue, judges direction cues against the truth and tells the walker.
    private mutating func note(_ cue: GuideCue, _ onCue: (GuideCue, WalkMoment) -> Void) {
        cueCounts[cue.kind, default: 0] += 1
        let estimate = guide.lastEstimate?.distance
        onCue(cue, WalkMoment(time: cue.time, trueDistance: world.trueDistance,
                              estimatedDistance: estimate.flatMap { $0.isFinite ? $0 : nil },
                              headingOffset: world.headingOffset))
        switch cue.sound {
        case .earcon(.closer):
            if world.isWrongDirection(closer: true) { wrongCues += 1 }
            world.hear(.towards)
        case .earcon(.farther):
            if world.isWrongDirection(closer: false) { wrongCues += 1 }
            world.hear(.away)
        case .earcon(.touch):
            world.hear(.touchPrompt)
        case .earcon:
            break
        case .speech(let utterance):
            let band = utterance.keys.contains { $0.isFarDistance } ? guide.farField.spokenBand : guide.spokenBand
            truth.note(utterance, band: band, at: cue.time, trueDistance: world.trueDistance)
            if secondsToTouch == nil, utterance.keys.contains(.guideTouchDetected) { secondsToTouch = cue.time }
            if configuration.haptics == .only {
                // Silent guidance: only what a vibration also says reaches the walker.
                noteMeetingSpeech(utterance)
                if let key = utterance.keys.first, Self.felt.contains(key) { hearKey(key) }
            } else {
                hearSpeech(utterance)
            }
        }
    }


    /// Phrases a vibration also says (`GuideHaptics`): signal lost and the car ahead (urgent),
    /// very close, touch detected.
    static let felt: Set<PhraseID> = [.guideSignalLost, .guideCarAhead, .guideVeryClose, .guideTouchDetected]

    /// Counts a vibration and shows it to `onHaptic` (the walker reacts to its phrase or earcon).
    private mutating func feel(_ haptic: GuideHaptic, _ onHaptic: (GuideHaptic, WalkMoment) -> Void) {
        hapticCounts[haptic.event.rawValue, default: 0] += 1
        let estimate = guide.lastEstimate?.distance
        onHaptic(haptic, WalkMoment(time: haptic.time, trueDistance: world.trueDistance,
                                    estimatedDistance: estimate.flatMap { $0.isFinite ? $0 : nil },
                                    headingOffset: world.headingOffset))
    }

    private mutating func hearSpeech(_ utterance: Utterance) {
        guard let key = utterance.keys.first else { return }
        noteMeetingSpeech(utterance)
        if let far = utterance.keys.first(where: { $0.isFarDirection }) {
            hearFarDirection(far)
            return
        }
        hearKey(key)
    }

    private mutating func hearKey(_ key: PhraseID) {
        switch key {
        case .guideSignalLost: world.hear(.keepStill)
        case .guideVeryClose: world.hear(.veryClose)
        case .guideTouchDetected: world.hear(.touchPrompt)
        case .guideTurnOnTheSpot: world.hear(.turnOnTheSpot)
        case .guideCarAhead: world.hear(.carAhead)
        case .guideDriverArrivedSearching:
            // "Searching for the signal; stay where you are": she was standing waiting for the
            // car, and stays until the guide's next instruction (`Walker.awaitGuidance`).
            if world.scene != nil { world.walker.awaitGuidance(at: world.time) }
        case .guideSignalFound: world.hear(.signal)
        case .guideDriverHorn, .guideDriverVoice, .guideDriverDevice:
            // "Walk towards the sound": what sets off a walker told to stay where she is (a
            // sound she heard before it is not an instruction, `Walker.act`).
            if world.walker.awaitingGuidance { world.hear(.signal) }
        case .guideAboutMeters, .guideMoreThanMeters:
            // A band farther than the last one spoken means the walk is going the wrong way, a
            // nearer one that it is right (far away, bands change before the trend is sure).
            let band = guide.spokenBand
            if let band, let last = lastBand, band > last { world.hear(.away) }
            if let band, let last = lastBand, band < last { world.hear(.towards) }
            lastBand = band
            world.hear(.signal)
        default:
            break
        }
    }
}
