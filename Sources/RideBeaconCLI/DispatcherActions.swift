import ArgumentParser
import Foundation
import Phrasebook
import RideClient

/// `ridebeacon dispatcher assign REQUEST DRIVER`: a waiting request goes to a driver.
struct DispatcherAssign: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "assign",
        abstract: "Give a waiting request to a driver.",
        discussion: "Refused when the driver already has an accepted or arrived ride; the error names that ride.")

    @Argument(help: ArgumentHelp("The request's short code (from `ridebeacon dispatcher rides`).", valueName: "REQUEST"))
    var request: String
    @Argument(help: ArgumentHelp("The driver's name (any case), or the start of their id (`ridebeacon dispatcher drivers` lists them).", valueName: "DRIVER"))
    var driver: String
    @OptionGroup var service: ServiceOptions

    func run() async throws {
        try await withService(service) { client in
            let book = await PersonalBook.book(using: client)
            let chosen = try DispatcherDrivers.whichOne(try await client.drivers(), in: book).pick(driver, in: book)
            guard chosen.free else {
                throw CommandLineFailure(book(.dispatchDriverBusy, ["driver": .text(chosen.name), "code": .text(chosen.rideCode ?? "—")]))
            }
            let ride = try await client.assignRideRequest(request, driverID: chosen.id)
            var values: [String: PhraseValue] = ["passenger": .text(ride.passenger.name), "code": .text(ride.handle), "driver": .text(ride.driver.name)]
            if let vehicle = ride.driver.writtenVehicle { values["vehicle"] = .text(vehicle) }
            Say.line(book(values["vehicle"] == nil ? .dispatchAssigned : .dispatchAssignedVehicle, values))
        }
    }
}

/// `ridebeacon dispatcher drivers`: every driver by name, with the car and whether they are free.
struct DispatcherDrivers: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "drivers",
        abstract: "List drivers by name: DRIVER, VEHICLE, STATUS (free, or the ride they have).",
        discussion: "`ridebeacon dispatcher assign REQUEST NAME` takes the name as listed here.")

    @Flag(help: "Only the drivers a request can be given to now.")
    var free = false
    @OptionGroup var service: ServiceOptions

    func run() async throws {
        try await withService(service) { client in
            let drivers = try await client.drivers(free: free ? true : nil)
            Say.line(DispatcherBoard.drivers(drivers, onlyFree: free, in: await PersonalBook.book(using: client)))
        }
    }

    /// Drivers by name or id start; a listing says name, car, status and handle.
    static func whichOne(_ drivers: [DriverInfo], in book: Phrasebook = PersonalBook.current) -> WhichOne<DriverInfo> {
        WhichOne(kind: "driver", items: drivers, id: \.id, name: \.name,
                 describe: { "\($0.name) (\([$0.vehicle, DispatcherBoard.status($0, in: book), String($0.id.prefix(6))].compactMap { $0 }.joined(separator: ", ")))" },
                 listCommand: "ridebeacon dispatcher drivers")
    }
}

/// `ridebeacon dispatcher cancel ID --reason TEXT`: a request or ride, with the reason kept in its history.
struct DispatcherCancel: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "cancel",
        abstract: "Cancel a waiting request or an active ride, saying why.",
        discussion: "The reason is kept in the ride's history and shown on every board.")

    @Argument(help: ArgumentHelp("The short code of a waiting request or an active ride.", valueName: "CODE"))
    var id: String
    @Option(help: ArgumentHelp("Why (required).", valueName: "TEXT"))
    var reason: String
    @OptionGroup var service: ServiceOptions

    func validate() throws {
        guard !reason.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty else { throw ValidationError(PersonalBook.current(.dispatchReasonNeeded)) }
    }

    func run() async throws {
        try await withService(service) { client in
            let book = await PersonalBook.book(using: client)
            let code = ShortCode.normalized(id)
            let waiting = try await client.allRideRequests().first { $0.id == id || (code != nil && $0.code == code) }
            if let waiting, waiting.status == .open {
                let cancelled = try await client.cancelRideRequest(waiting.id, reason: reason)
                Say.line(book(.dispatchRequestCancelled, ["passenger": .text(cancelled.passengerName), "code": .text(cancelled.handle),
                                                          "reason": .text(reason)]))
            } else {
                let ride = try await client.cancelRide(id, reason: reason)
                Say.line(book(.dispatchRideCancelled, ["passenger": .text(ride.passenger.name), "code": .text(ride.handle),
                                                       "driver": .text(ride.driver.name), "reason": .text(reason)]))
            }
        }
    }
}
