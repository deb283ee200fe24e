import Foundation
@testable import RideBeaconCLI
import RideSession
import Synchronization

/// Who says or does something at the kerb.
enum Party: String, Sendable, CaseIterable {
    case passenger, driver, dispatcher
}

/// A device part a flow may find missing.
enum Hardware: String, Sendable {
    case radio, audio, notifications, microphone
}

/// Something that actually happened, recorded where it happened (the ride service took it, a
/// party did it, a device lacks it), before any flow can have heard of it.
enum Fact: Equatable, Sendable {
    case lacks(Hardware)
    case accepted
    case arrived
    case locatorRequested
    case locatorAnswered(LocatorSoundName)
    case driverComing
    case carAcross
    /// The passenger asked the driver to come to her (issue 37, point 2: `come_requested`).
    case comeRequested
    /// His device answered her come request: it has it (`received`), or his answer.
    case comeAnswered(ComeAnswer)
    case confirmed
    case completed
    case cancelled(by: Party)
    case serviceLost
    case serviceBack
}

/// A line a party's device printed (standard output or error).
struct Said: Equatable, Sendable, CustomStringConvertible {
    var by: Party
    var text: String
    var description: String { "\(by.rawValue): \(text)" }
}

/// One moment of a ride, in the order it happened.
enum Moment: Equatable, Sendable, CustomStringConvertible {
    case fact(Fact)
    case said(Said)

    var description: String {
        switch self {
        case .fact(let fact): "  [\(fact)]"
        case .said(let said): "  \(said)"
        }
    }
}

/// The ride's timeline: the facts as they happen and every line each device prints, in one
/// order. Lines come through `ConsoleOutput` (each flow's task-local), so a party's lines are
/// its own however the flows interleave.
final class Timeline: Sendable {
    private let moments = Mutex<[Moment]>([])
    /// Bytes of a line not yet ended, per party and stream.
    private let partial = Mutex<[String: [UInt8]]>([:])

    var all: [Moment] { moments.withLock { $0 } }
    var facts: [Fact] { all.compactMap { if case .fact(let fact) = $0 { fact } else { nil } } }
    func lines(by party: Party) -> [String] {
        all.compactMap { if case .said(let said) = $0, said.by == party { said.text } else { nil } }
    }

    func happened(_ fact: Fact) { moments.withLock { $0.append(.fact(fact)) } }

    func said(_ text: String, by party: Party) { moments.withLock { $0.append(.said(Said(by: party, text: text))) } }

    /// Runs `body` with its lines (and its child tasks') recorded as `party`'s.
    func record<T: Sendable>(_ party: Party, _ body: @Sendable () async throws -> T) async rethrows -> T {
        let output = ConsoleOutput(standardOutput: { [self] in write($0, party: party, stream: "out") },
                                   standardError: { [self] in write($0, party: party, stream: "err") })
        return try await ConsoleOutput.$current.withValue(output) { try await body() }
    }

    private func write(_ bytes: [UInt8], party: Party, stream: String) {
        let key = party.rawValue + stream
        let ended = partial.withLock { partial -> [String] in
            var pending = partial[key, default: []] + bytes
            var lines: [String] = []
            while let end = pending.firstIndex(of: UInt8(ascii: "\n")) {
                lines.append(String(decoding: pending[..<end], as: UTF8.self))
                pending.removeSubrange(...end)
            }
            partial[key] = pending
            return lines
        }
        for line in ended { said(line, by: party) }
    }

    /// Waits until `party` printed a line containing `text` (a bound against a hang, not a timing claim).
    func printed(_ text: String, by party: Party, within seconds: Double = 60) async -> Bool {
        await printed(anyOf: [text], by: party, within: seconds)
    }

    func printed(anyOf texts: [String], by party: Party, within seconds: Double = 60) async -> Bool {
        await eventually(within: seconds) { lines(by: party).contains { line in texts.contains { line.contains($0) } } }
    }

    /// Waits until `fact` happened.
    func happened(_ fact: Fact, within seconds: Double = 60) async -> Bool {
        await eventually(within: seconds) { facts.contains(fact) }
    }

    private func eventually(within seconds: Double, _ condition: () -> Bool) async -> Bool {
        let deadline = ContinuousClock.now + .seconds(seconds)
        while ContinuousClock.now < deadline {
            if condition() { return true }
            try? await Task.sleep(for: .milliseconds(10))
        }
        return false
    }

    /// The whole timeline, one moment a line: what a failing check prints.
    var transcript: String { all.map(\.description).joined(separator: "\n") }
}
