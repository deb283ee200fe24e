// Guided walks over simulator seeds: RideBeacon's guide beside HandiGo's policy in the same
// simulated world (same channel, same walker, same seed). BENCHMARKS.md, "Guide".
// Usage: GuideBenchmark [--seeds N] [--start-distance M] [--other-cars K] [--aids none|turn|locator|all]
//                       [--street-noise DBA] [--channel calibrated|uncalibrated] [--simulated-compass]
//                       [--turn-pace DEG_PER_S] [--verbose] [--trace SEED] [--core-cost]
//                       [--truth-breakdown]
// --simulated-compass: the walker's phone reports headings, so turn-to-find follows the compass
// instead of timing the turn (SimulatedCompass). --turn-pace: how fast the walker turns on the
// spot (default 30°/s, the pace the timing assumes; real passengers turn faster or slower).
import BeaconCore
import Foundation
import Guide
import RideSession

var seeds = 100
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
func refuse(_ line: String) -> Never {
    FileHandle.standardError.write(Data((line + "\n").utf8))
    exit(2)
}
var arguments = CommandLine.arguments.dropFirst()
while let argument = arguments.popFirst() {
    switch argument {
    case "--seeds": seeds = Int(arguments.popFirst() ?? "") ?? seeds
    case "--start-distance": startDistance = Double(arguments.popFirst() ?? "") ?? startDistance
    case "--other-cars": otherCars = Int(arguments.popFirst() ?? "") ?? otherCars
    case "--verbose": verbose = true
    case "--simulated-compass": simulatedCompass = SimulatedCompass.Parameters()
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

let identity = try RotatingIdentity(rideKey: [UInt8](repeating: 7, count: 32))
let ride = GuideRide(rideID: "bench", driverName: "Ben", vehicle: "blue Prius", identity: identity)
let base = 1_700_000_000.0

func median(_ values: [Double]) -> Double {
    let sorted = values.sorted()
    guard !sorted.isEmpty else { return .nan }
    return sorted.count % 2 == 1 ? sorted[sorted.count / 2] : (sorted[sorted.count / 2 - 1] + sorted[sorted.count / 2]) / 2
}

struct Tally {
    var ratios: [Double] = []
    var wrong: [Double] = []
    var failures = 0
    var spoken = 0, spokenWithin2x = 0, contradictions = 0
    mutating func add(_ s: WalkSummary) {
        wrong.append(Double(s.wrongDirectionCues))
        spoken += s.spokenDistances
        spokenWithin2x += s.spokenDistancesWithin2x
        contradictions += s.contradictions
        if let r = s.timeRatio, s.confirmed { ratios.append(r) } else { failures += 1; ratios.append(300 / s.straightLineSeconds) }
        touchRatios.append(s.touchTimeRatio ?? 300 / s.straightLineSeconds)
    }
    var touchRatios: [Double] = []
    /// Issue 16's measure: time to the touch prompt (a walk with none counts as 300 s).
    var touchLine: String {
        String(format: "time to touch ratio median %.2f p90 %.2f, <=1.5x in %d/%d",
               median(touchRatios), touchRatios.sorted()[Int(Double(touchRatios.count - 1) * 0.9)],
               touchRatios.filter { $0 <= 1.5 }.count, touchRatios.count)
    }
    var line: String {
        let within = ratios.filter { $0 <= 1.5 }.count
        return String(format: "time ratio median %.2f mean %.2f p90 %.2f, <=1.5x in %d/%d, unconfirmed %d; wrong-direction cues mean %.2f median %.1f",
                      median(ratios), ratios.reduce(0, +) / Double(ratios.count), ratios.sorted()[Int(Double(ratios.count - 1) * 0.9)],
                      within, ratios.count, failures, wrong.reduce(0, +) / Double(wrong.count), median(wrong))
    }
    var truthLine: String {
        String(format: "spoken distances within 2x of truth %d/%d (%.1f %%), contradictions within 3 s %d",
               spokenWithin2x, spoken, 100 * Double(spokenWithin2x) / Double(max(1, spoken)), contradictions)
    }
}

if let seed = traceSeed {
    var configuration = GuidedWalk.Configuration(seed: seed, startDistance: startDistance)
    configuration.aids = aids
    configuration.listener = listener
    configuration.calibratedChannel = calibratedChannel
    configuration.compass = simulatedCompass
    configuration.walker = walkerParameters
    var walk = GuidedWalk(ride: ride, configuration: configuration)
    print(walk.world.channelParameters)
    let policy = MutualProofPolicy()
    let summary = await walk.run(unixTime: { base + $0 }, onCue: { cue, moment in
        guard cue.kind != "pulse" else { return }
        print(String(format: "%6.2f true %5.2f est %5.2f hdg %4.0f  ", moment.time, moment.trueDistance, moment.estimatedDistance ?? -1, moment.headingOffset) + cue.description)
    }, onDriver: { action, time in
        if case .locator(let sound) = action { print(String(format: "%6.2f driver: locator %@", time, String(describing: sound))) }
    }, prove: { side, observation in policy.prove(side, observation) })
    print(summary)
    exit(0)
}
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
        case .veryClose: return .veryClose
        case .aboutMeters: return number.map { .about($0) }
        case .moreThanMeters: return number.map { .moreThan($0) }
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
var breakdown: [SpokenSample] = []

var ours = Tally(), handiGo = Tally(), oneSided = Tally()
/// The mutual rule's cost (issue 12): walks where the passenger's device felt the touch before
/// the driver's did ("Hold the phones together" before "Touch detected"), and for how long.
var holds: [Double] = []
var touches = 0
var notSimultaneous = 0
var locatorRequests = 0, ticksPlayed = 0, ticksHeard = 0
for seed in 1...UInt64(seeds) {
    var configuration = GuidedWalk.Configuration(seed: seed, startDistance: startDistance)
    configuration.otherCars = otherCars
    configuration.aids = aids
    configuration.listener = listener
    configuration.calibratedChannel = calibratedChannel
    configuration.compass = simulatedCompass
    configuration.walker = walkerParameters
    var walk = GuidedWalk(ride: ride, configuration: configuration)
    let policy = MutualProofPolicy()
    var holdingSince: Double?
    var detected = false
    let exponent = walk.world.channelParameters.exponent, txPower = walk.world.channelParameters.txPowerAt1m
    let summary = await walk.run(unixTime: { base + $0 }, onCue: { cue, moment in
        if truthBreakdown, case .speech(let utterance) = cue.sound, let band = spokenBand(utterance) {
            breakdown.append(SpokenSample(band: band, truth: moment.trueDistance, estimate: moment.estimatedDistance ?? .nan,
                                          time: moment.time, exponent: exponent, txPower: txPower))
        }
        guard !detected else { return }
        if cue.kind == "say:hold_together", holdingSince == nil { holdingSince = cue.time }
        if cue.kind == "say:touch_detected" || cue.kind == "touch" {
            detected = true
            if let since = holdingSince { holds.append(cue.time - since) }
        }
    }, prove: { side, observation in
        let answer = policy.prove(side, observation)
        if answer == .notSimultaneous { notSimultaneous += 1 }
        return answer
    })
    if detected { touches += 1 }
    // Baseline in the same run: the same walk with the rule before issue 12 (one device decides).
    var beforeConfiguration = configuration
    beforeConfiguration.oneSidedTouch = true
    var before = GuidedWalk(ride: ride, configuration: beforeConfiguration)
    let beforePolicy = MutualProofPolicy(simultaneity: false)
    oneSided.add(await before.run(unixTime: { base + $0 }, onCue: { _, _ in }, prove: { side, observation in beforePolicy.prove(side, observation) }))
    var baseline = HandiGoWalk(configuration: configuration)
    let theirs = baseline.run()
    ours.add(summary)
    locatorRequests += summary.locatorRequests
    ticksPlayed += summary.locatorTicksPlayed
    ticksHeard += summary.locatorTicksHeard
    handiGo.add(theirs)
    if verbose {
        print(String(format: "seed %3d  ridebeacon %6.1f s wrong %2d | handigo %6.1f s wrong %2d",
                     seed, summary.secondsToConfirm ?? -1, summary.wrongDirectionCues, theirs.secondsToConfirm ?? -1, theirs.wrongDirectionCues))
    }
}
print("seeds 1...\(seeds), start \(startDistance) m, straight line \(startDistance / 1.0) s, other cars \(otherCars), aids \(aids.rawValue), "
      + "channel \(calibratedChannel ? "calibrated" : "uncalibrated"), turns \(simulatedCompass == nil ? "timed" : "by compass") at \(Int((walkerParameters.spinRate * 180 / .pi).rounded()))°/s, street noise \(listener.streetNoise.lowerBound)–\(listener.streetNoise.upperBound) dB(A)")
print("ridebeacon: " + ours.line)
print("ridebeacon: " + ours.touchLine)
print("ridebeacon: " + ours.truthLine)
if truthBreakdown { printBreakdown(breakdown) }
print("handigo:    " + handiGo.line)
print("one-sided:  " + oneSided.line + "  (before issue 12: the passenger's device alone says \"Touch detected\")")
print(String(format: "locator: %.2f requests per walk, %d ticks played, %.0f %% heard", Double(locatorRequests) / Double(seeds),
             ticksPlayed, ticksPlayed == 0 ? 0 : 100 * Double(ticksHeard) / Double(ticksPlayed)))
let meanOurs = ours.wrong.reduce(0, +) / Double(seeds), meanTheirs = handiGo.wrong.reduce(0, +) / Double(seeds)
print(String(format: "handigo/ridebeacon: median time ratio %.2fx, wrong-direction cues %.2fx",
             median(handiGo.ratios) / median(ours.ratios), meanTheirs / max(meanOurs, 0.01)))
print(String(format: "mutual touch: %d walks reached a touch both devices felt; the passenger's device felt it first in %d "
                     + "(held median %.2f s, max %.2f s); proofs answered not simultaneous: %d",
             touches, holds.count, median(holds), holds.max() ?? 0, notSimultaneous))
