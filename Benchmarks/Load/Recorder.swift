import Foundation
import NIOConcurrencyHelpers

/// What one load run measured; shared by the request tasks, the listeners and the RSS sampler.
final class Recorder: Sendable {
    struct State {
        var latenciesMs: [String: [Double]] = [:]
        var statuses: [String: Int] = [:]
        var transportErrors: [String: Int] = [:]
        var late = 0
        var inFlight = 0
        var openRequests: [String] = []
        var acceptedRides: [String] = []
        var eventsReceived = 0
        var listenersOpen = 0
        var listenerFailures: [String] = []
        var rssKiB: [(seconds: Double, kib: Int)] = []
    }

    let state = NIOLockedValueBox(State())

    func record(_ operation: String, latencyMs: Double, status: Int) {
        state.withLockedValue {
            $0.latenciesMs[operation, default: []].append(latencyMs)
            $0.statuses["\(status)", default: 0] += 1
        }
    }

    func transportError(_ operation: String, _ error: any Error) {
        state.withLockedValue { $0.transportErrors["\(operation): \(String(describing: error).prefix(80))", default: 0] += 1 }
    }

    /// Oldest first, so accepts and arrivals reach requests and rides in order.
    func take(_ keyPath: WritableKeyPath<State, [String]>) -> String? {
        state.withLockedValue { $0[keyPath: keyPath].isEmpty ? nil : $0[keyPath: keyPath].removeFirst() }
    }

    func put(_ id: String, _ keyPath: WritableKeyPath<State, [String]>) {
        state.withLockedValue { $0[keyPath: keyPath].append(id) }
    }
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
