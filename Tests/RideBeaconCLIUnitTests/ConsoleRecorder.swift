import Foundation
@testable import RideBeaconCLI
import Synchronization

/// Records what a flow prints (`Say` and `StandardError`) while it runs in this test's task
/// tree (ConsoleOutput's task-local): tests running side by side keep their own lines.
final class ConsoleRecorder: Sendable {
    private let bytes = Mutex<(out: [UInt8], err: [UInt8])>(([], []))

    /// Standard output so far, as lines.
    var out: [String] { lines(bytes.withLock { $0.out }) }
    /// Standard error so far, as lines.
    var err: [String] { lines(bytes.withLock { $0.err }) }

    /// Runs `body` with its lines (and its child tasks' lines) recorded here.
    func record<T: Sendable>(_ body: @Sendable () async throws -> T) async rethrows -> T {
        let output = ConsoleOutput(standardOutput: { [self] written in bytes.withLock { $0.out += written } },
                                   standardError: { [self] written in bytes.withLock { $0.err += written } })
        return try await ConsoleOutput.$current.withValue(output) { try await body() }
    }

    /// Waits until a printed line contains `text` (a bound against a hang, not a timing claim).
    func printed(_ text: String, within seconds: Double = 60) async -> Bool {
        let deadline = ContinuousClock.now + .seconds(seconds)
        while ContinuousClock.now < deadline {
            if out.contains(where: { $0.contains(text) }) { return true }
            try? await Task.sleep(for: .milliseconds(10))
        }
        return false
    }

    private func lines(_ bytes: [UInt8]) -> [String] {
        String(decoding: bytes, as: UTF8.self).split(separator: "\n", omittingEmptySubsequences: false).dropLast().map(String.init)
    }
}
