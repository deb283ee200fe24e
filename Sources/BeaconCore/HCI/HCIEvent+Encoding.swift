// Encoding events is what a controller does; RideBeacon needs it for the simulated radio,
// test fixtures and round-trip checks of the decoder.

extension HCIEvent {
    /// The framed event. Fails when a field cannot be represented (an RSSI of 127 — use nil —
    /// or reports that overflow the 255-byte parameter limit).
    public func encode() throws(EncodeError) -> HCIEventPacket {
        var out: [UInt8] = []
        switch self {
        case .commandComplete(let event):
            out = [event.numHCICommandPackets]
            out.appendLE16(event.opcode.rawValue)
            out.append(contentsOf: event.returnParameters)
        case .commandStatus(let event):
            out = [event.status.rawValue, event.numHCICommandPackets]
            out.appendLE16(event.opcode.rawValue)
        case .disconnectionComplete(let event):
            out = [event.status.rawValue]
            out.appendLE16(event.connectionHandle)
            out.append(event.reason.rawValue)
        case .leAdvertisingReport(let reports):
            out = try Self.reportParameters(Self.legacyAdvertisingReportSubevent, reports) { report, out throws(EncodeError) in
                try report.appendLegacy(to: &out)
            }
        case .leExtendedAdvertisingReport(let reports):
            out = try Self.reportParameters(Self.extendedAdvertisingReportSubevent, reports) { report, out throws(EncodeError) in
                try report.appendExtended(to: &out)
            }
        case .unknownLEMeta(let subevent, let parameters):
            out = [subevent] + parameters
        case .unknown(_, let parameters):
            out = Array(parameters)
        }
        return try HCIEventPacket(code: code, parameters: out)
    }

    private static func reportParameters(
        _ subevent: UInt8, _ reports: [AdvertisingReport],
        _ append: (AdvertisingReport, inout [UInt8]) throws(EncodeError) -> Void
    ) throws(EncodeError) -> [UInt8] {
        guard reports.count <= 0xFF else { throw .tooLong(field: "reports", count: reports.count, maximum: 0xFF) }
        var out: [UInt8] = [subevent, UInt8(reports.count)]
        for report in reports { try append(report, &out) }
        return out
    }
}

extension AdvertisingReport {
    /// Appends the legacy per-report layout: type, address type, address, length, data, RSSI.
    func appendLegacy(to out: inout [UInt8]) throws(EncodeError) {
        try EncodeError.check("legacy event type", eventType, in: 0...0xFF)
        try EncodeError.check("advertising data length", data.count, in: 0...0xFF)
        out.append(UInt8(eventType))
        out.append(addressType.rawValue)
        address.append(to: &out)
        out.append(UInt8(data.count))
        out.append(contentsOf: data)
        out.append(try Self.wireByte(rssi, field: "RSSI"))
    }

    /// Appends the extended per-report layout (24 bytes, then data).
    func appendExtended(to out: inout [UInt8]) throws(EncodeError) {
        try EncodeError.check("advertising data length", data.count, in: 0...0xFF)
        if let sid = advertisingSID { try EncodeError.check("advertising SID", sid, in: 0...0xFE) }
        out.appendLE16(eventType)
        out.append(addressType.rawValue)
        address.append(to: &out)
        out.append(primaryPHY.rawValue)
        out.append(secondaryPHY.rawValue)
        out.append(advertisingSID ?? 0xFF)
        out.append(try Self.wireByte(txPower, field: "TX power"))
        out.append(try Self.wireByte(rssi, field: "RSSI"))
        out.appendLE16(periodicAdvertisingInterval)
        out.append(directAddressType.rawValue)
        directAddress.append(to: &out)
        out.append(UInt8(data.count))
        out.append(contentsOf: data)
    }

    /// 127 on the wire means "not available", so a present value of 127 cannot be sent.
    private static func wireByte(_ value: Int8?, field: String) throws(EncodeError) -> UInt8 {
        guard let value else { return 0x7F }
        try EncodeError.check(field, value, in: -128...126)
        return UInt8(bitPattern: value)
    }
}
