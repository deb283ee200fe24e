import BeaconCore
import Foundation
import Phrasebook
import RideSession

/// GuideCore's far field (issue 35): beyond the Bluetooth signal's reach, where the car is by
/// the two phones' satellite fixes, said with the uncertainty they honestly carry, and the
/// hand-over to the Bluetooth cues once the signal is found.
///
/// What it says, and why each part is safe:
/// - **a direction along the pavement only** ("By satellite, the car is ahead of you, along the
///   pavement"): through the compass when it reports, otherwise relative to the street ("with
///   the street in front of you, the car is to your right"), read from the car's parked course.
///   Never across the road: whether the car is across is the across-the-street rule's to
///   decide (`AcrossTheStreet.isAcross(satellite:traffic:)`), and then she stays on the pavement
///   and the driver is told, as when the signal says so. No direction when the car is not at
///   least `directionSigmas` σ one way along the street.
/// - **a distance every position the fixes allow makes true** (`SatelliteVector.claim`, at
///   `claimSigmas` σ of both reported accuracies, no credit for errors the phones share):
///   "About 20 meters", "More than 10 meters", or none.
/// - **the car's kerb on her side**, only when the fixes put her on its kerb side at
///   `claimSigmas` σ ("On this side of the street").
extension GuideCore {
    /// New satellite fixes: kept, and the far-field sentence said when due.
    mutating func positions(_ out: inout [GuideAction], _ time: Double, own: GeoFix?, driver: GeoFix?) {
        if let own { farField.note(own: own, at: time) }
        if let driver { farField.note(driver: driver, at: time, arrived: state != .waiting) }
        guard !isOver, state == .searching || state == .guiding || state == .signalLost,
              let vector = farField.vector(at: time), !farField.handedOver else { return }
        if meetingHeld {
            if farField.halfway, !carAcross {
                // Walking to meet him she follows the same "street in front of you" guess: if the
                // fixes' distance grows while she walks it, her left and right swap here too, and
                // the way is said again at once (on seed 10042 she walked 110 m the wrong way).
                if noteWay(vector, keys: [farDirection(vector, at: time)], at: time) { farField.lastSaid = -.infinity }
                meetHalfway(&out, time, vector)
            }
            return
        }
        // Across only from settled fixes that said so `acrossFixes` times running.
        let saysAcross = !farField.unsettled(at: time) && acrossJudge.isAcross(satellite: vector, traffic: farField.traffic)
        farField.acrossRun = saysAcross ? farField.acrossRun + 1 : 0
        if saysAcross, farField.acrossRun < farField.rules.acrossFixes {
            // Leaning across: no way along the pavement is said until the judgement is made.
            return
        }
        if farField.acrossRun >= farField.rules.acrossFixes {
            carAcross = true
            farField.kerbSide = .across
            holdForDriver(time)
            say(&out, time, [.guideCarAcross], ["name": ride.driverName], always: true)
            outbox.append(.carAcross)
            return
        }
        let keys = farFieldSentence(vector, at: time)
        noteWay(vector, keys: keys, at: time)
        let changed = keys != farField.lastKeys
        // Unsure of the way now, a way once said is not said again (she walks on it until the
        // fixes are sure, or the signal takes over); nothing repeated that would hurry her on.
        let repeatDue = time - farField.lastSaid >= farField.rules.repeatEvery && (farField.directionSure || farField.alongSign == nil)
        guard (changed && farField.directionSure && time - farField.lastSaid >= farField.rules.spacing) || repeatDue
                || (farField.lastKeys.isEmpty && !keys.isEmpty) else { return }
        farField.lastKeys = keys
        farField.lastSaid = time
        // The turn-to-find and "wrong way" clocks start again from a direction given.
        lastDirectionKnown = time
        var arguments: [String: String] = [:]
        if case .about(let n)? = farField.spokenBand, keys.contains(.guideFarAboutMeters) { arguments["distance"] = String(n) }
        if case .moreThan(let n)? = farField.spokenBand, keys.contains(.guideFarMoreThanMeters) { arguments["distance"] = String(n) }
        say(&out, time, keys, arguments, brief: true)
    }

