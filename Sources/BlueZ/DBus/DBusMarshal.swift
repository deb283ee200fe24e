import CDBus

// Half of the libdbus seam (the other is DBusConnection.swift): DBusValue <-> DBusMessageIter.
// libdbus's DBUS_TYPE_* macros are casts of character literals, which Swift does not import.

enum DBusTypeCode {
    static func code(_ c: Character) -> Int32 { Int32(c.asciiValue!) }
    static let byte = code("y"), boolean = code("b"), int16 = code("n"), uint16 = code("q")
    static let int32 = code("i"), uint32 = code("u"), int64 = code("x"), uint64 = code("t")
    static let double = code("d"), string = code("s"), objectPath = code("o"), signature = code("g")
    static let array = code("a"), variant = code("v"), structure = code("r"), dictEntry = code("e")
    static let unixFD = code("h"), invalid: Int32 = 0
}

struct DBusMarshalError: Error, CustomStringConvertible {
    var description: String
}

enum DBusMarshal {
    /// Appends `values` to a message's body. Fails only when libdbus runs out of memory or a
    /// value is malformed (a string with an interior NUL, a bad object path).
    static func append(_ values: [DBusValue], to message: OpaquePointer) throws {
        var iter = DBusMessageIter()
        dbus_message_iter_init_append(message, &iter)
        for value in values { try append(value, &iter) }
    }

    /// libdbus copies a basic value out of the bytes it is given, so `T` is a plain scalar
    /// (`BitwiseCopyable`): its bytes are the value, with no reference behind them.
    private static func basic<T: BitwiseCopyable>(_ type: Int32, _ value: T, _ iter: inout DBusMessageIter) throws {
        let ok = withUnsafeBytes(of: value) { bytes in
            dbus_message_iter_append_basic(&iter, type, bytes.baseAddress) != 0
        }
        guard ok else {
            throw DBusMarshalError(description: "cannot append \(value)")
        }
    }

    private static func string(_ type: Int32, _ text: String, _ iter: inout DBusMessageIter) throws {
        guard !text.utf8.contains(0) else { throw DBusMarshalError(description: "string with a NUL byte") }
        let ok = text.withCString { pointer -> Bool in
            var p: UnsafePointer<CChar>? = pointer
            return dbus_message_iter_append_basic(&iter, type, &p) != 0
        }
        guard ok else { throw DBusMarshalError(description: "cannot append \(text)") }
    }

    private static func container(_ type: Int32, _ signature: String?, _ iter: inout DBusMessageIter,
                                  _ body: (inout DBusMessageIter) throws -> Void) throws {
        var sub = DBusMessageIter()
        let opened: Bool
        if let signature {
            opened = signature.withCString { dbus_message_iter_open_container(&iter, type, $0, &sub) != 0 }
        } else {
            opened = dbus_message_iter_open_container(&iter, type, nil, &sub) != 0
        }
        guard opened else { throw DBusMarshalError(description: "cannot open container \(signature ?? "")") }
        do {
            try body(&sub)
        } catch {
            dbus_message_iter_abandon_container(&iter, &sub)
            throw error
        }
        guard dbus_message_iter_close_container(&iter, &sub) != 0 else {
            throw DBusMarshalError(description: "cannot close container")
        }
    }

    private static func append(_ value: DBusValue, _ iter: inout DBusMessageIter) throws {
        switch value {
        case .byte(let v): try basic(DBusTypeCode.byte, v, &iter)
        case .boolean(let v): try basic(DBusTypeCode.boolean, dbus_bool_t(v ? 1 : 0), &iter)
        case .int16(let v): try basic(DBusTypeCode.int16, v, &iter)
        case .uint16(let v): try basic(DBusTypeCode.uint16, v, &iter)
        case .int32(let v): try basic(DBusTypeCode.int32, v, &iter)
        case .uint32(let v): try basic(DBusTypeCode.uint32, v, &iter)
        case .int64(let v): try basic(DBusTypeCode.int64, v, &iter)
        case .uint64(let v): try basic(DBusTypeCode.uint64, v, &iter)
        case .double(let v): try basic(DBusTypeCode.double, v, &iter)
        case .string(let s): try string(DBusTypeCode.string, s, &iter)
        case .objectPath(let s):
            guard dbus_validate_path(s, nil) != 0 else { throw DBusMarshalError(description: "bad object path \(s)") }
            try string(DBusTypeCode.objectPath, s, &iter)
        case .signature(let s): try string(DBusTypeCode.signature, s, &iter)
        case .array(let element, let values):
            try container(DBusTypeCode.array, element, &iter) { sub in
                for v in values { try append(v, &sub) }
            }
        case .dictionary(let key, let valueSignature, let entries):
            try container(DBusTypeCode.array, "{\(key)\(valueSignature)}", &iter) { sub in
                for entry in entries {
                    try container(DBusTypeCode.dictEntry, nil, &sub) { pair in
                        try append(entry.key, &pair)
                        try append(entry.value, &pair)
                    }
                }
            }
        case .structure(let fields):
            try container(DBusTypeCode.structure, nil, &iter) { sub in
                for f in fields { try append(f, &sub) }
            }
        case .variant(let inner):
            try container(DBusTypeCode.variant, inner.signature, &iter) { sub in try append(inner, &sub) }
        }
    }

