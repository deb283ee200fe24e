import BlueZ
import Foundation
import GuideAudio
import Phrasebook
import RideClient

/// What is said and shown for a ride, in plain sentences with the driver's name first, in the
/// phrasebook's language (`book`; the passenger's setting).
enum RideAnnouncement {
    struct Words: Equatable {
        var summary: String
        var body: String
        var spoken: String { summary + ". " + body }
    }

    static func waiting(_ request: RideRequest, in book: Phrasebook = .english) -> Words {
        Words(summary: book(.followWaitingSummary),
              body: book(.followWaitingBody, ["code": .code(request.handle), "pickup": .text(request.pickup), "dropoff": .text(request.dropoff)]))
    }

    /// The driver's answer to a sound request, or move, for a passenger without a guide.
    static func meeting(_ event: RideEvent, ride: Ride, in book: Phrasebook = .english) -> Words? {
        let name: [String: PhraseValue] = ["name": .text(ride.driver.name)]
        switch event.kind {
        case .locatorAnswered:
            switch event.locatorAnswer {
            case .horn?: return Words(summary: book(.followHornSummary, name), body: book(.followWalkToSound))
            case .voice?: return Words(summary: book(.followVoiceSummary, name), body: book(.followWalkToVoice))
            case .device?: return Words(summary: book(.followDeviceSummary, name), body: book(.followWalkToSound))
            case LocatorSoundName.none?: return Words(summary: book(.followNoSoundSummary, name), body: book(.followStayAtPickup))
            case nil: return nil
            }
        case .driverComing: return Words(summary: book(.followComingSummary, name), body: book(.followStayWhereYouAre))
        // His device's answers to her come request, each said only once it came (issue 37, point 2).
        case .comeReceived: return Words(summary: book(.comeReceivedSummary, name), body: book(.comeAnswerHere))
        case .comeAnswered:
            switch event.comeAnswer {
            case .coming?: return Words(summary: book(.comeComingSummary, name), body: book(.followStayWhereYouAre))
            case .staying?: return Words(summary: book(.comeStayingSummary, name), body: book(.comeNextStep))
            default: return nil
            }
        case .carAcross: return Words(summary: book(.followAcrossSummary), body: book(.followAcrossBody, name))
        default: return nil
        }
    }

    static func current(_ ride: Ride, guiding: Bool = false, in book: Phrasebook = .english) -> Words {
        change(state: ride.state, detail: ride.state == .accepted ? ride.etaMinutes.map { ETAText.detail(minutes: $0) } : nil, ride: ride,
               guiding: guiding, book: book)
    }

    static func change(_ event: RideEvent, ride: Ride, guiding: Bool = false, in book: Phrasebook = .english) -> Words {
        if event.state == .cancelled && event.kind.isStateChange {
            // Who cancelled, and why (issue 25).
            let cancellation = RideCancellation(event: event, passengerID: ride.passengerID, driverID: ride.driverID)
            return Words(summary: book(.followCancelledSummary),
                         body: CancellationWords.sentence(cancellation, in: book) + " " + book(.followRideCode, ["code": .code(ride.handle)]))
        }
        if event.state == .confirmed && event.kind.isStateChange {
            // Said by how it happened: touch, ride word or operator (issue 37, point 8).
            return confirmed(RideConfirmationWay(event: event), ride: ride, in: book)
        }
        return change(state: event.state, detail: event.detail, ride: ride, guiding: guiding, book: book)
    }

    /// The confirmation as it happened; nil: not known (a follow started after it).
    static func confirmed(_ way: RideConfirmationWay?, ride: Ride, in book: Phrasebook) -> Words {
        let name: [String: PhraseValue] = ["name": .text(ride.driver.name)]
        let code = book(.followRideCode, ["code": .code(ride.handle)])
        let how: String? = switch way {
        case .touch?: book(.followConfirmedBody, name)
        case .rideWord?: book(.followConfirmedByWord, name)
        case .operator?: book(.followConfirmedByOperator, name)
        case nil: nil
        }
        return Words(summary: book(.followConfirmedSummary), body: how.map { $0 + " " + code } ?? code)
    }

    /// `guiding`: the phone's guide starts on arrival (a radio is there).
    private static func change(state: RideState, detail: String?, ride: Ride, guiding: Bool, book: Phrasebook) -> Words {
        let driver = RideWords.driver(ride.driver, in: book)
        let name: [String: PhraseValue] = ["name": .text(ride.driver.name)]
        let code = book(.followRideCode, ["code": .code(ride.handle)])
        switch state {
        case .requested:
            return Words(summary: book(.followWaitingSummary), body: code)
        case .accepted:
            if let minutes = detail.flatMap(ETAText.minutes(fromDetail:)) {
                let when = minutes == 0 ? book(.followAtPickupNow, name)
                    : book(.followThereInMinutes, ["name": .text(ride.driver.name), "minutes": .count(minutes)])
                return Words(summary: when, body: "\(driver). \(code)")
            }
            return Words(summary: book(.followOnTheWay, name), body: "\(driver). \(code)")
        case .arrived:
            // One sentence of what to do, never a command (issue 22).
            return Words(summary: book(.followArrivedSummary, name),
                         body: "\(driver). " + (guiding ? book(.ridePhoneGuiding) : book(.rideNoGuide, name)))
        case .confirmed:
            return confirmed(nil, ride: ride, in: book)
        case .completed:
            return Words(summary: book(.followCompletedSummary), body: code)
        case .cancelled:
            return Words(summary: book(.followCancelledSummary),
                         body: (detail.map { book(.followCancelReason, ["reason": .text($0)]) + " " } ?? "") + code)
        }
    }
}

/// Says, prints and notifies; one notification per ride, replaced as the ride changes.
actor RideAnnouncer {
    private let player: LiveCuePlayer
    private let notifications: DesktopNotifications?
    private var notificationID: UInt32 = 0
    private var last: RideAnnouncement.Words?
    private var notificationFailureReported = false
    /// The passenger's language: what is said, printed and notified.
    nonisolated let book: Phrasebook

    init(player: LiveCuePlayer, notifications: DesktopNotifications?, book: Phrasebook = .english) {
        self.player = player
        self.notifications = notifications
        self.book = book
    }

    func announce(_ words: RideAnnouncement.Words) async {
        guard words != last else { return }
        last = words
        Say.line(words.spoken)
        player.say(SinkText.speech(words.spoken), urgent: true)
        guard let notifications else { return }
        do {
            notificationID = try await notifications.notify(summary: SinkText.notificationSummary(words.summary),
                                                            body: SinkText.notificationBody(words.body), replacing: notificationID)
        } catch {
            if !notificationFailureReported { StandardError.writeLine("ridebeacon: desktop notification failed: \(error)") }
            notificationFailureReported = true
        }
    }

    /// A sentence about the connection, not the ride: said and printed, but not a notification,
    /// which keeps the ride's news, and not what `repeatLast` repeats.
    func sayAside(_ sentence: String) {
        Say.line(sentence)
        player.say(SinkText.speech(sentence), urgent: true)
    }

    func repeatLast() {
        guard let last else { return }
        Say.line(last.spoken)
        player.say(SinkText.speech(last.spoken), urgent: true)
    }
}
