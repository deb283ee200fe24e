import Foundation
import Synchronization

/// The car's locator sound in real time: `LocatorTick` once a second through a
/// `LiveCuePlayer` (the driver's device's sink), for a given time or until stopped. A new
/// `start` while ticking restarts the count (the passenger asked again).
public final class LocatorTicker: Sendable {
    private let player: LiveCuePlayer
    /// The ticking task, replaced by each `start`.
    private let task = Mutex<Task<Void, Never>?>(nil)

    public init(player: LiveCuePlayer) {
        self.player = player
        player.start()
    }

    /// Says `announcement` (if any), then ticks once a second for `seconds`.
    public func start(seconds: Double, announcement: String?) {
        let player = player
        if let announcement { say(announcement) }
        let next = Task {
            let origin = player.now
            for time in LocatorTick.times(from: origin, seconds: seconds) {
                let wait = time - player.now
                if wait > 0 {
                    do { try await Task.sleep(for: .milliseconds(Int64((wait * 1000).rounded(.up)))) } catch { return }
                }
                guard !Task.isCancelled else { return }
                player.playLocatorTick()
            }
        }
        task.withLock { task in
            task?.cancel()
            task = next
        }
    }

    /// Says `text` now (the driver's instructions, a passenger's message), ticking or not,
    /// always through the speech cleanup (`SpokenText`): much of it is text someone else wrote.
    public func say(_ text: String) {
        let spoken = SpokenText.cleaned(text)
        guard !spoken.isEmpty else { return }
        player.say(spoken, urgent: true)
    }

    public func stop() {
        task.withLock { task in
            task?.cancel()
            task = nil
        }
    }

    /// Stops ticking and closes the player's sink (finishing a WAV file).
    public func close() throws {
        stop()
        try player.stop(drain: 1)
    }
}
