import Foundation
import RideBeaconTesting
import Testing

/// Issue 26: the account's language. `settings set --language` while signed in keeps it with the
/// account too; a device with no language of its own speaks its person's: the driver's device
/// Spanish for a driver who chose Spanish, the passenger's English beside it (both devices here
/// share one settings directory that chooses no language). Offline, the local setting applies
/// and the command says so plainly.
@Suite("The account's language on each person's device", .tags(.process), .timeLimit(.minutes(3)))
struct AccountLanguageCLITests {
    @Test func theDriversDeviceSpeaksTheDriversLanguageAndThePassengersHers() async throws {
        let service = try await RideServiceFixture()
        // The driver chooses Spanish on another device of his (its own settings directory).
        var elsewhere = service.environment(token: service.driverToken)
        elsewhere["XDG_CONFIG_HOME"] = try CLI.temporaryDirectory().path
        let chosen = try await CLI.run(["settings", "set", "--language", "es"], environment: elsewhere)
        #expect(chosen.status == 0, "\(chosen.stderr)")
        #expect(chosen.stdout.contains("El idioma de tu cuenta es ahora es"), "said in the language chosen: \(chosen.stdout)")
        // His phone has saved nothing: `settings show` there says, in the account's Spanish, that Spanish is what it speaks.
        var phone = service.environment(token: service.driverToken)
        phone["XDG_CONFIG_HOME"] = try CLI.temporaryDirectory().path
        let shown = try await CLI.run(["settings", "show"], environment: phone).stdout
        #expect(shown.contains("idioma de la cuenta: es\n") && shown.contains("este dispositivo habla: es (el de tu cuenta)\n")
                && shown.contains("idioma: en\n") && !shown.contains("account language"), "\(shown)")

        let requestID = try await service.run(["passenger", "request", "--name", "Ana", "--pickup", "A", "--dropoff", "B"], as: service.passengerToken)
            .stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        let rideID = try await service.run(["driver", "accept", requestID], as: service.driverToken).stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        let guide = try BackgroundProcess(["passenger", "guide", "--radio", "sim", "--audio-out", "none", "--rate", "200", "--compass", "off"],
                                          environment: service.environment(token: service.passengerToken), interactive: true)
        defer { guide.stop() }
        let arrive = try BackgroundProcess(["driver", "arrive", rideID, "--radio", "sim", "--identity-period", "10", "--audio-out", "none"],
                                           environment: service.environment(token: service.driverToken), interactive: true)
        defer { arrive.stop() }
        #expect(await arrive.wait { out, _ in out.contains("Has llegado. Viaje") }, "\(arrive.stdout)\n\(arrive.stderr)")
        #expect(await guide.wait { out, _ in out.contains("Your driver has arrived.") }, "\(guide.stdout)\n\(guide.stderr)")
        #expect(!arrive.stdout.contains("Arrived. Ride"), "\(arrive.stdout)")
        #expect(!guide.stdout.contains("Has llegado") && !guide.stdout.contains("Tu conductor"), "\(guide.stdout)")
    }

    @Test func offlineTheLocalSettingStillAppliesAndSaysSo() async throws {
        var environment = ProcessInfo.processInfo.environment
        environment["XDG_CONFIG_HOME"] = try CLI.temporaryDirectory().path
        // Signed in to a service that is not there (nothing listens on the discard port).
        environment["RIDEBEACON_SERVER"] = "http://127.0.0.1:9"
        environment["RIDEBEACON_TOKEN"] = "rbt_notused"
        let set = try await CLI.run(["settings", "set", "--language", "fr"], environment: environment)
        #expect(set.status == 0, "\(set.stderr)")
        // Said in the language just chosen.
        #expect(set.stdout.contains("Impossible de joindre le service de courses") && set.stdout.contains("cet appareil parle fr malgré tout"),
                "\(set.stdout)")
        // Shown in the French this device speaks.
        let shown = try await CLI.run(["settings", "show"], environment: environment).stdout
        #expect(shown.contains("langue : fr\n") && shown.contains("langue du compte : inconnue (impossible de joindre le service de courses"),
                "\(shown)")
        // Not signed in: nothing is said about an account (in the Spanish now saved).
        environment.removeValue(forKey: "RIDEBEACON_TOKEN")
        let local = try await CLI.run(["settings", "set", "--language", "es"], environment: environment)
        #expect(local.status == 0 && !local.stdout.contains("account") && !local.stdout.contains("cuenta"), "\(local.stdout)\n\(local.stderr)")
        let localShown = try await CLI.run(["settings", "show"], environment: environment).stdout
        #expect(localShown.contains("idioma: es\n") && !localShown.contains("cuenta"), "\(localShown)")
    }
}
