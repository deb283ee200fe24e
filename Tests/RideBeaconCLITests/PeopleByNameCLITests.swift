import Foundation
import RideBeaconTesting
import Testing

/// Issue 25: people by name wherever a command takes one (exact name in any case, else one line
/// asking which one), drivers listed by name and car, and tokens told apart by device name and
/// a short handle that `tokens revoke` takes.
@Suite("ridebeacon: people by name, tokens by device", .tags(.process), .timeLimit(.minutes(5)))
struct PeopleByNameCLITests {
    @Test func adminCommandsTakeANameAndAskWhichOneWhenItIsNotEnough() async throws {
        let service = try await RideServiceFixture()
        let invited = try await CLI.run(["admin", "invite", "ana", "--database", service.database])
        #expect(invited.status == 0 && invited.stdout.filter(\.isNumber).count == 8, "\(invited.stderr)")
        #expect(invited.stderr.contains("Sign-in code for Ana (passenger)"))

        let nobody = try await CLI.run(["admin", "invite", "Anna", "--database", service.database])
        #expect(nobody.status == 1 && nobody.stderrLines.count == 1, "\(nobody.stderr)")
        #expect(nobody.stderr.contains("No account is called Anna; which one? Ana (passenger, "), "\(nobody.stderr)")
        #expect(!nobody.stderr.contains("USAGE"), "no usage text for a name that matched nobody")

        // Two people called Ana: the line lists both with the start of their ids.
        _ = try await LiveServer.run(["admin", "create-account", "--role", "passenger", "--name", "ANA", "--database", service.database])
        let twice = try await CLI.run(["admin", "invite", "Ana", "--database", service.database])
        #expect(twice.status == 1 && twice.stderrLines.count == 1 && twice.stderr.contains("2 accounts are called Ana: "), "\(twice.stderr)")
        #expect(twice.stderr.contains("which one? Give the start of its id, like "))
        let listed = try await CLI.run(["admin", "list-accounts", "--database", service.database]).stdout
        let id = try #require(listed.split(separator: "\n").first { $0.hasSuffix("\tANA\t") }?.split(separator: "\t").first.map(String.init))
        let byStart = try await CLI.run(["admin", "invite", String(id.prefix(6)), "--database", service.database])
        #expect(byStart.status == 0 && byStart.stderr.contains("Sign-in code for ANA (passenger)"), "\(byStart.stderr)")

        #expect(try await CLI.run(["admin", "list-tokens", "Ben", "--database", service.database]).stdout.hasPrefix("id\tdevice\tcreated\tstatus\n"))
        #expect(try await CLI.run(["admin", "revoke-tokens", "dot", "--database", service.database]).stdout == "1\n")
    }