    /// The body of a received message. Unix fds (never used by BlueZ's beacon APIs) are refused.
    static func read(_ message: OpaquePointer) throws -> [DBusValue] {
        var iter = DBusMessageIter()
        guard dbus_message_iter_init(message, &iter) != 0 else { return [] }
        return try readAll(&iter)
    }

    private static func readAll(_ iter: inout DBusMessageIter) throws -> [DBusValue] {
        var out: [DBusValue] = []
        while dbus_message_iter_get_arg_type(&iter) != DBusTypeCode.invalid {
            out.append(try readOne(&iter))
            dbus_message_iter_next(&iter)
        }
        return out
    }

    /// libdbus writes a basic value's bytes into the storage it is given, so `T` is a plain
    /// scalar (`BitwiseCopyable`) of the type the iterator holds.
    private static func get<T: BitwiseCopyable>(_ iter: inout DBusMessageIter, _ zero: T) -> T {
        var value = zero
        withUnsafeMutableBytes(of: &value) { bytes in
            dbus_message_iter_get_basic(&iter, bytes.baseAddress)
        }
        return value
    }

    private static func getString(_ iter: inout DBusMessageIter) -> String {
        var pointer: UnsafePointer<CChar>? = nil
        dbus_message_iter_get_basic(&iter, &pointer)
        return pointer.map { String(cString: $0) } ?? ""
    }

    /// The signature of the value at `iter` (libdbus allocates it).
    private static func signature(_ iter: inout DBusMessageIter) -> String {
        guard let raw = dbus_message_iter_get_signature(&iter) else { return "" }
        defer { dbus_free(raw) }
        return String(cString: raw)
    }

    private static func readOne(_ iter: inout DBusMessageIter) throws -> DBusValue {
        switch dbus_message_iter_get_arg_type(&iter) {
        case DBusTypeCode.byte: return .byte(get(&iter, UInt8(0)))
        case DBusTypeCode.boolean: return .boolean(get(&iter, dbus_bool_t(0)) != 0)
        case DBusTypeCode.int16: return .int16(get(&iter, Int16(0)))
        case DBusTypeCode.uint16: return .uint16(get(&iter, UInt16(0)))
        case DBusTypeCode.int32: return .int32(get(&iter, Int32(0)))
        case DBusTypeCode.uint32: return .uint32(get(&iter, UInt32(0)))
        case DBusTypeCode.int64: return .int64(get(&iter, Int64(0)))
        case DBusTypeCode.uint64: return .uint64(get(&iter, UInt64(0)))
        case DBusTypeCode.double: return .double(get(&iter, Double(0)))
        case DBusTypeCode.string: return .string(getString(&iter))
        case DBusTypeCode.objectPath: return .objectPath(getString(&iter))
        case DBusTypeCode.signature: return .signature(getString(&iter))
        case DBusTypeCode.variant:
            var sub = DBusMessageIter()
            dbus_message_iter_recurse(&iter, &sub)
            return .variant(try readOne(&sub))
        case DBusTypeCode.structure:
            var sub = DBusMessageIter()
            dbus_message_iter_recurse(&iter, &sub)
            return .structure(try readAll(&sub))
        case DBusTypeCode.array:
            let whole = signature(&iter)
            let element = String(whole.dropFirst())
            var sub = DBusMessageIter()
            dbus_message_iter_recurse(&iter, &sub)
            guard dbus_message_iter_get_element_type(&iter) == DBusTypeCode.dictEntry else {
                return .array(elementSignature: element, try readAll(&sub))
            }
            var entries: [DBusDictionaryEntry] = []
            while dbus_message_iter_get_arg_type(&sub) == DBusTypeCode.dictEntry {
                var pair = DBusMessageIter()
                dbus_message_iter_recurse(&sub, &pair)
                let key = try readOne(&pair)
                dbus_message_iter_next(&pair)
                entries.append(DBusDictionaryEntry(key: key, value: try readOne(&pair)))
                dbus_message_iter_next(&sub)
            }
            // "{sv}": the key is one basic type character; the rest is the value's signature.
            let inner = element.dropFirst().dropLast()
            return .dictionary(keySignature: String(inner.prefix(1)), valueSignature: String(inner.dropFirst()), entries)
        case let other:
            throw DBusMarshalError(description: "unsupported D-Bus type code \(other)")
        }
    }
}
