import Foundation
import RideBeaconTesting
import RideStore
import Testing

/// The role commands against a real `ridebeacon serve`, as passengers, drivers and dispatchers use them.
@Suite("ridebeacon passenger, driver, dispatcher", .tags(.process), .timeLimit(.minutes(3)))
struct RoleCLITests {
    /// Characters a screen reader reads out as noise: box drawing, blocks, ANSI escapes.
    static func isPlain(_ text: String) -> Bool {
        !text.unicodeScalars.contains { (0x2500...0x259F).contains($0.value) || $0.value == 0x1B }
    }

    @Test func requestAcceptArriveConfirmCompleteOnTheSimRadio() async throws {
        let service = try await RideServiceFixture()
        let requested = try await service.run(["passenger", "request", "--name", "Ana", "--pickup", "Main St 1", "--dropoff", "Station"],
                                        as: service.passengerToken)
        #expect(requested.status == 0, "\(requested.stderr)")
        let requestID = requested.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(ShortCode.normalized(requestID) == requestID, "the request's short code, not a UUID: \(requestID)")

        let open = try await service.run(["driver", "requests"], as: service.driverToken)
        #expect(open.status == 0)
        let lines = open.stdout.split(separator: "\n")
        #expect(lines.first?.hasPrefix("PASSENGER  REQUEST  ") == true)
        let row = try #require(lines.first { $0.hasPrefix("Ana  ") })
        #expect(row.contains("  \(requestID)  ") && row.contains("  Main St 1  ") && row.contains("  Station  "))
        #expect(Self.isPlain(open.stdout))

        let accepted = try await service.run(["driver", "accept", requestID], as: service.driverToken)
        #expect(accepted.status == 0, "\(accepted.stderr)")
        let rideID = accepted.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(rideID == requestID, "a ride keeps its request's code")
        #expect(accepted.stderr.contains("driver arrive \(rideID) --radio"), "the hint is a command that works")
        let again = try await service.run(["driver", "accept", requestID], as: service.driverToken)
        #expect(again.status == 0 && again.stdout == accepted.stdout, "re-accepting gives the same ride back: \(again.stderr)")

        let arrive = try BackgroundProcess(["driver", "arrive", rideID, "--radio", "sim", "--identity-period", "10", "--auto-confirm"],
                                           environment: service.environment(token: service.driverToken))
        // The beacon's ids only with --verbose (issue 25): a plain sentence instead.
        #expect(await arrive.wait { _, err in err.contains("Your device is now sending this ride's signal") }, "\(arrive.stderr)")
        #expect(!arrive.stderr.contains("advertising driver identity") && !arrive.stderr.contains("major"))
        #expect(arrive.stdout.contains("Arrived. Ride \(rideID) for Ana."))

        let board = try await service.run(["dispatcher", "rides"], as: service.dispatcherToken)
        #expect(board.status == 0 && Self.isPlain(board.stdout))
        let boardRow = try #require(board.stdout.split(separator: "\n").first { $0.hasPrefix("Ana  ") && $0.contains("  \(rideID)  ") })
        #expect(boardRow.contains("  arrived  ") && boardRow.contains("  Ben  ") && boardRow.contains("  blue Prius  "))
        #expect(boardRow.contains("  Main St 1  "), "active rides show their pickup")

        // The operator's confirmation reaches the driver's event stream and ends `arrive`.
        let confirmed = try await CLI.run(["admin", "confirm-ride", rideID, "--database", service.database])
        #expect(confirmed.status == 0, "\(confirmed.stderr)")
        #expect(await arrive.exitStatus() == 0, "\(arrive.stderr)")
        #expect(arrive.stdout.contains("Ride confirmed."))

        let completed = try await service.run(["driver", "complete", rideID], as: service.driverToken)
        #expect(completed.status == 0 && completed.stdout.contains("completed"))
        let empty = try await service.run(["dispatcher", "rides"], as: service.dispatcherToken)
        #expect(empty.stdout == "No waiting requests.\n\nNo active rides.\n")
    }

