import Foundation

/// A JSON writer for the hot wire types: the ride views every GET, list and event stream sends.
/// Foundation's `JSONEncoder` spent 37 % of a dispatcher list request walking `Codable`
/// containers (BENCHMARKS.md, "Ride server"); these types write themselves directly.
/// The bytes are the ones `JSONEncoder` with `.sortedKeys` and `.withoutEscapingSlashes` writes
/// (keys in byte order, the same escapes), which `WireJSONTests` checks on random values, so
/// either encoder may produce a body and a replay still matches the first answer.
public struct WireJSONWriter {
    public private(set) var bytes: [UInt8] = []
    private var needsComma = false

    /// An empty writer with room for `capacity` bytes.
    public init(capacity: Int = 512) {
        bytes.reserveCapacity(capacity)
    }

    /// `{ ... }`; the body writes its members in sorted key order.
    public mutating func object(_ body: (inout Self) -> Void) {
        separate()
        bytes.append(UInt8(ascii: "{"))
        needsComma = false
        body(&self)
        bytes.append(UInt8(ascii: "}"))
        needsComma = true
    }

    /// `[ ... ]` of `values`, each written by `element`.
    public mutating func array<Element>(_ values: [Element], _ element: (inout Self, Element) -> Void) {
        separate()
        bytes.append(UInt8(ascii: "["))
        needsComma = false
        for value in values { element(&self, value) }
        bytes.append(UInt8(ascii: "]"))
        needsComma = true
    }

    /// A member's key; its value follows.
    public mutating func key(_ name: StaticString) {
        separate()
        bytes.append(UInt8(ascii: "\""))
        name.withUTF8Buffer { bytes.append(contentsOf: $0) }
        bytes.append(contentsOf: [UInt8(ascii: "\""), UInt8(ascii: ":")])
        needsComma = false
    }

    /// A member's key known only at run time (a log line's metadata), escaped as any string.
    public mutating func key(_ name: String) {
        string(name)
        bytes.append(UInt8(ascii: ":"))
        needsComma = false
    }

    /// A JSON string, escaped as `JSONEncoder` escapes it (quote, backslash, control characters).
    public mutating func string(_ text: String) {
        separate()
        bytes.append(UInt8(ascii: "\""))
        var text = text
        text.withUTF8 { utf8 in
            // Most text needs no escape: copy runs between escapes in one go.
            var start = 0
            for (index, byte) in utf8.enumerated() where byte < 0x20 || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") {
                bytes.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[start..<index]))
                appendEscaped(byte)
                start = index + 1
            }
            bytes.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[start...]))
        }
        bytes.append(UInt8(ascii: "\""))
        needsComma = true
    }

    /// A JSON integer.
    public mutating func int(_ value: Int64) {
        separate()
        bytes.append(contentsOf: String(value).utf8)
        needsComma = true
    }

    /// `true` or `false`.
    public mutating func bool(_ value: Bool) {
        separate()
        bytes.append(contentsOf: (value ? "true" : "false").utf8)
        needsComma = true
    }

    /// `null`.
    public mutating func null() {
        separate()
        bytes.append(contentsOf: "null".utf8)
        needsComma = true
    }

    /// A date as the API writes it (`WireDates`: ISO 8601 with milliseconds, UTC).
    public mutating func date(_ date: Date) {
        string(WireDates.format(date))
    }

    // Members that the Codable encoders leave out when nil (`encodeIfPresent`).
    /// `"name": text`, or nothing when `text` is nil (as `encodeIfPresent` leaves it out).
    public mutating func member(_ name: StaticString, _ text: String?) {
        guard let text else { return }
        key(name)
        string(text)
    }

    /// `"name": value`, or nothing when nil.
    public mutating func member(_ name: StaticString, _ value: Int?) {
        guard let value else { return }
        key(name)
        int(Int64(value))
    }

    /// `"name": value`, or nothing when nil.
    public mutating func member(_ name: StaticString, _ value: Bool?) {
        guard let value else { return }
        key(name)
        bool(value)
    }

    /// `"name": date`, or nothing when nil.
    public mutating func member(_ name: StaticString, _ date: Date?) {
        guard let date else { return }
        key(name)
        self.date(date)
    }

    /// `"name": value` written by the value itself, or nothing when nil.
    public mutating func member(_ name: StaticString, _ value: (some WireJSONEncodable)?) {
        guard let value else { return }
        key(name)
        value.writeJSON(to: &self)
    }

    private mutating func separate() {
        if needsComma { bytes.append(UInt8(ascii: ",")) }
    }

    private static let hexDigits = Array("0123456789abcdef".utf8)

    private mutating func appendEscaped(_ byte: UInt8) {
        switch byte {
        case UInt8(ascii: "\""): bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "\"")])
        case UInt8(ascii: "\\"): bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "\\")])
        case 0x08: bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "b")])
        case 0x09: bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "t")])
        case 0x0A: bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "n")])
        case 0x0C: bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "f")])
        case 0x0D: bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "r")])
        case 0x00..<0x20:
            bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "u"), UInt8(ascii: "0"), UInt8(ascii: "0"),
                                      Self.hexDigits[Int(byte >> 4)], Self.hexDigits[Int(byte & 0xF)]])
        default: bytes.append(byte)
        }
    }
}

