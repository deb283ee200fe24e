import BeaconCore

// One entry point for every decoder that reads untrusted bytes. The first byte picks the
// decoder so one corpus covers them all; the rest is the input.
func decodeAnything(_ bytes: ArraySlice<UInt8>) {
    guard let selector = bytes.first else { return }
    let input = bytes.dropFirst()
    switch selector % 2 {
    case 0: _ = ADStructure.parse(input)
    default: _ = IBeacon(advertisingData: input)
    }
}

#if FUZZING
// SwiftPM aliases `main` to `FuzzDecoders_main` when it links an executable; whichever `main`
// the linker keeps, control reaches libFuzzer's driver with our callback.
typealias FuzzCallback = @convention(c) (UnsafePointer<UInt8>?, Int) -> CInt

@_silgen_name("LLVMFuzzerRunDriver")
func runFuzzerDriver(
    _ argc: UnsafeMutablePointer<CInt>,
    _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?>,
    _ callback: FuzzCallback
) -> CInt

@_cdecl("FuzzDecoders_main")
func fuzzMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    var argc = argc
    var argv = argv
    return runFuzzerDriver(&argc, &argv) { data, size in fuzzOneInput(data, size) }
}

@_cdecl("LLVMFuzzerTestOneInput")
func fuzzOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    guard let data else { return 0 }
    decodeAnything(Array(UnsafeBufferPointer(start: data, count: size))[...])
    return 0
}
#else
import Foundation

// Without libFuzzer this replays corpus files, so crashes found earlier stay fixed.
@main
enum ReplayCorpus {
    static func main() {
        for path in CommandLine.arguments.dropFirst() {
            guard let data = FileManager.default.contents(atPath: path) else {
                FileHandle.standardError.write(Data("FuzzDecoders: \(path): unreadable\n".utf8))
                exit(1)
            }
            decodeAnything(Array(data)[...])
        }
    }
}
#endif
