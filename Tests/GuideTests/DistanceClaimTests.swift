import BeaconCore
import Foundation
import Guide
import Phrasebook
import Testing

/// Issue 23 (and issue 21, item 8): what the guide claims about distance is true by the strict
/// reading, is made by one piece of code (`DistanceBands.claim`) that both the spoken sentence and
/// `ridebeacon range`'s `claim_min_m,claim_max_m` come from, and knows a body fade reads farther.
@Suite struct DistanceClaimTests {
    typealias Band = DistanceBands.Band

    @Test func claimIntervalsAreTheStrictReading() {
        #expect(Band.moreThan(15).interval.min == 15 && Band.moreThan(15).interval.max == .infinity)
        // Issue 21's seed-7 sentences: "More than 15 meters" at 10.98 m, "More than 10 meters" at 6.39 m.
        #expect(!Band.moreThan(15).isTrue(atDistance: 10.98))
        #expect(!Band.moreThan(10).isTrue(atDistance: 6.39))
        #expect(Band.moreThan(10).isTrue(atDistance: 10) && Band.moreThan(10).isTrue(atDistance: 400))
        #expect(Band.about(3).isTrue(atDistance: 1.5) && Band.about(3).isTrue(atDistance: 6))
        #expect(!Band.about(3).isTrue(atDistance: 1.49) && !Band.about(3).isTrue(atDistance: 6.01))
        #expect(Band.veryClose.interval.min == 0 && Band.veryClose.interval.max == DistanceBands.veryCloseLimit)
        #expect(Band.veryClose.isTrue(atDistance: 2.4) && !Band.veryClose.isTrue(atDistance: 2.41))
    }

    @Test func aClaimIsMadeOnlyWhenEveryAllowedDistanceIsInsideIt() {
        var bands = DistanceBands()
        #expect(bands.update(distance: 30, low: 12, high: 90) == .moreThan(10))
        #expect(bands.update(distance: 30, low: 9.9, high: 90) == .moreThan(5), "no slack: 9.9 m allowed, so not more than 10")
        #expect(bands.update(distance: 30, low: 11, high: 90) == .moreThan(5), "a larger bound only with the margin to spare")
        #expect(bands.update(distance: 30, low: 12, high: 90) == .moreThan(10))
        #expect(bands.update(distance: 3, low: 1.9, high: .infinity) == nil, "below every bound of 2 m and more: nothing")
        #expect(bands.update(distance: 1, low: 0.5, high: 2.4) == .veryClose)
        #expect(bands.update(distance: 1, low: 0.5, high: 2.5) == nil, "2.5 m allowed: not very close")
    }

    /// The pre-issue-23 bug: the lower bound allowed the level only 4 dB below the line, so a body
    /// between the phones (10–20 dB) made "More than N" false. Now a fade widens the lower bound.
    @Test func aBodyFadeNeverMakesTheLowerBoundPassTheTruth() {
        let model = PathLossModel(txPower: -60, exponent: 2)
        let line = DistanceUncertainty.line(model)
        for truth in [1.5, 3.0, 6.0, 12.0] {
            // At rest (1 dB of spread) up to 16 dB under the line; carried (5 dB of spread, a
            // pocket's or a bag's, `LevelSpread`) up to 20 dB.
            for (fades, spread) in [(stride(from: 0.0, through: 16, by: 2), 1.0), (stride(from: 0.0, through: 20, by: 2), 5.0)] {
                for fade in fades {
                    let level = model.rssi(atDistance: truth) - fade
                    #expect(line.bounds(level: level, model: model, spread: spread).low <= truth, "\(fade) dB fade at \(truth) m")
                }
            }
            #expect(line.bounds(level: model.rssi(atDistance: truth) + 12, model: model).high >= truth)
        }
        // The calibration file's line (A, n from `ridebeacon calibrate` or ranging-eval) is a line,
        // the iBeacon defaults are not.
        #expect(DistanceUncertainty(calibration: Calibration(model: model)) == .line(model))
        #expect(DistanceUncertainty(calibration: Calibration(model: .default)) == .uncalibrated)
    }

