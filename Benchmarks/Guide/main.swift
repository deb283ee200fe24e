// Guided walks over simulator seeds: RideBeacon's guide beside HandiGo's policy in the same
// simulated world (same channel, same walker, same seed). BENCHMARKS.md, "Guide".
// Usage: GuideBenchmark [--seeds N] [--first-seed S] [--world street|open] [--baselines] [--sweep NAME|all]
//                       [--start-distance M] [--other-cars K] [--aids none|turn|locator|all]
//                       [--street-noise DBA] [--channel calibrated|uncalibrated] [--simulated-compass]
//                       [--turn-pace DEG_PER_S] [--verbose] [--trace SEED] [--core-cost]
//                       [--truth-breakdown] [--first-direction known|coin]
//                       [--positions] [--traffic right|left] [--gnss-sweep NAME|all] [--far-field CLAIM,DIRECTION,HANDOVER]
//                       [--touch level|step]
// --world: the street (StreetScene, the default) or the open field of earlier rounds. Seeds
// 1-500 are for choosing guide constants; figures are reported on 10001-11000 (--first-seed 10001
// --seeds 1000) with bootstrap 95 % intervals. --sweep: each street assumption at low/mid/high.
// --baselines: HandiGo's policy and the one-sided touch rule on the same walks.
// --simulated-compass: the walker's phone reports headings, so turn-to-find follows the compass
// instead of timing the turn (SimulatedCompass). --turn-pace: how fast the walker turns on the
// spot (default 30°/s, the pace the timing assumes; real passengers turn faster or slower).
// --first-direction: which way along the pavement the passenger first walks on the street:
// towards the car (known, the default: as if the app told her) or either way (coin).
// --positions: both phones share satellite positions (issue 35, SimulatedGNSS) and the guide's
// far field speaks them until the Bluetooth cues take over; --traffic mirrors the street for
// left-hand traffic; --gnss-sweep moves each GNSS assumption to low/mid/high (with --positions).
// --far-field: the far field's claim σ, direction σ and hand-over distance (tuning, seeds 1-500).
import BeaconCore
import Foundation
import Guide
import GuideSimulation
import RideSession

