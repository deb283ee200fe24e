import Foundation
import RideRules
import RideStore

/// How much a ride's own passenger and driver may add to its history (issue 36, finding 4).
/// The review posted `guide`, `meeting` and locator answers without limit (595 events a second
/// on SQLite, 166 on PostgreSQL) and every reader paid: the dispatcher board and the passenger
/// page read whole histories, the driver's stream replays one on every fresh start. Now each
/// kind has a cap per ride, a repeat that changes nothing is refused, a locator answer needs an
/// unanswered request, all checked in the store's write transaction (so on every server); and
/// an account posts at most `perAccount` of them a minute (in this process's memory, like every
/// rate limit). Real use stays far below: one guide start and stop per walk to the car, a
/// `coming` and an `across`, one answer per locator request (which comes at most every 15 s).
public enum RideEventLimits {
    /// `guide_started` and `guide_stopped` each, per ride: a guide restarted many times.
    public static let guideReportsPerRide = RideLimits.guideReportsPerRide
    /// `driver_coming` and `car_across` each, per ride.
    public static let meetingMovesPerRide = RideLimits.meetingMovesPerRide
    /// Messages to the driver per ride (besides `messagesPerAccount` a minute).
    public static let messagesPerRide = RideLimits.messagesPerRide
    /// Guide reports, meeting moves and locator answers per account, across its rides.
    public static let perAccount = RateLimit.perMinute(20)

    /// The limits of one kind of note.
    static func bound(_ note: RideNote) -> RideNote {
        var note = note
        switch note.kind {
        case .guideStarted, .guideStopped:
            note.perRideLimit = guideReportsPerRide
            note.unchangedAmong = [.guideStarted, .guideStopped]
        case .driverComing, .carAcross:
            note.perRideLimit = meetingMovesPerRide
            note.unchangedAmong = [note.kind]
        case .locatorAnswered:
            note.answersOnePerRequest = true
        case .passengerMessage:
            note.perRideLimit = messagesPerRide
        default:
            break
        }
        return note
    }

    /// The answer to a note the store refused for a limit (nil for other outcomes).
    static func refusal(_ recording: RideNoteRecording, kind: RideEventKind) -> APIError? {
        switch recording {
        case .limitReached(let limit):
            APIError(.conflict, code: .rideEventLimit, "this ride already has \(limit) \(kind.rawValue) events; it takes no more")
        case .unchanged:
            APIError(.conflict, code: .noChange, "the ride's last such event is already \(kind.rawValue); sending it again changes nothing")
        default:
            nil
        }
    }
}