    /// The far-field sentence for `vector` now: the direction along the pavement, the distance
    /// claim (kept in `farField.spokenBand`), and "this side of the street" when sure.
    mutating func farFieldSentence(_ vector: SatelliteVector, at time: Double) -> [PhraseID] {
        let rules = farField.rules
        farField.kerbSide = KerbSide.judge(vector, traffic: farField.traffic, sigmas: rules.claimSigmas,
                                           halfRoad: acrossJudge.parameters.halfRoad)
        var keys = [farDirection(vector, at: time)]
        // After a leap, no claim: the reported accuracies do not cover a multipath jump.
        let claim = farField.unsettled(at: time) ? nil : vector.claim(sigmas: rules.claimSigmas)
        var band: DistanceBands.Band? = switch claim {
        case .about(let n)?: .about(n)
        case .moreThan(let n)?: .moreThan(n)
        case nil: nil
        }
        if let said = farField.spokenBand, let new = band, new != said, Self.overlap(said, new) {
            // A new number is said only when it cannot be read as the truth moving the other
            // way (issue 21's contradictions): its interval clear of the last one's. Otherwise
            // the last claim again while the fixes still support it, or none.
            let bounds = vector.bounds(sigmas: rules.claimSigmas)
            band = said.isTrue(atDistance: bounds.low) && said.isTrue(atDistance: bounds.high) ? said : nil
        }
        if band != nil { farField.spokenBand = band }
        switch band {
        case .about?: keys.append(.guideFarAboutMeters)
        case .moreThan?: keys.append(.guideFarMoreThanMeters)
        default: break
        }
        if farField.kerbSide == .herSide { keys.append(.guideFarThisSide) }
        return keys
    }

    /// Whether two claims' intervals overlap (beyond a shared end).
    static func overlap(_ a: DistanceBands.Band, _ b: DistanceBands.Band) -> Bool {
        a.interval.min < b.interval.max && b.interval.min < a.interval.max
    }

    /// Whether the fixes, fresh, lean towards the car's kerb being across (her point estimate on
    /// the road side of the car's line past half the road by a σ; at the point estimate alone,
    /// 21 of 500 silent walks on seeds 1-500 were told "across" wrongly): the signal's across-the-street
    /// judgement needs this too when there are fixes, since through a car body the signal's
    /// level says "far" wherever she is. True without fresh fixes (the judgement as before them).
    func fixesAllowAcross(at time: Double) -> Bool {
        guard let vector = farField.vector(at: time), let frame = vector.streetFrame(traffic: farField.traffic) else { return true }
        return frame.herKerbward + vector.sigma < -acrossJudge.parameters.halfRoad
    }

    /// Which way along the pavement the car is: through the compass (ahead, behind, left,
    /// right of where she faces), or with the street in front of her; `.guideFarWhichWay` when the
    /// fixes do not put the car `directionSigmas` σ one way, or the car's course is unknown.
    mutating func farDirection(_ vector: SatelliteVector, at time: Double) -> PhraseID {
        guard let course = farField.carCourse, let frame = vector.streetFrame(traffic: farField.traffic) else {
            farField.directionSure = false
            return .guideFarWhichWay
        }
        farField.directionSure = !farField.unsettled(at: time) && abs(frame.carAlong) >= farField.rules.directionSigmas * vector.sigma
        if farField.directionSure { farField.alongSign = frame.carAlong >= 0 ? 1 : -1 }
        guard let sign = farField.alongSign else { return .guideFarWhichWay }
        // The bearing along the street towards the car.
        let towards = sign > 0 ? course : course + 180
        if let heading = turn.freshHeading(at: time) {
            let relative = HeadingBins.difference(towards, heading)
            if abs(relative) <= 45 { return .guideFarAhead }
            if abs(relative) >= 135 { return .guideFarBehind }
            return relative > 0 ? .guideFarRight : .guideFarLeft
        }
        // Facing the street from the car's kerb side, she faces away from the kerb. She is taken
        // to be on that side: a car judged across gets no direction at all, and the point
        // estimate of her side, metres either side of the line with fixes this coarse, would
        // turn her left into her right from one fix to the next. Her right is a quarter turn
        // clockwise from where she faces.
        let kerbward = farField.traffic == .right ? course + 90 : course - 90
        let facing = farField.facingSwapped ? kerbward : kerbward + 180
        return HeadingBins.difference(towards, facing + 90).magnitude <= 90 ? .guideFarStreetRight : .guideFarStreetLeft
    }