    /// Carried-phone awareness without a calibration: the spread of the raw samples (a pocket or
    /// a bag: 5–8 dB) widens the lower bound, 2 dB per dB.
    @Test func aCarriedSpreadWidensTheUncalibratedLowerBound() {
        let calm = DistanceUncertainty.uncalibrated.bounds(level: -95, model: .default, spread: 1)
        let carried = DistanceUncertainty.uncalibrated.bounds(level: -95, model: .default, spread: 6)
        #expect(carried.low < calm.low / 2)
        #expect(carried.high == calm.high)
        // A phone in a backpack reads -93 dBm at 1 m (pcng), what a phone in hand reads at 30 m:
        // with a carried spread the guess allows 1 m and less, so it claims no bound of 2 m.
        #expect(DistanceUncertainty.uncalibrated.bounds(level: -93, model: .default, spread: 6).low < 1)
    }

    /// One source of truth: a guide fed a trace speaks, at every distance sentence, exactly the
    /// claim `DistanceBands.replay` (what `ridebeacon range` prints) makes at that sample.
    @Test func theGuideSpeaksTheClaimRangePrintsForTheSameSample() {
        let calibration = Calibration(model: PathLossModel(txPower: -60, exponent: 2))
        // 90 s at 10 Hz: from -100 dBm (far) to -46 dBm (within reach) and out again to -80,
        // with a deterministic ±3 dB jitter, in whole dB like a radio reports.
        var state: UInt64 = 12345
        let samples: [(time: Double, rssi: Double)] = (0..<900).map { i in
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            let jitter = Double(state >> 61) - 3.5
            let t = Double(i) / 10
            let mean = t < 60 ? -100 + 54 * t / 60 : -46 - 34 * (t - 60) / 30
            return (t, (mean + jitter).rounded())
        }
        let replayed = DistanceBands.replay(samples, calibration: calibration)
        var core = GuideCore(ride: ScriptedGuide.ride, verbosity: .brief, calibration: calibration, aids: .none)
        _ = core.start(time: 0)
        _ = core.handle(.arrived(time: 0))
        var spoken: [(index: Int, text: String)] = []
        for (i, sample) in samples.enumerated() {
            let unix = ScriptedGuide.base + sample.time
            let actions = core.handle(.sighting(time: sample.time, unixTime: unix, rssi: sample.rssi,
                                                beacon: ScriptedGuide.driverBeacon(at: unix)))
                + core.handle(.tick(time: sample.time + 0.05))
            for case .cue(let cue) in actions {
                if case .speech(let utterance) = cue.sound,
                   utterance.keys.contains(where: { [.guideAboutMeters, .guideMoreThanMeters, .guideVeryClose].contains($0) }) {
                    spoken.append((i, utterance.text))
                }
            }
        }
        #expect(Set(spoken.map(\.text)).count >= 2, "the walk speaks several claims: \(spoken)")
        for (i, text) in spoken {
            guard let band = Self.band(in: text) else {
                Issue.record("not a distance sentence: \(text)")
                continue
            }
            let claim = replayed[i].claim
            #expect(claim == band, "sample \(i): the guide said \(text), range claims \(String(describing: claim))")
            #expect(claim.map { $0.interval == band.interval } ?? false)
        }
    }

    /// The band a spoken sentence states ("About 3 meters.", "More than 5 meters. Getting closer.",
    /// "Very close, reach out.").
    static func band(in sentence: String) -> Band? {
        let english = PhraseTable.english
        if sentence.hasPrefix(english.text(for: Phrase(.guideVeryClose))) { return .veryClose }
        for (key, make) in [(PhraseID.guideAboutMeters, Band.about), (.guideMoreThanMeters, Band.moreThan)] {
            for n in 1...100 where sentence.hasPrefix(english.text(for: Phrase(key, ["distance": String(n)]))) {
                return make(n)
            }
        }
        return nil
    }
}
