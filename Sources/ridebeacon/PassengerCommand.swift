import ArgumentParser
import Foundation
import RideClient

/// `ridebeacon passenger`: ask for a ride, withdraw it, and be guided to the car.
struct PassengerCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "passenger",
        abstract: "Request a ride, cancel it, or be guided to your driver's car.",
        subcommands: [Request.self, Cancel.self, PassengerGuideCommand.self]
    )

    struct Request: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Ask for a ride. Prints the request id.",
            discussion: "The request id goes to standard output; a sentence about it goes to standard error.")

        @Option(help: ArgumentHelp("The name your driver calls out.", valueName: "NAME"))
        var name: String
        @Option(help: ArgumentHelp("Where to be picked up.", valueName: "PLACE"))
        var pickup: String
        @Option(help: ArgumentHelp("Where to go.", valueName: "PLACE"))
        var dropoff: String
        @Option(help: ArgumentHelp("For the driver, for example \"guide dog\".", valueName: "TEXT"))
        var notes: String?
        @OptionGroup var service: ServiceOptions

        func run() async throws {
            try await withService(service) { client in
                let request = try await client.createRideRequest(
                    NewRideRequest(passengerName: name, pickup: pickup, dropoff: dropoff, accessibilityNotes: notes))
                Say.line(request.id)
                StandardError.writeLine("Ride requested from \(request.pickup) to \(request.dropoff). Waiting for a driver.")
            }
        }
    }

    struct Cancel: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Cancel your open request or your ride.",
            discussion: "Without an id, cancels your newest open request, else your newest ride that has not ended.")

        @Argument(help: ArgumentHelp("A request id or a ride id.", valueName: "ID"))
        var id: String?
        @Option(help: ArgumentHelp("Why, kept in the ride's history.", valueName: "TEXT"))
        var reason: String?
        @OptionGroup var service: ServiceOptions

        func run() async throws {
            try await withService(service) { client in
                let requests = try await client.allRideRequests()
                let target: RideRequest?
                if let id {
                    target = requests.first { $0.id == id || $0.rideID == id }
                } else {
                    let active = try await client.allRides().filter { !$0.state.isFinal }.map(\.requestID)
                    target = requests.last { $0.status == .open } ?? requests.last { $0.rideID != nil && active.contains($0.id) }
                }
                if let request = target, request.status == .open {
                    _ = try await client.cancelRideRequest(request.id)
                    Say.line("Request \(request.id) cancelled.")
                } else if let rideID = target?.rideID ?? id {
                    let ride = try await client.cancelRide(rideID, reason: reason)
                    Say.line("Ride \(ride.id) cancelled.")
                } else {
                    throw CommandLineFailure("you have no open request or active ride to cancel")
                }
            }
        }
    }
}
