import Foundation
@testable import GuideAudio

/// The real espeak-ng engine (the tests need libespeak-ng and its data, as production does).
func espeak() throws -> EspeakSpeech { try EspeakSpeech.shared() }

let sampleRate = Double(AudioFormat.sampleRate)

func seconds(_ samples: Int) -> Double { Double(samples) / sampleRate }

extension CueRecord {
    var isPhrase: Bool { if case .speech = kind { true } else { false } }
    var isPulse: Bool { kind == .earcon(.pulse) }
    var interval: ClosedRange<Double> { (start ?? 0)...(end ?? 0) }
}

extension [CueRecord] {
    var sounded: [CueRecord] { filter { $0.fate == .sounded } }
    var soundedPhrases: [CueRecord] { sounded.filter(\.isPhrase) }
    var soundedTicks: [CueRecord] { sounded.filter(\.isPulse) }
}

/// Small deterministic generator so property tests replay exactly from their seed.
struct SplitMix64: RandomNumberGenerator {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

/// A temporary directory removed when the test ends.
final class TemporaryDirectory {
    let path: String
    init() throws {
        path = NSTemporaryDirectory() + "guideaudio-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    }
    deinit { try? FileManager.default.removeItem(atPath: path) }

    /// Writes an executable shell script named `name`.
    func script(_ name: String, _ body: String) throws {
        let file = "\(path)/\(name)"
        try ("#!/bin/sh\n" + body + "\n").write(toFile: file, atomically: true, encoding: .utf8)
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: file)
    }
}
