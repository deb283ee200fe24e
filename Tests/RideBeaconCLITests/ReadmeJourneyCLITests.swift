import Foundation
import RideBeaconTesting
import RideStore
import Testing

/// README's "Each role's journey", run as written (issue 25): names and codes only, no ids and
/// no token copied by hand. Only where the server is differs: the test starts `serve` on port 0
/// (never a port picked beforehand) and the script's `serve` line is left out.
@Suite("README: each role's journey, as written", .tags(.process), .timeLimit(.minutes(5)))
struct ReadmeJourneyCLITests {
    /// The journey's shell block, from README.md.
    static func journey() throws -> String {
        let readme = try String(contentsOf: Repository.root.appendingPathComponent("README.md"), encoding: .utf8)
        let section = try #require(readme.range(of: "### Each role's journey"))
        let rest = readme[section.upperBound...]
        let open = try #require(rest.range(of: "```sh\n"))
        let close = try #require(rest[open.upperBound...].range(of: "\n```"))
        return String(rest[open.upperBound..<close.lowerBound])
    }

    @Test func theJourneyUsesNamesAndCodesOnly() throws {
        let script = try Self.journey()
        #expect(!script.contains("list-accounts") && !script.contains("rb_") && !script.contains("$(account"),
                "no ids looked up, no token copied")
        #expect(script.contains("admin invite Ana |") && script.contains("dispatcher assign $NEXT Ben"))
    }

    @Test func theJourneyRunsAsWritten() async throws {
        let binary = try #require(CLI.binary, "build ridebeacon first")
        let directory = try CLI.temporaryDirectory()
        let database = "sqlite:\(directory.path)/ridebeacon.sqlite"   // what the script's commands default to there
        await (try await StoreLocation.open(database, operationTimeout: StoreKind.testOperationTimeout)).close()   // the schema first: serve and the script's admin commands must not race to migrate
        let server = try await ServeProcess(database: database)
        defer { server.stop() }

        var lines: [String] = []
        for line in try Self.journey().split(separator: "\n", omittingEmptySubsequences: false).map(String.init) {
            if line == "swift build" || line.hasPrefix("$rb serve ") { continue }
            if line.hasPrefix("rb=") { lines.append("rb=\(binary.path)"); continue }
            lines.append(line.replacingOccurrences(of: "http://127.0.0.1:8080", with: server.baseURL))
        }
        // Background jobs (follow, arrive) end with the script.
        let script = "cd \(directory.path)\n" + lines.joined(separator: "\n") + "\nkill $(jobs -p) 2> /dev/null; wait\n"
        var environment = ProcessInfo.processInfo.environment
        for name in ["RIDEBEACON_DATABASE", "RIDEBEACON_TOKEN", "RIDEBEACON_SERVER", "DBUS_SESSION_BUS_ADDRESS"] { environment.removeValue(forKey: name) }
        environment["HOME"] = directory.path
        environment["RIDEBEACON_AUDIT_LOG"] = directory.appendingPathComponent("audit.log").path
        let run = try await ProcessRunner.run(URL(fileURLWithPath: "/usr/bin/timeout"), ["240", "/bin/bash", "-c", script], environment: environment)
        let out = run.stdout
        #expect(run.status == 0, "\(run.stderr)")
        for line in ["Signed in as Ana, passenger.", "Signed in as Ben, driver.", "Signed in as Dot, dispatcher.", "confirmed",
                     "is assigned to Ben", "cancelled: passenger phoned"] {
            #expect(out.contains(line), "\(line)\n\(out)\n\(run.stderr)")
        }
        #expect(run.stderr.contains("You already have"), "the second request is refused, naming the first: \(run.stderr)")
        let tokens = try #require(out.range(of: "TOKEN  "))
        #expect(out[tokens.lowerBound...].contains("Ana's phone") && out[tokens.lowerBound...].contains("this one"), "\(out)")
    }
}
