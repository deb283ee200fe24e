import Foundation
import Guide
import GuideSimulation

func median(_ values: [Double]) -> Double { quantile(values, 0.5) }

func quantile(_ values: [Double], _ p: Double) -> Double {
    let sorted = values.sorted()
    guard !sorted.isEmpty else { return .nan }
    let position = Double(sorted.count - 1) * p
    let i = Int(position), f = position - Double(i)
    return i + 1 < sorted.count ? sorted[i] + (sorted[i + 1] - sorted[i]) * f : sorted[i]
}

/// A bootstrap 95 % interval of `statistic` over `values` (2 000 resamples, fixed seed, so the
/// same walks give the same interval).
func interval(_ values: [Double], _ statistic: ([Double]) -> Double) -> (low: Double, high: Double) {
    guard !values.isEmpty else { return (.nan, .nan) }
    var rng = SeededRandom(seed: 0xB007)
    let estimates = (0..<2000).map { _ in
        statistic((0..<values.count).map { _ in values[Int(rng.unit() * Double(values.count))] })
    }
    return (quantile(estimates, 0.025), quantile(estimates, 0.975))
}

/// What the walks of one configuration add up to, with bootstrap intervals over walks.
struct Tally {
    var touchRatios: [Double] = []
    var confirmRatios: [Double] = []
    var confirmed: [Double] = []
    var wrong: [Double] = []
    var safety: [Double] = []
    var contactToTouch: [Double] = []
    var contacts = 0
    var claims: [(said: Double, right: Double)] = []
    var lenient = 0.0
    var contradictions: [Double] = []
    var placements: [String: Int] = [:]
    var byWord = 0, wordOffered = 0, announced = 0, announcedNotMade = 0, driverOut = 0, acrossWrong = 0
    var wordMisheard = 0, wrongCars = 0

    mutating func add(_ s: WalkSummary) {
        let limit = 300 / s.straightLineSeconds
        touchRatios.append(s.touchTimeRatio ?? limit)
        confirmRatios.append(s.confirmed ? (s.timeRatio ?? limit) : limit)
        confirmed.append(s.confirmed ? 1 : 0)
        wrong.append(Double(s.wrongDirectionCues))
        safety.append(Double(s.safetyEvents))
        if s.secondsToContact != nil { contacts += 1 }
        if let delay = s.contactToTouch { contactToTouch.append(delay) }
        claims.append((Double(s.spokenDistances), Double(s.spokenClaimsTrue)))
        lenient += Double(s.spokenDistancesWithin2x)
        contradictions.append(Double(s.contradictions))
        if let placement = s.placement { placements[placement, default: 0] += 1 }
        if s.confirmedBy == "word" { byWord += 1 }
        if s.rideWordOffered { wordOffered += 1 }
        announced += s.soundsAnnounced
        announcedNotMade += s.soundsAnnouncedNotMade
        if s.secondsDriverOut != nil { driverOut += 1 }
        if s.acrossJudgedWrongly { acrossWrong += 1 }
        wordMisheard += s.rideWordMisheard
        wrongCars += s.wrongCarsTried
    }

    var walks: Int { touchRatios.count }

    static func ratio(_ pairs: [(said: Double, right: Double)]) -> Double {
        let said = pairs.reduce(0) { $0 + $1.said }
        return said == 0 ? .nan : pairs.reduce(0) { $0 + $1.right } / said
    }

    /// "median [low, high]" of a statistic with its interval.
    static func withInterval(_ values: [Double], _ p: Double, format: String = "%.2f") -> String {
        let ci = interval(values) { quantile($0, p) }
        return String(format: "\(format) [\(format), \(format)]", quantile(values, p), ci.low, ci.high)
    }

    static func meanWithInterval(_ values: [Double], format: String = "%.3f") -> String {
        let mean: ([Double]) -> Double = { $0.reduce(0, +) / Double(max(1, $0.count)) }
        let ci = interval(values, mean)
        return String(format: "\(format) [\(format), \(format)]", mean(values), ci.low, ci.high)
    }

    var lines: [String] {
        var claimsCI = (low: Double.nan, high: Double.nan)
        if !claims.isEmpty {
            var rng = SeededRandom(seed: 0xC1A1)
            let estimates = (0..<2000).map { _ in Self.ratio((0..<claims.count).map { _ in claims[Int(rng.unit() * Double(claims.count))] }) }
            claimsCI = (quantile(estimates, 0.025), quantile(estimates, 0.975))
        }
        let said = claims.reduce(0) { $0 + $1.said }
        return [
            "time to touch / straight line: median \(Self.withInterval(touchRatios, 0.5)), p90 \(Self.withInterval(touchRatios, 0.9)) (no touch counts as 300 s)",
            "time to confirmation / straight line: median \(Self.withInterval(confirmRatios, 0.5)), p90 \(Self.withInterval(confirmRatios, 0.9))",
            String(format: "confirmed in 300 s: %d/%d, share ", Int(confirmed.reduce(0, +)), walks) + Self.meanWithInterval(confirmed),
            "wrong-direction cues per walk: " + Self.meanWithInterval(wrong, format: "%.2f"),
            String(format: "safety events (steps into the roadway): %d in all, walks with any %d; per walk ", Int(safety.reduce(0, +)), safety.filter { $0 > 0 }.count)
                + Self.meanWithInterval(safety, format: "%.2f"),
            String(format: "phones touched in %d walks; contact -> \"Touch detected\" in %d: median ", contacts, contactToTouch.count)
                + (contactToTouch.isEmpty ? "n/a" : Self.withInterval(contactToTouch, 0.5, format: "%.1f") + " s, p90 " + Self.withInterval(contactToTouch, 0.9, format: "%.1f") + " s"),
            String(format: "spoken distance claims: %d, true (strict) %.1f %% [%.1f, %.1f], within 2x (lenient, as before) %.1f %%",
                   Int(said), 100 * Self.ratio(claims), 100 * claimsCI.low, 100 * claimsCI.high, 100 * lenient / max(1, said)),
            String(format: "contradictions (strict): %d in all, walks with any %d", Int(contradictions.reduce(0, +)), contradictions.filter { $0 > 0 }.count),
            String(format: "meeting: confirmed by the ride word %d, ride word offered in %d walks, driver walked over in %d; sounds announced %d, of them with no sound made %d; the guide judged the car across the street when it was not in %d walks; ride word not caught %d times; parked cars taken for hers %d",
                   byWord, wordOffered, driverOut, announced, announcedNotMade, acrossWrong, wordMisheard, wrongCars),
        ] + (placements.isEmpty ? [] : ["placements: " + placements.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }.joined(separator: ", ")])
    }
}
