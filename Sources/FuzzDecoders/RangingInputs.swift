import BeaconCore

/// Trace CSV (second byte even) and calibration JSON (odd): the files `range` and `calibrate` read.
/// A trace that parses is also run through the ranger, which must cope with whatever values it holds.
func decodeRangingInputs(_ input: ArraySlice<UInt8>) {
    guard let kind = input.first else { return }
    let bytes = Array(input.dropFirst())
    if kind % 2 == 0 {
        guard let trace = try? TraceParser.parse(bytes: bytes) else { return }
        var ranger = Ranger(model: .default)
        for sample in trace.samples.prefix(2000) { _ = ranger.update(time: sample.time, rssi: sample.rssi) }
    } else {
        _ = try? Calibration.parse(json: bytes)
    }
}