var seeds = 100
var firstSeed: UInt64 = 1
var street: StreetParameters? = StreetParameters()
var baselines = false
var driverMode = DriverMode.legacy
var across = AcrossTheStreet.Parameters()
var sweep: String?
var otherCars = 0
var startDistance = 25.0
var verbose = false
var listener = LocatorListener.Parameters()
var traceSeed: UInt64?
var aids = GuideAids.all
var calibratedChannel = true
var simulatedCompass: SimulatedCompass.Parameters?
var walkerParameters = Walker.Parameters()
/// `--truth-breakdown`: where the spoken distances that miss 2× come from (band, true distance,
/// time into the walk, the world's exponent), for issue 16's "what is said is true".
var truthBreakdown = false
/// `--haptics on|only`: vibrations recorded beside the cues (on, the default), or silent guidance
/// (only: the walker hears no speech but what a vibration also says).
var hapticsMode = HapticsMode.on
var positions: GNSSParameters?
var traffic = TrafficSide.right
var gnssSweep: String?
var farFieldRules = FarField.Rules()
var touchStep = false
func refuse(_ line: String) -> Never {
    FileHandle.standardError.write(Data((line + "\n").utf8))
    exit(2)
}
var arguments = CommandLine.arguments.dropFirst()
while let argument = arguments.popFirst() {
    switch argument {
    case "--seeds": seeds = Int(arguments.popFirst() ?? "") ?? seeds
    case "--first-seed": firstSeed = UInt64(arguments.popFirst() ?? "") ?? firstSeed
    case "--baselines": baselines = true
    case "--across":
        // window,walkingShare,nearest,closing (the guide's across-the-street judge; for tuning on seeds 1-500)
        let values = (arguments.popFirst() ?? "").split(separator: ",").compactMap { Double($0) }
        guard values.count == 4 else { refuse("--across takes window,walking-share,nearest,closing") }
        (across.window, across.walkingShare, across.nearest, across.closing) = (values[0], values[1], values[2], values[3])
    case "--driver":
        guard let value = arguments.popFirst().flatMap(DriverMode.init(rawValue:)) else { refuse(DriverMode.usage) }
        driverMode = value
    case "--sweep": sweep = arguments.popFirst()
    case "--haptics":
        guard let value = arguments.popFirst().flatMap(HapticsMode.init(rawValue:)), value != .off else { refuse("--haptics must be on or only") }
        hapticsMode = value
    case "--world":
        switch arguments.popFirst() {
        case "street": street = StreetParameters()
        case "open": street = nil
        default: refuse("--world must be street or open")
        }
    case "--start-distance": startDistance = Double(arguments.popFirst() ?? "") ?? startDistance
    case "--other-cars": otherCars = Int(arguments.popFirst() ?? "") ?? otherCars
    case "--verbose": verbose = true
    case "--simulated-compass": simulatedCompass = SimulatedCompass.Parameters()
    case "--touch":
        // The touch rule both devices run: the product's level rule, or the step beside it (issue 34).
        switch arguments.popFirst() {
        case "level": touchStep = false
        case "step": touchStep = true
        default: refuse("--touch must be level or step")
        }
    case "--first-direction":
        guard let value = arguments.popFirst().flatMap(Walker.FirstDirection.init(rawValue:)) else {
            refuse("--first-direction must be known or coin")
        }
        walkerParameters.firstDirection = value
    case "--turn-pace":
        guard let value = Double(arguments.popFirst() ?? ""), (5...180).contains(value) else {
            refuse("--turn-pace must be degrees per second, 5 to 180")
        }
        walkerParameters.spinRate = value * .pi / 180
    case "--street-noise":
        guard let value = Double(arguments.popFirst() ?? ""), (20...100).contains(value) else {
            refuse("--street-noise must be a level in dB(A), 20 to 100")
        }
        listener.streetNoise = value...value
    case "--positions": positions = GNSSParameters()
    case "--traffic":
        guard let value = arguments.popFirst().flatMap(TrafficSide.init(rawValue:)) else { refuse(TrafficSide.usage) }
        traffic = value
    case "--gnss-sweep": gnssSweep = arguments.popFirst()
    case "--far-field":
        let values = (arguments.popFirst() ?? "").split(separator: ",").compactMap { Double($0) }
        guard values.count == 3 else { refuse("--far-field takes claim-sigmas,direction-sigmas,hand-over-metres") }
        (farFieldRules.claimSigmas, farFieldRules.directionSigmas, farFieldRules.handOverDistance) = (values[0], values[1], values[2])
    case "--core-cost": break
    case "--truth-breakdown": truthBreakdown = true
    case "--trace": traceSeed = UInt64(arguments.popFirst() ?? "")
    case "--aids":
        guard let value = arguments.popFirst().flatMap(GuideAids.init(rawValue:)) else { refuse(GuideAids.usage) }
        aids = value
    case "--channel":
        switch arguments.popFirst() {
        case "calibrated": calibratedChannel = true
        case "uncalibrated": calibratedChannel = false
        default: refuse("--channel must be calibrated or uncalibrated")
        }
    default: refuse("unknown argument \(argument)")
    }
}

let rideKey = [UInt8](repeating: 7, count: 32)
let identity = try RotatingIdentity(rideKey: rideKey)
let ride = GuideRide(rideID: "bench", driverName: "Ben", vehicle: "blue Prius", identity: identity,
                     rideWord: RideWord.phrase(rideKey: rideKey))
let base = 1_700_000_000.0

/// The guide's share of cue latency: a sighting through `GuideCore.handle` (identity match,
/// ranger, bands, trend, pulse) against the ranger alone, same samples, same run.
func coreCost() {
    let count = 200_000
    var rng = SeededRandom(seed: 1)
    let times = (0..<count).map { Double($0) * 0.1 }
    let levels = times.map { t in -59 - 20 * log10(max(0.3, 30 - 0.02 * t.truncatingRemainder(dividingBy: 1400))) + 2 * rng.gaussian() }
    let beacons = times.map { identity.identity(of: .driver, slot: identity.slot(at: base + $0)).beacon(measuredPower: -59) }
    var ranger = Ranger(model: .default)
    var sink = 0.0
    let clock = ContinuousClock()
    let rangerTime = clock.measure {
        for i in 0..<count { sink += ranger.update(time: times[i], rssi: levels[i]).distance }
    }
    var core = GuideCore(ride: ride, verbosity: .full)
    _ = core.handle(.arrived(time: 0))
    var actions = 0
    let coreTime = clock.measure {
        for i in 0..<count {
            actions += core.handle(.sighting(time: times[i], unixTime: base + times[i], rssi: levels[i], beacon: beacons[i])).count
        }
    }
    func perSample(_ d: Duration) -> Double { Double(d.components.attoseconds) / 1e12 / Double(count) + Double(d.components.seconds) * 1e6 / Double(count) }
    print(String(format: "per sighting: ranger alone %.2f µs, GuideCore.handle %.2f µs (%.1fx), %d actions; checksum %.0f",
                 perSample(rangerTime), perSample(coreTime), perSample(coreTime) / perSample(rangerTime), actions, sink))
}
if CommandLine.arguments.contains("--core-cost") { coreCost(); exit(0) }