    /// Issue 37, point 12: a Spanish dispatcher's one-shot commands speak Spanish, by the same
    /// rule as the other commands (here her account's language, chosen on another device).
    @Test func aSpanishDispatchersDriverListAndBoardAreSpanish() async throws {
        let service = try await RideServiceFixture()
        var elsewhere = service.environment(token: service.dispatcherToken)
        elsewhere["XDG_CONFIG_HOME"] = try CLI.temporaryDirectory().path
        #expect(try await CLI.run(["settings", "set", "--language", "es"], environment: elsewhere).status == 0)
        let free = try await service.run(["dispatcher", "drivers"], as: service.dispatcherToken)
        #expect(free.status == 0 && free.stdout.hasPrefix("CONDUCTOR  VEHÍCULO") && free.stdout.contains("libre"), "\(free.stdout)\(free.stderr)")
        #expect(!free.stdout.contains("free") && !free.stdout.contains("DRIVER"), "\(free.stdout)")

        let requestID = try await service.run(["passenger", "request", "--name", "Ana", "--pickup", "A", "--dropoff", "B"], as: service.passengerToken)
            .stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        let rideID = try await service.run(["driver", "accept", requestID], as: service.driverToken).stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        let busy = try await service.run(["dispatcher", "drivers"], as: service.dispatcherToken).stdout
        #expect(busy.contains("en el viaje \(rideID)") && !busy.contains("on ride"), "\(busy)")
        let board = try await service.run(["dispatcher", "rides"], as: service.dispatcherToken).stdout
        #expect(board.hasPrefix("No hay solicitudes en espera.\n\nViajes activos:\nPASAJERO  CONDUCTOR  ") && board.contains("aceptado"), "\(board)")
    }

