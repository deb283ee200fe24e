import AsyncHTTPClient
import Foundation
import RideServer
import RideStore
import RideBeaconTesting
import Testing

/// The `ridebeacon` binary as operators and scripts use it.
@Suite("ridebeacon admin and serve", .tags(.process), .timeLimit(.minutes(2)))
struct AdminAndServeCLITests {
    @Test func createAccountPrintsOnlyTheTokenAndItWorks() async throws {
        let database = try temporaryDatabase()
        let created = try await CLI.run(["admin", "create-account", "--role", "driver", "--name", "Ben", "--vehicle", "blue Prius", "--database", database])
        #expect(created.status == 0)
        let lines = created.stdout.split(separator: "\n")
        #expect(lines.count == 1)
        let token = String(lines.first ?? "")
        #expect(token.wholeMatch(of: /rb_[A-Za-z0-9_-]{43}/) != nil)
        #expect(created.stderr.contains("Created the driver account for"))

        let store = try await StoreLocation.open(database, operationTimeout: StoreKind.testOperationTimeout)
        let secret = try #require(APITokenSecret(presented: token))
        let account = try #require(try await store.authenticate(secretHash: secret.hash))
        #expect(account.role == .driver && account.displayName == "Ben" && account.vehicle == "blue Prius")

        let listed = try await CLI.run(["admin", "list-accounts", "--database", database])
        #expect(listed.stdout.split(separator: "\n").dropFirst().map(String.init) == ["\(account.id)\tdriver\tBen\tblue Prius"])

        let revoked = try await CLI.run(["admin", "revoke-tokens", account.id, "--database", database])
        #expect(revoked.status == 0 && revoked.stdout == "1\n")
        #expect(try await store.authenticate(secretHash: secret.hash) == nil)
        await store.close()
    }

    /// Issue 37, point 10: run in the wrong folder, an admin command said "ride not found"
    /// from an empty database it had just made. Now every command but `create-account` refuses
    /// a database that is not there, names it, and leaves no file behind.
    @Test func adminCommandsRefuseADatabaseThatIsNotThere() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("rb-absent-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let path = folder + "/ridebeacon.sqlite"
        for command in [["confirm-ride", "R1"], ["list-accounts"], ["revoke-tokens", "A1"], ["invite", "A1"], ["purge-locations"]] {
            let run = try await CLI.run(["admin"] + command + ["--database", "sqlite:" + path])
            #expect(run.status != 0, "\(command)")
            #expect(run.stderr.contains("there is no database at \(path)"), "\(command): \(run.stderr)")
            #expect(!FileManager.default.fileExists(atPath: path), "\(command) made the database")
        }
        let created = try await CLI.run(["admin", "create-account", "--role", "admin", "--name", "Ada", "--database", "sqlite:" + path])
        #expect(created.status == 0 && created.stderr.contains("creating a new one"))
        #expect(FileManager.default.fileExists(atPath: path))
        #expect(try await CLI.run(["admin", "list-accounts", "--database", "sqlite:" + path]).status == 0)
    }

    /// Issue 37, point 12: an admin's sentences in the device's language (here the system's
    /// locale, French; nothing saved): the new database, the account made, a refused flag.
    /// The token on stdout is unchanged.
    @Test func adminSentencesFollowTheDevicesLanguage() async throws {
        var environment = ProcessInfo.processInfo.environment
        environment["XDG_CONFIG_HOME"] = try CLI.temporaryDirectory().path
        environment["LC_ALL"] = "fr_FR.UTF-8"
        let path = try CLI.temporaryDirectory().path + "/ridebeacon.sqlite"
        let created = try await CLI.run(["admin", "create-account", "--role", "driver", "--name", "Ben", "--database", "sqlite:" + path],
                                        environment: environment)
        #expect(created.status == 0 && created.stdout.hasPrefix("rb_"), "\(created.stderr)")
        #expect(created.stderr.contains("pas encore de base de données à \(path)"), "\(created.stderr)")
        #expect(created.stderr.contains("Création du compte chauffeur pour Ben : son jeton suit"), "\(created.stderr)")
        #expect(!created.stderr.contains("Created the") && !created.stderr.contains("creating a new one"), "\(created.stderr)")
        let refused = try await CLI.run(["admin", "create-account", "--role", "passenger", "--name", "Ana", "--plate", "AB1",
                                         "--database", "sqlite:" + path], environment: environment)
        #expect(refused.status != 0 && refused.stderr.contains("réservés aux comptes chauffeur"), "\(refused.stderr)")
    }

    @Test func tokensCanBeMadeToExpire() async throws {
        let database = try temporaryDatabase()
        let created = try await CLI.run(["admin", "create-account", "--role", "dispatcher", "--name", "Dot", "--expires-in-days", "2", "--database", database])
        #expect(created.status == 0)
        let store = try await StoreLocation.open(database, operationTimeout: StoreKind.testOperationTimeout)
        let secret = try #require(APITokenSecret(presented: created.stdout.trimmingCharacters(in: .whitespacesAndNewlines)))
        let account = try #require(try await store.authenticate(secretHash: secret.hash))
        #expect(account.role == .dispatcher)
        // Expiry semantics are the store contract's (expired = refused); here: the option's bounds.
        let again = try await CLI.run(["admin", "create-token", account.id, "--expires-in-days", "0", "--database", database])
        #expect(again.status != 0 && again.stderr.contains("--expires-in-days must be 1 to 3650"))
        await store.close()
    }