/// One spoken distance and the truth when it was said.
struct SpokenSample {
    var band: DistanceBands.Band
    var truth: Double
    var estimate: Double
    var time: Double
    var exponent: Double
    var txPower: Double
    /// The filtered level's error against the world's mean path loss at the true distance, dB.
    var levelError: Double {
        let level = PathLossModel.default.rssi(atDistance: estimate)
        return level - (txPower - 10 * exponent * log10(max(1, truth)))
    }
    var right: Bool { SpokenDistance.isWithin2x(band, truth) }
}
/// The band an utterance speaks, read back from its keys and number.
func spokenBand(_ utterance: Utterance) -> DistanceBands.Band? {
    let number = Int(utterance.text.split(whereSeparator: { !$0.isNumber }).first ?? "")
    for key in utterance.keys {
        switch key {
        case .guideVeryClose: return .veryClose
        case .guideAboutMeters: return number.map { .about($0) }
        case .guideMoreThanMeters: return number.map { .moreThan($0) }
        default: continue
        }
    }
    return nil
}
func printBreakdown(_ samples: [SpokenSample]) {
    func row(_ name: String, _ group: [SpokenSample]) {
        guard !group.isEmpty else { return }
        let right = group.filter(\.right).count
        let tooNear = group.filter { !$0.right && $0.truth > spokenMetres($0.band) }.count
        print(String(format: "  %-22@ %5d spoken, %5.1f %% within 2x, wrong: %4d said too near, %4d too far",
                     name, group.count, 100 * Double(right) / Double(group.count), tooNear, group.count - right - tooNear))
    }
    func spokenMetres(_ band: DistanceBands.Band) -> Double {
        switch band { case .veryClose: 1.2; case .about(let n): Double(n); case .moreThan(let n): Double(n) }
    }
    let errors = samples.filter { $0.truth >= 3 }.map(\.levelError).sorted()
    if !errors.isEmpty {
        func q(_ p: Double) -> Double { errors[Int(Double(errors.count - 1) * p)] }
        print(String(format: "filtered level - world's mean level when spoken (truth >= 3 m), dB: p5 %.1f p25 %.1f median %.1f p75 %.1f p95 %.1f",
                     q(0.05), q(0.25), q(0.5), q(0.75), q(0.95)))
    }
    print("spoken distances by band:")
    let bands = samples.map(\.band).sorted().reduce(into: [DistanceBands.Band]()) { if $0.last != $1 { $0.append($1) } }
    for band in bands { row("\(band)", samples.filter { $0.band == band }) }
    print("by true distance:")
    let edges = [0.0, 1.2, 2.4, 4.5, 8, 12.5, 17.5, 25, 40, 1000]
    for i in 0..<(edges.count - 1) {
        row(String(format: "%.1f-%.1f m", edges[i], edges[i + 1]), samples.filter { $0.truth >= edges[i] && $0.truth < edges[i + 1] })
    }
    print("by time into the walk:")
    let times = [0.0, 5, 10, 20, 40, 80, 300]
    for i in 0..<(times.count - 1) {
        row(String(format: "%.0f-%.0f s", times[i], times[i + 1]), samples.filter { $0.time >= times[i] && $0.time < times[i + 1] })
    }
    print("by the world's exponent:")
    let exponents = [1.0, 1.35, 1.6, 1.85, 2.2]
    for i in 0..<(exponents.count - 1) {
        row(String(format: "n %.2f-%.2f", exponents[i], exponents[i + 1]), samples.filter { $0.exponent >= exponents[i] && $0.exponent < exponents[i + 1] })
    }
    print("by estimate / truth:")
    let ratios = [0.0, 0.25, 0.5, 0.8, 1.25, 2, 4, 1000]
    for i in 0..<(ratios.count - 1) {
        row(String(format: "est/true %.2f-%.2f", ratios[i], ratios[i + 1]),
            samples.filter { $0.estimate / $0.truth >= ratios[i] && $0.estimate / $0.truth < ratios[i + 1] })
    }
}

