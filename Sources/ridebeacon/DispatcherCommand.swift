import ArgumentParser
import Foundation
import RideClient

/// `ridebeacon dispatcher rides [--watch]`: every active ride as a plain-text table, live.
struct DispatcherCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "dispatcher",
        abstract: "See every active ride.",
        subcommands: [Rides.self]
    )

    struct Rides: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "List active rides as a plain-text table.",
            discussion: """
                One header line (RIDE, STATE, PASSENGER, DRIVER, VEHICLE, SINCE), then one line per \
                ride, columns separated by two spaces. With --watch, each change prints one line \
                saying what changed, then the table again, until Ctrl-C.
                """)

        @Flag(help: "Keep the table up to date as rides change.")
        var watch = false
        @OptionGroup var service: ServiceOptions

        func run() async throws {
            try await withService(service, waits: watch) { client in
                guard watch else {
                    Say.line(RideTables.rides(try await client.allRides()))
                    return
                }
                try await Self.watch(client)
            }
        }

        /// Prints the board, then a change line and the board again for each event. The board is
        /// read again after each change rather than patched, so it is never wrong for long.
        static func watch(_ client: RideServiceClient) async throws {
            let stream = client.allEvents()
            var printedOnce = false
            var lostContact = false
            for try await update in stream {
                switch update {
                case .connected:
                    // First connection, or back after a break: show the whole board.
                    if !printedOnce || lostContact {
                        if lostContact { Say.line("") ; Say.line("Reconnected to the ride service.") }
                        Say.line(RideTables.rides(try await client.allRides()))
                        printedOnce = true
                        lostContact = false
                    }
                case .interrupted:
                    StandardError.writeLine(RideServiceMessages.retrying)
                    lostContact = true
                case .event(let event):
                    Say.line("")
                    Say.line("\(PlainTable.time(event.at)): \(change(event))")
                    Say.line(RideTables.rides(try await client.allRides()))
                }
            }
        }

        static func change(_ event: RideEvent) -> String {
            let what = event.rideID.map { "ride \($0)" } ?? "request \(event.requestID)"
            let detail = event.detail.map { " (\($0))" } ?? ""
            if let touch = event.touchObserved { return "\(what): the \(touch.side.rawValue) felt the touch" }
            if event.kind == .locatorRequested { return "\(what): the passenger asked the car to sound its locator" }
            switch event.state {
            case .requested: return "new request \(event.requestID)"
            default: return "\(what) is now \(event.state.rawValue)\(detail)"
            }
        }
    }
}
