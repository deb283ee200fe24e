import ArgumentParser
import Foundation
import Guide
import RideClient

/// `--server` and `--token` of the role commands. Each falls back to the environment
/// (`RIDEBEACON_SERVER`, `RIDEBEACON_TOKEN`), then to the settings file.
struct ServiceOptions: ParsableArguments {
    @Option(help: ArgumentHelp("Ride service URL, for example http://127.0.0.1:8080. Default: RIDEBEACON_SERVER, then the settings file.",
                               valueName: "URL"))
    var server: String?

    @Option(help: ArgumentHelp("API token of your account. Default: RIDEBEACON_TOKEN, then the settings file.", valueName: "TOKEN"))
    var token: String?

    @Flag(help: "Allow a plain http:// server URL other than this machine (loopback). The token then travels unencrypted: only on a network you trust.")
    var insecureHttp = false

    @Flag(help: "Show ids and the ride service's error codes as well as the plain sentences.")
    var verbose = false

    @Flag(name: .customLong("json-errors"),
          help: "A failure as one JSON object on standard error: the sentence, and the ride service's code, field and status.")
    var jsonErrors = false

    /// The server and token to use, by precedence: flag, environment, settings file.
    func resolve(environment: [String: String] = ProcessInfo.processInfo.environment) throws(CommandLineFailure) -> (server: String, token: String) {
        var server = self.server ?? environment["RIDEBEACON_SERVER"].flatMap { $0.isEmpty ? nil : $0 }
        var token = self.token ?? environment["RIDEBEACON_TOKEN"].flatMap { $0.isEmpty ? nil : $0 }
        if server == nil || token == nil {
            let settings = try loadSettings(environment: environment)
            server = server ?? settings.server
            token = token ?? settings.token
        }
        guard let server else {
            throw CommandLineFailure(PersonalBook.current(.cliNoServer))
        }
        guard let token else {
            throw CommandLineFailure(PersonalBook.current(.cliNotSignedIn))
        }
        return (server, token)
    }

    /// A client for one command. Commands that wait anyway (`waits`) retry an unreachable or
    /// failing service until interrupted, saying so each time; the others try a few times.
    func client(waits: Bool) throws(CommandLineFailure) -> RideServiceClient {
        let (server, token) = try resolve()
        var configuration = RideServiceClient.Configuration()
        configuration.retry = waits ? .untilCancelled : .standard
        configuration.allowsInsecureHTTP = insecureHttp
        if waits {
            let retrying = PersonalBook.current(.guideServiceUnreachable)
            configuration.onRetry = { _ in StandardError.writeLine(retrying) }
        }
        do {
            return try RideServiceClient(server: server, token: token, configuration: configuration)
        } catch {
            throw CommandLineFailure(error.description)
        }
    }
}

enum RideServiceMessages {
    /// Said (and printed) whenever the service cannot be reached or fails and we try again.
    static let retrying = "Cannot reach the ride service, retrying"
}

/// The settings file at its default place; problems name the file and the field.
func loadSettings(environment: [String: String] = ProcessInfo.processInfo.environment) throws(CommandLineFailure) -> Settings {
    do {
        return try Settings.load(from: Settings.defaultPath(environment: environment))
    } catch {
        throw CommandLineFailure(error.description)
    }
}

/// Runs a command that talks to the ride service: every failure is one stderr line
/// `ridebeacon: ...` and exit status 1; the client is always shut down.
func withService(_ options: ServiceOptions, waits: Bool = false,
                 _ body: (RideServiceClient) async throws -> Void) async throws {
    let client: RideServiceClient
    do {
        client = try options.client(waits: waits)
    } catch {
        StandardError.writeLine("ridebeacon: \(ErrorWords.make(error.message, in: PersonalBook.current))")
        throw ExitCode(1)
    }
    var failure: String?
    var problem: APIProblem?
    do {
        try await body(client)
    } catch let error as RideClientError {
        // In the device's language by the whole rule, the account's included (issue 37).
        failure = ErrorWords.sentence(error, server: client.server, verbose: options.verbose,
                                      in: await PersonalBook.forFailure(error, using: client))
        problem = error.problem
    } catch let error as CommandLineFailure {
        failure = ErrorWords.make(error.message, in: PersonalBook.current)
    } catch let exit as ExitCode {
        await client.shutdown()
        throw exit
    } catch is CancellationError {
        failure = nil
    } catch {
        failure = ErrorWords.make(String(describing: error), in: PersonalBook.current)
    }
    await client.shutdown()
    if let failure {
        StandardError.writeLine(options.jsonErrors ? ErrorWords.json(failure, problem) : "ridebeacon: \(failure)")
        throw ExitCode(1)
    }
}

/// The ride service's failures as one sentence (ErrorWords; kept for callers outside `withService`).
func describe(_ error: RideClientError, server: String, verbose: Bool = false) -> String {
    ErrorWords.sentence(error, server: server, verbose: verbose, in: PersonalBook.current)
}

/// Unbuffered standard output: progress lines of commands that run for a while must reach a
/// pipe or a screen reader as they happen, not when a buffer fills.
/// Everything goes through the terminal sink (`SinkText.terminal`): lines carry the service's
/// text (names, places, reasons), which must not drive the terminal.
/// The one control character a line may carry is the bell the command itself asks for.
enum Say {
    static func line(_ text: String, bell: Bool = false) {
        ConsoleOutput.current.standardOutput(Array(((bell ? "\u{07}" : "") + SinkText.terminal(text) + "\n").utf8))
    }
}