/// What every configuration's walks share, copied out of the command line.
struct Settings: Sendable {
    var firstSeed: UInt64, seeds: Int, startDistance: Double, otherCars: Int, aids: GuideAids
    var listener: LocatorListener.Parameters, calibratedChannel: Bool, compass: SimulatedCompass.Parameters?
    var walker: Walker.Parameters, truthBreakdown: Bool, verbose: Bool, baselines: Bool, driver: DriverMode
    var across: AcrossTheStreet.Parameters
    var ride: GuideRide, base: Double
    var haptics = HapticsMode.on
    var positions: GNSSParameters?
    var traffic = TrafficSide.right
    var farField = FarField.Rules()
    var touchStep = false
}
let settings = Settings(firstSeed: firstSeed, seeds: seeds, startDistance: startDistance, otherCars: otherCars, aids: aids,
                        listener: listener, calibratedChannel: calibratedChannel, compass: simulatedCompass,
                        walker: walkerParameters, truthBreakdown: truthBreakdown, verbose: verbose, baselines: baselines, driver: driverMode, across: across,
                        ride: ride, base: base, haptics: hapticsMode, positions: positions, traffic: traffic, farField: farFieldRules,
                        touchStep: touchStep)

/// One walk's configuration from the command line's settings.
func walkConfiguration(seed: UInt64, _ settings: Settings, street: StreetParameters?) -> GuidedWalk.Configuration {
    var configuration = GuidedWalk.Configuration(seed: seed, startDistance: settings.startDistance)
    configuration.otherCars = settings.otherCars
    configuration.aids = settings.aids
    configuration.listener = settings.listener
    configuration.calibratedChannel = settings.calibratedChannel
    configuration.compass = settings.compass
    configuration.walker = settings.walker
    configuration.street = street
    configuration.driver = settings.driver
    configuration.across = settings.across
    // Vibrations recorded beside the sounds (they change nothing the walker does with `on`).
    configuration.haptics = settings.haptics
    configuration.positions = settings.positions
    configuration.traffic = settings.traffic
    configuration.farField = settings.farField
    configuration.touchStep = settings.touchStep
    return configuration
}

if let seed = traceSeed {
    let configuration = walkConfiguration(seed: seed, settings, street: street)
    var walk = GuidedWalk(ride: ride, configuration: configuration)
    print(walk.world.channelParameters)
    if let scene = walk.world.scene {
        print("tick levels at 1 m, dB(A) by band: \(scene.tickLevels.map { Int($0.rounded()) }), tick spectrum \(StreetSounds.tickSpectrum.map { Int($0.rounded()) })")
        for d in [1.0, 5, 10, 20] {
            let open = scene.margin(scene.tickLevels.map { $0 - 20 * log10(d) })
            let closed = scene.margin(scene.tickLevels.map { $0 - 20 * log10(d) - scene.closedCarLoss })
            var channel = ChannelModel(parameters: scene.channel, rng: SeededRandom(seed: 1))
            let received = (0..<200).compactMap { channel.receive(at: Double($0), receiver: Point(x: d, y: 0), facing: .pi, extraLoss: scene.carBodyLoss) }
            print(String(format: "  at %4.0f m: tick margin open %.1f dB, closed car %.1f dB; radio mean %.1f dBm, through the car body %d/200 received", d, open, closed, ChannelModel(parameters: scene.channel, rng: SeededRandom(seed: 1)).meanRSSI(atDistance: d), received.count))
        }
        print("street: \(scene.street.placement), device \(scene.street.device), walker at \(walk.world.walker.position), device at \(walk.world.device), noise \(scene.streetNoise) dB(A), reports \(scene.passengerReports.receiver.trace)")
    }
    let policy = MutualProofPolicy()
    let summary = await walk.run(unixTime: { base + $0 }, onCue: { cue, moment in
        guard cue.kind != "pulse" else { return }
        print(String(format: "%6.2f true %5.2f est %5.2f hdg %4.0f  ", moment.time, moment.trueDistance, moment.estimatedDistance ?? -1, moment.headingOffset) + cue.description)
    }, onDriver: { action, time in
        switch action {
        case .tell(let words): print(String(format: "%6.2f driver's device: %@", time, words))
        case .locator(let sound): print(String(format: "%6.2f driver: locator %@", time, String(describing: sound)))
        case .answerLocator(let sound): print(String(format: "%6.2f driver answered: %@", time, sound.rawValue))
        case .meeting(let move): print(String(format: "%6.2f driver: %@", time, move.rawValue))
        default: break
        }
    }, onStep: { world in
        if Int((world.time * 20).rounded()) % 20 == 0 {
            print(String(format: "%6.2f   walker (%.1f, %.1f) device (%.1f, %.1f) roadway events %d", world.time, world.walker.position.x, world.walker.position.y, world.device.x, world.device.y, world.walker.safetyEvents))
        }
    }, prove: { side, observation in policy.prove(side, observation) })
    print(summary)
    exit(0)
}

