import BeaconCore

/// Trace CSV and calibration JSON parsing, once the ranging parsers land.
func decodeRangingInputs(_ input: ArraySlice<UInt8>) {}
