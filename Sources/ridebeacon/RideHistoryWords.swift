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
    /// (a line of `passenger rides`).
    static func cancelled(_ cancellation: RideCancellation?, in book: Phrasebook = .english) -> String {
        guard let cancellation else { return "cancelled" }
        return "cancelled \(by(cancellation.by, in: book))" + (cancellation.personReason.map { " (\($0))" } ?? "")
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

/// The follow's one-key offer to ask again: the ride loop waits on it, the keys answer it.
final class AskAgainOffer: Sendable {
    /// The ride loop's wait, while it waits.
    private let waiter = Mutex<CheckedContinuation<Bool, Never>?>(nil)

    /// True when the passenger pressed Enter; false when the follow is being stopped.
    func wait() async -> Bool {
        await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                let cancelled = waiter.withLock { waiter -> Bool in
                    if Task.isCancelled { return true }
                    waiter = continuation
                    return false
                }
                if cancelled { continuation.resume(returning: false) }
            }
        } onCancel: {
            waiter.withLock { waiter in defer { waiter = nil }; return waiter }?.resume(returning: false)
        }
    }

    /// Answers a waiting offer; false when none was waiting (the key is someone else's).
    func accept() -> Bool {
        guard let waiting = waiter.withLock({ waiter in defer { waiter = nil }; return waiter }) else {
            return false
        }
        waiting.resume(returning: true)
        return true
    }
}
