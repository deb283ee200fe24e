import Phrasebook
@testable import RideBeaconCLI
import RideClient
import RideSession

/// A sentence that claims something happened: any line by `by` containing one of `words` may
/// be printed only after a fact `needs` accepts, and never after one `falseAfter` accepts.
/// To extend the table, add a claim with the phrase's words (from the phrasebook, in the
/// speaker's language) and the fact that makes it true.
struct Claim: Sendable {
    var name: String
    var by: Party
    var words: [String]
    var needs: @Sendable (Fact) -> Bool
    var falseAfter: @Sendable (Fact) -> Bool = { _ in false }

    func isMade(in line: String) -> Bool { words.contains { !$0.isEmpty && line.contains($0) } }
}

/// What must be said once something happened: after each fact `after` accepts, a later line by
/// `by` contains one of `words` (outages and recoveries announced, a cancellation said, …).
struct Duty: Sendable {
    var name: String
    var after: @Sendable (Fact) -> Bool
    var by: Party
    var words: [String]
}

struct Violation: Sendable, CustomStringConvertible {
    var rule: String
    var why: String
    var description: String { "\(rule): \(why)" }
}

/// The claims and duties of a ride at the kerb between Ana (the passenger) and Ben (the
/// driver), in each one's language.
struct KerbClaims {
    let passenger: Phrasebook
    let driver: Phrasebook
    var driverName = "Ben"
    var passengerName = "Ana"
    var code = "K7RX"

