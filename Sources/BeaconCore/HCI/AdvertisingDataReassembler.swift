/// Joins extended advertising data that a controller reports in pieces.
///
/// An extended advertisement's data can arrive in several reports: each but the last has
/// data status "incomplete, more to come", and the last is "complete" — or "truncated" when
/// the controller lost the rest. Pieces are matched by advertiser (address type, address,
/// SID) and by whether they are a scan response, since different advertisers' pieces may
/// interleave. Legacy reports and unfragmented extended reports pass straight through,
/// without copying.
public struct AdvertisingDataReassembler: Sendable {
    /// What `push` made of one report.
    public enum Outcome: Equatable, Sendable {
        /// A whole advertisement: the last piece's report with every piece's data joined.
        case complete(AdvertisingReport)
        /// A piece was stored; more are expected.
        case pending
        /// An advertisement (and any pieces held for it) was discarded.
        case dropped(DropReason)
    }

    /// Why an advertisement was discarded.
    public enum DropReason: Equatable, Sendable {
        /// The controller marked the data truncated (or used the reserved status).
        case truncatedByController
        /// The pieces grew past `maximumDataLength`.
        case tooLong
        /// `maximumPendingAdvertisers` advertisers already had pieces waiting.
        case tooManyPending
    }

    struct Key: Hashable, Sendable {
        var addressType: AddressType
        var address: BDAddress
        var sid: UInt8?
        var isScanResponse: Bool
    }

    private var pending: [Key: [UInt8]] = [:]
    /// The most joined data kept for one advertisement, bytes.
    public let maximumDataLength: Int
    /// The most advertisers with pieces waiting at once (bounds memory under a flood of fragments).
    public let maximumPendingAdvertisers: Int

    /// 1650 bytes is the most extended advertising data the spec allows.
    public init(maximumDataLength: Int = 1650, maximumPendingAdvertisers: Int = 64) {
        self.maximumDataLength = maximumDataLength
        self.maximumPendingAdvertisers = maximumPendingAdvertisers
    }

    /// Advertisers with pieces waiting for their last one.
    public var pendingCount: Int { pending.count }

    /// Takes the next report from the controller:
    ///
    /// ```swift
    /// if case .complete(let whole) = reassembler.push(report) { handle(whole.data) }
    /// ```
    public mutating func push(_ report: AdvertisingReport) -> Outcome {
        guard !report.isLegacy else { return .complete(report) }
        let key = Key(addressType: report.addressType, address: report.address, sid: report.advertisingSID,
                      isScanResponse: report.properties.contains(.scanResponse))
        switch report.dataStatus {
        case .complete:
            guard var data = pending.removeValue(forKey: key) else { return .complete(report) }
            guard data.count + report.data.count <= maximumDataLength else { return .dropped(.tooLong) }
            data.append(contentsOf: report.data)
            var joined = report
            joined.data = data[...]
            return .complete(joined)
        case .incompleteMoreToCome:
            if pending[key] == nil, pending.count >= maximumPendingAdvertisers { return .dropped(.tooManyPending) }
            var data = pending.removeValue(forKey: key) ?? []
            guard data.count + report.data.count <= maximumDataLength else { return .dropped(.tooLong) }
            data.append(contentsOf: report.data)
            pending[key] = data
            return .pending
        case .incompleteTruncated, .reserved:
            pending.removeValue(forKey: key)
            return .dropped(.truncatedByController)
        }
    }

    /// Forgets every waiting piece (e.g. when scanning restarts).
    public mutating func reset() {
        pending.removeAll()
    }
}