/// A wire type that writes its own JSON (`WireJSONWriter`).
public protocol WireJSONEncodable {
    func writeJSON(to writer: inout WireJSONWriter)
}

extension WireJSONEncodable {
    /// The value's JSON, as `JSONEncoder` with sorted keys would write it.
    public var wireJSON: [UInt8] {
        var writer = WireJSONWriter()
        writeJSON(to: &writer)
        return writer.bytes
    }
}

// Members in byte order of their JSON keys: that is what `.sortedKeys` writes.

extension RideParty: WireJSONEncodable {
    /// Writes this value's JSON: members in byte order of their keys, as `JSONEncoder` with `.sortedKeys` would.
    public func writeJSON(to writer: inout WireJSONWriter) {
        writer.object { json in
            json.member("language", language)
            json.key("name"); json.string(name)
            json.member("vehicle", vehicle)
            if let vehicleDetails { json.key("vehicleDetails"); vehicleDetails.writeJSON(to: &json) }
        }
    }
}

extension Vehicle: WireJSONEncodable {
    /// Writes this value's JSON: members in byte order of their keys, as `JSONEncoder` with `.sortedKeys` would.
    public func writeJSON(to writer: inout WireJSONWriter) {
        writer.object { json in
            json.member("colour", colour)
            json.member("make", make)
            json.key("model"); json.string(model)
            json.member("plate", plate)
        }
    }
}

extension Ride: WireJSONEncodable {
    /// Writes this value's JSON: members in byte order of their keys, as `JSONEncoder` with `.sortedKeys` would.
    public func writeJSON(to writer: inout WireJSONWriter) {
        writer.object { json in
            json.member("accessibilityNotes", accessibilityNotes)
            json.member("cancellation", cancellation)
            json.member("code", code)
            json.key("createdAt"); json.date(createdAt)
            json.key("driver"); driver.writeJSON(to: &json)
            json.key("driverId"); json.string(driverID)
            json.member("dropoff", dropoff)
            json.member("etaGivenAt", etaGivenAt)
            json.member("etaMinutes", etaMinutes)
            json.key("id"); json.string(id)
            json.member("identityPeriodSeconds", identityPeriodSeconds)
            json.member("key", key)
            json.key("passenger"); passenger.writeJSON(to: &json)
            json.key("passengerId"); json.string(passengerID)
            json.member("pickup", pickup)
            json.key("requestId"); json.string(requestID)
            json.key("state"); json.string(state.rawValue)
            json.key("stateChangedAt"); json.date(stateChangedAt)
            json.member("stuck", stuck)
        }
    }
}

extension WireJSONWriter {
    /// A page of a list: `{"nextAfter": ..., "<items>": [...]}`, `nextAfter` null on the last
    /// page (openapi.yaml requires the key). Both lists' item keys sort after `nextAfter`.
    mutating func page(_ itemsKey: StaticString, _ items: [some WireJSONEncodable], nextAfter: String?) {
        object { json in
            json.key("nextAfter")
            if let nextAfter { json.string(nextAfter) } else { json.null() }
            json.key(itemsKey); json.array(items) { json, item in item.writeJSON(to: &json) }
        }
    }
}

extension RideList: WireJSONEncodable {
    /// Writes this value's JSON: members in byte order of their keys, as `JSONEncoder` with `.sortedKeys` would.
    public func writeJSON(to writer: inout WireJSONWriter) {
        writer.page("rides", rides, nextAfter: nextAfter)
    }
}

extension RideRequest: WireJSONEncodable {
    /// Writes this value's JSON: members in byte order of their keys, as `JSONEncoder` with `.sortedKeys` would.
    public func writeJSON(to writer: inout WireJSONWriter) {
        writer.object { json in
            json.member("accessibilityNotes", accessibilityNotes)
            json.member("cancellation", cancellation)
            json.member("code", code)
            json.key("createdAt"); json.date(createdAt)
            json.key("dropoff"); json.string(dropoff)
            json.key("id"); json.string(id)
            json.member("passengerId", passengerID)
            json.key("passengerName"); json.string(passengerName)
            json.key("pickup"); json.string(pickup)
            json.member("rideId", rideID)
            json.key("status"); json.string(status.rawValue)
        }
    }
}

extension RideRequestList: WireJSONEncodable {
    /// Writes this value's JSON: members in byte order of their keys, as `JSONEncoder` with `.sortedKeys` would.
    public func writeJSON(to writer: inout WireJSONWriter) {
        writer.page("rideRequests", rideRequests, nextAfter: nextAfter)
    }
}

extension RideEvent: WireJSONEncodable {
    /// Writes this value's JSON: members in byte order of their keys, as `JSONEncoder` with `.sortedKeys` would.
    public func writeJSON(to writer: inout WireJSONWriter) {
        writer.object { json in
            json.key("actorId"); json.string(actorID)
            json.key("at"); json.date(at)
            json.member("detail", detail)
            json.key("id"); json.int(id)
            json.key("kind"); json.string(kind.rawValue)
            json.key("requestId"); json.string(requestID)
            json.member("rideId", rideID)
            json.key("sequence"); json.int(Int64(sequence))
            json.key("state"); json.string(state.rawValue)
        }
    }
}
