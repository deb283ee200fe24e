import Foundation
import RideBeaconTesting
import Testing

/// Issue 26: `passenger follow` speaks, prints and notifies in the passenger's language
/// (`--language`, or `settings set --language`); issue 25: `places add` refuses a name already
/// saved unless `--replace`.
@Suite("Languages and places on the command line", .tags(.process))
struct LanguageCLITests {
    @Test(.enabled(if: NotificationDaemonMock.shouldRun), arguments: [
        ("es", "Esperando un conductor", "Ben está en camino", "Ben llegará en 1 minuto", "Ben llegará en 7 minutos", "Seguimiento detenido."),
        ("fr", "En attente d'un chauffeur", "Ben est en route", "Ben sera là dans 1 minute", "Ben sera là dans 7 minutes", "Suivi arrêté."),
        ("en", "Waiting for a driver", "Ben is on the way", "Ben will be there in 1 minute", "Ben will be there in 7 minutes", "Stopped following."),
    ])
    func followAnnouncesAndNotifiesInTheLanguage(language: String, waiting: String, onTheWay: String, one: String, seven: String,
                                                 stopped: String) async throws {
        let service = try await RideServiceFixture()
        let bus = try await NotificationDaemonMock()
        defer { bus.stop() }
        let requested = try await service.run(["passenger", "request", "--from", "Main St 1", "--to", "Station"], as: service.passengerToken)
        #expect(requested.status == 0, "\(requested.stderr)")
        let code = requested.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        var environment = service.environment(token: service.passengerToken)
        environment["DBUS_SESSION_BUS_ADDRESS"] = bus.address
        let follow = try BackgroundProcess(["passenger", "follow", "--audio-out", "none", "--radio", "none", "--language", language],
                                           environment: environment, interactive: true)
        #expect(await follow.wait { out, _ in out.contains(waiting) }, "\(follow.stdout)\n\(follow.stderr)")
        // The ride code is spelled one character at a time in every language.
        #expect(follow.stdout.contains(code.map(String.init).joined(separator: " ")) || follow.stdout.contains("i gr"), "\(follow.stdout)")
        await #expect(try service.run(["driver", "accept", code], as: service.driverToken).status == 0)
        #expect(await follow.wait { out, _ in out.contains(onTheWay) }, "\(follow.stdout)\n\(follow.stderr)")
        await #expect(try service.run(["driver", "eta", "1"], as: service.driverToken).status == 0)
        #expect(await follow.wait { out, _ in out.contains(one) }, "\(follow.stdout)\n\(follow.stderr)")
        await #expect(try service.run(["driver", "eta", "7"], as: service.driverToken).status == 0)
        #expect(await follow.wait { out, _ in out.contains(seven) }, "\(follow.stdout)\n\(follow.stderr)")
        // Printed first, then notified: the notification may follow the printed line by a moment.
        var shown = bus.notifications().map(\.summary)
        let patience = ContinuousClock.now + .seconds(10)
        while !shown.contains(seven), ContinuousClock.now < patience {
            try await Task.sleep(for: .milliseconds(100))
            shown = bus.notifications().map(\.summary)
        }
        #expect(shown.contains(onTheWay) && shown.contains(one) && shown.contains(seven), "\(shown)")
        follow.type("q\n")
        #expect(await follow.exitStatus(within: 60) == 0, "\(follow.stderr)")
        #expect(follow.stdout.contains(stopped), "\(follow.stdout)")
    }

    @Test func settingsKeepTheLanguageAndRefuseOneWithoutAPhrasebook() async throws {
        let home = try CLI.temporaryDirectory()
        var environment = ProcessInfo.processInfo.environment
        environment["XDG_CONFIG_HOME"] = home.path
        let set = try await CLI.run(["settings", "set", "--language", "fr"], environment: environment)
        #expect(set.status == 0, "\(set.stderr)")
        // Shown in the language it keeps.
        #expect(try await CLI.run(["settings", "show"], environment: environment).stdout.contains("langue : fr\n"))
        let refused = try await CLI.run(["settings", "set", "--language", "de"], environment: environment)
        #expect(refused.status != 0 && refused.stderr.contains("language must be one of en, es, fr, not \"de\""), "\(refused.stderr)")
        #expect(try await CLI.run(["settings", "show"], environment: environment).stdout.contains("langue : fr\n"), "nothing saved")
    }

    @Test func addingASavedNameAgainIsRefusedUnlessReplace() async throws {
        let service = try await RideServiceFixture()
        await #expect(try service.run(["passenger", "places", "add", "home", "Main St 1"], as: service.passengerToken).status == 0)
        let again = try await service.run(["passenger", "places", "add", "Home", "Elm St 9"], as: service.passengerToken)
        #expect(again.status != 0 && again.stderrLines.count == 1, "\(again.stderr)")
        #expect(again.stderr.lowercased().contains("you already have a place called home (main st 1); nothing was changed."), "\(again.stderr)")
        #expect(again.stderr.contains("--replace"))
        await #expect(try service.run(["passenger", "places", "list"], as: service.passengerToken).stdout == "home: Main St 1\n")
        let replaced = try await service.run(["passenger", "places", "add", "home", "Elm St 9", "--replace"], as: service.passengerToken)
        #expect(replaced.status == 0 && replaced.stdout.contains("Saved home: Elm St 9."), "\(replaced.stderr)")
        await #expect(try service.run(["passenger", "places", "list"], as: service.passengerToken).stdout == "home: Elm St 9\n")
    }
}
