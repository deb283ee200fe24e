import ArgumentParser
import Foundation
import RideServer

/// The root command. The `ridebeacon` executable is only its `main` (Sources/ridebeacon), so the
/// commands' flows and wording live in this library, which RideBeaconCLIUnitTests imports.
package struct RideBeacon: AsyncParsableCommand {
    package init() {}

    /// ArgumentParser's main, with every failure told in one sentence (ErrorWords): help and
    /// a command's own exit status pass through; a usage error exits 64, anything else 1.
    /// `serve`'s choice of threads (`ServerThreads`), made on the main thread before the
    /// process starts its first task: only tasks enqueued after it run on the loops.
    package static func prepareThreads() {
        let arguments = CommandLine.arguments.dropFirst()
        guard arguments.first == Serve.configuration.commandName, let threads = ServerThreads.chosen(in: arguments.dropFirst()),
              threads == .eventLoops, !threads.install() else { return }
        StandardError.writeLine("ridebeacon: this Swift runtime refused NIO's event loops as its executor; serving from Swift's own pool")
    }

    package static func main() async {
        let arguments = Array(CommandLine.arguments.dropFirst())
        do {
            var command = try parseAsRoot(arguments)
            if var command = command as? any AsyncParsableCommand {
                try await command.run()
            } else {
                try command.run()
            }
        } catch {
            let code = exitCode(for: error)
            let said = message(for: error)
            // Help, and a command's own exit status after it said why (ArgumentParser wraps an
            // ExitCode thrown from validate(), with no message).
            if code == .success || error is ExitCode || (said.isEmpty && !(error is CommandLineFailure)) { exit(withError: error) }
            let sentence = ErrorWords.sentence(for: error, message: said, arguments: arguments, root: RideBeacon.self,
                                                  in: PersonalBook.current)
            StandardError.writeLine("ridebeacon: \(sentence)")
            Foundation.exit(error is CommandLineFailure ? 1 : code.rawValue)
        }
    }

    package static let configuration = CommandConfiguration(
        commandName: "ridebeacon",
        abstract: "Guide a blind or low-vision passenger to the right car by Bluetooth beacon and sound.",
        subcommands: [
            SignInCommand.self, PassengerCommand.self, DriverCommand.self, DispatcherCommand.self, TokensCommand.self,
            SettingsCommand.self, DemoCommand.self,
            Serve.self, Admin.self, ScanCommand.self, AdvertiseCommand.self, RangeCommand.self, CalibrateCommand.self,
        ]
    )
}
