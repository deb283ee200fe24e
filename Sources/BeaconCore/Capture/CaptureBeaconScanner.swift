import Foundation

/// An iBeacon seen in one advertising report.
public struct BeaconSighting: Equatable, Sendable {
    /// When the controller's report was captured.
    public var unixMicroseconds: Int64
    /// The advertiser's address.
    public var address: BDAddress
    /// Public or random.
    public var addressType: AddressType
    /// The frame received.
    public var beacon: IBeacon
    /// nil when the controller reported none (127).
    public var rssi: Int8?

    /// A sighting as a scanner or radio records it.
    public init(unixMicroseconds: Int64, address: BDAddress, addressType: AddressType, beacon: IBeacon, rssi: Int8?) {
        self.unixMicroseconds = unixMicroseconds
        self.address = address
        self.addressType = addressType
        self.beacon = beacon
        self.rssi = rssi
    }
}

/// Finds iBeacon sightings in the records of an HCI capture: decodes every received event,
/// joins fragmented extended advertisements, and keeps count of what it saw.
/// Bad events are counted and skipped; a capture is evidence, and one garbled event
/// should not hide the rest.
public struct CaptureBeaconScanner: Sendable {
    /// What the scanner saw, for the summary `ridebeacon scan --capture` prints.
    public struct Statistics: Equatable, Sendable {
        /// Records processed.
        public var records = 0
        /// Reports in advertising report events, each piece of a fragmented advertisement counted.
        public var advertisingReports = 0
        /// iBeacon sightings reported.
        public var sightings = 0
        /// Distinct (UUID, major, minor) among the sightings.
        public var beacons = 0
        /// Events (or H4 packets of unknown type) that did not decode.
        public var undecodableEvents = 0
        /// Advertisements given up on: truncated by the controller or unreassemblable.
        public var droppedAdvertisements = 0

        /// All counts zero.
        public init() {}
    }

    struct BeaconIdentity: Hashable {
        var uuid: UUID
        var major: UInt16
        var minor: UInt16
    }

    /// Only beacons with this proximity UUID are reported; nil reports all.
    public let uuidFilter: UUID?
    public private(set) var statistics = Statistics()
    private var reassembler = AdvertisingDataReassembler()
    private var seenBeacons: Set<BeaconIdentity> = []

    /// A scanner reporting every iBeacon, or only those with `uuidFilter`:
    ///
    /// ```swift
    /// var scanner = CaptureBeaconScanner()
    /// while let record = try reader.next() { scanner.process(record) { print($0.beacon) } }
    /// ```
    public init(uuidFilter: UUID? = nil) {
        self.uuidFilter = uuidFilter
    }

    /// Processes one record, calling `sighting` for each (matching) iBeacon in it.
    public mutating func process(_ record: BtsnoopRecord, _ sighting: (BeaconSighting) -> Void) {
        statistics.records += 1
        let type = record.packetType
        guard type == .event || type == nil else { return }
        let event: HCIEvent
        do {
            guard case .event(let packet) = try record.packet() else { return }
            event = try HCIEvent(packet)
        } catch {
            statistics.undecodableEvents += 1
            return
        }
        let reports = event.advertisingReports
        statistics.advertisingReports += reports.count
        for report in reports {
            switch reassembler.push(report) {
            case .pending:
                continue
            case .dropped:
                statistics.droppedAdvertisements += 1
            case .complete(let whole):
                guard let beacon = IBeacon(advertisingData: whole.data) else { continue }
                if let uuidFilter, beacon.uuid != uuidFilter { continue }
                statistics.sightings += 1
                if seenBeacons.insert(BeaconIdentity(uuid: beacon.uuid, major: beacon.major, minor: beacon.minor)).inserted {
                    statistics.beacons += 1
                }
                sighting(BeaconSighting(unixMicroseconds: record.unixMicroseconds, address: whole.address,
                                        addressType: whole.addressType, beacon: beacon, rssi: whole.rssi))
            }
        }
    }
}
