import BlueZ
import Foundation
import Guide
import Synchronization

/// The guide's vibrations through feedbackd (`FeedbackClient`): `trigger` never blocks the
/// guide; one task sends the events in order. Each event is feedbackd's `ridebeacon-…` event
/// (`HapticEvent.feedbackEvent`) with the hint `profile: quiet`, so only the theme's haptic
/// feedbacks run, never a sound of the theme's own beside the guide's.
public final class FeedbackdHaptics: HapticOutput, Sendable {
    /// One event sent: when the guide decided it and when its call went out, on `ContinuousClock`,
    /// and feedbackd's answer (its id), or the error.
    public struct Sent: Sendable {
        public var event: HapticEvent
        public var decided: ContinuousClock.Instant
        public var called: ContinuousClock.Instant
        public var answered: ContinuousClock.Instant
        public var id: UInt32?
    }

    public let client: FeedbackClient
    private let queue: AsyncStream<(HapticEvent, ContinuousClock.Instant)>.Continuation
    private let sender: Task<Void, Never>
    /// Every event sent, shared with the sending task.
    private let record = SentLog()

    /// `say` hears, once, that feedbackd stopped answering (`stopped`; guidance goes on without
    /// vibrations).
    public init(client: FeedbackClient, stopped: String = stoppedSentence, say: @escaping @Sendable (String) -> Void) {
        self.client = client
        let (events, queue) = AsyncStream<(HapticEvent, ContinuousClock.Instant)>.makeStream()
        self.queue = queue
        let record = record
        sender = Task {
            var failed = false
            for await (event, decided) in events {
                guard !failed else { continue }
                let called = ContinuousClock.now
                var id: UInt32?
                do {
                    id = try await client.trigger(event.feedbackEvent, hints: ["profile": .string("quiet")])
                } catch {
                    failed = true
                    say(stopped)
                }
                let sent = Sent(event: event, decided: decided, called: called, answered: .now, id: id)
                record.entries.withLock { $0.append(sent) }
            }
        }
    }

    /// Connects to feedbackd; nil, with `say` told once and plainly why, when it is not there.
    /// `missing` and `stopped`: the sentences, in the passenger's language (the phrasebook's
    /// `haptics.` keys); English by default.
    public static func open(address: String? = DesktopNotifications.sessionBusAddress,
                            missing: String = missingSentence, stopped: String = stoppedSentence,
                            say: @escaping @Sendable (String) -> Void) async -> FeedbackdHaptics? {
        do {
            return FeedbackdHaptics(client: try await FeedbackClient.open(address: address), stopped: stopped, say: say)
        } catch {
            say(missing)
            return nil
        }
    }

    public static let missingSentence = "Vibration is off: feedbackd is not running on this device. Guiding goes on with sound."
    public static let stoppedSentence = "Vibration stopped: feedbackd no longer answers. Guiding goes on with sound."

    public func trigger(_ event: HapticEvent) {
        queue.yield((event, .now))
    }

    /// Every event sent so far, in order.
    public var sent: [Sent] { record.entries.withLock { $0 } }

    /// Sends what is queued; nothing is sent after.
    public func flush() async {
        queue.finish()
        await sender.value
    }

    /// Sends what is queued, then closes the connection.
    public func close() async {
        await flush()
        await client.close()
    }
}

/// The events a `FeedbackdHaptics` sent: one object the sending task and the reader share
/// (a `Mutex` itself cannot be shared by copy).
private final class SentLog: Sendable {
    let entries = Mutex<[FeedbackdHaptics.Sent]>([])
}
