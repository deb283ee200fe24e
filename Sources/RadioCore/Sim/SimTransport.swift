import BeaconCore
import Synchronization

/// `--radio sim`: an in-process controller on a shared simulated channel. Minimal: a legacy-only
/// Core 5.0 controller that answers the commands the HCI host sends, advertises its data at the
/// set interval from its public or random address (LE Set Random Address) at 0 dBm, and reports
/// every other sim controller's adverts (RSSI -60) while scanning.
public struct SimTransport: HCITransport {
    /// The channel this transport's controllers share.
    public let air: SimAir
    /// Controllers on `air`: two radios opened on one `SimAir` hear each other.
    public init(air: SimAir) { self.air = air }
    /// `sim`, as `--radio` names it.
    public var description: String { "sim" }

    /// A new simulated controller on `air`, reachable through the returned link.
    public func open() async throws -> HCILink {
        let (inbound, continuation) = AsyncThrowingStream<HCIChunk, any Error>.makeStream()
        let controller = SimController(air: air, toHost: continuation)
        air.attach(controller)
        continuation.onTermination = { _ in Task { await controller.detach() } }
        return HCILink(inbound: inbound,
                       send: { bytes in await controller.receive(bytes) },
                       close: { continuation.finish() })
    }
}

/// The simulated channel every sim controller hears.
public final class SimAir: Sendable {
    /// The channel `--radio sim` uses within one process.
    public static let shared = SimAir()
    private let controllers = Mutex<[ObjectIdentifier: SimController]>([:])
    private let nextAddress = Mutex<UInt64>(0xC0FFEE000000)

    /// A channel of its own (tests keep their radios apart so).
    public init() {}

    func attach(_ controller: SimController) {
        controllers.withLock { $0[ObjectIdentifier(controller)] = controller }
    }

    func detach(_ controller: SimController) {
        _ = controllers.withLock { $0.removeValue(forKey: ObjectIdentifier(controller)) }
    }

    func address() -> BDAddress {
        BDAddress(rawValue: nextAddress.withLock { $0 += 1; return $0 })
    }

    func transmit(from sender: SimController, report: AdvertisingReport) {
        let receivers = controllers.withLock { Array($0.values) }
        for receiver in receivers where receiver !== sender {
            Task { await receiver.hear(report) }
        }
    }
}

actor SimController {
    private let air: SimAir
    private let toHost: AsyncThrowingStream<HCIChunk, any Error>.Continuation
    private let address: BDAddress
    private var randomAddress: BDAddress?
    private var ownAddressType: UInt8 = 0
    private var reassembler = H4Reassembler(acceptedTypes: [.command])
    private var intervalUnits: UInt16 = 0x0800
    private var advertisingType: UInt8 = 0x03
    private var data: [UInt8] = []
    private var advertiser: Task<Void, Never>?
    private var scanning = false

    init(air: SimAir, toHost: AsyncThrowingStream<HCIChunk, any Error>.Continuation) {
        self.air = air
        self.toHost = toHost
        self.address = air.address()
    }

    func detach() {
        advertiser?.cancel()
        air.detach(self)
    }

    func receive(_ bytes: [UInt8]) {
        for result in reassembler.push(bytes) {
            guard case .success(.command(let command)) = result else { continue }
            handle(command)
        }
    }

    private func handle(_ command: HCICommand) {
        let p = Array(command.parameters)
        var extra: [UInt8] = []
        var status: UInt8 = 0
        switch command.opcode {
        case .reset:
            advertiser?.cancel()
            advertiser = nil
            scanning = false
        case .readLocalSupportedCommands: extra = [UInt8](repeating: 0, count: 64)
        // HCI 5.0 (0x09), so legacy non-connectable advertising may be as fast as 20 ms.
        case .readLocalVersionInformation: extra = [0x09, 0, 0, 0x09, 0xFF, 0xFF, 0, 0]
        case .leReadAdvertisingPhysicalChannelTxPower: extra = [0]
        case .leSetRandomAddress where p.count == 6:
            // As the Core Spec has it (Vol 4 Part E §7.8.4): refused while advertising or scanning.
            if advertiser != nil || scanning { status = HCIStatus.commandDisallowed.rawValue } else { randomAddress = BDAddress(wireBytes: p) }
        case .leReadLocalSupportedFeatures: extra = [UInt8](repeating: 0, count: 8)
        case .leSetAdvertisingParameters where p.count == 15:
            intervalUnits = UInt16(p[0]) | UInt16(p[1]) << 8
            advertisingType = p[4]
            ownAddressType = p[5]
        case .leSetAdvertisingData where p.count == 32:
            data = Array(p[1..<(1 + Int(min(p[0], 31)))])
        case .leSetAdvertisingEnable where p.count == 1:
            advertiser?.cancel()
            advertiser = p[0] == 1 ? Task { await self.advertise() } : nil
        case .leSetScanEnable where p.count == 2:
            scanning = p[0] == 1
        default:
            break
        }
        let complete = HCIEvent.commandComplete(.init(numHCICommandPackets: 1, opcode: command.opcode,
                                                      returnParameters: ([status] + extra)[...]))
        if let packet = try? complete.encode() { toHost.yield(HCIChunk(H4Packet.event(packet).encode())) }
    }

    private func advertise() async {
        while !Task.isCancelled {
            let random = ownAddressType == OwnAddressType.randomDevice.rawValue ? randomAddress : nil
            air.transmit(from: self, report: .legacy(eventType: advertisingType == 0x00 ? 0 : advertisingType,
                                                     addressType: random == nil ? .publicDevice : .randomDevice,
                                                     address: random ?? address, rssi: -60, data: data[...]))
            try? await Task.sleep(for: .microseconds(Int(intervalUnits) * 625))
        }
    }

    func hear(_ report: AdvertisingReport) {
        guard scanning, let packet = try? HCIEvent.leAdvertisingReport([report]).encode() else { return }
        toHost.yield(HCIChunk(H4Packet.event(packet).encode()))
    }
}
