import ArgumentParser
import Foundation
import RideClient

/// `ridebeacon driver`: find a passenger, take the ride, arrive (advertising the ride's beacon), finish.
struct DriverCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "driver",
        abstract: "List open ride requests, accept one, arrive and advertise the ride's beacon, complete the ride.",
        subcommands: [Requests.self, Accept.self, DriverArriveCommand.self, Complete.self]
    )

    struct Requests: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "List open ride requests, oldest first.",
            discussion: "A plain-text table: one header line, then one line per request, columns separated by two spaces.")

        @OptionGroup var service: ServiceOptions

        func run() async throws {
            try await withService(service) { client in
                Say.line(RideTables.requests(try await client.allRideRequests().filter { $0.status == .open }))
            }
        }
    }

    struct Accept: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Accept an open ride request. Prints the ride id.",
            discussion: "The ride id goes to standard output; a sentence about the ride goes to standard error.")

        @Argument(help: ArgumentHelp("The request id, from `ridebeacon driver requests`.", valueName: "REQUEST"))
        var request: String
        @OptionGroup var service: ServiceOptions

        func run() async throws {
            try await withService(service) { client in
                let ride = try await client.acceptRideRequest(request)
                Say.line(ride.id)
                StandardError.writeLine("Accepted: ride \(ride.id) for \(ride.passenger.name). Run `ridebeacon driver arrive \(ride.id)` at the pickup.")
            }
        }
    }

    struct Complete: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "End a confirmed ride.")

        @Argument(help: ArgumentHelp("The ride id.", valueName: "RIDE"))
        var ride: String
        @OptionGroup var service: ServiceOptions

        func run() async throws {
            try await withService(service) { client in
                let completed = try await client.complete(ride)
                Say.line("Ride \(completed.id) completed.")
            }
        }
    }
}
