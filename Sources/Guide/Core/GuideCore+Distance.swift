import BeaconCore
import Phrasebook

/// GuideCore's spoken distances: a band said once the estimate has settled in it, and the
/// answer to "where is my driver".
extension GuideCore {
    /// Speaks a new distance band once the estimate has stayed in it: `bandDwell` for a nearer
    /// band; a farther one also needs the trend to agree, or `awayDwell` (a turn puts the body
    /// between phone and car for a moment, several dB).
    ///
    /// What is spoken must be true, read strictly (issues 16, 21 and 23): the band is the claim
    /// `DistanceBands.claim` makes from this estimate (the same call `ridebeacon range` prints as
    /// `claim_min_m,claim_max_m`), said as it is; a bound when no number is supported, nothing
    /// when neither; a reassurance repeats the spoken band only while it is still the claim.
    mutating func band(_ out: inout [GuideAction], _ time: Double, _ estimate: RangeEstimate) {
        let claim = bands.claim(estimate, model: distanceModel, uncertainty: uncertainty)
        guard samplesSinceSignal >= timing.samplesBeforeSpeaking else { return }
        guard let band = claim else {
            candidateBand = nil
            return
        }
        if band != candidateBand {
            candidateBand = band
            candidateSince = time
        }
        let held = time - candidateSince
        let moving = estimate.trend == .closer || estimate.trend == .farther
        let due: Bool
        if let spoken = spokenBand, band != spoken {
            // Never a nearer band while the trend says farther, nor a farther one while it says
            // closer: a band moving against the way the passenger is going is a contradiction
            // (issue 21), and the band spoken was true when it was said.
            due = time - lastBandSpeech >= timing.bandSpacing
                && (band < spoken ? held >= timing.bandDwell && estimate.trend != .farther
                    : ((held >= timing.bandDwell && estimate.trend == .farther) || held >= timing.awayDwell)
                        && estimate.trend != .closer)
        } else {
            due = spokenBand == nil
        }
        if due {
            let previous = spokenBand
            spokenBand = band
            lastBandSpeech = time
            sayBand(&out, time, band, trend: estimate.trend, after: previous)
        } else if verbosity == .full, moving, let spoken = spokenBand, spoken == band, time - lastSpeech >= timing.reassurance {
            // A reassurance is a band spoken too: the next change waits `bandSpacing` after it
            // ("About 20 meters" then "More than 20 meters" 0.1 s later contradicted itself).
            lastBandSpeech = time
            sayBand(&out, time, spoken, trend: estimate.trend, after: spoken)
        }
    }

    /// Reads spoken distances from the pair's own line from now on (`ApproachLine.calibration()`,
    /// or a calibration learnt after the start) and narrows their uncertainty to it, so numbers
    /// can be said where the guessed line allowed only bounds. The ranger (pulse, trend,
    /// touch) is left as it is.
    public mutating func adoptLine(_ calibration: Calibration) {
        distanceModel = calibration.model
        uncertainty = DistanceUncertainty(calibration: calibration)
    }

    /// Says `band`, with the trend word when it agrees with the move from the band spoken before
    /// (`previous`): "Getting closer" never with a farther band, "Moving away" never with a nearer
    /// one (issue 21: a number that rises while "closer" is said is a contradiction).
    mutating func sayBand(_ out: inout [GuideAction], _ time: Double, _ band: DistanceBands.Band, trend: Trend,
                          after previous: DistanceBands.Band? = nil) {
        var keys: [PhraseID]
        var arguments: [String: String] = [:]
        switch band {
        case .veryClose: keys = [.guideVeryClose]
        case .about(let n): keys = [.guideAboutMeters]; arguments["distance"] = String(n)
        case .moreThan(let n): keys = [.guideMoreThanMeters]; arguments["distance"] = String(n)
        }
        if verbosity == .full, band != .veryClose, trend == .closer || trend == .farther {
            // The opposite word spoken moments ago would be contradicted: the band alone says enough.
            let closer = trend == .closer
            let agrees = previous.map { closer ? !(band > $0) : !(band < $0) } ?? true
            if agrees, lastTrendWord.map({ $0.closer == closer || time - $0.time >= timing.bandSpacing + 1 }) ?? true {
                keys.append(closer ? .guideGettingCloser : .guideMovingAway)
                lastTrendWord = (closer, time)
            }
        }
        say(&out, time, keys, arguments, brief: true)
    }

    mutating func whereIsDriver(_ out: inout [GuideAction], _ time: Double) {
        guard let estimate = lastEstimate, !ranger.isStale(at: time), estimate.distance.isFinite else {
            say(&out, time, [.guideDriverNotHeard], [:], always: true)
            return
        }
        let trend = ranger.noSample(at: time).trend
        let distance: String
        // The claim the level supports; without one, the lower bound in whole metres (it is
        // true), and under 2 m that the distance is not sure ("nearby" would be a claim too).
        switch bands.band {
        case .veryClose?: distance = phrases.text(for: Phrase(.guideDistanceVeryClose))
        case .about(let n)?: distance = phrases.text(for: Phrase(.guideDistanceAbout, ["distance": String(n)]))
        case .moreThan(let n)?: distance = phrases.text(for: Phrase(.guideDistanceMoreThan, ["distance": String(n)]))
        case nil:
            let low = bands.low.isFinite ? bands.low
                : uncertainty.bounds(level: estimate.filteredRSSI, model: distanceModel, spread: bands.spread.value).low
            distance = low >= 2 ? phrases.text(for: Phrase(.guideDistanceMoreThan, ["distance": String(Int(low))]))
                : phrases.text(for: Phrase(.guideDistanceUnknown))
        }
        let trendKey: PhraseID = trend == .closer ? .guideTrendCloser : trend == .farther ? .guideTrendFarther : .guideTrendSteady
        say(&out, time, [.guideWhereIsDriver], ["distance": distance, "trend": phrases.text(for: Phrase(trendKey))], always: true)
    }
}
