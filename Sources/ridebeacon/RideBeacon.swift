import ArgumentParser

@main
struct RideBeacon: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "ridebeacon",
        abstract: "Guide a blind or low-vision passenger to the right car by Bluetooth beacon and sound.",
        subcommands: [
            SignInCommand.self, PassengerCommand.self, DriverCommand.self, DispatcherCommand.self, TokensCommand.self,
            SettingsCommand.self, DemoCommand.self,
            Serve.self, Admin.self, ScanCommand.self, AdvertiseCommand.self, RangeCommand.self, CalibrateCommand.self,
        ]
    )
}
