import Foundation
#if canImport(Glibc)
import Glibc
#endif
import RideBeaconTesting
import RideStore
import Testing

/// Every role's journey through the CLI against a real `ridebeacon serve`: sign-in by code, one
/// ride at a time, short codes, the passenger following aloud and by desktop notification,
/// the driver's ETA, saved places and history, dispatchers assigning and cancelling.
@Suite("ridebeacon journeys", .tags(.process), .timeLimit(.minutes(5)))
struct JourneyCLITests {
    func accountID(_ name: String, in service: RideServiceFixture) async throws -> String {
        let listed = try await CLI.run(["admin", "list-accounts", "--database", service.database])
        let row = try #require(listed.stdout.split(separator: "\n").first { $0.split(separator: "\t").dropFirst(2).first == Substring(name) })
        return String(row.split(separator: "\t")[0])
    }

    @Test func aSignInCodeSavesATokenOnlyTheUserCanRead() async throws {
        let service = try await RideServiceFixture()
        let ana = try await accountID("Ana", in: service)
        let invited = try await CLI.run(["admin", "invite", ana, "--database", service.database])
        #expect(invited.status == 0, "\(invited.stderr)")
        let code = invited.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(code.count == 9 && code.filter(\.isNumber).count == 8, "eight digits, two groups: \(code)")

        let environment = service.environment(token: nil)
        // The code never goes on the command line (ps shows it to every user): refused, and
        // nothing is sent, so the code still works afterwards.
        let inArgv = try await CLI.run(["sign-in"] + code.split(separator: " ").map(String.init), environment: environment)
        #expect(inArgv.status != 0 && inArgv.stderrLines.count == 1 && inArgv.stderr.contains("not put the sign-in code on the command line"))
        let directory = try CLI.temporaryDirectory()
        let badFile = directory.appendingPathComponent("bad-code").path
        try "1234\n".write(toFile: badFile, atomically: true, encoding: .utf8)
        let bad = try await CLI.run(["sign-in", "--code-file", badFile], environment: environment)
        #expect(bad.status != 0 && bad.stderrLines.count == 1 && bad.stderr.contains("eight digits"))
        // Typed on standard input.
        let typing = try BackgroundProcess(["sign-in"], environment: environment, interactive: true)
        typing.type(code + "\n")
        #expect(await typing.exitStatus(within: 60) == 0, "\(typing.stderr)")
        #expect(typing.stdout.contains("Signed in as Ana, passenger."), "\(typing.stderr)")
        let settings = service.configHome.appendingPathComponent("ridebeacon/settings.json").path
        let mode = try #require(try FileManager.default.attributesOfItem(atPath: settings)[.posixPermissions] as? Int)
        #expect(mode & 0o077 == 0, "settings with a token are private (mode \(String(mode, radix: 8)))")

        let codeFile = directory.appendingPathComponent("code").path
        try (code + "\n").write(toFile: codeFile, atomically: true, encoding: .utf8)
        let reused = try await CLI.run(["sign-in", "--code-file", codeFile], environment: environment)
        #expect(reused.status != 0 && reused.stderrLines.count == 1 && reused.stderr.contains("This sign-in code was already used"))

        // The saved token works without --token; its own listing marks it.
        let listed = try await CLI.run(["tokens", "list"], environment: environment)
        #expect(listed.status == 0 && listed.stdout.contains("this one"), "\(listed.stderr)")
        #expect(try await CLI.run(["passenger", "places", "add", "home", "Main St 1"], environment: environment).status == 0)
        #expect(try await CLI.run(["passenger", "places", "list"], environment: environment).stdout == "home: Main St 1\n")

        // An operator revokes exactly that device's token; the account's other token still works.
        let tokens = try await CLI.run(["admin", "list-tokens", ana, "--database", service.database]).stdout.split(separator: "\n").dropFirst()
        #expect(tokens.count == 2 && tokens.allSatisfy { $0.hasSuffix("\tactive") }, "\(tokens)")
        let newest = try #require(tokens.first?.split(separator: "\t").first.map(String.init))
        #expect(try await CLI.run(["admin", "revoke-token", ana, newest, "--database", service.database]).stdout == "revoked \(newest)\n")
        // Written to the database by the CLI, not through the server: the server honours it once
        // its second of token reuse has passed (serve --token-cache-seconds, SECURITY.md).
        var refused = try await CLI.run(["passenger", "places", "list"], environment: environment)
        let patience = ContinuousClock.now + .seconds(30)
        while refused.status == 0, ContinuousClock.now < patience {
            try await Task.sleep(for: .milliseconds(200))
            refused = try await CLI.run(["passenger", "places", "list"], environment: environment)
        }
        #expect(refused.status != 0 && refused.stderr.contains("does not know your sign-in"))
        await #expect(try service.run(["passenger", "places", "list"], as: service.passengerToken).status == 0)
    }

