import Foundation

/// Waits (bounded, generously, on the machine's clock) until `condition` holds: the runtimes
/// under test run on other tasks. Returns whether it did; what is asserted is the condition,
/// never how long it took.
public func eventually(_ condition: @Sendable () async -> Bool) async -> Bool {
    for _ in 0..<3000 {
        if await condition() { return true }
        try? await Task.sleep(for: .milliseconds(10))
    }
    return await condition()
}
