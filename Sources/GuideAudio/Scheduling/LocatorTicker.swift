import Foundation

/// The car's locator sound in real time: `LocatorTick` once a second through a
/// `LiveCuePlayer` (the driver's device's sink), for a given time or until stopped. A new
/// `start` while ticking restarts the count (the passenger asked again).
public final class LocatorTicker: @unchecked Sendable {
    private let player: LiveCuePlayer
    private let lock = NSLock()
    // Guarded by `lock`.
    private var task: Task<Void, Never>?

    public init(player: LiveCuePlayer) {
        self.player = player
        player.start()
    }

    /// Says `announcement` (if any), then ticks once a second for `seconds`.
    public func start(seconds: Double, announcement: String?) {
        let player = player
        if let announcement { player.say(announcement, urgent: true) }
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
        lock.withLock {
            task?.cancel()
            task = next
        }
    }

    /// Says `text` now (the driver's instructions), ticking or not.
    public func say(_ text: String) {
        player.say(text, urgent: true)
    }

    public func stop() {
        lock.withLock {
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
