import Foundation
import RideBeaconTesting
import Testing

@Suite(.tags(.process)) struct ScanCLITests {
    @Test(arguments: ["scan-h4", "scan-h1"])
    func printsExactlyTheExpectedCSV(fixture: String) async throws {
        let result = try await CLI.run(["scan", "--btsnoop", "fixtures/hci/\(fixture).btsnoop"])
        #expect(result.status == 0)
        #expect(result.stdout == (try CLI.hciFixtureText("\(fixture).expected.csv")))
    }

    @Test func summaryLineOnStandardError() async throws {
        let result = try await CLI.run(["scan", "--btsnoop", "fixtures/hci/scan-h4.btsnoop"])
        #expect(result.stderr == """
            scan: fixtures/hci/scan-h4.btsnoop: 32 records, 14 advertising reports, 10 iBeacon sightings (4 beacons), \
            2 undecodable events, 1 dropped advertisements

            """)
    }

    @Test func uuidFilterIsCaseInsensitive() async throws {
        let result = try await CLI.run(["scan", "--btsnoop", "fixtures/hci/scan-h4.btsnoop",
                                  "--uuid", "fda50693-a4e2-4fb1-afcf-c6eb07647825"])
        #expect(result.status == 0)
        let expected = try CLI.hciFixtureText("scan-h4.expected.csv").split(separator: "\n")
            .filter { $0.hasPrefix("t_s") || $0.contains("FDA50693-A4E2-4FB1-AFCF-C6EB07647825") }
        #expect(expected.count == 3)
        #expect(result.stdout == expected.joined(separator: "\n") + "\n")
    }

    @Test func invalidUUIDNamesTheOption() async throws {
        let result = try await CLI.run(["scan", "--btsnoop", "fixtures/hci/scan-h4.btsnoop", "--uuid", "not-a-uuid"])
        #expect(result.status != 0)
        #expect(result.stderr.contains("--uuid"))
        #expect(result.stdout.isEmpty)
    }

    @Test func badMagicIsOneLineNamingTheFile() async throws {
        let result = try await CLI.run(["scan", "--btsnoop", "fixtures/hci/bad-magic.btsnoop"])
        #expect(result.status != 0)
        #expect(result.stderr == "ridebeacon: fixtures/hci/bad-magic.btsnoop: byte 0: not a btsnoop file (bad magic)\n")
        #expect(result.stdout.isEmpty)
    }

    @Test func truncatedRecordNamesRecordAndOffset() async throws {
        let result = try await CLI.run(["scan", "--btsnoop", "fixtures/hci/truncated-record.btsnoop"])
        #expect(result.status != 0)
        #expect(result.stderr == """
            ridebeacon: fixtures/hci/truncated-record.btsnoop: record 3 at byte 73: \
            truncated record (included length 40, 12 bytes left)

            """)
    }

    @Test func unreadableFileIsOneLine() async throws {
        let result = try await CLI.run(["scan", "--btsnoop", "fixtures/hci/no-such-file.btsnoop"])
        #expect(result.status != 0)
        #expect(result.stderr == "ridebeacon: fixtures/hci/no-such-file.btsnoop: cannot read: No such file or directory\n")
    }

    @Test func scanNeedsACaptureOrARadio() async throws {
        let result = try await CLI.run(["scan"])
        #expect(result.status != 0)
        #expect(result.stderr.contains("ridebeacon: Give --btsnoop FILE or --radio RADIO."))
    }
}
