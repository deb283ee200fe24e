// Per-sample cost of the ranging estimator (filter + trend + touch + zone + distance).
// Usage: swift build -c release --product RangingBenchmark && .build/release/RangingBenchmark [updates]
import BeaconCore
import Foundation

/// A deterministic 10 Hz stream: a walker approaching and leaving, packet noise, occasional
/// spikes, so every branch of the estimator (gating, re-initialisation, trend issue) runs.
func makeStream(count: Int) -> [Double] {
    var state: UInt64 = 0x2545_F491_4F6C_DD1D
    func uniform() -> Double {
        state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
        return Double(state >> 11) / Double(1 << 53)
    }
    let model = PathLossModel.default
    return (0..<count).map { i in
        let phase = Double(i % 600) / 10  // a minute: 30 s in, 30 s out
        let distance = phase < 30 ? 12 - 0.38 * phase : 0.6 + 0.38 * (phase - 30)
        let noise = (uniform() + uniform() + uniform() - 1.5) * 4
        let spike = uniform() < 0.01 ? 25.0 : 0
        return (model.rssi(atDistance: distance) + noise + spike).rounded()
    }
}

let updates = CommandLine.arguments.dropFirst().first.flatMap { Int($0) } ?? 20_000_000
let stream = makeStream(count: 4096 * 16)
var ranger = Ranger(model: .default)
var checksum = 0.0
var issued = 0
let start = Date()
for i in 0..<updates {
    let e = ranger.update(time: Double(i) * 0.1, rssi: stream[i & (stream.count - 1)])
    checksum += e.filteredRSSI
    if e.trend == .closer || e.trend == .farther { issued += 1 }
}
let seconds = Date().timeIntervalSince(start)
print(String(format: "Ranger.update: %.1f ns/update, %.2f M updates/s (%d updates; trend issued on %.1f %%; checksum %.1f)",
             seconds / Double(updates) * 1e9, Double(updates) / seconds / 1e6, updates,
             100 * Double(issued) / Double(updates), checksum))
