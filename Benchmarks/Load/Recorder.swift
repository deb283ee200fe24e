import Foundation
import NIOConcurrencyHelpers

/// What one load run measured; shared by the request tasks, the listeners and the RSS sampler.
final class Recorder: Sendable {
    struct State {
        var latenciesMs: [String: [Double]] = [:]
        /// Every latency again, by the second of the schedule its request was due in: where in
        /// the run the tail is (a warm-up, one stall, or spread through).
        var latenciesMsBySecond: [Int: [Double]] = [:]
        var statuses: [String: Int] = [:]
        var transportErrors: [String: Int] = [:]
        var late = 0
        var inFlight = 0
        var openRequests: [String] = []
        var acceptedRides: [String] = []
        /// Proofs still to post for arrived rides, driver's then passenger's.
        var touches: [PendingTouch] = []
        var sent = 0
        /// How late the generator itself started requests (its own CPU, not the server's).
        var sendLagMs: [Double] = []
        var eventsReceived = 0
        var listenersOpen = 0
        var listenerFailures: [String] = []
        var rssKiB: [(seconds: Double, kib: Int)] = []
    }

    let state = NIOLockedValueBox(State())

    func record(_ operation: String, latencyMs: Double, status: Int, dueSecond: Int) {
        state.withLockedValue {
            $0.latenciesMs[operation, default: []].append(latencyMs)
            $0.latenciesMsBySecond[dueSecond, default: []].append(latencyMs)
            $0.statuses["\(status)", default: 0] += 1
        }
    }

    func transportError(_ operation: String, _ error: any Error) {
        state.withLockedValue { $0.transportErrors["\(operation): \(String(describing: error).prefix(80))", default: 0] += 1 }
    }

    /// Oldest first, so accepts and arrivals reach requests and rides in order.
    func take<Item>(_ keyPath: WritableKeyPath<State, [Item]>) -> Item? {
        state.withLockedValue { $0[keyPath: keyPath].isEmpty ? nil : $0[keyPath: keyPath].removeFirst() }
    }

    func put<Item>(_ item: Item, _ keyPath: WritableKeyPath<State, [Item]>) {
        state.withLockedValue { $0[keyPath: keyPath].append(item) }
    }
}

/// Resident set size of the servers together, in KiB; nil when one is gone.
func residentKiB(pids: [Int32]) -> Int? {
    let each = pids.compactMap(residentKiB(pid:))
    return each.count == pids.count ? each.reduce(0, +) : nil
}

/// Resident set size of a process from /proc, in KiB.
func residentKiB(pid: Int32) -> Int? {
    guard let text = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8),
          let line = text.split(separator: "\n").first(where: { $0.hasPrefix("VmRSS:") }) else { return nil }
    return line.split(separator: " ", omittingEmptySubsequences: true).dropFirst().first.flatMap { Int($0) }
}

func percentile(_ values: [Double], _ fraction: Double) -> Double {
    guard !values.isEmpty else { return .nan }
    let sorted = values.sorted()
    return sorted[min(sorted.count - 1, Int((fraction * Double(sorted.count - 1)).rounded()))]
}

func rounded(_ value: Double, _ places: Int = 2) -> Double {
    let scale = pow(10, Double(places))
    return (value * scale).rounded() / scale
}