/// The walks of one configuration (and, with --baselines, HandiGo's and the one-sided rule's).
/// One configuration's walks.
struct RunResult: Sendable {
    var ours: Tally, handiGo: Tally, oneSided: Tally, extra: [String], breakdown: [SpokenSample]
}

func run(street: StreetParameters?, _ settings: Settings) async -> RunResult {
    let (firstSeed, seeds) = (settings.firstSeed, settings.seeds)
    let (truthBreakdown, verbose, baselines, ride, base) = (settings.truthBreakdown, settings.verbose, settings.baselines, settings.ride, settings.base)
    var breakdown: [SpokenSample] = []
        var ours = Tally(), handiGo = Tally(), oneSided = Tally()
    var holds: [Double] = []
    var touches = 0
    var notSimultaneous = 0
    var locatorRequests = 0, ticksPlayed = 0, ticksHeard = 0
    var hapticTotals: [String: Int] = [:]
    for seed in firstSeed..<(firstSeed + UInt64(seeds)) {
        let configuration = walkConfiguration(seed: seed, settings, street: street)
        var walk = GuidedWalk(ride: ride, configuration: configuration)
        let policy = MutualProofPolicy()
        var watch = MutualTouchWatch()
        let exponent = walk.world.channelParameters.exponent, txPower = walk.world.channelParameters.txPowerAt1m
        let summary = await walk.run(unixTime: { base + $0 }, onCue: { cue, moment in
            if truthBreakdown, case .speech(let utterance) = cue.sound, let band = spokenBand(utterance) {
                breakdown.append(SpokenSample(band: band, truth: moment.trueDistance, estimate: moment.estimatedDistance ?? .nan,
                                              time: moment.time, exponent: exponent, txPower: txPower))
            }
            watch.note(cue)
        }, prove: { side, observation in
            let answer = policy.prove(side, observation)
            if answer == .notSimultaneous { notSimultaneous += 1 }
            return answer
        })
        if watch.detected { touches += 1 }
        if let held = watch.held { holds.append(held) }
        ours.add(summary)
        locatorRequests += summary.locatorRequests
        ticksPlayed += summary.locatorTicksPlayed
        ticksHeard += summary.locatorTicksHeard
        for (event, count) in summary.haptics ?? [:] { hapticTotals[event, default: 0] += count }
        if baselines {
            // The same walk with the rule before issue 12 (one device decides), and HandiGo's policy.
            var beforeConfiguration = configuration
            beforeConfiguration.oneSidedTouch = true
            var before = GuidedWalk(ride: ride, configuration: beforeConfiguration)
            let beforePolicy = MutualProofPolicy(simultaneity: false)
            oneSided.add(await before.run(unixTime: { base + $0 }, onCue: { _, _ in }, prove: { side, observation in beforePolicy.prove(side, observation) }))
            var baseline = HandiGoWalk(configuration: configuration)
            handiGo.add(baseline.run())
        }
        if verbose {
            print(String(format: "seed %5d  ridebeacon touch %6.1f s confirm %6.1f s wrong %2d safety %d %@", seed, summary.secondsToTouch ?? -1,
                         summary.secondsToConfirm ?? -1, summary.wrongDirectionCues, summary.safetyEvents, summary.placement ?? ""))
        }
    }
    let extra = [
        String(format: "locator: %.2f requests per walk, %d ticks played, %.0f %% heard", Double(locatorRequests) / Double(seeds),
               ticksPlayed, ticksPlayed == 0 ? 0 : 100 * Double(ticksHeard) / Double(ticksPlayed)),
        String(format: "mutual touch: %d walks reached a touch both devices felt; the passenger's device felt it first in %d "
                   + "(held median %.2f s, max %.2f s); proofs answered not simultaneous: %d",
               touches, holds.count, holds.isEmpty ? 0 : median(holds), holds.max() ?? 0, notSimultaneous),
        "haptics per walk (feedbackd patterns, beside the cues): " + hapticTotals.sorted { $0.key < $1.key }
            .map { String(format: "%@ %.1f", $0.key, Double($0.value) / Double(seeds)) }.joined(separator: ", "),
    ]
    return RunResult(ours: ours, handiGo: handiGo, oneSided: oneSided, extra: extra, breakdown: breakdown)
}