    @Test func aSignInNamesItsDeviceAndRevokeTakesTheHandle() async throws {
        let service = try await RideServiceFixture()
        let environment = service.environment(token: nil)
        let directory = try CLI.temporaryDirectory()
        func signIn(_ extra: [String]) async throws -> CLI.Result {
            let code = try await CLI.run(["admin", "invite", "Ana", "--database", service.database]).stdout
            let file = directory.appendingPathComponent(UUID().uuidString).path
            try code.write(toFile: file, atomically: true, encoding: .utf8)
            return try await CLI.run(["sign-in", "--code-file", file] + extra, environment: environment)
        }
        let blank = try await signIn(["--device", " "])
        #expect(blank.status == 64 && blank.stderrLines.count == 1 && blank.stderr.contains("--device needs a name"), "\(blank.stderr)")
        let long = try await signIn(["--device", String(repeating: "x", count: 101)])
        #expect(long.status == 64 && long.stderr.contains("--device must be at most 100 characters"), "\(long.stderr)")

        await #expect(try signIn(["--device", "Ana's old phone"]).status == 0)
        let laptop = try await signIn([])
        #expect(laptop.status == 0, "\(laptop.stderr)")
        let listed = try await CLI.run(["tokens", "list"], environment: environment)
        #expect(listed.status == 0 && listed.stdout.hasPrefix("TOKEN"), "\(listed.stderr)")
        let rows = listed.stdout.split(separator: "\n").dropFirst()
        let host = ProcessInfo.processInfo.hostName.split(separator: ".").first.map(String.init) ?? ""
        #expect(rows.contains { $0.contains("this one") && $0.contains(host) }, "the default device name is the machine's: \(listed.stdout)")
        let old = try #require(rows.first { $0.contains("Ana's old phone") })
        let handle = String(try #require(old.split(separator: " ").first))
        #expect(handle.count == 6)

        let unknown = try await CLI.run(["tokens", "revoke", "zzzzzz"], environment: environment)
        #expect(unknown.status == 1 && unknown.stderrLines.count == 1 && unknown.stderr.contains("No token is called zzzzzz; which one?"), "\(unknown.stderr)")
        let revoked = try await CLI.run(["tokens", "revoke", handle], environment: environment)
        #expect(revoked.status == 0 && revoked.stdout == "Token \(handle) (Ana's old phone) revoked.\n", "\(revoked.stderr)")
        let byName = try await CLI.run(["tokens", "list"], environment: environment).stdout
        #expect(byName.split(separator: "\n").first { $0.contains("Ana's old phone") }?.hasSuffix("revoked") == true, "\(byName)")
        #expect(try await CLI.run(["tokens", "list"], environment: environment).status == 0, "this device's token still works")
    }

    @Test func dispatchersListDriversAndAssignByName() async throws {
        let service = try await RideServiceFixture()
        _ = try await LiveServer.run(["admin", "create-account", "--role", "driver", "--name", "Cy", "--vehicle", "red Golf", "--database", service.database])
        let requested = try await service.run(["passenger", "request", "--from", "Main St 1", "--to", "Station"], as: service.passengerToken)
        #expect(requested.status == 0, "\(requested.stderr)")
        let code = requested.stdout.trimmingCharacters(in: .whitespacesAndNewlines)

        let drivers = try await service.run(["dispatcher", "drivers"], as: service.dispatcherToken)
        #expect(drivers.status == 0, "\(drivers.stderr)")
        let lines = drivers.stdout.split(separator: "\n")
        #expect(lines.count == 3 && lines[0].hasPrefix("DRIVER") && lines[1].hasPrefix("Ben") && lines[1].contains("blue Prius") && lines[1].hasSuffix("free"),
                "\(drivers.stdout)")

        let typo = try await service.run(["dispatcher", "assign", code, "Bn"], as: service.dispatcherToken)
        #expect(typo.status == 1 && typo.stderrLines.count == 1, "\(typo.stderr)")
        #expect(typo.stderr.contains("No driver is called Bn; which one? Ben (blue Prius, free, ") && typo.stderr.contains("Cy (red Golf, free, "), "\(typo.stderr)")
        await #expect(try service.run(["dispatcher", "drivers", "--free"], as: service.dispatcherToken).stdout.split(separator: "\n").count == 3,
                "nothing was assigned")

        let assigned = try await service.run(["dispatcher", "assign", code, "ben"], as: service.dispatcherToken)
        #expect(assigned.status == 0 && assigned.stdout.contains("is assigned to Ben"), "\(assigned.stderr)")
        let busy = try await service.run(["dispatcher", "drivers", "--free"], as: service.dispatcherToken)
        #expect(busy.stdout.split(separator: "\n").count == 2 && busy.stdout.contains("Cy"), "\(busy.stdout)")
        await #expect(try service.run(["dispatcher", "drivers"], as: service.dispatcherToken).stdout.contains("on ride \(code)"))
        await #expect(try service.run(["dispatcher", "drivers"], as: service.passengerToken).status == 1, "passengers see no driver list")

        // A busy driver, and two drivers of one name: one line each, exit 1, nothing assigned.
        let bea = try await LiveServer.run(["admin", "create-account", "--role", "passenger", "--name", "Bea", "--database", service.database])
            .trimmingCharacters(in: .whitespacesAndNewlines)
        let second = try await service.run(["passenger", "request", "--from", "Elm St 2", "--to", "Airport"], as: bea)
        #expect(second.status == 0, "\(second.stderr)")
        let waiting = second.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        let busyBen = try await service.run(["dispatcher", "assign", waiting, "Ben"], as: service.dispatcherToken)
        #expect(busyBen.status == 1 && busyBen.stderrLines.count == 1 && busyBen.stderr.contains("Ben already has ride \(code); choose a free driver"),
                "\(busyBen.stderr)")
        _ = try await LiveServer.run(["admin", "create-account", "--role", "driver", "--name", "cy", "--vehicle", "green Polo", "--database", service.database])
        let twoCys = try await service.run(["dispatcher", "assign", waiting, "CY"], as: service.dispatcherToken)
        #expect(twoCys.status == 1 && twoCys.stderrLines.count == 1 && twoCys.stderr.contains("2 drivers are called CY: "), "\(twoCys.stderr)")
        #expect(twoCys.stderr.contains("red Golf") && twoCys.stderr.contains("green Polo"))
        await #expect(try service.run(["dispatcher", "drivers", "--free"], as: service.dispatcherToken).stdout.split(separator: "\n").count == 3,
                "both Cys still free")
    }
}