    var claims: [Claim] {
        let ben: [String: PhraseValue] = ["name": .text(driverName)]
        let ana: [String: PhraseValue] = ["name": .text(passengerName)]
        func said(_ id: PhraseID, _ arguments: [String: PhraseValue] = [:]) -> [String] { [passenger(id, arguments)] }
        func told(_ id: PhraseID, _ arguments: [String: PhraseValue] = [:]) -> [String] { [driver(id, arguments)] }
        func answered(_ sound: LocatorSoundName) -> @Sendable (Fact) -> Bool { { $0 == .locatorAnswered(sound) } }
        var table = [
            // Her device, about the ride.
            Claim(name: "the driver is on the way", by: .passenger, words: said(.followOnTheWay, ben), needs: { $0 == .accepted }),
            Claim(name: "the driver has arrived", by: .passenger, words: said(.followArrivedSummary, ben), needs: { $0 == .arrived }),
            Claim(name: "the phone guides her", by: .passenger, words: said(.ridePhoneGuiding), needs: { $0 == .arrived },
                  falseAfter: { $0 == .lacks(.radio) }),
            Claim(name: "the driver sounds the horn", by: .passenger, words: said(.followHornSummary, ben), needs: answered(.horn)),
            Claim(name: "the driver calls her name", by: .passenger, words: said(.followVoiceSummary, ben), needs: answered(.voice)),
            Claim(name: "the driver's phone ticks", by: .passenger, words: said(.followDeviceSummary, ben), needs: answered(.device)),
            Claim(name: "the driver cannot make a sound", by: .passenger, words: said(.followNoSoundSummary, ben), needs: answered(.none)),
            Claim(name: "the driver walks to her", by: .passenger, words: said(.followComingSummary, ben), needs: { $0 == .driverComing }),
            // Her come request and his device's answers (issue 37, point 2).
            Claim(name: "the driver is being asked to come", by: .passenger, words: said(.comeAskingSummary, ben) + said(.comeAskedAlreadySummary, ben),
                  needs: { $0 == .comeRequested }),
            Claim(name: "his phone has her request", by: .passenger, words: said(.comeReceivedSummary, ben), needs: { $0 == .comeAnswered(.received) }),
            Claim(name: "he answers he is coming", by: .passenger, words: said(.comeComingSummary, ben), needs: { $0 == .comeAnswered(.coming) }),
            Claim(name: "he answers he cannot leave the car", by: .passenger, words: said(.comeStayingSummary, ben),
                  needs: { $0 == .comeAnswered(.staying) }),
            Claim(name: "his phone has her request, and no answer came", by: .passenger, words: said(.comeReceivedNoAnswerSummary, ben),
                  needs: { $0 == .comeAnswered(.received) }, falseAfter: { $0 == .comeAnswered(.coming) || $0 == .comeAnswered(.staying) }),
            Claim(name: "the car is across the street", by: .passenger, words: said(.followAcrossSummary), needs: { $0 == .carAcross }),
            Claim(name: "she found the car", by: .passenger, words: said(.followConfirmedBody, ben) + said(.followConfirmedSummary),
                  needs: { $0 == .confirmed }),
            Claim(name: "the ride completed", by: .passenger, words: said(.followCompletedSummary), needs: { $0 == .completed }),
            Claim(name: "the service is unreachable", by: .passenger, words: said(.guideServiceUnreachable), needs: { $0 == .serviceLost }),
            Claim(name: "the service is back", by: .passenger, words: said(.guideServiceBack), needs: { $0 == .serviceBack }),
            // Her device, about itself.
            Claim(name: "every change is spoken", by: .passenger, words: said(.followNoNotifications),
                  needs: { $0 == .lacks(.notifications) }, falseAfter: { $0 == .lacks(.audio) }),
            Claim(name: "no sound here", by: .passenger, words: said(.followNoSound) + said(.followPrintedOnly),
                  needs: { $0 == .lacks(.audio) }),
            Claim(name: "no microphone", by: .passenger, words: said(.voiceNoMicrophone), needs: { $0 == .lacks(.microphone) }),
            // His device.
            Claim(name: "he arrived", by: .driver, words: told(.driverArrived, ["code": .text(code), "name": .text(passengerName)]),
                  needs: { $0 == .arrived }),
            Claim(name: "she is looking for the car", by: .driver,
                  words: [PhraseID.driverAskHorn, .driverAskVoiceWindow, .driverAskVoiceKerb, .driverAskDevice].flatMap { told($0, ana) },
                  needs: { $0 == .locatorRequested }),
            Claim(name: "she is told to listen", by: .driver, words: told(.driverToldListen, ana),
                  needs: { if case .locatorAnswered(let sound) = $0 { sound != .none } else { false } }),
            Claim(name: "she is told he cannot make a sound", by: .driver, words: told(.driverToldCannot, ana), needs: answered(.none)),
            Claim(name: "she asks him to come", by: .driver, words: told(.driverComeAsked, ana), needs: { $0 == .comeRequested }),
            Claim(name: "she is told he walks over", by: .driver, words: told(.driverToldComing, ana) + told(.driverToldComingHalfway, ana),
                  needs: { $0 == .driverComing || $0 == .comeAnswered(.coming) }),
            Claim(name: "she is told he stays in the car", by: .driver, words: told(.driverToldStaying, ana),
                  needs: { $0 == .comeAnswered(.staying) }),
            Claim(name: "his ride confirmed", by: .driver, words: told(.rideStateConfirmed), needs: { $0 == .confirmed }),
            Claim(name: "his ride cancelled", by: .driver, words: driverCancelled, needs: { if case .cancelled = $0 { true } else { false } }),
        ]
        for party in Party.allCases {
            table.append(Claim(name: "cancelled by the \(party.rawValue)", by: .passenger, words: [cancelledBy(party)],
                               needs: { $0 == .cancelled(by: party) }))
        }
        return table
    }

    /// The words of the claim called `name` (none when the table has no such claim).
    func words(of name: String) -> [String] { claims.first { $0.name == name }?.words ?? [] }

