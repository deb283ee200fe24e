import Foundation
import Phrasebook
import RideClient
import Synchronization

/// Who cancelled and why, in plain words (issue 25): `follow`, `passenger rides`; in the
/// phrasebook's language.
enum CancellationWords {
    /// "by a dispatcher"
    static func by(_ who: RideCancellation.By, in book: Phrasebook = .english) -> String {
        switch who {
        case .passenger: book(.historyByPassenger)
        case .driver: book(.historyByDriver)
        case .dispatcher: book(.historyByDispatcher)
        case .operator: book(.historyByOperator)
        }
    }

    /// "cancelled by a dispatcher (driver unwell)", or plain "cancelled" when nobody is known
    /// (a line of `passenger rides`), all in `book`'s language.
    static func cancelled(_ cancellation: RideCancellation?, in book: Phrasebook = .english) -> String {
        guard let cancellation else { return book(.historyOutcomeCancelled) }
        let who: PhraseValue = .text(by(cancellation.by, in: book))
        if let reason = cancellation.personReason { return book(.historyOutcomeCancelledByReason, ["who": who, "reason": .text(reason)]) }
        return book(.historyOutcomeCancelledBy, ["who": who])
    }

    /// A request cancelled before a driver took it, or withdrawn (a line of `passenger rides`).
    static func requestGone(_ cancellation: RideCancellation?, in book: Phrasebook = .english) -> String {
        guard let cancellation else { return book(.historyRequestWithdrawn) }
        let who: PhraseValue = .text(by(cancellation.by, in: book))
        if let reason = cancellation.personReason { return book(.historyRequestCancelledByReason, ["who": who, "reason": .text(reason)]) }
        return book(.historyRequestCancelledBy, ["who": who])
    }

    /// "Cancelled by a dispatcher: driver unwell."
    static func sentence(_ cancellation: RideCancellation, in book: Phrasebook = .english) -> String {
        let who: PhraseValue = .text(by(cancellation.by, in: book))
        if let reason = cancellation.personReason { return book(.historyCancelledReason, ["who": who, "reason": .text(reason)]) }
        return book(.historyCancelled, ["who": who])
    }

    /// The offer after someone else cancelled: one key asks again.
    static func offer(in book: Phrasebook = .english) -> String { book(.historyAskAgainOffer) }

    /// "Your request was cancelled by a dispatcher: no drivers tonight."
    static func requestCancelled(_ cancellation: RideCancellation?, in book: Phrasebook = .english) -> String {
        guard let cancellation else { return book(.historyRequestCancelled, ["who": ""]).replacingOccurrences(of: " .", with: ".") }
        let who: PhraseValue = .text(by(cancellation.by, in: book))
        if let reason = cancellation.personReason { return book(.historyRequestCancelledReason, ["who": who, "reason": .text(reason)]) }
        return book(.historyRequestCancelled, ["who": who])
    }

    /// "Asked again: request K7RX from Main St 1 to Station."
    static func askedAgain(_ request: RideRequest, in book: Phrasebook = .english) -> String {
        book(.historyAskedAgain, ["code": .code(request.handle), "pickup": .text(request.pickup), "dropoff": .text(request.dropoff)])
    }
}

/// The follow's one-key offer to ask again: the ride loop opens it before it says the offer and
/// then waits on it; the keys answer it. Enter pressed once the offer is open counts even if the
/// loop is not waiting yet; Enter at any other time is not an answer.
final class AskAgainOffer: Sendable {
    private enum State {
        case closed, open, accepted
        case waiting(CheckedContinuation<Bool, Never>)
    }

    private let state = Mutex(State.closed)

    /// From now on Enter answers the offer.
    func open() {
        state.withLock { state in if case .closed = state { state = .open } }
    }

    /// True when the passenger pressed Enter; false when the follow is being stopped. Closes the offer.
    func wait() async -> Bool {
        await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                let answer = state.withLock { state -> Bool? in
                    if Task.isCancelled { state = .closed; return false }
                    if case .accepted = state { state = .closed; return true }
                    state = .waiting(continuation)
                    return nil
                }
                if let answer { continuation.resume(returning: answer) }
            }
        } onCancel: {
            let waiter = self.state.withLock { state -> CheckedContinuation<Bool, Never>? in
                defer { state = .closed }
                if case .waiting(let continuation) = state { return continuation }
                return nil
            }
            waiter?.resume(returning: false)
        }
    }

    /// Answers an open offer; false when none is open (the key is someone else's).
    func accept() -> Bool {
        let (taken, waiter) = state.withLock { state -> (Bool, CheckedContinuation<Bool, Never>?) in
            switch state {
            case .closed, .accepted: return (false, nil)
            case .open: state = .accepted; return (true, nil)
            case .waiting(let continuation): state = .closed; return (true, continuation)
            }
        }
        waiter?.resume(returning: true)
        return taken
    }
}
