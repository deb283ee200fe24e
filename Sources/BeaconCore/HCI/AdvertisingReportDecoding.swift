// The one place advertising reports are parsed. `HCIEvent` decoding and the allocation-free
// `forEachAdvertisingReport` both come through here, so they cannot disagree.
//
// Each subevent is walked twice: first to check that the report count and every data length
// account for exactly the bytes present, then to hand out reports. An inconsistent event is
// rejected whole (a bad length late in the event casts doubt on everything before it), and
// the check costs a few index operations per report.

extension HCIEvent {
    static let leMetaCode: UInt8 = 0x3E
    static let legacyAdvertisingReportSubevent: UInt8 = 0x02
    static let extendedAdvertisingReportSubevent: UInt8 = 0x0D

    /// Bytes of a legacy report around its data: type, address type, address, data length | rssi.
    static let legacyReportOverhead = 10
    /// Bytes of an extended report before its data, data length byte included.
    static let extendedReportHeader = 24

    /// Calls `body` with every advertising report in one HCI event packet — `code | length |
    /// parameters`, without the H4 indicator — slicing report data out of `eventPacket`
    /// instead of copying it. Events other than LE Advertising Report and LE Extended
    /// Advertising Report are skipped without error.
    ///
    /// Returns the error if the event is malformed; `body` is then never called.
    @discardableResult
    public static func forEachAdvertisingReport(
        in eventPacket: ArraySlice<UInt8>, _ body: (AdvertisingReport) -> Void
    ) -> DecodeError? {
        let start = eventPacket.startIndex
        guard eventPacket.count >= 2 else {
            return DecodeError(offset: eventPacket.count, "truncated event header: need 2 bytes, have \(eventPacket.count)", kind: .truncated)
        }
        let declared = Int(eventPacket[start + 1])
        let present = eventPacket.count - 2
        guard declared == present else {
            return parameterLengthMismatch(declared: declared, present: present, at: 1)
        }
        guard eventPacket[start] == leMetaCode else { return nil }
        return forEachAdvertisingReport(leMetaParameters: eventPacket[(start + 2)...], offsetBase: 2, body)
    }

    /// Like `forEachAdvertisingReport(in:)` for the parameters of an LE Meta event (subevent code first).
    @discardableResult
    public static func forEachAdvertisingReport(
        leMetaParameters parameters: ArraySlice<UInt8>, _ body: (AdvertisingReport) -> Void
    ) -> DecodeError? {
        forEachAdvertisingReport(leMetaParameters: parameters, offsetBase: 0, body)
    }

    static func forEachAdvertisingReport(
        leMetaParameters parameters: ArraySlice<UInt8>, offsetBase: Int, _ body: (AdvertisingReport) -> Void
    ) -> DecodeError? {
        guard let subevent = parameters.first else {
            return DecodeError(offset: offsetBase, "LE Meta event without a subevent code", kind: .truncated)
        }
        let reports = parameters.dropFirst()
        switch subevent {
        case legacyAdvertisingReportSubevent:
            return forEachLegacyReport(reports, offsetBase: offsetBase + 1, body)
        case extendedAdvertisingReportSubevent:
            return forEachExtendedReport(reports, offsetBase: offsetBase + 1, body)
        default:
            return nil
        }
    }

    /// `p` starts at Num_Reports. Per report: type, address type, address(6), length, data, rssi.
    static func forEachLegacyReport(_ p: ArraySlice<UInt8>, offsetBase: Int, _ body: (AdvertisingReport) -> Void) -> DecodeError? {
        let start = p.startIndex, end = p.endIndex
        guard start < end else {
            return DecodeError(offset: offsetBase, "advertising report event without Num_Reports", kind: .truncated)
        }
        let count = Int(p[start])
        var i = start + 1
        for n in 0..<count {
            guard i + 9 <= end else { return truncatedReport(n, of: count, at: i - start + offsetBase, "header") }
            let next = i + legacyReportOverhead + Int(p[i + 8])
            guard next <= end else { return truncatedReport(n, of: count, at: i - start + offsetBase, "data and RSSI") }
            i = next
        }
        guard i == end else { return trailingReportBytes(end - i, count: count, at: i - start + offsetBase) }

        i = start + 1
        for _ in 0..<count {
            let dataStart = i + 9
            let dataEnd = dataStart + Int(p[i + 8])
            let rssi = Int8(bitPattern: p[dataEnd])
            body(.legacy(eventType: p[i], addressType: AddressType(rawValue: p[i + 1]),
                         address: BDAddress(wire: p, at: i + 2),
                         rssi: rssi == 127 ? nil : rssi, data: p[dataStart..<dataEnd]))
            i = dataEnd + 1
        }
        return nil
    }

    /// `p` starts at Num_Reports. Per report: 24 fixed bytes ending in the data length, then data.
    static func forEachExtendedReport(_ p: ArraySlice<UInt8>, offsetBase: Int, _ body: (AdvertisingReport) -> Void) -> DecodeError? {
        let start = p.startIndex, end = p.endIndex
        guard start < end else {
            return DecodeError(offset: offsetBase, "extended advertising report event without Num_Reports", kind: .truncated)
        }
        let count = Int(p[start])
        var i = start + 1
        for n in 0..<count {
            guard i + extendedReportHeader <= end else { return truncatedReport(n, of: count, at: i - start + offsetBase, "header") }
            let next = i + extendedReportHeader + Int(p[i + 23])
            guard next <= end else { return truncatedReport(n, of: count, at: i - start + offsetBase, "data") }
            i = next
        }
        guard i == end else { return trailingReportBytes(end - i, count: count, at: i - start + offsetBase) }

        i = start + 1
        for _ in 0..<count {
            let sid = p[i + 11], txPower = Int8(bitPattern: p[i + 12]), rssi = Int8(bitPattern: p[i + 13])
            let dataStart = i + extendedReportHeader
            let dataEnd = dataStart + Int(p[i + 23])
            body(AdvertisingReport(
                eventType: UInt16(p[i]) | UInt16(p[i + 1]) << 8,
                addressType: AddressType(rawValue: p[i + 2]),
                address: BDAddress(wire: p, at: i + 3),
                primaryPHY: PHY(rawValue: p[i + 9]),
                secondaryPHY: PHY(rawValue: p[i + 10]),
                advertisingSID: sid == 0xFF ? nil : sid,
                txPower: txPower == 127 ? nil : txPower,
                rssi: rssi == 127 ? nil : rssi,
                periodicAdvertisingInterval: UInt16(p[i + 14]) | UInt16(p[i + 15]) << 8,
                directAddressType: AddressType(rawValue: p[i + 16]),
                directAddress: BDAddress(wire: p, at: i + 17),
                data: p[dataStart..<dataEnd]))
            i = dataEnd
        }
        return nil
    }

    static func truncatedReport(_ index: Int, of count: Int, at offset: Int, _ part: String) -> DecodeError {
        DecodeError(offset: offset, "Num_Reports is \(count) but report \(index + 1) \(part) runs past the end", kind: .truncated)
    }

    static func trailingReportBytes(_ extra: Int, count: Int, at offset: Int) -> DecodeError {
        DecodeError(offset: offset, "\(extra) bytes after the \(count) reports Num_Reports announces", kind: .trailingBytes)
    }

    static func parameterLengthMismatch(declared: Int, present: Int, at offset: Int) -> DecodeError {
        if present < declared {
            return DecodeError(offset: offset, "parameter length byte says \(declared), only \(present) bytes present", kind: .truncated)
        }
        return DecodeError(offset: offset, "parameter length byte says \(declared), \(present) bytes present", kind: .trailingBytes)
    }
}
