import ArgumentParser
import BeaconCore

/// `ridebeacon calibrate`: fits the path-loss model to traces recorded at known distances.
struct CalibrateCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "calibrate",
        abstract: "Fit tx power (A) and path-loss exponent (n) to traces with true_distance_m.",
        discussion: """
            Prints calibration JSON for `ridebeacon range --calibration`; the fit residual goes \
            to stderr. Samples closer than 10 cm are not fitted (near field) but set the touch \
            threshold when the traces include contact (≤ 2 cm).
            """
    )

    @Option(parsing: .upToNextOption, help: ArgumentHelp("Trace CSV files with a true_distance_m column.", valueName: "file"))
    var trace: [String]

    func validate() throws {
        guard !trace.isEmpty else { throw ValidationError("give at least one --trace FILE") }
    }

    func run() throws {
        try reportingFailures {
            var samples: [CalibrationSample] = []
            for path in trace {
                let parsed = try loadTrace(path)
                guard parsed.hasTrueDistance else {
                    throw CommandLineFailure("\(path): no true_distance_m values: calibration needs traces recorded at known distances")
                }
                for s in parsed.samples {
                    if let d = s.trueDistance { samples.append(CalibrationSample(distance: d, rssi: s.rssi)) }
                }
            }
            let fit: PathLossFit
            do {
                fit = try PathLossCalibration.fit(samples)
            } catch {
                throw CommandLineFailure("\(trace.joined(separator: ", ")): \(error)")
            }
            let calibration = Calibration(model: fit.model, touchRSSI: fit.touchRSSI,
                                          residual: fit.residualRMS, samples: fit.sampleCount,
                                          source: "ridebeacon calibrate " + trace.map(fileName).joined(separator: " "))
            let out = Array(calibration.json.utf8)
            StandardOutputBytes.write(out)
            var note = "fit residual \(FixedDecimal.format(fit.residualRMS, places: 2)) dB RMS over \(fit.sampleCount) samples at \(fit.distanceCount) distances"
            if fit.exponentClamped { note += "; exponent clamped to 1.0…6.0" }
            note += fit.touchMeasured ? "; touch threshold from contact samples" : "; touch threshold from the model (5 cm level + 3 dB)"
            StandardError.writeLine(note)
        }
    }
}
