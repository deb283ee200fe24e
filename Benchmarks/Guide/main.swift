// Guided walks over simulator seeds: RideBeacon's guide beside HandiGo's policy in the same
// simulated world (same channel, same walker, same seed). BENCHMARKS.md, "Guide".
// Usage: GuideBenchmark [--seeds N] [--start-distance M] [--other-cars K] [--aids none|turn|locator|all]
//                       [--street-noise DBA] [--channel calibrated|uncalibrated] [--simulated-compass]
//                       [--turn-pace DEG_PER_S] [--verbose] [--trace SEED] [--core-cost]
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
    let summary = await walk.run(unixTime: { base + $0 }, onCue: { cue, _ in
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
print("ridebeacon: " + ours.truthLine)
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
