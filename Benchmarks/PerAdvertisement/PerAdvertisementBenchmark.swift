import BeaconCore
import Foundation

/// The per-advertisement path a scanning passenger runs for every packet the controller hands
/// up: H4 bytes → reassembled HCI event → advertising reports → iBeacon → that beacon's
/// Ranger (filter, distance, zone, trend, touch). Reads the stream `make_adv_stream.py` writes
/// (the same bytes the beacontools baseline parses) and prints JSON.
@main
enum PerAdvertisementBenchmark {
    struct Tracked {
        var beacon: IBeacon
        var ranger: Ranger
    }

    static func main() throws {
        let args = CommandLine.arguments
        guard args.count >= 2, let data = FileManager.default.contents(atPath: args[1]) else {
            FileHandle.standardError.write(Data("usage: PerAdvertisementBenchmark STREAM [ROUNDS]\n".utf8))
            exit(2)
        }
        let rounds = args.count > 2 ? Int(args[2]) ?? 5 : 5
        let stream = [UInt8](data)
        // Each stage is the previous one plus one more step, so differences attribute the cost.
        var stages: [String] = []
        for stage in Stage.allCases {
            var best = Double.infinity
            var result = (reports: 0, sightings: 0, checksum: 0.0)
            for _ in 0..<rounds {
                let start = DispatchTime.now().uptimeNanoseconds
                result = run(stream, through: stage)
                best = min(best, Double(DispatchTime.now().uptimeNanoseconds - start))
            }
            let ns = best / Double(result.reports)
            stages.append("\"\(stage)\": {\"ns_per_report\": \(ns), \"ibeacons\": \(result.sightings), \"checksum\": \(result.checksum)}")
            if stage == .ranging {
                print("""
                    {"implementation": "ridebeacon BeaconCore (Swift, release)", "reports": \(result.reports), \
                    "ibeacons": \(result.sightings), "seconds": \(best / 1e9), "ns_per_report": \(ns), \
                    "rounds": \(rounds), "stages": {\(stages.joined(separator: ", "))}}
                    """)
            }
        }
    }

    enum Stage: CaseIterable {
        /// H4 reassembly and HCI event → advertising reports.
        case decode
        /// + iBeacon parse of each report's data.
        case ibeacon
        /// + the beacon's Ranger: filter, distance, zone, trend, touch.
        case ranging
    }

    /// One pass over the stream, fed in 4 KiB reads as a socket would deliver it.
    static func run(_ stream: [UInt8], through stage: Stage) -> (reports: Int, sightings: Int, checksum: Double) {
        var reassembler = H4Reassembler(acceptedTypes: [.event])
        var tracked: [Tracked] = []
        var reports = 0, sightings = 0
        var checksum = 0.0
        var time = 0.0
        var offset = 0
        while offset < stream.count {
            let end = min(offset + 4096, stream.count)
            reassembler.push(stream[offset..<end], onError: { _ in }) { packet in
                HCIEvent.forEachAdvertisingReport(in: packet.dropFirst()) { report in
                    reports += 1
                    time += 0.01
                    if stage == .decode {
                        checksum += Double(report.data.count)
                        return
                    }
                    guard let beacon = IBeacon(advertisingData: report.data), let rssi = report.rssi else { return }
                    sightings += 1
                    if stage == .ibeacon {
                        checksum += Double(beacon.minor)
                        return
                    }
                    // The guide knows the few identities it listens for; a linear scan is what it does.
                    let index = tracked.firstIndex { $0.beacon == beacon } ?? {
                        tracked.append(Tracked(beacon: beacon, ranger: Ranger(model: PathLossModel(
                            txPower: Double(beacon.measuredPower), exponent: 2.0))))
                        return tracked.count - 1
                    }()
                    let estimate = tracked[index].ranger.update(time: time, rssi: Double(rssi))
                    checksum += estimate.distance + (estimate.touch ? 1 : 0)
                }
            }
            offset = end
        }
        return (reports, sightings, checksum)
    }
}
