import Foundation
import RideBeaconTesting
import Testing

/// Issue 23: the claim constants are chosen leave-one-set-out and leave-one-phone-out by
/// `Benchmarks/CarriedRanging/claims.py`. Its scoring (a claim is true when the truth is inside
/// its interval; coverage counts samples beyond 1 m) and its choice (≥ 99 % true on every training
/// unit, most coverage on the worst; the held-out unit never moves it) are pinned by its self-test,
/// which needs no shared data.
@Suite(.tags(.process)) struct ClaimScoringTests {
    @Test func leaveOneOutScoringChoosesOnTheTrainingFoldsOnly() throws {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let script = root.appendingPathComponent("Benchmarks/CarriedRanging/claims.py").path
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", script, "selftest"]
        let output = Pipe()
        process.standardOutput = output
        process.standardError = output
        try process.run()
        let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        #expect(process.terminationStatus == 0, "\(text)")
        #expect(text.contains("selftest: scoring and leave-one-out choice as specified"), "\(text)")
    }
}
