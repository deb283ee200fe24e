/// Everything GuideAudio renders is 16-bit signed mono PCM at one rate: espeak-ng's own, so
/// speech needs no resampling.
public enum AudioFormat {
    public static let sampleRate = 22_050
    public static let channels = 1
    public static let bitsPerSample = 16
}

/// Where rendered audio goes: a WAV file, raw PCM on stdout, the system player, or nowhere.
/// Sinks are driven from one task at a time (the cue scheduler's), so they need not be Sendable.
public protocol AudioSink: AnyObject {
    /// A short name for logs ("demo.wav", "pw-play", "stdout").
    var name: String { get }
    func write(_ samples: [Int16]) throws
    /// Flushes and releases the sink (finishes the WAV header, waits for the player).
    func close() throws
}
