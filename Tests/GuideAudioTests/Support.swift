import BeaconCore
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

// Property tests replay from their seed through GuideAudio's SplitMix64.

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
