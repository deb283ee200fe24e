import Foundation
import RideBeaconTesting
import Testing

/// What the browser test needs: Debian's chromium and the repo's .venv with websocket-client
/// (`make test` installs both). Without them the test is skipped, unless
/// RIDEBEACON_REQUIRE_BROWSER is set (as `make test` and so CI do): then it runs and fails.
enum Browser {
    static let chromium = ProcessInfo.processInfo.environment["RIDEBEACON_CHROMIUM"] ?? "/usr/bin/chromium"
    static let python = Repository.root.appendingPathComponent(".venv/bin/python3").path
    static let required = ProcessInfo.processInfo.environment["RIDEBEACON_REQUIRE_BROWSER"].map { !$0.isEmpty } ?? false
    static var available: Bool {
        FileManager.default.isExecutableFile(atPath: chromium) && FileManager.default.isExecutableFile(atPath: python)
    }
    static let outputDirectory = Repository.root.appendingPathComponent(".build/test-output")
}

/// An account a browser check signs in as.
struct BrowserAccount {
    var role: String
    var name: String
    var vehicle: String? = nil
}

extension Browser {
    /// One browser check: a real `ridebeacon serve`, the accounts the script signs in as (their
    /// tokens under the same keys), the script run with its JSON config on stdin, and its JSON
    /// report. `config` adds what a script needs beyond base, chromium, out and tokens.
    static func check(_ script: String, accounts: [String: BrowserAccount],
                      config extra: (LiveServer) throws -> [String: Any] = { _ in [:] }) async throws -> [String: Any] {
        let server = try await LiveServer()
        defer { server.stop() }
        var tokens: [String: String] = [:]
        for (key, account) in accounts {
            tokens[key] = try await server.createAccount(role: account.role, name: account.name, vehicle: account.vehicle)
        }
        var config: [String: Any] = ["base": server.baseURL, "chromium": chromium, "out": outputDirectory.path, "tokens": tokens]
        config.merge(try extra(server)) { _, added in added }
        try FileManager.default.createDirectory(at: outputDirectory, withIntermediateDirectories: true)
        let (status, stdout, stderr) = try await PythonPeer.run("Tests/EndToEndTests/" + script, input: try JSONSerialization.data(withJSONObject: config))
        try #require(status == 0, "\(script) failed:\n\(stderr)")
        return try #require(try JSONSerialization.jsonObject(with: Data(stdout.utf8)) as? [String: Any])
    }
}

/// Runs a Python peer from the repository with the .venv; output goes to files so neither pipe
/// can fill and block it.
enum PythonPeer {
    static func run(_ script: String, input: Data) async throws -> (Int32, String, String) {
        let result = try await ProcessRunner.run(URL(fileURLWithPath: Browser.python), [Repository.root.appendingPathComponent(script).path],
                                                 input: input, limit: .seconds(600))
        return (result.status, result.stdout, result.stderr)
    }
}
