import Foundation
#if canImport(Glibc)
import Glibc
private let posixWrite = Glibc.write
#elseif canImport(Darwin)
import Darwin
private let posixWrite = Darwin.write
#endif

/// A system audio player fed raw s16le PCM on its standard input.
public struct AudioPlayer: Equatable, Sendable {
    public var program: String
    public var arguments: [String]

    /// In order of preference: PipeWire, PulseAudio, ALSA.
    public static let known: [AudioPlayer] = [
        AudioPlayer(program: "pw-play", arguments: ["--rate", "\(AudioFormat.sampleRate)", "--channels", "1", "--format", "s16", "-"]),
        AudioPlayer(program: "paplay", arguments: ["--raw", "--rate=\(AudioFormat.sampleRate)", "--channels=1", "--format=s16le"]),
        AudioPlayer(program: "aplay", arguments: ["-q", "-t", "raw", "-f", "S16_LE", "-r", "\(AudioFormat.sampleRate)", "-c", "1", "-"]),
    ]

    /// The executable's path on `PATH`, or nil.
    public func locate(in environment: [String: String]) -> String? {
        for directory in (environment["PATH"] ?? "").split(separator: ":") where !directory.isEmpty {
            let path = "\(directory)/\(program)"
            if FileManager.default.isExecutableFile(atPath: path) { return path }
        }
        return nil
    }
}

/// Pipes PCM into a running player. A player that exits (device busy, no server) makes the
/// next `write` or `close` throw with its exit status and what it printed, so `FallbackSink`
/// can move on.
public final class PlayerSink: AudioSink {
    public let name: String
    private let process: Process
    private let input: FileHandle
    private let errors: FileHandle
    private var closed = false

    public init(player: AudioPlayer, path: String, environment: [String: String]) throws(AudioSinkError) {
        // A dead player must surface as EPIPE from write(2), not kill us with SIGPIPE.
        signal(SIGPIPE, SIG_IGN)
        name = player.program
        process = Process()
        process.executableURL = URL(fileURLWithPath: path)
        process.arguments = player.arguments
        process.environment = environment
        let stdin = Pipe()
        let stderr = Pipe()
        process.standardInput = stdin
        process.standardError = stderr
        process.standardOutput = FileHandle.nullDevice
        do { try process.run() } catch {
            throw AudioSinkError("\(player.program): cannot start \(path): \(error.localizedDescription)")
        }
        // Our copy of the read end would keep the pipe open after the player dies (no EPIPE).
        try? stdin.fileHandleForReading.close()
        try? stderr.fileHandleForWriting.close()
        input = stdin.fileHandleForWriting
        errors = stderr.fileHandleForReading
        _ = fcntl(errors.fileDescriptor, F_SETFL, fcntl(errors.fileDescriptor, F_GETFL) | O_NONBLOCK)
    }

    public func write(_ samples: [Int16]) throws {
        guard !closed else { throw AudioSinkError("\(name): written after close") }
        if !process.isRunning { throw failure() }
        let bytes = pcmBytes(samples)
        let written = bytes.withUnsafeBytes { raw -> Bool in
            var offset = 0
            while offset < raw.count {
                let result = posixWrite(input.fileDescriptor, raw.baseAddress! + offset, raw.count - offset)
                if result < 0 {
                    if errno == EINTR { continue }
                    return false
                }
                offset += result
            }
            return true
        }
        if !written { throw failure() }
    }

    /// Ends the input and waits for the player to finish playing what it was given.
    public func close() throws {
        guard !closed else { return }
        closed = true
        try? input.close()
        process.waitUntilExit()
        if process.terminationReason != .exit || process.terminationStatus != 0 { throw failure() }
    }

    private func failure() -> AudioSinkError {
        if process.isRunning {
            return AudioSinkError("\(name): stopped reading audio (\(String(cString: strerror(errno))))")
        }
        let status = process.terminationReason == .exit ? "exited with status \(process.terminationStatus)" : "was killed by signal \(process.terminationStatus)"
        let said = String(decoding: (try? errors.read(upToCount: 2048)) ?? Data(), as: UTF8.self)
            .split(whereSeparator: \.isNewline).first.map { ": \($0)" } ?? ""
        return AudioSinkError("\(name) \(status)\(said)")
    }
}
