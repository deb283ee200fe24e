import Foundation
import RideBeaconTesting
import RideStore
import Testing

/// Issue 25: every bad input gets one sentence a person can act on and a fitting exit status
/// (64 for usage, 1 otherwise); the service's codes only with --verbose; messages from the
/// passenger to her driver; history that says who cancelled and why; the car with its plate.
@Suite("ridebeacon in plain words", .tags(.process), .timeLimit(.minutes(3)))
struct PlainWordsCLITests {
    /// One line on stderr, exactly `sentence` after the program's name, and `status`.
    static func expectSentence(_ result: CLI.Result, _ sentence: String, status: Int32, sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(result.status == status, "exit \(result.status): \(result.stderr)", sourceLocation: sourceLocation)
        #expect(result.stderrLines == ["ridebeacon: \(sentence)"], sourceLocation: sourceLocation)
        #expect(!result.stderr.contains("Usage:") && !result.stderr.contains("CommandLineFailure"), sourceLocation: sourceLocation)
    }

    /// Issue 37 (15): without a token the way in is the sign-in a newcomer was given, not a
    /// settings command for a token she does not have.
    @Test func notSignedInSaysHowToSignIn() async throws {
        let environment = ["PATH": "/usr/bin:/bin", "XDG_CONFIG_HOME": try CLI.temporaryDirectory().path,
                           "RIDEBEACON_SERVER": "http://127.0.0.1:9"]
        let run = try await CLI.run(["passenger", "rides"], environment: environment)
        #expect(run.status != 0 && run.stderrLines.count == 1, "\(run.stderr)")
        #expect(run.stderr.contains("not signed in") && run.stderr.contains("run `ridebeacon sign-in`"), "\(run.stderr)")
        #expect(!run.stderr.contains("settings set --token"))
    }

    @Test func argumentMistakesNameTheRealProblem() async throws {
        let environment = ["PATH": "/usr/bin:/bin", "XDG_CONFIG_HOME": try CLI.temporaryDirectory().path]
        Self.expectSentence(try await CLI.run(["driver", "eta", "-3"], environment: environment),
                            "MINUTES cannot be negative (you gave -3).", status: 64)
        Self.expectSentence(try await CLI.run(["passenger", "request", "--form", "Main St 1", "--dropoff", "Station"], environment: environment),
                            "There is no option --form; did you mean --from?", status: 64)
        Self.expectSentence(try await CLI.run(["demo", "--start-distance", "-5"], environment: environment),
                            "--start-distance cannot be negative (you gave -5).", status: 64)
        Self.expectSentence(try await CLI.run(["passenger", "request", "--dropoff", "Station"], environment: environment),
                            "This command needs --pickup PLACE; run it with --help to see what it takes.", status: 64)
        Self.expectSentence(try await CLI.run(["driver", "eta", "soon"], environment: environment),
                            "'soon' is not a valid MINUTES; run the command with --help to see what it takes.", status: 64)
        Self.expectSentence(try await CLI.run(["driver", "eta", "300"], environment: environment), "MINUTES must be 0 to 240, not 300.", status: 64)
        Self.expectSentence(try await CLI.run(["passenger", "nosuch"], environment: environment),
                            "'nosuch' is not something this command takes; run it with --help to see what it takes.", status: 64)
        let audio = try await CLI.run(["demo", "--audio-out", "/nonexistent/x.wav"], environment: environment)
        #expect(audio.status == 1 && audio.stderrLines.count == 1 && audio.stderr.hasPrefix("ridebeacon: /nonexistent/x.wav"), "\(audio.stderr)")
        #expect(!audio.stderr.contains("CommandLineFailure") && !audio.stderr.contains("Error:"))
        Self.expectSentence(try await CLI.run(["passenger", "message", "--preset", "nope"], environment: environment),
                            "There is no ready message called \"nope\"; choose one of at_main_entrance, guide_dog, hard_of_hearing, "
                                + "waiting_outside, need_more_time, please_call_out, wheelchair.", status: 64)
        Self.expectSentence(try await CLI.run(["passenger", "message", String(repeating: "a", count: 161)], environment: environment),
                            "The message is 161 characters long; keep it to 160.", status: 64)
        Self.expectSentence(try await CLI.run(["admin", "create-account", "--role", "driver", "--name", "Ben", "--model", "Prius",
                                         "--plate", "AB_12", "--database", try StoreKind.sqliteDatabase()], environment: environment),
                            "--plate must be 1 to 12 letters, digits, spaces and hyphens, e.g. \"AB12 CDE\".", status: 64)
    }