    var duties: [Duty] {
        let ben: [String: PhraseValue] = ["name": .text(driverName)]
        var duties = [
            Duty(name: "the outage is announced", after: { $0 == .serviceLost }, by: .passenger, words: [passenger(.guideServiceUnreachable)]),
            Duty(name: "the recovery is announced", after: { $0 == .serviceBack }, by: .passenger, words: [passenger(.guideServiceBack)]),
            Duty(name: "she hears he arrived", after: { $0 == .arrived }, by: .passenger, words: [passenger(.followArrivedSummary, ben)]),
            Duty(name: "he is told he arrived", after: { $0 == .arrived }, by: .driver,
                 words: [driver(.driverArrived, ["code": .text(code), "name": .text(passengerName)])]),
            Duty(name: "she hears the horn is sounding", after: { $0 == .locatorAnswered(.horn) }, by: .passenger,
                 words: [passenger(.followHornSummary, ben)]),
            Duty(name: "she hears her name is called", after: { $0 == .locatorAnswered(.voice) }, by: .passenger,
                 words: [passenger(.followVoiceSummary, ben)]),
            Duty(name: "she hears he walks over", after: { $0 == .driverComing }, by: .passenger, words: [passenger(.followComingSummary, ben)]),
            Duty(name: "she hears his phone has her request", after: { $0 == .comeAnswered(.received) }, by: .passenger,
                 words: [passenger(.comeReceivedSummary, ben)]),
            Duty(name: "she hears he is coming", after: { $0 == .comeAnswered(.coming) }, by: .passenger, words: [passenger(.comeComingSummary, ben)]),
            Duty(name: "she hears he cannot leave the car", after: { $0 == .comeAnswered(.staying) }, by: .passenger,
                 words: [passenger(.comeStayingSummary, ben)]),
            Duty(name: "he is told she asks him to come", after: { $0 == .comeRequested }, by: .driver,
                 words: [driver(.driverComeAsked, ["name": .text(passengerName)])]),
            Duty(name: "she hears the ride is confirmed", after: { $0 == .confirmed }, by: .passenger, words: [passenger(.followConfirmedSummary)]),
            Duty(name: "he hears the ride is confirmed", after: { $0 == .confirmed }, by: .driver, words: [driver(.rideStateConfirmed)]),
            Duty(name: "he hears the ride is cancelled", after: { if case .cancelled = $0 { true } else { false } }, by: .driver,
                 words: driverCancelled),
            Duty(name: "no microphone is said", after: { $0 == .lacks(.microphone) }, by: .passenger, words: [passenger(.voiceNoMicrophone)]),
            Duty(name: "no sound is said", after: { $0 == .lacks(.audio) }, by: .passenger,
                 words: [passenger(.followNoSound), passenger(.followPrintedOnly)]),
        ]
        for party in Party.allCases {
            duties.append(Duty(name: "she hears who cancelled (\(party.rawValue))", after: { $0 == .cancelled(by: party) }, by: .passenger,
                               words: [cancelledBy(party)]))
        }
        return duties
    }

    /// "Cancelled by a dispatcher" (with or without the reason that follows).
    func cancelledBy(_ party: Party) -> String {
        let by: RideCancellation.By = switch party {
        case .passenger: .passenger
        case .driver: .driver
        case .dispatcher: .dispatcher
        }
        var sentence = CancellationWords.sentence(RideCancellation(by: by, reason: nil, at: Script.start), in: passenger)
        if sentence.hasSuffix(".") { sentence.removeLast() }
        return sentence
    }

    /// How the driver's device says his ride was cancelled (any of the phrasebook's sentences
    /// for it, in his language).
    var driverCancelled: [String] {
        [driver(.driverRideCancelled, ["code": .text(code)]), driver(.driverRideCancelled, ["code": .code(code)]), driver(.cliRideCancelled, ["code": .code(code)]), driver(.rideStateCancelled)]
            .map { $0.hasSuffix(".") ? String($0.dropLast()) : $0 }
    }

    /// Every line against the table: a claim made before what it claims happened, or after
    /// what makes it false; a duty left unsaid.
    func check(_ moments: [Moment]) -> [Violation] {
        var violations: [Violation] = []
        var happened: [Fact] = []
        let claims = claims
        for (index, moment) in moments.enumerated() {
            switch moment {
            case .fact(let fact): happened.append(fact)
            case .said(let said):
                for claim in claims where claim.by == said.by && claim.isMade(in: said.text) {
                    if !happened.contains(where: claim.needs) {
                        violations.append(Violation(rule: claim.name,
                                                    why: "said before it happened: \"\(said.text)\" (moment \(index))"))
                    } else if let false_ = happened.first(where: claim.falseAfter) {
                        violations.append(Violation(rule: claim.name,
                                                    why: "said after \(false_) made it false: \"\(said.text)\" (moment \(index))"))
                    }
                }
            }
        }
        for duty in duties {
            for (index, moment) in moments.enumerated() {
                guard case .fact(let fact) = moment, duty.after(fact) else { continue }
                let answered = moments[(index + 1)...].contains { later in
                    guard case .said(let said) = later, said.by == duty.by else { return false }
                    return duty.words.contains { said.text.contains($0) }
                }
                if !answered { violations.append(Violation(rule: duty.name, why: "nothing said after \(fact) (moment \(index))")) }
            }
        }
        return violations
    }
}
