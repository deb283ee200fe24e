import Foundation
import Testing

/// Runs the built `ridebeacon` binary the way a user would.
enum CLI {
    static let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    /// The binary sits next to the test bundle (`.build/debug/` on Linux, the bundle's parent on macOS).
    static let binary: URL? = {
        let bundle = Bundle.main.bundleURL
        let candidates = [
            bundle.appendingPathComponent("ridebeacon"),
            bundle.deletingLastPathComponent().appendingPathComponent("ridebeacon"),
            Bundle.main.executableURL?.deletingLastPathComponent().appendingPathComponent("ridebeacon"),
            packageRoot.appendingPathComponent(".build/debug/ridebeacon"),
        ]
        return candidates.compactMap { $0 }.first { FileManager.default.isExecutableFile(atPath: $0.path) }
    }()

    struct BinaryNotFound: Error, CustomStringConvertible {
        var description: String { "ridebeacon binary not found next to the test bundle or in .build/debug" }
    }

    struct Result {
        var status: Int32
        var stdout: String
        var stderr: String
    }

    static func run(_ arguments: [String]) throws -> Result {
        let process = Process()
        guard let binary else { throw BinaryNotFound() }
        process.executableURL = binary
        process.arguments = arguments
        process.currentDirectoryURL = packageRoot
        let out = Pipe(), err = Pipe()
        process.standardOutput = out
        process.standardError = err
        try process.run()
        // Read before waiting so a full pipe cannot stall the child.
        let stdout = out.fileHandleForReading.readDataToEndOfFile()
        let stderr = err.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return Result(status: process.terminationStatus, stdout: String(decoding: stdout, as: UTF8.self),
                      stderr: String(decoding: stderr, as: UTF8.self))
    }

    static func fixtureText(_ name: String) throws -> String {
        try String(contentsOf: packageRoot.appendingPathComponent("fixtures/hci/\(name)"), encoding: .utf8)
    }
}

@Suite struct ScanCLITests {
    @Test(arguments: ["scan-h4", "scan-h1"])
    func printsExactlyTheExpectedCSV(fixture: String) throws {
        let result = try CLI.run(["scan", "--btsnoop", "fixtures/hci/\(fixture).btsnoop"])
        #expect(result.status == 0)
        #expect(result.stdout == (try CLI.fixtureText("\(fixture).expected.csv")))
    }

    @Test func summaryLineOnStandardError() throws {
        let result = try CLI.run(["scan", "--btsnoop", "fixtures/hci/scan-h4.btsnoop"])
        #expect(result.stderr == """
            scan: fixtures/hci/scan-h4.btsnoop: 32 records, 14 advertising reports, 10 iBeacon sightings (4 beacons), \
            2 undecodable events, 1 dropped advertisements

            """)
    }

    @Test func uuidFilterIsCaseInsensitive() throws {
        let result = try CLI.run(["scan", "--btsnoop", "fixtures/hci/scan-h4.btsnoop",
                                  "--uuid", "fda50693-a4e2-4fb1-afcf-c6eb07647825"])
        #expect(result.status == 0)
        let expected = try CLI.fixtureText("scan-h4.expected.csv").split(separator: "\n")
            .filter { $0.hasPrefix("t_s") || $0.contains("FDA50693-A4E2-4FB1-AFCF-C6EB07647825") }
        #expect(expected.count == 3)
        #expect(result.stdout == expected.joined(separator: "\n") + "\n")
    }

    @Test func invalidUUIDNamesTheOption() throws {
        let result = try CLI.run(["scan", "--btsnoop", "fixtures/hci/scan-h4.btsnoop", "--uuid", "not-a-uuid"])
        #expect(result.status != 0)
        #expect(result.stderr.contains("--uuid"))
        #expect(result.stdout.isEmpty)
    }

    @Test func badMagicIsOneLineNamingTheFile() throws {
        let result = try CLI.run(["scan", "--btsnoop", "fixtures/hci/bad-magic.btsnoop"])
        #expect(result.status != 0)
        #expect(result.stderr == "ridebeacon: fixtures/hci/bad-magic.btsnoop: byte 0: not a btsnoop file (bad magic)\n")
        #expect(result.stdout.isEmpty)
    }

    @Test func truncatedRecordNamesRecordAndOffset() throws {
        let result = try CLI.run(["scan", "--btsnoop", "fixtures/hci/truncated-record.btsnoop"])
        #expect(result.status != 0)
        #expect(result.stderr == """
            ridebeacon: fixtures/hci/truncated-record.btsnoop: record 3 at byte 73: \
            truncated record (included length 40, 12 bytes left)

            """)
    }

    @Test func unreadableFileIsOneLine() throws {
        let result = try CLI.run(["scan", "--btsnoop", "fixtures/hci/no-such-file.btsnoop"])
        #expect(result.status != 0)
        #expect(result.stderr == "ridebeacon: fixtures/hci/no-such-file.btsnoop: cannot read: No such file or directory\n")
    }

    @Test func withoutACaptureLiveScanningIsNotAvailableYet() throws {
        let result = try CLI.run(["scan"])
        #expect(result.status != 0)
        #expect(result.stderr.contains("live scanning (--radio) is not available yet"))
    }
}