    /// The down server's answer: one sentence, exit 1, after one connect attempt (the client's
    /// tests check it is not retried); nothing was sent, so nothing was written.
    @Test func aDownServerIsOneSentenceAndNothingIsWritten() async throws {
        let service = try await RideServiceFixture()
        var environment = service.environment(token: service.passengerToken, server: "http://127.0.0.1:1")
        for command in [["passenger", "rides"], ["passenger", "request", "--pickup", "A", "--dropoff", "B"]] {
            Self.expectSentence(try await CLI.run(command, environment: environment),
                                "The ride service at http://127.0.0.1:1 is not answering. Check your connection; nothing was sent.", status: 1)
        }
        environment["RIDEBEACON_SERVER"] = service.url
        #expect(try await CLI.run(["passenger", "rides"], environment: environment).stdout == "No rides yet.\n", "nothing was written")
    }

    /// No notification service: one plain sentence, not the D-Bus error (which --verbose adds).
    @Test func followWithoutANotificationServiceSaysSoPlainly() async throws {
        let service = try await RideServiceFixture()
        var environment = service.environment(token: service.passengerToken)
        environment["DBUS_SESSION_BUS_ADDRESS"] = "unix:path=/nonexistent/ridebeacon-session-bus"
        _ = try await service.run(["passenger", "request", "--pickup", "A", "--dropoff", "B"], as: service.passengerToken)
        let follow = try BackgroundProcess(["passenger", "follow", "--radio", "none", "--audio-out", "none"], environment: environment)
        defer { follow.stop() }
        #expect(await follow.wait { out, _ in out.contains("Waiting for a driver") }, "\(follow.stderr)")
        // --audio-out none: nothing is spoken, so the sentence says printed only (issue 37, point 13).
        #expect(follow.stdout.contains("No sound and no desktop notifications here: every change is printed only."), "\(follow.stdout)")
        #expect(!follow.stdout.contains("spoken") && !follow.stderr.contains("spoken"), "\(follow.stdout)\n\(follow.stderr)")
        #expect(!follow.stderr.contains("org.freedesktop.DBus") && !follow.stderr.contains("socket"), "\(follow.stderr)")
    }

