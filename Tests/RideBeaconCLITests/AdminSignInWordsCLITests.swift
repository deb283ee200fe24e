import Foundation
import RideBeaconTesting
import Testing

/// Issue 37, point 12: `admin invite` and `admin rotate-sign-in-key` spoke English whatever the
/// device's language; they now speak the device's (its saved setting, else the system's locale).
@Suite("admin invite and rotate-sign-in-key in the device's language", .tags(.process), .timeLimit(.minutes(2)))
struct AdminSignInWordsCLITests {
    @Test(arguments: [
        // The saved setting decides…
        (["settings", "set", "--language", "fr"], [String: String](), "Code de connexion pour Ana (compte passager), valable jusqu'à demain ",
         "les codes émis auparavant ne fonctionnent plus."),
        // …else the system's locale.
        ([], ["LANG": "es_ES.UTF-8"], "Código de inicio de sesión para Ana (cuenta de pasajero), válido hasta mañana a las ",
         "los códigos emitidos antes ya no sirven."),
    ])
    func inviteAndRotationSpeakTheDevicesLanguage(setting: [String], locale: [String: String], invited: String, rotated: String) async throws {
        let directory = try CLI.temporaryDirectory()
        let database = "sqlite:" + directory.appendingPathComponent("rides.sqlite").path
        var environment = ProcessInfo.processInfo.environment
        for variable in ["LC_ALL", "LC_MESSAGES", "LANG"] { environment.removeValue(forKey: variable) }
        environment.merge(locale) { _, new in new }
        environment["XDG_CONFIG_HOME"] = directory.appendingPathComponent("config").path
        if !setting.isEmpty { #expect(try await CLI.run(setting, environment: environment).status == 0) }
        let created = try await CLI.run(["admin", "create-account", "--role", "passenger", "--name", "Ana", "--database", database],
                                        environment: environment)
        #expect(created.status == 0, "\(created.stderr)")
        let invite = try await CLI.run(["admin", "invite", "Ana", "--database", database], environment: environment)
        #expect(invite.status == 0 && invite.stdout.filter(\.isNumber).count == 8, "\(invite.stderr)")
        #expect(invite.stderr.contains(invited) && !invite.stderr.contains("Sign-in code"), "\(invite.stderr)")
        let rotation = try await CLI.run(["admin", "rotate-sign-in-key", "--database", database], environment: environment)
        #expect(rotation.status == 0 && rotation.stderr.contains(rotated) && !rotation.stderr.contains("no longer work"), "\(rotation.stderr)")
    }
}