    /// Issue 36 (8): every token expires by policy; an admin-issued one without
    /// `--expires-in-days` lasted until revoked.
    @Test func adminIssuedTokensExpireByPolicy() async throws {
        let database = try temporaryDatabase()
        let created = try await CLI.run(["admin", "create-account", "--role", "driver", "--name", "Ben", "--vehicle", "blue Prius", "--database", database])
        #expect(created.status == 0, "\(created.stderr)")
        let store = try await StoreLocation.open(database, operationTimeout: StoreKind.testOperationTimeout)
        let secret = try #require(APITokenSecret(presented: created.stdout.trimmingCharacters(in: .whitespacesAndNewlines)))
        let account = try #require(try await store.authenticate(secretHash: secret.hash))
        let another = try await CLI.run(["admin", "create-token", account.id, "--database", database])
        #expect(another.status == 0, "\(another.stderr)")
        let tokens = try await store.tokens(accountID: account.id)
        #expect(tokens.count == 2)
        for token in tokens {
            let expires = try #require(token.expiresAt, "a token without expiry")
            #expect(abs(expires.timeIntervalSinceNow - 365 * 86_400) < 600)
        }
        await store.close()
    }

    @Test func badInputIsOneLineAndNonZero() async throws {
        let database = try temporaryDatabase()
        let role = try await CLI.run(["admin", "create-account", "--role", "pilot", "--name", "X", "--database", database])
        #expect(role.status != 0 && role.stdout.isEmpty && role.stderr.contains("--role must be one of"))
        let vehicle = try await CLI.run(["admin", "create-account", "--role", "passenger", "--name", "X", "--vehicle", "van", "--database", database])
        #expect(vehicle.status != 0 && vehicle.stderr.contains("--vehicle is for drivers only"))
        #expect(try await CLI.run(["admin", "create-account", "--role", "passenger", "--name", "Ana", "--database", database]).status == 0)
        let unknown = try await CLI.run(["admin", "revoke-tokens", "nobody", "--database", database])
        #expect(unknown.status != 0 && unknown.stderr.contains("No account is called nobody; which one? Ana"))
        let badDatabase = try await CLI.run(["admin", "list-accounts", "--database", "mysql://x"])
        #expect(badDatabase.status != 0 && badDatabase.stderr.contains("sqlite:PATH or postgres://"))
    }

    /// The real server: starts, answers, and on SIGTERM ends its open event stream and exits 0.
    @Test func serveAnswersAndStopsGracefullyOnSIGTERM() async throws {
        let database = try temporaryDatabase()
        let token = try await CLI.run(["admin", "create-account", "--role", "dispatcher", "--name", "Dot", "--database", database])
            .stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        let server = try await ServeProcess(database: database)
        let port = server.port
        let health = try await HTTPClient.shared.execute(HTTPClientRequest(url: "http://127.0.0.1:\(port)/health"), timeout: .seconds(30))
        #expect(health.status == .ok)

        var streamRequest = HTTPClientRequest(url: "http://127.0.0.1:\(port)/v1/events")
        streamRequest.headers.add(name: "Authorization", value: "Bearer \(token)")
        let stream = try await HTTPClient.shared.execute(streamRequest, timeout: .seconds(30))
        #expect(stream.status == .ok)
        let reader = Task { () -> String in
            var text = ""
            do { for try await chunk in stream.body { text += String(buffer: chunk) } } catch {}
            return text
        }

        server.process.signal(SIGTERM)
        #expect(await server.process.exitStatus(within: 10) == 0)
        #expect(await reader.value.hasPrefix("retry:"))
        let lines = try String(contentsOf: server.log, encoding: .utf8)
        #expect(lines.contains(#""msg":"stopped""#))
        // By default its tasks ran on NIO's event loops (issue 39), checked by a task in the process.
        #expect(lines.contains(#""threads":"event-loops""#) && lines.contains(#""tasks_on_event_loops":"true""#), "\(lines)")
        #expect(!lines.contains("refused NIO's event loops"))
    }

    /// `--threads swift-pool` keeps Swift's cooperative pool (the comparison the benchmark makes)
    /// and still serves.
    @Test func serveOnSwiftsOwnPoolAnswersToo() async throws {
        let server = try await ServeProcess(database: try temporaryDatabase(), extraArguments: ["--threads", "swift-pool"])
        let health = try await HTTPClient.shared.execute(HTTPClientRequest(url: "\(server.baseURL)/health"), timeout: .seconds(30))
        #expect(health.status == .ok)
        server.process.signal(SIGTERM)
        #expect(await server.process.exitStatus(within: 10) == 0)
        let lines = try String(contentsOf: server.log, encoding: .utf8)
        #expect(lines.contains(#""threads":"swift-pool""#) && lines.contains(#""tasks_on_event_loops":"false""#), "\(lines)")
    }

    /// The choice is read before ArgumentParser runs (it must be made before any task starts).
    @Test func theThreadsChoiceIsReadFromServesArguments() {
        #expect(ServerThreads.chosen(in: ["--port", "0"]) == .eventLoops)
        #expect(ServerThreads.chosen(in: ["--threads", "swift-pool", "--port", "0"]) == .swiftPool)
        #expect(ServerThreads.chosen(in: ["--threads=swift-pool"]) == .swiftPool)
        #expect(ServerThreads.chosen(in: ["--threads", "swift-pool", "--threads", "event-loops"]) == .eventLoops)
        #expect(ServerThreads.chosen(in: ["--threads", "fibers"]) == nil)
        #expect(ServerThreads.chosen(in: ["--threads"]) == nil)
    }
}

/// A SQLite database in a new temporary directory, as a `--database` value.
func temporaryDatabase() throws -> String { try StoreKind.sqliteDatabase(prefix: "cli") }
