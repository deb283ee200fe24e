import Foundation
import Phrasebook
import RideStore

// Issue 25: a request or ride someone else cancelled (a dispatcher, the driver) is told on the
// passenger page with who and why, and the request form comes back filled with the same ride:
// one button asks again.

extension PassengerPageRoutes {
    /// How long after someone else cancelled the page still offers the same ride again.
    static var askAgainWindow: TimeInterval { 2 * 3600 }

    /// The sentence and the filled form, when the passenger's newest request (or its ride) was
    /// cancelled by someone else within `askAgainWindow`; nil otherwise.
    /// `cancelled` is who cancelled and why alone (the live status says it where no form is below).
    func askAgainOffer(of passenger: Account, book: Phrasebook) async throws -> (notice: String, cancelled: String, form: PassengerPage.RequestForm)? {
        guard let request = try await newestRequest(of: passenger), !request.pickup.isEmpty, !request.dropoff.isEmpty else { return nil }
        var driverID: String?
        switch request.status {
        case .open: return nil
        case .cancelled: break
        case .accepted:
            guard let rideID = request.rideID, let ride = try await store.ride(id: rideID), ride.state == .cancelled else { return nil }
            driverID = ride.driverID
        }
        guard let event = try await store.cancellation(requestID: request.id), now().timeIntervalSince(event.at) < Self.askAgainWindow else {
            return nil
        }
        let cancellation = RideCancellation(event: event, passengerID: request.passengerID, driverID: driverID)
        guard cancellation.by != .passenger else { return nil }
        let who: PhraseValue = .text(Self.by(cancellation.by, book))
        // Once a driver had accepted, it was her ride that was cancelled, not a request.
        let (plain, withReason): (PhraseID, PhraseID) = driverID == nil
            ? (.historyRequestCancelled, .historyRequestCancelledReason) : (.historyRideCancelled, .historyRideCancelledReason)
        let said = cancellation.personReason.map { book(withReason, ["who": who, "reason": .text($0)]) } ?? book(plain, ["who": who])
        let form = PassengerPage.RequestForm(pickup: request.pickup, dropoff: request.dropoff, notes: request.accessibilityNotes ?? "")
        return (said + " " + book(.pageAskAgainHint), said, form)
    }

    /// Issue 37: after the driver completed her ride the page showed the request form and
    /// nothing else. "Your ride with Ben is complete." while it ended within `askAgainWindow`.
    func completedRideNotice(of passenger: Account, book: Phrasebook) async throws -> String? {
        guard let request = try await newestRequest(of: passenger), request.status == .accepted, let rideID = request.rideID,
              let detail = try await store.rideDetail(id: rideID), detail.ride.state == .completed,
              now().timeIntervalSince(detail.ride.stateChangedAt) < Self.askAgainWindow else { return nil }
        return book(.historyRideCompleted, ["name": .text(detail.driver.name)])
    }

    static func by(_ who: RideCancellation.By, _ book: Phrasebook) -> String {
        switch who {
        case .passenger: book(.historyByPassenger)
        case .driver: book(.historyByDriver)
        case .dispatcher: book(.historyByDispatcher)
        case .operator: book(.historyByOperator)
        }
    }
}
