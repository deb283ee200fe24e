import BeaconCore
import Foundation
import Guide
import Phrasebook
import RideClient
import RideSession
import Synchronization

/// `passenger follow` at the kerb without a guide (no radio): she asks the driver to come to
/// her (issue 37, point 2), and every sentence about him stands on what his device sent.
/// "Asking Ben to come to you" once the request is recorded; "Ben's phone has your request"
/// and "Ben is coming to you" come from the ride's stream (`RideAnnouncement.meeting`), and
/// only from his device's events; with no answer within `answerWait` she is told so, and
/// offered the next step (a sound, the ride word, a call).
///
/// Sendable: its state is in a `Mutex`.
final class FollowKerb: Sendable {
    private struct State {
        /// The ride waiting at the kerb, and where to say things.
        var ride: Ride?
        var client: (any RideCommandService)?
        var announcer: RideAnnouncer?
        /// His device's answers to the request being waited on.
        var received = false
        var answered = false
        /// The wait for his answer, cancelled by the answer or the end of the follow.
        var waiting: Task<Void, Never>?
        /// The ride word was said to her: the next `w` confirms with it.
        var wordSaid = false
    }

    /// How long she waits for his answer before she is told there is none.
    let answerWait: Duration
    private let state = Mutex(State())

    init(answerWait: Duration = .seconds(ComeRequestAnswer.answerWait)) {
        self.answerWait = answerWait
    }

    /// Asks the driver to come to her, and says so only once the service recorded it.
    func askDriverToCome(ride: Ride, client: any RideCommandService, announcer: RideAnnouncer) async {
        state.withLock { state in
            state.ride = ride
            state.client = client
            state.announcer = announcer
        }
        let book = announcer.book
        let name: [String: PhraseValue] = ["name": .text(ride.driver.name)]
        switch await client.askToCome(rideID: ride.id) {
        case .asked:
            await announcer.announce(RideAnnouncement.Words(summary: book(.comeAskingSummary, name), body: book(.comeAnswerHere)))
            waitForAnswer(ride: ride, announcer: announcer)
        case .tooSoon:
            // Asked a moment ago (from the page): the answer to that one is awaited.
            await announcer.announce(RideAnnouncement.Words(summary: book(.comeAskedAlreadySummary, name), body: book(.comeAnswerHere)))
            waitForAnswer(ride: ride, announcer: announcer)
        case .refused:
            // The announcement is the one sentence; the service's reason is for the logs.
            await announcer.announce(RideAnnouncement.Words(summary: book(.comeNotSentSummary, name), body: book(.comeNextStep)))
        }
    }

    private func waitForAnswer(ride: Ride, announcer: RideAnnouncer) {
        let wait = answerWait
        let task = Task { [weak self] in
            do { try await Task.sleep(for: wait) } catch { return }
            guard let self else { return }
            let (received, answered) = state.withLock { ($0.received, $0.answered) }
            guard !answered else { return }
            let book = announcer.book
            let name: [String: PhraseValue] = ["name": .text(ride.driver.name)]
            let summary = received ? book(.comeReceivedNoAnswerSummary, name) : book(.comeNoAnswerSummary, name)
            await announcer.announce(RideAnnouncement.Words(summary: summary, body: book(.comeNextStep)))
        }
        // The answers are not reset here: his device's `come_received` may have come on the
        // stream before the service's answer reached this task. The request's own event resets them.
        state.withLock { state in
            state.waiting?.cancel()
            state.waiting = task
        }
    }

    /// His device's news of the request, from the ride's stream.
    func heard(_ event: RideEvent) {
        state.withLock { state in
            // A request (hers now, or one replayed from before a restart) is answered only by
            // what comes after it on the stream, so an old answer never counts for a new request.
            if event.kind == .comeRequested {
                state.received = false
                state.answered = false
                return
            }
            switch event.comeAnswer {
            case .received?: state.received = true
            case .coming?, .staying?:
                state.answered = true
                state.waiting?.cancel()
            case nil:
                // He said he is coming without the request's answer: that answers it too.
                if event.kind == .driverComing {
                    state.answered = true
                    state.waiting?.cancel()
                }
            }
        }
    }

    /// The follow ends (or the ride moved on): no sentence about the request after it.
    func stop() {
        state.withLock { state in
            state.waiting?.cancel()
            state.waiting = nil
            state.ride = nil
        }
    }

    /// The keys without a guide, while the ride waits at the kerb: `s` asks for a sound, `w`
    /// says the ride word (and, once said, confirms with it). False when no ride waits here.
    func key(_ key: GuideKey) async -> Bool {
        let (ride, client, announcer, wordSaid) = state.withLock { ($0.ride, $0.client, $0.announcer, $0.wordSaid) }
        guard let ride, let client, let announcer else { return false }
        let book = announcer.book
        let name: [String: PhraseValue] = ["name": .text(ride.driver.name)]
        switch key {
        case .soundLocator:
            switch await client.requestLocator(rideID: ride.id) {
            case .ticking: await announcer.sayAside(book(.guideSoundAsked, name))
            case .tooSoon: await announcer.sayAside(book(.kerbSoundAskedAlready, name))
            case .refused(let reason): await announcer.sayAside(book(.guideLocatorUnavailable, ["reason": .text(reason)]))
            }
            return true
        case .rideWord:
            guard let word = ride.rideKey.map({ SharedRideWord.phrase(ride, key: $0.bytes) }) else { return false }
            guard wordSaid else {
                state.withLock { $0.wordSaid = true }
                await announcer.sayAside(book(.guideRideWordIs, ["word": .text(word)]))
                return true
            }
            if case .rejected(let reason) = await client.confirmByRideWord(rideID: ride.id, word: word) {
                await announcer.sayAside(book(.guideRideWordRefused, ["reason": .text(reason)]))
            }
            // Confirmed: the ride's stream says so, and how (`RideAnnouncement.change`).
            return true
        default:
            return false
        }
    }
}