    /// Without a compass: while a sure way "with the street in front of you" is followed (she
    /// walks), the fixes' distance should fall; grown by `wrongWayMetres` over `wrongWayWindow`
    /// s, she must be on the other pavement, facing the street the other way round.
    /// True when it swapped.
    @discardableResult
    mutating func noteWay(_ vector: SatelliteVector, keys: [PhraseID], at time: Double) -> Bool {
        let rules = farField.rules
        guard keys.first == .guideFarStreetLeft || keys.first == .guideFarStreetRight, farField.directionSure else {
            farField.wayHistory = []
            return false
        }
        farField.wayHistory.append((time, vector.distance))
        farField.wayHistory.removeAll { $0.time < time - rules.wrongWayWindow }
        guard let first = farField.wayHistory.first, time - first.time >= rules.wrongWayWindow * 0.9,
              acrossJudge.walkingShare(from: first.time, to: time) >= acrossJudge.parameters.walkingShare,
              let nearest = farField.wayHistory.map(\.distance).min(), vector.distance - nearest >= rules.wrongWayMetres else { return false }
        farField.facingSwapped.toggle()
        farField.wayHistory = []
        return true
    }

    /// Hands the guiding over to the Bluetooth cues once the ranger, past its first samples,
    /// puts the car within `handOverDistance`, or once the fixes no longer tell which way along
    /// the street the car is (she is within their reach of it: the signal's trend, the turn and
    /// the car's sound do better there): "Signal found. Follow the sound.", said once a ride.
    /// Returns whether it handed over.
    mutating func handOver(_ out: inout [GuideAction], _ time: Double, _ estimate: RangeEstimate) -> Bool {
        guard samplesSinceSignal >= timing.samplesBeforeSpeaking,
              estimate.distance <= farField.rules.handOverDistance || !farField.directionSure else { return false }
        farField.handedOver = true
        lastDirectionKnown = time
        if !farField.handOverSaid {
            farField.handOverSaid = true
            searchingSaid = false
            say(&out, time, [.guideSignalFound], [:], brief: true)
        }
        return true
    }

    /// The driver says he is coming: with a direction along the pavement from the fixes (and
    /// the car not judged across), she is told to walk on towards the car and meet him halfway;
    /// otherwise to stay where she is. Returns whether it is the halfway meeting.
    mutating func driverComing(_ out: inout [GuideAction], _ time: Double) -> Bool {
        guard !carAcross, let vector = farField.vector(at: time), !farField.handedOver,
              farDirection(vector, at: time) != .guideFarWhichWay else { return false }
        farField.halfway = true
        meetHalfway(&out, time, vector)
        return true
    }

    /// Meeting halfway (the driver walking to her, the car on her side of the street or not
    /// known to be across): "{name} is walking to you. Walk on along the pavement; stop when you
    /// meet." once, with the far field's direction, then the direction again every `repeatEvery`.
    mutating func meetHalfway(_ out: inout [GuideAction], _ time: Double, _ vector: SatelliteVector) {
        let first = farField.halfwayFrom == .infinity
        guard farField.halfway, first || time - farField.lastSaid >= farField.rules.repeatEvery else { return }
        let direction = farDirection(vector, at: time)
        guard direction != .guideFarWhichWay else { return }
        let rest = farFieldSentence(vector, at: time).filter { !$0.isFarDirection }
        let keys: [PhraseID] = (first ? [.guideDriverComingHalfway] : []) + [direction] + rest
        if first { farField.halfwayFrom = time }
        farField.lastKeys = keys
        farField.lastSaid = time
        var arguments: [String: String] = ["name": ride.driverName]
        if case .about(let n)? = farField.spokenBand { arguments["distance"] = String(n) }
        if case .moreThan(let n)? = farField.spokenBand { arguments["distance"] = String(n) }
        say(&out, time, keys, arguments, always: true)
    }
}
