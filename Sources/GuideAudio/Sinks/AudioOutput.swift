import Foundation

/// `--audio-out FILE.wav|-|auto|none`.
public enum AudioOutput: Equatable, Sendable {
    case wavFile(String)
    case standardOutput
    /// The first of pw-play, paplay, aplay on PATH that works; silence if none does.
    case systemPlayer
    case none

    public static let usage = "--audio-out must be FILE.wav, - (raw PCM on stdout), auto (system player) or none"

    /// Parses the flag's value; anything else is an error naming the allowed forms.
    public init(parsing value: String) throws(AudioSinkError) {
        switch value {
        case "-": self = .standardOutput
        case "auto": self = .systemPlayer
        case "none": self = .none
        default:
            guard value.lowercased().hasSuffix(".wav"), value.count > 4 else {
                throw AudioSinkError("\(Self.usage), not \"\(value)\"")
            }
            self = .wavFile(value)
        }
    }

    /// Opens the sink. A WAV file that cannot be created is an error (the user named it);
    /// a missing or failing player falls back to the next one and finally to silence, logging why.
    public func open(
        environment: [String: String] = ProcessInfo.processInfo.environment,
        log: @escaping (String) -> Void
    ) throws(AudioSinkError) -> any AudioSink {
        switch self {
        case .wavFile(let path): return try WAVFileSink(path: path)
        case .standardOutput: return StandardOutputSink()
        case .none: return NullSink()
        case .systemPlayer:
            let candidates = AudioPlayer.known.compactMap { player -> SinkCandidate? in
                guard let path = player.locate(in: environment) else { return nil }
                return SinkCandidate(name: player.program) { try PlayerSink(player: player, path: path, environment: environment) }
            }
            if candidates.isEmpty {
                log("audio: none of \(AudioPlayer.known.map(\.program).joined(separator: ", ")) is on PATH; audio is off")
            }
            return FallbackSink(candidates, log: log)
        }
    }

    /// `AudioOutput(parsing:)` then `open`: the one call behind `--audio-out`.
    public static func open(
        _ value: String, environment: [String: String] = ProcessInfo.processInfo.environment,
        log: @escaping (String) -> Void
    ) throws(AudioSinkError) -> any AudioSink {
        try AudioOutput(parsing: value).open(environment: environment, log: log)
    }
}
