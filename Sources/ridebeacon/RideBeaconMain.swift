import RideBeaconCLI

/// The `ridebeacon` executable: everything it does is in RideBeaconCLI, where the commands'
/// flows and wording can be tested in process.
@main
enum RideBeaconMain {
    static func main() async {
        // Synchronously, on the main thread, before the first suspension (NIO's rule for it).
        RideBeacon.prepareThreads()
        await RideBeacon.main()
    }
}
