/// One synthesised phrase.
public struct SpokenPhrase: Sendable {
    public var text: String
    /// PCM in `AudioFormat`.
    public var samples: [Int16]
    /// The voice that actually spoke (differs from the requested one after a fallback).
    public var voice: String
    /// Set when the requested voice was not installed and `voice` was used instead.
    public var fallback: VoiceFallback?
    /// Wall-clock time synthesis took, in seconds.
    public var synthesisSeconds: Double

    public var duration: Double { Double(samples.count) / Double(AudioFormat.sampleRate) }

    public init(text: String, samples: [Int16], voice: String, fallback: VoiceFallback?, synthesisSeconds: Double) {
        self.text = text
        self.samples = samples
        self.voice = voice
        self.fallback = fallback
        self.synthesisSeconds = synthesisSeconds
    }
}

/// The requested voice is not installed; another one speaks instead.
public struct VoiceFallback: Equatable, Sendable, CustomStringConvertible {
    public var requested: String
    public var used: String
    public init(requested: String, used: String) {
        self.requested = requested
        self.used = used
    }
    /// A sentence fit to be spoken aloud and logged.
    public var description: String { "Voice \(requested) is not installed. Using voice \(used)." }
}

public struct SpeechError: Error, Equatable, CustomStringConvertible {
    public var description: String
    public init(_ description: String) { self.description = description }
}

/// Text to PCM. The scheduler only needs this, so a different engine could replace espeak-ng.
public protocol SpeechEngine: Sendable {
    /// Synthesises `text` with `voice`, falling back to the engine's default voice when the
    /// requested one is missing (reported in `SpokenPhrase.fallback`, never thrown).
    func synthesize(_ text: String, voice: VoiceSettings) throws(SpeechError) -> SpokenPhrase
    /// Which voice would speak for `name`: nil when it is installed, else the fallback, so the
    /// caller can announce it before the first phrase.
    func resolveVoice(_ name: String) throws(SpeechError) -> VoiceFallback?
}

extension SpeechEngine {
    public func resolveVoice(_ name: String) throws(SpeechError) -> VoiceFallback? { nil }
}