@MainActor func header(_ street: StreetParameters?) -> String {
    "seeds \(firstSeed)...\(firstSeed + UInt64(seeds) - 1), start \(startDistance) m, world \(street == nil ? "open field" : "street"), driver \(driverMode.rawValue), other cars \(otherCars), aids \(aids.rawValue), "
        + "channel \(street != nil ? "street" : calibratedChannel ? "calibrated" : "uncalibrated"), turns \(simulatedCompass == nil ? "timed" : "by compass") at \(Int((walkerParameters.spinRate * 180 / .pi).rounded()))°/s, first direction \(walkerParameters.firstDirection.rawValue), "
        + "positions \(positions == nil ? "off" : "on"), traffic \(traffic.rawValue)"
}

if let gnssSweep {
    // Each GNSS assumption at low / mid / high (issue 35), everything else at its default.
    for entry in GNSSParameters.sweeps where gnssSweep == "all" || gnssSweep == entry.name {
        for value in entry.values {
            var parameters = GNSSParameters()
            entry.set(&parameters, value)
            var moved = settings
            moved.positions = parameters
            let t = await run(street: street, moved).ours
            print(String(format: "gnss-sweep %@ = %g: confirmation ratio median %.2f p90 %.2f, confirmed %.1f %%, safety events %d in %d walks, across said wrongly %d, claims true %.2f %%, contradictions %d",
                         entry.name, value, median(t.confirmRatios), quantile(t.confirmRatios, 0.9),
                         100 * t.confirmed.reduce(0, +) / Double(t.walks), Int(t.safety.reduce(0, +)), t.safety.filter { $0 > 0 }.count,
                         t.acrossWrong, 100 * Tally.ratio(t.claims), Int(t.contradictions.reduce(0, +))))
        }
    }
    exit(0)
}

if let sweep {
    // Each assumption at low / mid / high, everything else at its default: how far the headline moves.
    for entry in StreetParameters.sweeps where sweep == "all" || sweep == entry.name {
        for value in entry.values {
            var parameters = StreetParameters()
            entry.set(&parameters, value)
            let result = await run(street: parameters, settings)
            let t = result.ours
            print(String(format: "sweep %@ = %g: touch ratio median %.2f p90 %.2f, confirmation ratio median %.2f p90 %.2f, confirmed %.1f %%, safety events %d in %d walks, claims true %.1f %%, contradictions %d",
                         entry.name, value, median(t.touchRatios), quantile(t.touchRatios, 0.9), median(t.confirmRatios), quantile(t.confirmRatios, 0.9),
                         100 * t.confirmed.reduce(0, +) / Double(t.walks),
                         Int(t.safety.reduce(0, +)), t.safety.filter { $0 > 0 }.count, 100 * Tally.ratio(t.claims), Int(t.contradictions.reduce(0, +))))
        }
    }
    exit(0)
}

func report(_ result: RunResult, header: String) {
    print(header)
    for line in result.ours.lines { print("ridebeacon: " + line) }
    if settings.truthBreakdown { printBreakdown(result.breakdown) }
    if settings.baselines {
        for line in result.handiGo.lines.prefix(3) { print("handigo:    " + line) }
        for line in result.oneSided.lines.prefix(3) { print("one-sided:  " + line + "  (before issue 12)") }
    }
    for line in result.extra { print(line) }
}

report(await run(street: street, settings), header: header(street))
