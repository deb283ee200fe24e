import ArgumentParser
import BeaconCore
import RadioCore
import Foundation

/// `ridebeacon advertise`: advertise one iBeacon until interrupted or --seconds pass.
struct AdvertiseCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "advertise",
        abstract: "Advertise an iBeacon on a radio.",
        discussion: """
            Advertises until --seconds pass or Ctrl-C, then stops advertising.
            Radios: bluez[:hci0] (bluetoothd over D-Bus; DBUS_SYSTEM_BUS_ADDRESS is honoured),
            h4:tcp:HOST:PORT, h4:unix:PATH, h4:tty:/dev/ttyACM0[:BAUD], hci:hci0, sim.
            Advertising types: nonconn (an ordinary beacon, the default), conn, scannable.
            One line goes to standard error when advertising starts, and one for each radio loss.
            """
    )

    @Option(name: .long, help: ArgumentHelp("The radio to advertise on, for example h4:tty:/dev/ttyACM0.", valueName: "RADIO"))
    var radio: String

    @Option(name: .long, help: ArgumentHelp("Proximity UUID.", valueName: "UUID"))
    var uuid: String

    @Option(name: .long, help: ArgumentHelp("Major, 0 to 65535.", valueName: "M"))
    var major: UInt16

    @Option(name: .long, help: ArgumentHelp("Minor, 0 to 65535.", valueName: "N"))
    var minor: UInt16

    @Option(name: .customLong("measured-power"), parsing: .unconditional, help: ArgumentHelp("Calibrated RSSI at 1 metre in dBm, for example -59.", valueName: "P"))
    var measuredPower: Int8

    @Option(name: .customLong("interval-ms"), help: ArgumentHelp("Advertising interval in milliseconds, 20 to 10240.", valueName: "MS"))
    var intervalMilliseconds = 100

    @Option(name: .customLong("adv-type"), help: ArgumentHelp("nonconn, conn or scannable.", valueName: "TYPE"))
    var advertisingType = "nonconn"

    @Option(name: .long, help: ArgumentHelp("Stop after this many seconds (default: until interrupted).", valueName: "S"))
    var seconds: Double?

    func validate() throws {
        _ = try advertisement()
        _ = try parseRadio(radio)
        if let seconds, !(seconds > 0) { throw ValidationError("--seconds must be positive") }
    }

    func advertisement() throws -> BeaconAdvertisement {
        guard let parsed = UUID(uuidString: uuid) else {
            throw ValidationError("--uuid: '\(uuid)' is not a UUID (expected 8-4-4-4-12 hex digits)")
        }
        guard (20...10_240).contains(intervalMilliseconds) else {
            throw ValidationError("--interval-ms must be between 20 and 10240")
        }
        guard let type = AdvertisingKind(rawValue: advertisingType) else {
            throw ValidationError("--adv-type must be nonconn, conn or scannable")
        }
        return BeaconAdvertisement(beacon: IBeacon(uuid: parsed, major: major, minor: minor, measuredPower: measuredPower),
                                   intervalMilliseconds: intervalMilliseconds, type: type)
    }

    func run() async throws {
        let selection = try RadioSelection(parsing: radio)
        let advertisement = try advertisement()
        let radio = try await openRadio(selection)
        do {
            try await radio.startAdvertising(advertisement)
        } catch {
            StandardError.writeLine("ridebeacon: \(selection): \(error)")
            await radio.shutdown()
            throw ExitCode(1)
        }
        let b = advertisement.beacon
        StandardError.writeLine("advertising \(b.uuid.uuidString) major \(b.major) minor \(b.minor) "
            + "measured power \(b.measuredPower) dBm every \(advertisement.intervalMilliseconds) ms on \(selection)")
        // Loss and restoration messages come from the radio's event stream.
        let events = radio.connectionEvents()
        await untilInterrupted(seconds: seconds) {
            for try await event in events {
                switch event {
                case .lost(let loss): StandardError.writeLine("ridebeacon: radio lost: \(loss); reconnecting")
                case .restored: StandardError.writeLine("ridebeacon: radio restored; advertising again")
                case .sighting: continue
                }
            }
        }
        try? await radio.stopAdvertising()
        await radio.shutdown()
    }
}
