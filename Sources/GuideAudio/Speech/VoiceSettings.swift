/// How espeak-ng speaks. Ranges are espeak-ng's own limits, so a value that passes validation
/// is one the library accepts.
public struct VoiceSettings: Equatable, Sendable, Codable {
    /// An espeak-ng voice or language name ("en", "en-us", "de", "en+f3"); `espeak-ng --voices` lists them.
    public var voice: String
    /// Words per minute.
    public var rate: Int
    /// 0 (low) ... 99 (high); 50 is the voice's normal pitch.
    public var pitch: Int
    /// Percent of normal; 100 is normal.
    public var volume: Int

    public static let rateRange: ClosedRange<Int> = 80...450
    public static let pitchRange: ClosedRange<Int> = 0...99
    public static let volumeRange: ClosedRange<Int> = 0...200
    public static let standard = VoiceSettings(voice: "en", rate: 175, pitch: 50, volume: 100)

    public init(voice: String, rate: Int, pitch: Int, volume: Int) {
        self.voice = voice
        self.rate = rate
        self.pitch = pitch
        self.volume = volume
    }

    /// The first out-of-range field, named, with the allowed range; nil when all are valid.
    public var validationError: String? {
        if voice.isEmpty || voice.utf8.count > 64 || voice.contains(where: { $0.isWhitespace || $0 == "/" }) {
            return "voice must be an espeak-ng voice name such as \"en\" or \"en-us\", not \"\(voice)\""
        }
        if !Self.rateRange.contains(rate) { return "rate must be \(Self.rateRange.lowerBound)…\(Self.rateRange.upperBound) words per minute, not \(rate)" }
        if !Self.pitchRange.contains(pitch) { return "pitch must be \(Self.pitchRange.lowerBound)…\(Self.pitchRange.upperBound), not \(pitch)" }
        if !Self.volumeRange.contains(volume) { return "volume must be \(Self.volumeRange.lowerBound)…\(Self.volumeRange.upperBound) percent, not \(volume)" }
        return nil
    }
}
