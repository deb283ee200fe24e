import ArgumentParser

@main
struct RideBeacon: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "ridebeacon",
        abstract: "Guide a blind or low-vision passenger to the right car by Bluetooth beacon and sound.",
        subcommands: [RangeCommand.self, CalibrateCommand.self, ScanCommand.self]
    )
}