    @Test(.enabled(if: NotificationDaemonMock.shouldRun))
    func aPassengerFollowsTheRideAloudAndByNotification() async throws {
        let service = try await RideServiceFixture()
        let bus = try await NotificationDaemonMock()
        defer { bus.stop() }
        await #expect(try service.run(["passenger", "places", "add", "home", "Main St 1"], as: service.passengerToken).status == 0)
        let requested = try await service.run(["passenger", "request", "--from", "home", "--to", "Station"], as: service.passengerToken)
        #expect(requested.status == 0, "\(requested.stderr)")
        let code = requested.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(requested.stderr.contains("from Main St 1 to Station"), "a saved place's name stands for its address")
        let twice = try await service.run(["passenger", "request", "--from", "home", "--to", "Station"], as: service.passengerToken)
        #expect(twice.status != 0 && twice.stderrLines.count == 1 && twice.stderr.contains("You already have ride \(code)"))

        let wav = try CLI.temporaryDirectory().appendingPathComponent("follow.wav").path
        var environment = service.environment(token: service.passengerToken)
        environment["DBUS_SESSION_BUS_ADDRESS"] = bus.address
        let follow = try BackgroundProcess(["passenger", "follow", "--audio-out", wav, "--rate", "300"], environment: environment,
                                           interactive: true)
        #expect(await follow.wait { out, _ in out.contains("Waiting for a driver") }, "\(follow.stderr)")
        let accepted = try await service.run(["driver", "accept", code], as: service.driverToken)
        #expect(accepted.status == 0, "\(accepted.stderr)")
        #expect(await follow.wait { out, _ in out.contains("Ben is on the way. Ben, blue Prius.") }, "\(follow.stdout)\n\(follow.stderr)")
        let eta = try await service.run(["driver", "eta", "7"], as: service.driverToken)
        #expect(eta.status == 0 && eta.stdout.contains("Told Ana: 7 minutes"), "\(eta.stderr)")
        #expect(await follow.wait { out, _ in out.contains("Ben will be there in 7 minutes.") }, "\(follow.stdout)\n\(follow.stderr)")
        follow.type("r\n")
        #expect(await follow.wait { out, _ in out.components(separatedBy: "Ben will be there in 7 minutes.").count == 3 }, "r repeats")
        let shown = bus.notifications().map(\.summary)
        #expect(shown.contains("Ben is on the way") && shown.contains("Ben will be there in 7 minutes"), "\(shown)")

        follow.type("q\n")
        #expect(await follow.exitStatus(within: 60) == 0, "\(follow.stderr)")
        let written = try #require(FileManager.default.contents(atPath: wav))
        #expect(WAVHeader.dataBytes(written) == written.count - 44 && written.count > 44 + 16_000,
                "quitting wrote the spoken announcements (\(written.count) bytes)")
    }

    @Test func theGuideQuitsWhileWaitingAndWritesItsAudioOnCtrlC() async throws {
        let service = try await RideServiceFixture()
        let code = try await service.run(["passenger", "request", "--pickup", "A", "--dropoff", "B"], as: service.passengerToken)
            .stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        let environment = service.environment(token: service.passengerToken)
        let waiting = try BackgroundProcess(["passenger", "guide", "--radio", "sim", "--audio-out", "none"], environment: environment,
                                            interactive: true)
        #expect(await waiting.wait { out, _ in out.contains("Waiting for a driver to accept your request.") }, "\(waiting.stderr)")
        // The other keys are answered while waiting, not held for the guide.
        waiting.type("d\n")
        #expect(await waiting.wait { out, _ in out.contains("No driver has accepted your request yet.") }, "\(waiting.stdout)")
        waiting.type("q\n")
        #expect(await waiting.exitStatus(within: 60) == 130, "q ends the wait: \(waiting.stdout) \(waiting.stderr)")
        #expect(waiting.stdout.contains("Stopped waiting."))

        await #expect(try service.run(["driver", "accept", code], as: service.driverToken).status == 0)
        let wav = try CLI.temporaryDirectory().appendingPathComponent("guide.wav").path
        let guide = try BackgroundProcess(["passenger", "guide", "--radio", "sim", "--audio-out", wav, "--rate", "300"],
                                          environment: environment, interactive: true)
        #expect(await guide.wait { out, _ in out.contains("Your driver is on the way.") }, "\(guide.stderr)")
        guide.signal(SIGINT)
        #expect(await guide.exitStatus(within: 60) != nil, "Ctrl-C quits the guide")
        let written = try #require(FileManager.default.contents(atPath: wav))
        #expect(WAVHeader.dataBytes(written) == written.count - 44 && written.count > 44 + 1000,
                "Ctrl-C still closes the WAV, spoken phrase and header sizes included (\(written.count) bytes)")
    }

    @Test func followStopsOnSIGTERMEvenWhileTheServiceIsUnreachableAndWritesItsAudio() async throws {
        let directory = try CLI.temporaryDirectory()
        let wav = directory.appendingPathComponent("follow.wav").path
        var environment = ProcessInfo.processInfo.environment
        environment["XDG_CONFIG_HOME"] = directory.path
        environment["RIDEBEACON_SERVER"] = "http://127.0.0.1:1"
        environment["RIDEBEACON_TOKEN"] = "rb_" + String(repeating: "x", count: 43)
        let follow = try BackgroundProcess(["passenger", "follow", "--audio-out", wav, "--no-notifications"], environment: environment)
        #expect(await follow.wait { _, err in err.contains("Cannot reach the ride service, retrying") }, "\(follow.stderr)")
        follow.signal(SIGTERM)
        #expect(await follow.exitStatus(within: 60) == 0, "SIGTERM ends follow like q: \(follow.stdout) \(follow.stderr)")
        #expect(follow.stdout.contains("Stopped following."))
        let written = try #require(FileManager.default.contents(atPath: wav))
        #expect(WAVHeader.dataBytes(written) == written.count - 44, "the WAV was closed (\(written.count) bytes)")
    }

    @Test func dispatchersSeeWaitingRequestsAssignAndCancelWithAReason() async throws {
        let service = try await RideServiceFixture()
        let code = try await service.run(["passenger", "request", "--pickup", "Main St 1", "--dropoff", "Station", "--notes", "guide dog"],
                                   as: service.passengerToken).stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        let board = try await service.run(["dispatcher", "rides"], as: service.dispatcherToken)
        #expect(board.stdout.hasPrefix("Waiting requests:\nPASSENGER  REQUEST  "), "\(board.stdout)")
        #expect(board.stdout.split(separator: "\n").contains { PlainTableCells.of($0).starts(with: ["Ana", code, "Main St 1", "Station", "guide dog"]) })

        let ben = try await accountID("Ben", in: service)
        let assigned = try await service.run(["dispatcher", "assign", code, ben], as: service.dispatcherToken)
        #expect(assigned.status == 0 && assigned.stdout == "Ana's ride \(code) is assigned to Ben, blue Prius.\n", "\(assigned.stderr)")
        let active = try await service.run(["dispatcher", "rides"], as: service.dispatcherToken).stdout
        #expect(active.contains("No waiting requests."))
        #expect(active.split(separator: "\n").contains {
            PlainTableCells.of($0).starts(with: ["Ana", "Ben", "blue Prius", "accepted", code, "Main St 1", "guide dog"])
        }, "\(active)")

        let reasonless = try await service.run(["dispatcher", "cancel", code], as: service.dispatcherToken)
        #expect(reasonless.status != 0 && reasonless.stderr.contains("--reason"))
        let cancelled = try await service.run(["dispatcher", "cancel", code, "--reason", "passenger phoned"], as: service.dispatcherToken)
        #expect(cancelled.status == 0 && cancelled.stdout.contains("cancelled: passenger phoned"), "\(cancelled.stderr)")

        let history = try await service.run(["passenger", "rides"], as: service.passengerToken)
        #expect(history.status == 0 && history.stdout.hasSuffix(": from Main St 1 to Station with Ben, blue Prius; cancelled by a dispatcher (passenger phoned).\n"), "\(history.stdout)")
    }
}

/// A plain table row's cells: columns are separated by two or more spaces.
enum PlainTableCells {
    static func of(_ line: Substring) -> [String] {
        line.components(separatedBy: "  ").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
    }
}

enum WAVHeader {
    /// The data chunk's size as the header states it (patched only when the sink is closed).
    static func dataBytes(_ wav: Data) -> Int {
        guard wav.count >= 44 else { return -1 }
        return wav[40..<44].enumerated().reduce(0) { $0 | Int($1.element) << (8 * $1.offset) }
    }
}
