import Foundation

/// What both libFuzzer executables (`FuzzDecoders`, `FuzzAPIBodies`) share: handing control to
/// libFuzzer's driver, turning its buffer into bytes, and — in a build without `-sanitize=fuzzer`
/// — replaying the files named on the command line (the corpus, saved crashes).
///
/// Each executable keeps two tiny C entry points of its own, because their names are fixed at
/// compile time: `<Product>_main` (SwiftPM renames an executable's `main` to it, so whichever
/// `main` the linker keeps reaches the driver) and `LLVMFuzzerTestOneInput`:
///
/// ```swift
/// #if FUZZING
/// @_cdecl("FuzzDecoders_main")
/// func fuzzMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt { FuzzEntry.runDriver(argc, argv, fuzzOneInput) }
/// @_cdecl("LLVMFuzzerTestOneInput")
/// func fuzzOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt { FuzzEntry.run(data, size, decodeAnything) }
/// #else
/// @main enum ReplayCorpus { static func main() { FuzzEntry.replayArguments("FuzzDecoders", decodeAnything) } }
/// #endif
/// ```
public enum FuzzEntry {
    /// libFuzzer's per-input callback.
    public typealias Callback = @convention(c) (UnsafePointer<UInt8>?, Int) -> CInt

    #if FUZZING
    /// Runs libFuzzer's driver (it parses its own flags from `argv`) over `callback`.
    public static func runDriver(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?,
                                 _ callback: Callback) -> CInt {
        var argc = argc
        var argv = argv
        return runFuzzerDriver(&argc, &argv, callback)
    }
    #endif

    /// libFuzzer's buffer as bytes; nil for a null buffer.
    public static func input(_ data: UnsafePointer<UInt8>?, _ size: Int) -> ArraySlice<UInt8>? {
        guard let data else { return nil }
        return Array(UnsafeBufferPointer(start: data, count: size))[...]
    }

    /// One libFuzzer input through `body` (a null buffer is skipped); libFuzzer's "keep going" 0.
    public static func run(_ data: UnsafePointer<UInt8>?, _ size: Int, _ body: (ArraySlice<UInt8>) -> Void) -> CInt {
        if let bytes = input(data, size) { body(bytes) }
        return 0
    }

    /// The build without libFuzzer: `body` over each file named in the arguments; an unreadable
    /// one ends the process with status 1 (`name: path: unreadable` on stderr).
    public static func replayArguments(_ name: String, _ body: (ArraySlice<UInt8>) -> Void) {
        for path in CommandLine.arguments.dropFirst() {
            guard let data = FileManager.default.contents(atPath: path) else {
                FileHandle.standardError.write(Data("\(name): \(path): unreadable\n".utf8))
                exit(1)
            }
            body(Array(data)[...])
        }
    }
}

#if FUZZING
@_silgen_name("LLVMFuzzerRunDriver")
private func runFuzzerDriver(
    _ argc: UnsafeMutablePointer<CInt>,
    _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?>,
    _ callback: FuzzEntry.Callback
) -> CInt
#endif
