import BeaconCore
import BlueZ
import HCITransports
import RadioCore
import Foundation
import NIOConcurrencyHelpers

/// Collects a scan stream's events in the background so tests can wait for conditions.
final class EventLog: Sendable {
    private let events = NIOLockedValueBox<[RadioEvent]>([])
    /// For each sighting: controller bytes read -> event in the consumer's hands.
    private let latencyBox = NIOLockedValueBox<[Duration]>([])
    private let consumer: NIOLockedValueBox<Task<Void, Never>?> = NIOLockedValueBox(nil)

    init(_ stream: AsyncThrowingStream<RadioEvent, any Error>) {
        let events = events, latencies = latencyBox
        consumer.withLockedValue {
            $0 = Task {
                do {
                    for try await event in stream {
                        if case .sighting(let s) = event {
                            let latency = ContinuousClock.now - s.receivedAt
                            latencies.withLockedValue { $0.append(latency) }
                        }
                        events.withLockedValue { $0.append(event) }
                    }
                } catch {}
            }
        }
    }

    var latencies: [Duration] { latencyBox.withLockedValue { $0 } }

    var all: [RadioEvent] { events.withLockedValue { $0 } }

    var sightings: [RadioSighting] {
        all.compactMap { if case .sighting(let s) = $0 { s } else { nil } }
    }

    func beacons() -> [IBeacon] { sightings.compactMap(\.beacon) }

    func count(of beacon: IBeacon) -> Int { beacons().filter { $0 == beacon }.count }

    /// Stops consuming (ends the subscription, so the radio stops scanning if it was the last).
    func cancel() { consumer.withLockedValue { $0?.cancel() } }

    /// Polls `condition` every 20 ms until it holds or `seconds` pass.
    func wait(seconds: Double = 10, until condition: (EventLog) -> Bool) async -> Bool {
        let deadline = ContinuousClock.now + .milliseconds(Int(seconds * 1000))
        while ContinuousClock.now < deadline {
            if condition(self) { return true }
            try? await Task.sleep(for: .milliseconds(20))
        }
        return condition(self)
    }
}

enum Beacons {
    static func make(_ uuid: String, major: UInt16, minor: UInt16, power: Int8 = -59) -> IBeacon {
        IBeacon(uuid: UUID(uuidString: uuid)!, major: major, minor: minor, measuredPower: power)
    }
    static let first = make("E2C56DB5-DFFB-48D2-B060-D0F5A71096E0", major: 4660, minor: 22136, power: -59)
    static let rotated = make("0B1C2D3E-4F50-6172-8394-A5B6C7D8E9F0", major: 1, minor: 65535, power: -65)
}
