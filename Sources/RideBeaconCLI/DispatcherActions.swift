import ArgumentParser
import Foundation
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
            let chosen = try DispatcherDrivers.whichOne(try await client.drivers()).pick(driver)
            guard chosen.free else {
                throw CommandLineFailure("\(chosen.name) already has ride \(chosen.rideCode ?? "—"); choose a free driver (`ridebeacon dispatcher drivers --free`)")
            }
            let ride = try await client.assignRideRequest(request, driverID: chosen.id)
            Say.line("\(ride.passenger.name)'s ride \(ride.handle) is assigned to \(ride.driver.name)\(ride.driver.writtenVehicle.map { ", \($0)" } ?? "").")
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
            guard !drivers.isEmpty else {
                Say.line(free ? "No driver is free." : "There are no drivers yet.")
                return
            }
            let rows = drivers.map { [$0.name, $0.vehicle ?? "—", $0.free ? "free" : "on ride \($0.rideCode ?? "—")"] }
            Say.line(PlainTable.render(header: ["DRIVER", "VEHICLE", "STATUS"], rows: rows))
        }
    }

    /// Drivers by name or id start; a listing says name, car, status and handle.
    static func whichOne(_ drivers: [DriverInfo]) -> WhichOne<DriverInfo> {
        WhichOne(kind: "driver", items: drivers, id: \.id, name: \.name,
                 describe: { "\($0.name) (\([$0.vehicle, $0.free ? "free" : "on ride \($0.rideCode ?? "—")", String($0.id.prefix(6))].compactMap { $0 }.joined(separator: ", ")))" },
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
        guard !reason.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty else { throw ValidationError("--reason must say why") }
    }

    func run() async throws {
        try await withService(service) { client in
            let code = ShortCode.normalized(id)
            let waiting = try await client.allRideRequests().first { $0.id == id || (code != nil && $0.code == code) }
            if let waiting, waiting.status == .open {
                let cancelled = try await client.cancelRideRequest(waiting.id, reason: reason)
                Say.line("\(cancelled.passengerName)'s request \(cancelled.handle) cancelled: \(reason).")
            } else {
                let ride = try await client.cancelRide(id, reason: reason)
                Say.line("\(ride.passenger.name)'s ride \(ride.handle) with \(ride.driver.name) cancelled: \(reason).")
            }
        }
    }
}
