import BeaconCore
import FuzzEntry

// One entry point for every decoder that reads untrusted bytes. The first byte picks the
// decoder so one corpus covers them all; the rest is the input. Decoders must return a value or
// an error for any input: a trap here is the bug libFuzzer looks for.
func decodeAnything(_ bytes: ArraySlice<UInt8>) {
    guard let selector = bytes.first else { return }
    let input = bytes.dropFirst()
    switch selector % 6 {
    case 0:
        _ = ADStructure.parse(input)
        _ = IBeacon(advertisingData: input)
    case 1:
        if case .success(let event) = Result(catching: { () throws(DecodeError) in try HCIEvent(packet: input) }) {
            _ = try? event.encode()
        }
    case 2:
        HCIEvent.forEachAdvertisingReport(in: input) { report in _ = IBeacon(advertisingData: report.data) }
    case 3:
        // Feed the stream in uneven chunks so packet boundaries fall everywhere.
        var reassembler = H4Reassembler()
        var rest = input
        while !rest.isEmpty {
            let n = Int(rest.first! % 17) + 1
            _ = reassembler.push(rest.prefix(n))
            rest = rest.dropFirst(n)
        }
        _ = reassembler.finish()
    case 4:
        guard var reader = try? BtsnoopReader(bytes: Array(input)) else { return }
        var scanner = CaptureBeaconScanner()
        while let record = try? reader.next() { scanner.process(record) { _ in } }
    default:
        decodeRangingInputs(input)
    }
}

#if FUZZING
// SwiftPM aliases `main` to `FuzzDecoders_main` when it links an executable; whichever `main`
// the linker keeps, control reaches libFuzzer's driver (FuzzEntry) with our callback.
@_cdecl("FuzzDecoders_main")
func fuzzMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt { FuzzEntry.runDriver(argc, argv, fuzzOneInput) }
@_cdecl("LLVMFuzzerTestOneInput")
func fuzzOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt { FuzzEntry.run(data, size, decodeAnything) }
#else
// Without libFuzzer this replays the files given (the corpus, saved crashes), so crashes found earlier stay fixed.
@main enum ReplayCorpus { static func main() { FuzzEntry.replayArguments("FuzzDecoders", decodeAnything) } }
#endif