    /// The board once, then one line per change (issue 37: both tables reprinted on every
    /// change were hard to follow with a screen reader).
    @Test func dispatcherWatchPrintsTheBoardOnceThenOneLinePerChange() async throws {
        let service = try await RideServiceFixture()
        let watch = try BackgroundProcess(["dispatcher", "rides", "--watch"], environment: service.environment(token: service.dispatcherToken))
        #expect(await watch.wait { out, _ in out.contains("No active rides.") })
        let requestID = try await service.run(["passenger", "request", "--name", "Ana", "--pickup", "A", "--dropoff", "B"], as: service.passengerToken)
            .stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(await watch.wait { out, _ in out.contains("new request: Ana's request \(requestID) from A to B") }, "\(watch.stdout)")
        let rideID = try await service.run(["driver", "accept", requestID], as: service.driverToken).stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(await watch.wait { out, _ in out.contains("Ana's ride \(rideID) with Ben is now accepted") }, "\(watch.stdout)")
        #expect(try await service.run(["driver", "eta", "5", rideID], as: service.driverToken).status == 0)
        #expect(await watch.wait { out, _ in out.contains("Ana's ride \(rideID) with Ben: ETA 5 minutes") }, "\(watch.stdout)")
        #expect(!watch.stdout.contains("PASSENGER") && watch.stdout.components(separatedBy: "No active rides.").count == 2,
                "the tables only at the start: \(watch.stdout)")
        let uuid = try #require(try await service.rideJSON(rideID)["id"] as? String)
        #expect(uuid.count == 36 && !watch.stdout.contains(uuid), "people and codes on the board, no UUIDs")
        #expect(Self.isPlain(watch.stdout))
        watch.stop()
    }

    @Test func passengerGuideAnnouncesTheRideAndStartsGuidingWhenTheDriverArrives() async throws {
        let service = try await RideServiceFixture()
        let requestID = try await service.run(["passenger", "request", "--name", "Ana", "--pickup", "A", "--dropoff", "B"], as: service.passengerToken)
            .stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        let rideID = try await service.run(["driver", "accept", requestID], as: service.driverToken).stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        // No system bus here, so `--compass auto` (the default) says it times the turn.
        var environment = service.environment(token: service.passengerToken)
        environment["DBUS_SYSTEM_BUS_ADDRESS"] = "unix:path=/nonexistent/ridebeacon-test-bus"
        let guide = try BackgroundProcess(["passenger", "guide", "--radio", "sim", "--audio-out", "none", "--rate", "200"],
                                          environment: environment)
        #expect(await guide.wait { out, _ in out.contains("your driver is Ben, blue Prius. Your driver is on the way.") }, "\(guide.stderr)")
        #expect(await guide.wait { _, err in err.contains("ridebeacon: No compass: this device has no sensor service to ask, so turn-to-find times your turn instead.") },
                "\(guide.stderr)")
        let arrive = try BackgroundProcess(["driver", "arrive", rideID, "--radio", "sim", "--identity-period", "10"],
                                           environment: service.environment(token: service.driverToken))
        // The arrival comes from the event stream; then the guide guides (the sim radio is per
        // process, so here it hears no beacon) until stopped.
        // No signal yet (this process's sim radio hears no other process, and says so at once):
        // the arrival says the guide is searching, not "follow the sound" (issue 25).
        #expect(await guide.wait { out, _ in out.contains("Your driver has arrived. Ben, blue Prius. Searching for the signal; stay where you are.") }, "\(guide.stderr)")
        #expect(guide.stderr.contains("--radio sim is a simulated radio inside this process only"))
        #expect(guide.isRunning)
        guide.stop()
        arrive.stop()
    }

    @Test func cancelWithdrawsTheOpenRequest() async throws {
        let service = try await RideServiceFixture()
        let requestID = try await service.run(["passenger", "request", "--name", "Ana", "--pickup", "A", "--dropoff", "B"], as: service.passengerToken)
            .stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        let cancelled = try await service.run(["passenger", "cancel"], as: service.passengerToken)
        #expect(cancelled.status == 0 && cancelled.stdout.contains("Request \(requestID) cancelled."))
        await #expect(try service.run(["driver", "requests"], as: service.driverToken).stdout == "No waiting requests.\n")
        let nothing = try await service.run(["passenger", "cancel"], as: service.passengerToken)
        #expect(nothing.status != 0 && nothing.stderrLines == ["ridebeacon: You have no open request or active ride to cancel."])
    }

    @Test func serverAndTokenComeFromFlagThenEnvironmentThenSettings() async throws {
        let service = try await RideServiceFixture()
        // Settings file only.
        var environment = service.environment(token: nil)
        environment.removeValue(forKey: "RIDEBEACON_SERVER")
        let saved = try await CLI.run(["settings", "set", "--server", service.url, "--token", service.driverToken], environment: environment)
        #expect(saved.status == 0, "\(saved.stderr)")
        #expect(try await CLI.run(["driver", "requests"], environment: environment).status == 0)
        // The environment beats the file: a wrong token there is used, and refused.
        environment["RIDEBEACON_TOKEN"] = "rb_wrong"
        let refused = try await CLI.run(["driver", "requests"], environment: environment)
        #expect(refused.status != 0 && refused.stderrLines.count == 1 && refused.stderr.contains("does not know your sign-in"))
        // The flag beats the environment.
        #expect(try await CLI.run(["driver", "requests", "--token", service.driverToken], environment: environment).status == 0)
        environment["RIDEBEACON_SERVER"] = "http://127.0.0.1:1"
        let unreachable = try await CLI.run(["driver", "requests", "--token", service.driverToken], environment: environment)
        #expect(unreachable.status != 0 && unreachable.stderrLines == ["ridebeacon: The ride service at http://127.0.0.1:1 is not answering. Check your connection; nothing was sent."])
        let flagged = try await CLI.run(["driver", "requests", "--server", service.url, "--token", service.driverToken], environment: environment)
        #expect(flagged.status == 0)
    }

    @Test func serverErrorsAreOneLineWithTheServersReason() async throws {
        let service = try await RideServiceFixture()
        let missing = try await service.run(["driver", "accept", "no-such-request"], as: service.driverToken)
        #expect(missing.status != 0 && missing.stdout.isEmpty && missing.stderrLines.count == 1)
        #expect(missing.stderr.hasPrefix("ridebeacon: ") && missing.stderr.contains("not found. Check the code"))
        let wrongRole = try await service.run(["driver", "requests"], as: service.passengerToken)
        #expect(wrongRole.status != 0 && wrongRole.stderrLines.count == 1, "a driver's command: \(wrongRole.stderr)")
        #expect(wrongRole.stderr.contains("`driver requests` is for drivers") && wrongRole.stderr.contains("ridebeacon passenger rides"),
                "it names the passenger's own command: \(wrongRole.stderr)")
        let forbidden = try await service.run(["driver", "accept", "x"], as: service.passengerToken)
        #expect(forbidden.status != 0 && forbidden.stderr.contains("Your account cannot do that"))
        let noServer = try await CLI.run(["driver", "requests"], environment: ["XDG_CONFIG_HOME": service.configHome.path, "PATH": "/usr/bin:/bin"])
        #expect(noServer.status != 0 && noServer.stderrLines == ["ridebeacon: No ride service: pass --server URL, set RIDEBEACON_SERVER, or run `ridebeacon settings set --server URL`."])
    }
}

extension RoleCLITests {
    /// The role commands refuse plain http:// to another machine unless told --insecure-http.
    @Test func plainHTTPToAnotherMachineNeedsTheFlag() async throws {
        let home = try CLI.temporaryDirectory()
        let environment = ["XDG_CONFIG_HOME": home.path, "PATH": "/usr/bin:/bin"]
        let refused = try await CLI.run(["driver", "requests", "--server", "http://rides.invalid", "--token", "rb_x"], environment: environment)
        #expect(refused.status != 0 && refused.stderrLines.count == 1 && refused.stderr.contains("--insecure-http"))
        let allowed = try await CLI.run(["driver", "requests", "--server", "http://rides.invalid", "--token", "rb_x", "--insecure-http"], environment: environment)
        #expect(allowed.status != 0 && !allowed.stderr.contains("refusing plain http"), "allowed, then the (nonexistent) host fails")
    }
}
