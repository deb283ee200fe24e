/// A D-Bus value with its type, as marshalled by libdbus (the C seam is `DBusMarshal.swift`).
/// Containers carry their element signatures so empty arrays and dictionaries keep their type.
public indirect enum DBusValue: Equatable, Sendable {
    case byte(UInt8)
    case boolean(Bool)
    case int16(Int16)
    case uint16(UInt16)
    case int32(Int32)
    case uint32(UInt32)
    case int64(Int64)
    case uint64(UInt64)
    case double(Double)
    case string(String)
    case objectPath(String)
    case signature(String)
    case array(elementSignature: String, [DBusValue])
    case dictionary(keySignature: String, valueSignature: String, [DBusDictionaryEntry])
    case structure([DBusValue])
    case variant(DBusValue)

    public var signature: String {
        switch self {
        case .byte: "y"
        case .boolean: "b"
        case .int16: "n"
        case .uint16: "q"
        case .int32: "i"
        case .uint32: "u"
        case .int64: "x"
        case .uint64: "t"
        case .double: "d"
        case .string: "s"
        case .objectPath: "o"
        case .signature: "g"
        case .array(let element, _): "a" + element
        case .dictionary(let key, let value, _): "a{\(key)\(value)}"
        case .structure(let fields): "(" + fields.map(\.signature).joined() + ")"
        case .variant: "v"
        }
    }

    /// `ay`.
    public static func bytes(_ bytes: [UInt8]) -> DBusValue { .array(elementSignature: "y", bytes.map(DBusValue.byte)) }

    /// `a{sv}`, the shape of every property set and option dictionary.
    public static func properties(_ entries: [(String, DBusValue)]) -> DBusValue {
        .dictionary(keySignature: "s", valueSignature: "v",
                    entries.map { DBusDictionaryEntry(key: .string($0.0), value: .variant($0.1)) })
    }

    /// The value inside any number of variant wrappers.
    public var unwrapped: DBusValue {
        if case .variant(let inner) = self { return inner.unwrapped }
        return self
    }

    public var stringValue: String? {
        switch unwrapped {
        case .string(let s), .objectPath(let s), .signature(let s): s
        default: nil
        }
    }

    public var int16Value: Int16? {
        if case .int16(let v) = unwrapped { return v }
        return nil
    }

    public var doubleValue: Double? {
        if case .double(let v) = unwrapped { return v }
        return nil
    }

    public var boolValue: Bool? {
        if case .boolean(let v) = unwrapped { return v }
        return nil
    }

    public var byteArray: [UInt8]? {
        guard case .array("y", let elements) = unwrapped else { return nil }
        return elements.compactMap { if case .byte(let b) = $0 { b } else { nil } }
    }

    public var arrayElements: [DBusValue]? {
        if case .array(_, let elements) = unwrapped { return elements }
        return nil
    }

    /// An `a{s*}` dictionary keyed by its string keys (variants unwrapped); nil for anything else.
    public var stringKeyedDictionary: [String: DBusValue]? {
        guard case .dictionary(_, _, let entries) = unwrapped else { return nil }
        var out: [String: DBusValue] = [:]
        for entry in entries {
            guard let key = entry.key.stringValue else { return nil }
            out[key] = entry.value.unwrapped
        }
        return out
    }

    /// `a{qv}` with byte-array values: BlueZ's ManufacturerData (company id -> data after the id).
    public var manufacturerData: [UInt16: [UInt8]]? {
        guard case .dictionary("q", _, let entries) = unwrapped else { return nil }
        var out: [UInt16: [UInt8]] = [:]
        for entry in entries {
            guard case .uint16(let company) = entry.key, let data = entry.value.byteArray else { return nil }
            out[company] = data
        }
        return out
    }
}

public struct DBusDictionaryEntry: Equatable, Sendable {
    public var key: DBusValue
    public var value: DBusValue
    public init(key: DBusValue, value: DBusValue) {
        self.key = key
        self.value = value
    }
}

/// One message as received, with its body decoded.
public struct DBusMessage: Sendable {
    public enum Kind: Sendable { case methodCall, methodReturn, error, signal }
    public var kind: Kind
    public var path: String?
    public var interface: String?
    public var member: String?
    public var errorName: String?
    public var sender: String?
    public var serial: UInt32
    public var replySerial: UInt32
    public var noReplyExpected: Bool
    public var body: [DBusValue]
}

/// An error reply, or a failure to talk to the bus at all.
public struct DBusError: Error, Equatable, Sendable, CustomStringConvertible {
    public var name: String
    public var message: String
    public init(name: String, message: String) {
        self.name = name
        self.message = message
    }
    public var description: String { message.isEmpty ? name : "\(name): \(message)" }

    public static let timeoutName = "org.freedesktop.DBus.Error.Timeout"
    public static let disconnectedName = "org.freedesktop.DBus.Error.Disconnected"

    /// The peer (or the object) is gone — not running, exited, never answered, adapter unplugged —
    /// rather than refusing the request. UnknownMethod is a refusal: an adapter without
    /// LEAdvertisingManager1 will not grow one by retrying.
    public var meansPeerGone: Bool {
        [
            "org.freedesktop.DBus.Error.ServiceUnknown", "org.freedesktop.DBus.Error.NameHasNoOwner",
            "org.freedesktop.DBus.Error.NoReply", "org.freedesktop.DBus.Error.UnknownObject",
            Self.timeoutName, Self.disconnectedName,
        ].contains(name)
    }
}

/// What an exported object answers to a method call: return values or an error.
public enum DBusReply: Sendable {
    case values([DBusValue])
    case error(DBusError)
}
