import ArgumentParser
import BeaconCore
import Guide

/// `ridebeacon range`: replays a recorded RSSI trace through the ranging estimator.
struct RangeCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "range",
        abstract: "Estimate distance, zone, trend and touch from a recorded RSSI trace.",
        discussion: """
            Prints CSV t_s,rssi_dbm,filtered_rssi_dbm,distance_m,zone,trend,touch,claim_min_m,claim_max_m, \
            one row per trace row. Path-loss model: --calibration, else --tx-power/--exponent, else the \
            trace's tx_power_dbm column (first value) with n = 2.0, else A = -59 dBm, n = 2.0.

            claim_min_m,claim_max_m: the distance the guide would claim at that sample, from the \
            guide's own claim code (DistanceBands.claim): "Very close" 0 and 2.4, "About N" N/2 \
            and 2N, "More than N" N and empty, no claim both empty. With --calibration the claim \
            reads the pair's line; otherwise the uncalibrated prior (a guessed line says little).
            """
    )

    @Option(help: ArgumentHelp("Trace CSV with columns t_s and rssi_dbm (optional true_distance_m, tx_power_dbm).", valueName: "file"))
    var trace: String

    @Option(help: ArgumentHelp("Calibration JSON (from `ridebeacon calibrate`).", valueName: "file"))
    var calibration: String?

    // `.unconditional`: the value is negative, and must not be mistaken for an option.
    @Option(name: .customLong("tx-power"), parsing: .unconditional,
            help: ArgumentHelp("RSSI at 1 m, dBm (A).", valueName: "dbm"))
    var txPower: Double?

    @Option(help: ArgumentHelp("Path-loss exponent (n), 1.0–6.0.", valueName: "n"))
    var exponent: Double?

    @Option(help: ArgumentHelp("Also write an SVG plot of the trace and the estimates to this file.", valueName: "out.svg"))
    var plot: String?

    func run() throws {
        try reportingFailures {
            let parsed = try loadTrace(trace)
            let calibration = try chooseCalibration(for: parsed)
            // The guide's claim, as the guide makes it (`GuideCore.band`): same line, same
            // uncertainty, same call per sample.
            let uncertainty = self.calibration == nil ? DistanceUncertainty.uncalibrated
                : DistanceUncertainty(calibration: calibration)
            let replayed = DistanceBands.replay(parsed.samples.map { ($0.time, $0.rssi) }, calibration: calibration,
                                                uncertainty: uncertainty)
            let estimates = replayed.map(\.estimate)
            var out = Array("t_s,rssi_dbm,filtered_rssi_dbm,distance_m,zone,trend,touch,claim_min_m,claim_max_m\n".utf8)
            out.reserveCapacity(80 * estimates.count)
            for (e, claim) in replayed {
                let interval = claim?.interval
                let row = [FixedDecimal.format(e.time), FixedDecimal.format(e.rssi ?? .nan),
                           FixedDecimal.format(e.filteredRSSI), FixedDecimal.format(e.distance),
                           e.zone.rawValue, e.trend.rawValue, e.touch ? "1" : "0",
                           interval.map { FixedDecimal.format($0.min) } ?? "",
                           interval.flatMap { $0.max.isFinite ? FixedDecimal.format($0.max) : nil } ?? ""]
                out.append(contentsOf: row.joined(separator: ",").utf8)
                out.append(0x0A)
            }
            StandardOutputBytes.write(out)
            if let plot {
                try writeFile(plot, RangePlot.svg(title: fileName(trace), trace: parsed, estimates: estimates))
            }
        }
    }

    private func chooseCalibration(for parsed: Trace) throws(CommandLineFailure) -> Calibration {
        if let calibration {
            guard txPower == nil, exponent == nil else {
                throw CommandLineFailure("--calibration and --tx-power/--exponent cannot be combined")
            }
            let bytes = try readFile(calibration)
            do {
                return try Calibration.parse(json: bytes)
            } catch {
                throw CommandLineFailure("\(calibration): \(error)")
            }
        }
        if let txPower, !PathLossModel.txPowerRange.contains(txPower) {
            throw CommandLineFailure("--tx-power \(FixedDecimal.format(txPower)) is outside -120…20 dBm")
        }
        if let exponent, !PathLossModel.exponentRange.contains(exponent) {
            throw CommandLineFailure("--exponent \(FixedDecimal.format(exponent)) is outside 1.0…6.0")
        }
        let fromTrace = parsed.samples.lazy.compactMap(\.txPower).first
        return Calibration(model: PathLossModel(
            txPower: txPower ?? fromTrace ?? PathLossModel.default.txPower,
            exponent: exponent ?? PathLossModel.default.exponent))
    }
}

/// Reads and parses a trace, turning any problem into a message naming the file.
func loadTrace(_ path: String) throws(CommandLineFailure) -> Trace {
    let bytes = try readFile(path)
    do {
        return try TraceParser.parse(bytes: bytes)
    } catch {
        throw CommandLineFailure("\(path): \(error)")
    }
}

func fileName(_ path: String) -> String {
    path.split(separator: "/", omittingEmptySubsequences: true).last.map(String.init) ?? path
}
