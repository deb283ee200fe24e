import Foundation
import Phrasebook
import RideSession

/// The driver's keys from standard input (`driver arrive`): single keystrokes in a terminal
/// (RawTerminal), a line at a time otherwise (a pipe, a test): Enter (or an empty line)
/// confirms a touch, y / n answer a sound request, c "I'm coming", x the car is across the
/// street, w the ride word. Yes and no are the driver's language's letters (`DriverKey`).
struct DriverKeys {
    let enter: AsyncStream<Void>
    let others: AsyncStream<DriverKey>

    static func open(in book: Phrasebook) -> DriverKeys {
        let (enter, enterFeed) = AsyncStream<Void>.makeStream()
        let (others, othersFeed) = AsyncStream<DriverKey>.makeStream()
        @Sendable func route(_ key: DriverKey) {
            if key == .confirm { enterFeed.yield() } else { othersFeed.yield(key) }
        }
        let reader = Thread {
            if RawTerminal.enterIfTerminal() {
                while let character = RawTerminal.readCharacter() {
                    if let key = DriverKey(character: character, in: book) { route(key) }
                }
            } else {
                while let line = readLine(strippingNewline: true) {
                    let trimmed = line.trimmingCharacters(in: .whitespaces)
                    if let key = trimmed.isEmpty ? DriverKey.confirm : trimmed.first.flatMap { DriverKey(character: $0, in: book) } { route(key) }
                }
            }
            enterFeed.finish()
            othersFeed.finish()
        }
        reader.start()
        return DriverKeys(enter: enter, others: others)
    }

    /// Enter presses, or none with --auto-confirm (the proof is sent at once).
    func confirmations(autoConfirm: Bool) -> AsyncStream<Void> {
        autoConfirm ? AsyncStream { $0.finish() } : enter
    }
}
