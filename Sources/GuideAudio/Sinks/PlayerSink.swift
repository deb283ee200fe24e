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

    public init(program: String, arguments: [String]) {
        self.program = program
        self.arguments = arguments
    }

    /// In order of preference: PipeWire, PulseAudio, ALSA; each asked for a short device buffer,
    /// since a cue heard 0.5 s late (aplay's default) points at where the passenger was.
    public static let known: [AudioPlayer] = [
        AudioPlayer(program: "pw-play", arguments: ["--rate", "\(AudioFormat.sampleRate)", "--channels", "1", "--format", "s16", "--latency=50ms", "-"]),
        AudioPlayer(program: "paplay", arguments: ["--raw", "--rate=\(AudioFormat.sampleRate)", "--channels=1", "--format=s16le", "--latency-msec=50"]),
        AudioPlayer(program: "aplay", arguments: ["-q", "-t", "raw", "-f", "S16_LE", "-r", "\(AudioFormat.sampleRate)", "-c", "1", "--buffer-time=100000", "-"]),
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
    /// Set once the player failed: `close()` then stops it instead of waiting for it.
    private var broken = false

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
        #if os(Linux)
        // F_SETPIPE_SZ: a small pipe bounds how much audio can queue behind the player (≈ 0.19 s)
        // if its device clock runs slower than ours or it stalled; a full pipe then paces us.
        _ = fcntl(input.fileDescriptor, 1031, 8192)
        #endif
        _ = fcntl(input.fileDescriptor, F_SETFL, fcntl(input.fileDescriptor, F_GETFL) | O_NONBLOCK)
    }

    /// Seconds a player may refuse audio before it counts as stalled (device busy, sound server
    /// suspended): the cue must not wait on it, and neither must the guide.
    public static let stallTimeout = 0.5
    /// Seconds `close()` lets the player play out what it holds before stopping it.
    public static let drainTimeout = 5.0

    public func write(_ samples: [Int16]) throws {
        guard !closed else { throw AudioSinkError("\(name): written after close") }
        if howItEnded() != nil { throw fail(errno: 0) }
        let bytes = pcmBytes(samples)
        let problem = bytes.withUnsafeBytes { raw -> Int32? in
            var offset = 0
            var lastProgress = ContinuousClock.now
            while offset < raw.count {
                let result = posixWrite(input.fileDescriptor, raw.baseAddress! + offset, raw.count - offset)
                if result > 0 {
                    offset += result
                    lastProgress = ContinuousClock.now
                    continue
                }
                let code = errno
                if code == EINTR { continue }
                guard code == EAGAIN || code == EWOULDBLOCK else { return code }
                let left = Self.stallTimeout - (ContinuousClock.now - lastProgress).inSeconds
                var ready = pollfd(fd: input.fileDescriptor, events: Int16(POLLOUT), revents: 0)
                if left <= 0 || poll(&ready, 1, Int32(left * 1000) + 1) == 0 { return ETIMEDOUT }
            }
            return nil
        }
        if let problem { throw fail(errno: problem) }
    }

    /// Ends the input and lets the player finish playing what it was given (a player that
    /// failed or does not finish within `drainTimeout` is stopped).
    public func close() throws {
        guard !closed else { return }
        closed = true
        try? input.close()
        let deadline = ContinuousClock.now + .milliseconds(Int(Self.drainTimeout * 1000))
        while howItEnded() == nil && !broken && ContinuousClock.now < deadline { usleep(10_000) }
        // SIGKILL: a stalled player has nothing to save, and SIGTERM was seen not to stop one here.
        if howItEnded() == nil { kill(process.processIdentifier, SIGKILL) }
        var ended = howItEnded()
        while ended == nil { usleep(10_000); ended = howItEnded() }
        if broken { return }
        if ended != .exited(0) { throw fail(errno: 0) }
    }

    private enum Exit: Equatable {
        case exited(Int32)
        case killed(Int32)
    }

    /// How the player ended, or nil while it runs. Read from the kernel without reaping it
    /// (`waitid` with WNOWAIT), not from `Process`, whose `waitUntilExit()` and `isRunning` on
    /// Linux wait for Foundation's monitor to notice the exit, which it was seen to miss.
    private func howItEnded() -> Exit? {
        var info = siginfo_t()
        let pid = process.processIdentifier
        while waitid(P_PID, id_t(pid), &info, WEXITED | WNOHANG | WNOWAIT) != 0 {
            guard errno == EINTR else {
                // ECHILD: Foundation has reaped it, so it knows.
                if process.isRunning { return nil }
                let status = process.terminationStatus
                return process.terminationReason == .exit ? .exited(status) : .killed(status)
            }
        }
        guard info._sifields._sigchld.si_pid == pid else { return nil }
        let status = info._sifields._sigchld.si_status
        return info.si_code == Int32(CLD_EXITED) ? .exited(status) : .killed(status)
    }

    /// Marks the player broken and describes why, with the first line it printed.
    private func fail(errno code: Int32) -> AudioSinkError {
        broken = true
        if code == ETIMEDOUT {
            return AudioSinkError("\(name) accepted no audio for \(Self.stallTimeout) s (device busy or stalled)")
        }
        let status: String
        switch howItEnded() {
        case nil: return AudioSinkError("\(name): stopped reading audio (\(String(cString: strerror(code))))")
        case .exited(let value)?: status = "exited with status \(value)"
        case .killed(let signal)?: status = "was killed by signal \(signal)"
        }
        let said = String(decoding: (try? errors.read(upToCount: 2048)) ?? Data(), as: UTF8.self)
            .split(whereSeparator: \.isNewline).first.map { ": \($0)" } ?? ""
        return AudioSinkError("\(name) \(status)\(said)")
    }
}
