import BeaconCore

/// GuideCore's spoken distances: a band said once the estimate has settled in it, and the
/// answer to "where is my driver".
extension GuideCore {
    /// Speaks a new distance band once the estimate has stayed in it: `bandDwell` for a nearer
    /// band; a farther one also needs the trend to agree, or `awayDwell` (a turn puts the body
    /// between phone and car for a moment, several dB, and "About 20 meters" at 5 m misleads).
    mutating func band(_ out: inout [GuideAction], _ time: Double, _ estimate: RangeEstimate) {
        guard samplesSinceSignal >= timing.samplesBeforeSpeaking, let band = bands.update(distance: estimate.distance) else { return }
        if band != candidateBand {
            candidateBand = band
            candidateSince = time
        }
        let held = time - candidateSince
        let moving = estimate.trend == .closer || estimate.trend == .farther
        let due: Bool
        if let spoken = spokenBand, band != spoken {
            due = time - lastBandSpeech >= timing.bandSpacing
                && (band < spoken ? held >= timing.bandDwell
                    : (held >= timing.bandDwell && estimate.trend == .farther) || held >= timing.awayDwell)
        } else {
            due = spokenBand == nil
        }
        if due {
            // Farther bands one step at a time: nobody walks from 6 m to 15 m between two
            // phrases, but turning the back to the car (10–15 dB of body) reads as that.
            let said = spokenBand.map { band > $0 ? DistanceBands.next(after: $0) : band } ?? band
            spokenBand = said
            lastBandSpeech = time
            sayBand(&out, time, said, trend: estimate.trend)
        } else if verbosity == .full, moving, let spoken = spokenBand, time - lastSpeech >= timing.reassurance {
            // A reassurance is a band spoken too: the next change waits `bandSpacing` after it
            // ("About 20 meters" then "More than 20 meters" 0.1 s later contradicted itself).
            lastBandSpeech = time
            sayBand(&out, time, spoken, trend: estimate.trend)
        }
    }

    mutating func sayBand(_ out: inout [GuideAction], _ time: Double, _ band: DistanceBands.Band, trend: Trend) {
        var keys: [PhraseKey]
        var arguments: [String: String] = [:]
        switch band {
        case .veryClose: keys = [.veryClose]
        case .about(let n): keys = [.aboutMeters]; arguments["distance"] = String(n)
        case .moreThan(let n): keys = [.moreThanMeters]; arguments["distance"] = String(n)
        }
        if verbosity == .full, band != .veryClose, trend == .closer || trend == .farther {
            // The opposite word spoken moments ago would be contradicted: the band alone says enough.
            let closer = trend == .closer
            if lastTrendWord.map({ $0.closer == closer || time - $0.time >= timing.bandSpacing + 1 }) ?? true {
                keys.append(closer ? .gettingCloser : .movingAway)
                lastTrendWord = (closer, time)
            }
        }
        say(&out, time, keys, arguments, brief: true)
    }

    mutating func whereIsDriver(_ out: inout [GuideAction], _ time: Double) {
        guard let estimate = lastEstimate, !ranger.isStale(at: time), estimate.distance.isFinite else {
            say(&out, time, [.driverNotHeard], [:], always: true)
            return
        }
        let band = bands.band ?? DistanceBands.plain(estimate.distance)
        let trend = ranger.noSample(at: time).trend
        let distance: String
        switch band {
        case .veryClose: distance = phrases.text(for: Phrase(.distanceVeryClose))
        case .about(let n): distance = phrases.text(for: Phrase(.distanceAbout, ["distance": String(n)]))
        case .moreThan(let n): distance = phrases.text(for: Phrase(.distanceMoreThan, ["distance": String(n)]))
        }
        let trendKey: PhraseKey = trend == .closer ? .trendCloser : trend == .farther ? .trendFarther : .trendSteady
        say(&out, time, [.whereIsDriver], ["distance": distance, "trend": phrases.text(for: Phrase(trendKey))], always: true)
    }
}
