import BeaconCore
import NIOConcurrencyHelpers
@testable import RadioCore
import Testing

/// A controller that answers every command with success and the return parameters a real one
/// would give (LE Read Transmit Power −20 … +9 dBm, Selected_TX_Power +7, legacy channel power
/// +4), and records the commands in order: what the HCI radio asks for a ride's advertisement.
final class RecordingController: HCITransport, Sendable {
    let extended: Bool
    private let commands = NIOLockedValueBox<[HCICommand]>([])
    var description: String { "recording" }

    init(extended: Bool) { self.extended = extended }

    /// Commands received, in order.
    var received: [HCICommand] { commands.withLockedValue { $0 } }
    func clear() { commands.withLockedValue { $0.removeAll() } }

    func open() async throws -> HCILink {
        let (inbound, continuation) = AsyncThrowingStream<HCIChunk, any Error>.makeStream()
        let reassembler = NIOLockedValueBox(H4Reassembler(acceptedTypes: [.command]))
        return HCILink(inbound: inbound, send: { [self] bytes in
            for result in reassembler.withLockedValue({ $0.push(bytes) }) {
                guard case .success(.command(let command)) = result else { continue }
                commands.withLockedValue { $0.append(command) }
                let answer = HCIEvent.commandComplete(.init(numHCICommandPackets: 1, opcode: command.opcode,
                                                            returnParameters: ([0] + returnParameters(command.opcode))[...]))
                if let packet = try? answer.encode() { continuation.yield(HCIChunk(H4Packet.event(packet).encode())) }
            }
        }, close: { continuation.finish() })
    }

    private func returnParameters(_ opcode: HCIOpcode) -> [UInt8] {
        switch opcode {
        case .readLocalVersionInformation: [0x0C, 0, 0, 0x0C, 0xFF, 0xFF, 0, 0]   // Core 5.3
        case .readLocalSupportedCommands: [UInt8](repeating: 0, count: 64)
        case .leReadLocalSupportedFeatures: extended ? [0x00, 0x10, 0, 0, 0, 0, 0, 0] : [UInt8](repeating: 0, count: 8)
        case .leReadTransmitPower: [0xEC, 0x09]
        case .leSetExtendedAdvertisingParameters: [0x07]
        case .leReadAdvertisingPhysicalChannelTxPower: [0x04]
        default: []
        }
    }
}

/// The exact commands a ride's advertisement costs on extended and legacy controllers.
@Suite("a ride's advertisement, command by command")
struct AdvertisingCommandTests {
    static func frame(_ minor: UInt16) -> IBeacon {
        IBeacon(uuid: Beacons.first.uuid, major: 1, minor: minor, measuredPower: -59)
    }

    /// The random address in an LE Set (Advertising Set) Random Address command.
    static func address(_ command: HCICommand) -> BDAddress? {
        switch command.opcode {
        case .leSetRandomAddress: BDAddress(wireBytes: command.parameters)
        case .leSetAdvertisingSetRandomAddress: BDAddress(wireBytes: command.parameters.dropFirst())
        default: nil
        }
    }

    @Test("extended: the controller's highest power asked for (LE Read Transmit Power's max), its choice reported; a random own address set per identity")
    func extendedRide() async throws {
        let controller = RecordingController(extended: true)
        let radio = try await HCIRadio.connect(controller)
        controller.clear()
        try await radio.startAdvertising(.ride(beacon: Self.frame(1)))
        let opcodes = controller.received.map(\.opcode)
        #expect(opcodes == [.leSetExtendedAdvertisingEnable, .leReadTransmitPower, .leSetExtendedAdvertisingParameters,
                            .leSetAdvertisingSetRandomAddress, .leSetExtendedAdvertisingData, .leSetExtendedAdvertisingEnable])
        let parameters = try #require(controller.received.first { $0.opcode == .leSetExtendedAdvertisingParameters }).parameters
        #expect(Array(parameters)[1...2] == [0x10, 0x00], "legacy ADV_NONCONN_IND")
        #expect(Array(parameters)[10] == OwnAddressType.randomDevice.rawValue)
        #expect(Int8(bitPattern: Array(parameters)[19]) == 9, "Advertising_TX_Power: the controller's maximum")
        #expect(await radio.advertisingTransmitPower == 7, "Selected_TX_Power, as the controller answered")
        let first = try #require(controller.received.compactMap(Self.address).first)
        let advertising = await radio.advertisingAddress
        #expect(first.isNonResolvablePrivate && first == advertising)

        controller.clear()
        try await radio.replaceAdvertisedBeacon(Self.frame(2))
        let second = try #require(controller.received.compactMap(Self.address).first)
        #expect(second.isNonResolvablePrivate && second != first)

        // The interval alone: parameters again, the same address (no random address command).
        controller.clear()
        try await radio.setAdvertisingInterval(milliseconds: 20)
        #expect(controller.received.compactMap(Self.address).isEmpty)
        let fast = try #require(controller.received.first { $0.opcode == .leSetExtendedAdvertisingParameters }).parameters
        #expect(Array(fast)[3...5] == [0x20, 0x00, 0x00], "20 ms = 0x20 × 0.625 ms")
        await radio.shutdown()
    }

    @Test("legacy, while scanning: scan and advertising paused around LE Set Random Address, the channel power read and reported")
    func legacyRideWhileScanning() async throws {
        let controller = RecordingController(extended: false)
        let radio = try await HCIRadio.connect(controller)
        let scan = radio.scan()   // held open to the end: the radio scans while a stream is open
        for _ in 0..<200 where !controller.received.contains(where: { $0.opcode == .leSetScanEnable }) {
            try await Task.sleep(for: .milliseconds(10))
        }
        controller.clear()
        try await radio.startAdvertising(.ride(beacon: Self.frame(1)))
        let commands = controller.received
        #expect(commands.map(\.opcode) == [.leSetAdvertisingEnable, .leSetScanEnable, .leSetRandomAddress, .leSetScanEnable,
                                           .leSetAdvertisingParameters, .leSetAdvertisingData, .leSetAdvertisingEnable,
                                           .leReadAdvertisingPhysicalChannelTxPower])
        #expect(commands.map { Array($0.parameters) }[0] == [0] && commands.map { Array($0.parameters) }[1] == [0, 0])
        #expect(commands.map { Array($0.parameters) }[3] == [1, 0], "scanning again after the address")
        let parameters = Array(commands[4].parameters)
        #expect(parameters[4] == LegacyAdvertisingType.advNonconnInd.rawValue && parameters[5] == OwnAddressType.randomDevice.rawValue)
        #expect(Array(parameters[0...1]) == [0xA0, 0x00], "100 ms = 0xA0 × 0.625 ms")
        #expect(await radio.advertisingTransmitPower == 4)
        #expect(Self.address(commands[2])?.isNonResolvablePrivate == true)
        _ = scan
        await radio.shutdown()
    }
}