    /// The service's refusals: the field in words, no code; the code with --verbose.
    @Test func theServicesRefusalsAreSentencesWithTheCodeOnlyWhenVerbose() async throws {
        let service = try await RideServiceFixture()
        let notes = String(repeating: "n", count: 501)
        let refused = try await service.run(["passenger", "request", "--pickup", "A", "--dropoff", "B", "--notes", notes], as: service.passengerToken)
        #expect(refused.status == 1 && refused.stderrLines.count == 1, "\(refused.stderr)")
        #expect(refused.stderr.hasPrefix("ridebeacon: The notes for the driver must be at most 500 characters"), "\(refused.stderr)")
        #expect(!refused.stderr.contains("invalid_field") && !refused.stderr.contains("accessibilityNotes"))
        let verbose = try await service.run(["passenger", "request", "--pickup", "A", "--dropoff", "B", "--notes", notes, "--verbose"],
                                      as: service.passengerToken)
        #expect(verbose.status == 1 && verbose.stderrLines.count == 1)
        #expect(verbose.stderr.contains("(invalid_field, field accessibilityNotes, HTTP 400)"), "\(verbose.stderr)")
        let json = try await service.run(["passenger", "request", "--pickup", "A", "--dropoff", "B", "--notes", notes, "--json-errors"],
                                   as: service.passengerToken)
        let object = try JSONSerialization.jsonObject(with: Data(json.stderr.utf8)) as? [String: [String: Any]]
        #expect(json.status == 1 && object?["error"]?["code"] as? String == "invalid_field" && object?["error"]?["field"] as? String == "accessibilityNotes"
                && object?["error"]?["status"] as? Int == 400, "\(json.stderr)")
        #expect((object?["error"]?["sentence"] as? String)?.hasPrefix("The notes for the driver must be at most 500 characters") == true)
        let missing = try await service.run(["driver", "accept", "KKKK"], as: service.driverToken)
        #expect(missing.status == 1 && missing.stderrLines.count == 1 && !missing.stderr.contains("not_found"), "\(missing.stderr)")
        #expect(missing.stderr.hasPrefix("ridebeacon: ") && missing.stderr.contains("Check the code"))
    }

    /// A passenger tells her driver something once he accepted; before that, one sentence.
    @Test func messagesReachTheDriversStreamOnlyAfterAcceptance() async throws {
        let service = try await RideServiceFixture()
        let code = try await service.run(["passenger", "request", "--pickup", "Main St 1", "--dropoff", "Station"], as: service.passengerToken)
            .stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        await Self.expectSentence(try service.run(["passenger", "message", "--preset", "guide_dog"], as: service.passengerToken),
                            "You have no ride a driver has accepted yet; messages can be sent once one has.", status: 1)
        await #expect(try service.run(["driver", "accept", code], as: service.driverToken).status == 0)
        let sent = try await service.run(["passenger", "message", "--preset", "hard_of_hearing"], as: service.passengerToken)
        #expect(sent.status == 0 && sent.stdout == "Sent to your driver: I'm hard of hearing, please text.\n", "\(sent.stderr)")
        let own = try await service.run(["passenger", "message", "By the blue door"], as: service.passengerToken)
        #expect(own.status == 0 && own.stdout == "Sent to your driver: By the blue door\n")
        let messages = try await service.events(code).filter { $0.kind == .passengerMessage }
        #expect(messages.map(\.detail) == ["I'm hard of hearing, please text.", "By the blue door"])
        #expect(messages.allSatisfy { $0.state == .accepted })
        #expect(messages.first?.passengerMessage?.preset == .hardOfHearing && messages.last?.passengerMessage?.preset == nil)

        // The API: exactly one of preset and text; the driver may not; a finished ride may not.
        let rideID = try #require(try await service.events(code).compactMap(\.rideID).first)
        let (both, _) = try await service.post("/v1/rides/\(rideID)/messages", json: #"{"preset":"guide_dog","text":"x"}"#, as: service.passengerToken)
        let (controls, _) = try await service.post("/v1/rides/\(rideID)/messages", json: #"{"text":"a\u0007b"}"#, as: service.passengerToken)
        let (byDriver, _) = try await service.post("/v1/rides/\(rideID)/messages", json: #"{"preset":"guide_dog"}"#, as: service.driverToken)
        #expect(both == 400 && controls == 400 && byDriver == 403)
        await #expect(try service.run(["passenger", "cancel"], as: service.passengerToken).status == 0)
        let (late, body) = try await service.post("/v1/rides/\(rideID)/messages", json: #"{"preset":"guide_dog"}"#, as: service.passengerToken)
        #expect(late == 409 && (body["error"] as? [String: Any])?["state"] as? String == "cancelled")
        #expect(try await service.events(code).filter { $0.kind == .passengerMessage }.count == 2, "refused messages change nothing")
    }

    /// A ride a dispatcher cancels: follow says who and why, Enter asks for the same ride again,
    /// and follow goes on with the new request.
    @Test func followSaysWhoCancelledAndAsksAgainOnEnter() async throws {
        let service = try await RideServiceFixture()
        let code = try await service.run(["passenger", "request", "--pickup", "Main St 1", "--dropoff", "Station", "--notes", "guide dog"],
                                   as: service.passengerToken).stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        await #expect(try service.run(["driver", "accept", code], as: service.driverToken).status == 0)
        let follow = try BackgroundProcess(["passenger", "follow", "--radio", "none", "--audio-out", "none", "--no-notifications"],
                                           environment: service.environment(token: service.passengerToken), interactive: true)
        defer { follow.stop() }
        #expect(await follow.wait { out, _ in out.contains("Ben is on the way") }, "\(follow.stdout)\n\(follow.stderr)")
        await #expect(try service.run(["dispatcher", "cancel", code, "--reason", "driver unwell"], as: service.dispatcherToken).status == 0)
        #expect(await follow.wait { out, _ in
            out.contains("Cancelled by a dispatcher: driver unwell.") && out.contains("Press Enter to ask for the same ride again, or q to stop.")
        }, "\(follow.stdout)\n\(follow.stderr)")
        follow.type("\n")
        #expect(await follow.wait { out, _ in out.contains("Asked again: request ") && out.contains("from Main St 1 to Station.") },
                "\(follow.stdout)\n\(follow.stderr)")
        let store = try await StoreLocation.open(service.database, operationTimeout: StoreKind.testOperationTimeout)
        let passengerID = try #require(try await store.accounts().first { $0.displayName == "Ana" }?.id)
        let requests = try await store.rideRequests(passengerID: passengerID)
        await store.close()
        #expect(requests.count == 2 && requests.last?.status == .open && requests.last?.accessibilityNotes == "guide dog")
        follow.type("q\n")
        #expect(await follow.exitStatus(within: 60) == 0, "\(follow.stderr)")
    }

    /// `passenger rides` says who cancelled and why.
    @Test func historySaysWhoCancelledAndWhy() async throws {
        let service = try await RideServiceFixture()
        let code = try await service.run(["passenger", "request", "--pickup", "Main St 1", "--dropoff", "Station"], as: service.passengerToken)
            .stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        await #expect(try service.run(["dispatcher", "cancel", code, "--reason", "no drivers tonight"], as: service.dispatcherToken).status == 0)
        let second = try await service.run(["passenger", "request", "--pickup", "Elm 2", "--dropoff", "Park"], as: service.passengerToken)
            .stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        await #expect(try service.run(["driver", "accept", second], as: service.driverToken).status == 0)
        await #expect(try service.run(["passenger", "cancel"], as: service.passengerToken).status == 0)
        let history = try await service.run(["passenger", "rides"], as: service.passengerToken)
        #expect(history.status == 0)
        let lines = history.stdout.split(separator: "\n")
        #expect(lines.count == 2, "\(history.stdout)")
        #expect(lines.contains { $0.hasSuffix("from Main St 1 to Station, request cancelled by a dispatcher (no drivers tonight) before a driver took it.") },
                "\(history.stdout)")
        #expect(lines.contains { $0.hasSuffix("from Elm 2 to Park with Ben, blue Prius; cancelled by you.") }, "\(history.stdout)")
    }

    /// Issue 37 (smaller points): a passenger who runs `driver requests` is told it is a
    /// driver's command and where her own rides are, not "No open ride requests.".
    @Test func aPassengerRunningDriverRequestsIsToldItIsADriversCommand() async throws {
        let service = try await RideServiceFixture()
        Self.expectSentence(try await service.run(["driver", "requests"], as: service.passengerToken),
                            "`driver requests` is for drivers: it lists requests waiting for one. Your own rides and requests: `ridebeacon passenger rides`.",
                            status: 1)
        let driver = try await service.run(["driver", "requests"], as: service.driverToken)
        #expect(driver.status == 0 && driver.stdout.contains("No waiting requests."), "\(driver.stderr)")
    }

    /// Issue 37 (point 12): an account in Spanish (or French) gets its failures and one-shot
    /// lines in it on a device that saved no language, the service's refusals included.
    @Test func theAccountsLanguageSaysTheFailures() async throws {
        let service = try await RideServiceFixture()
        for (token, language) in [(service.passengerToken, "es"), (service.driverToken, "fr")] {
            var elsewhere = service.environment(token: token)
            elsewhere["XDG_CONFIG_HOME"] = try CLI.temporaryDirectory().path
            let chosen = try await CLI.run(["settings", "set", "--language", language], environment: elsewhere)
            #expect(chosen.status == 0, "\(chosen.stderr)")
        }
        Self.expectSentence(try await service.run(["passenger", "cancel"], as: service.passengerToken),
                            "No tienes ninguna solicitud abierta ni ningún viaje en curso que cancelar.", status: 1)
        let requested = try await service.run(["passenger", "request", "--pickup", "Main St 1", "--dropoff", "Station"], as: service.passengerToken)
        let code = requested.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(requested.status == 0 && requested.stderr == "Viaje pedido de Main St 1 a Station, código \(code). Esperando a un conductor.\n",
                "\(requested.stderr)")
        // The service's own refusal (its words are English): said in French, by its code.
        let missing = try await service.run(["driver", "accept", "KKKK"], as: service.driverToken)
        #expect(missing.status == 1 && missing.stderrLines.count == 1, "\(missing.stderr)")
        #expect(missing.stderr.hasPrefix("ridebeacon: Le service de courses n'a ni cette course ni cette demande à votre nom."), "\(missing.stderr)")
        #expect(!missing.stderr.contains("not found"), "\(missing.stderr)")
        Self.expectSentence(try await service.run(["driver", "eta", "5"], as: service.driverToken),
                            "Vous n'avez aucune course acceptée ; acceptez-en une avec `ridebeacon driver accept CODE`.", status: 1)
    }
}
