import BeaconCore
#if canImport(Glibc)
import Glibc
#endif

/// The host side of one HCI link: sends commands one at a time and matches each to its
/// Command Complete / Command Status, and turns advertising reports into sightings.
///
/// Knows nothing about the transport (bytes in, bytes out) nor about reconnecting (the radio's job).
actor HCIHost {
    struct CommandFailed: Error, CustomStringConvertible {
        var opcode: HCIOpcode
        var status: HCIStatus
        var description: String { "\(opcode) failed: \(status)" }
    }

    struct Timeout: Error, CustomStringConvertible {
        var opcode: HCIOpcode
        var description: String { "controller did not answer \(opcode)" }
    }

    private let link: HCILink
    private let onSighting: @Sendable (RadioSighting) -> Void
    private var reassembler = H4Reassembler(acceptedTypes: [.event, .acl, .iso])
    private var advertisingData = AdvertisingDataReassembler()
    private var pending: (id: Int, opcode: HCIOpcode, continuation: CheckedContinuation<[UInt8], any Error>)?
    private var nextID = 0
    private var queue: [CheckedContinuation<Void, Never>] = []
    private var busy = false
    private var ended: (any Error)?
    private(set) var statistics = Statistics()

    struct Statistics: Sendable {
        var events = 0
        var advertisingReports = 0
        var scanResponsesIgnored = 0
        var undecodable = 0
    }

    init(link: HCILink, onSighting: @escaping @Sendable (RadioSighting) -> Void) {
        self.link = link
        self.onSighting = onSighting
    }

    /// Reads until the link ends; then every waiting command fails. Returns the reason.
    func run() async -> any Error {
        let reason: any Error
        do {
            for try await chunk in link.inbound { ingest(chunk) }
            reason = RadioError("controller closed the connection")
        } catch {
            reason = error
        }
        ended = reason
        pending?.continuation.resume(throwing: reason)
        pending = nil
        return reason
    }

    /// Sends `command` and returns its return parameters after a successful status.
    /// Commands are serialised; a missing answer after `timeout` fails the link.
    @discardableResult
    func send(_ command: HCICommand, timeout: Duration = .seconds(3)) async throws -> [UInt8] {
        while busy { await withCheckedContinuation { queue.append($0) } }
        busy = true
        defer {
            busy = false
            if !queue.isEmpty { queue.removeFirst().resume() }
        }
        if let ended { throw ended }
        nextID += 1
        let id = nextID
        let watchdog = Task { [weak self] in
            try await Task.sleep(for: timeout)
            await self?.expire(id)
        }
        defer { watchdog.cancel() }
        return try await withCheckedThrowingContinuation { continuation in
            pending = (id, command.opcode, continuation)
            let bytes = command.packet.encode()
            let link = link
            Task { [weak self] in
                do { try await link.send(bytes) } catch { await self?.fail(id, error) }
            }
        }
    }

    private func expire(_ id: Int) async {
        guard let pending, pending.id == id else { return }
        self.pending = nil
        pending.continuation.resume(throwing: Timeout(opcode: pending.opcode))
        await link.close()
    }

    private func fail(_ id: Int, _ error: any Error) {
        guard let pending, pending.id == id else { return }
        self.pending = nil
        pending.continuation.resume(throwing: error)
    }

    private func complete(_ opcode: HCIOpcode, status: HCIStatus?, parameters: ArraySlice<UInt8>) {
        guard let pending, pending.opcode == opcode else { return }
        self.pending = nil
        if let status, !status.isSuccess {
            pending.continuation.resume(throwing: CommandFailed(opcode: opcode, status: status))
        } else {
            pending.continuation.resume(returning: Array(parameters))
        }
    }

    private func ingest(_ chunk: HCIChunk) {
        let receivedAt = chunk.receivedAt
        let unixMicroseconds = RadioSighting.unixMicrosecondsNow()
        reassembler.push(chunk.bytes[...], onError: { _ in self.statistics.undecodable += 1 }) { frame in
            guard frame.first == HCIPacketType.event.rawValue else { return }
            statistics.events += 1
            let event: HCIEvent
            do { event = try HCIEvent(packet: frame.dropFirst()) } catch {
                statistics.undecodable += 1
                return
            }
            switch event {
            case .commandComplete(let c):
                complete(c.opcode, status: c.status, parameters: c.returnParameters)
            case .commandStatus(let s):
                complete(s.opcode, status: s.status, parameters: [])
            case .leAdvertisingReport(let reports), .leExtendedAdvertisingReport(let reports):
                for report in reports { deliver(report, receivedAt, unixMicroseconds) }
            default:
                break
            }
        }
    }

    private func deliver(_ report: AdvertisingReport, _ receivedAt: ContinuousClock.Instant, _ unixMicroseconds: Int64) {
        statistics.advertisingReports += 1
        // A passive scanner sends no scan requests, so a scan response is a controller artefact
        // (Bumble's virtual link reports each ADV_IND twice, once as SCAN_RSP).
        guard !report.properties.contains(.scanResponse) else {
            statistics.scanResponsesIgnored += 1
            return
        }
        guard case .complete(let whole) = advertisingData.push(report) else { return }
        onSighting(RadioSighting(address: whole.address, addressType: whole.addressType, rssi: whole.rssi,
                                 receivedAt: receivedAt, unixMicroseconds: unixMicroseconds,
                                 advertisingData: Array(whole.data), beacon: IBeacon(advertisingData: whole.data)))
    }
}
