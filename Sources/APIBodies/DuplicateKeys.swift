import Foundation

/// Finds a key that appears twice in one JSON object, or an object with more keys than any
/// request body has. Foundation's decoder keeps one of the values silently, so
/// `{"pickup":"A","pickup":"B"}` would mean whatever the decoder chose while a proxy or log
/// reader sees the other: such bodies are refused (`invalid_json`), and so are objects past
/// `BodyLimits.maxKeysPerObject`.
///
/// Runs only on text the decoder has already accepted as JSON, so it tracks structure, not
/// grammar; on anything unexpected it stops and reports nothing (bounds are checked throughout;
/// FuzzAPIBodies exercises it). Keys compare as Swift strings after unescaping, as the decoder
/// compares them, so `"a"` and `"\u0061"` are the same key.
///
/// Linear in the body's size: each open object's keys are one set on a stack of sets, changed
/// in place. (The set used to ride inside an enum case on the stack, so every insert copied it:
/// a 64 KB body of 8 687 keys cost 0.6–0.9 s of CPU, issue 36.)
public enum DuplicateKeys {
    /// What the scan found wrong with a body.
    public enum Finding: Equatable, Sendable {
        case duplicate(String)
        /// An object with more than this many keys (the limit).
        case tooManyKeys(Int)
    }

    private struct Frame {
        /// Nil for an array; for an object, its keys' place in `keySets`.
        var keySet: Int?
        var expectingKey: Bool
    }

    /// The first key repeated within one object, if any.
    public static func first(in data: Data) -> String? {
        if case .duplicate(let key)? = scan(data, maxKeysPerObject: .max) { return key }
        return nil
    }

    /// The first problem in reading order: a repeated key, or an object past `maxKeysPerObject`.
    public static func scan(_ data: Data, maxKeysPerObject: Int = BodyLimits.maxKeysPerObject) -> Finding? {
        let bytes = [UInt8](data)
        var stack: [Frame] = []
        var keySets: [Set<String>] = []
        var i = 0
        while i < bytes.count {
            switch bytes[i] {
            case UInt8(ascii: "{"):
                stack.append(Frame(keySet: keySets.count, expectingKey: true))
                keySets.append([])
                i += 1
            case UInt8(ascii: "["):
                stack.append(Frame(keySet: nil, expectingKey: false))
                i += 1
            case UInt8(ascii: "}"), UInt8(ascii: "]"):
                guard let closed = stack.popLast() else { return nil }
                if closed.keySet != nil { keySets.removeLast() }
                i += 1
            case UInt8(ascii: ","):
                if !stack.isEmpty, stack[stack.count - 1].keySet != nil { stack[stack.count - 1].expectingKey = true }
                i += 1
            case UInt8(ascii: "\""):
                guard let (text, end) = string(bytes, from: i + 1) else { return nil }
                i = end
                if let top = stack.last, let index = top.keySet, top.expectingKey {
                    // In place: `keySets[index]` is uniquely referenced, so no copy.
                    guard keySets[index].insert(text).inserted else { return .duplicate(text) }
                    guard keySets[index].count <= maxKeysPerObject else { return .tooManyKeys(maxKeysPerObject) }
                    stack[stack.count - 1].expectingKey = false
                }
            default:
                i += 1
            }
        }
        return nil
    }

    /// The unescaped string starting after its opening quote, and the index after its closing one.
    private static func string(_ bytes: [UInt8], from start: Int) -> (String, Int)? {
        var out: [UInt8] = []
        var i = start
        while i < bytes.count {
            let byte = bytes[i]
            if byte == UInt8(ascii: "\"") { return (String(decoding: out, as: UTF8.self), i + 1) }
            guard byte == UInt8(ascii: "\\") else { out.append(byte); i += 1; continue }
            guard i + 1 < bytes.count else { return nil }
            let escape = bytes[i + 1]
            i += 2
            switch escape {
            case UInt8(ascii: "b"): out.append(0x08)
            case UInt8(ascii: "f"): out.append(0x0C)
            case UInt8(ascii: "n"): out.append(0x0A)
            case UInt8(ascii: "r"): out.append(0x0D)
            case UInt8(ascii: "t"): out.append(0x09)
            case UInt8(ascii: "u"):
                guard var unit = hex4(bytes, at: i) else { return nil }
                i += 4
                var scalar = Unicode.Scalar(unit)
                // A surrogate pair is two escapes; a lone surrogate becomes U+FFFD, as in the decoder.
                if (0xD800...0xDBFF).contains(unit), i + 1 < bytes.count, bytes[i] == UInt8(ascii: "\\"), bytes[i + 1] == UInt8(ascii: "u"),
                   let low = hex4(bytes, at: i + 2), (0xDC00...0xDFFF).contains(low) {
                    unit = 0x10000 + ((unit - 0xD800) << 10) + (low - 0xDC00)
                    scalar = Unicode.Scalar(unit)
                    i += 6
                }
                out.append(contentsOf: Array(String(Character(scalar ?? "\u{FFFD}")).utf8))
            default: out.append(escape)  // \" \\ \/
            }
        }
        return nil
    }

    private static func hex4(_ bytes: [UInt8], at start: Int) -> UInt32? {
        guard start + 4 <= bytes.count else { return nil }
        var value: UInt32 = 0
        for byte in bytes[start..<start + 4] {
            guard let digit = Character(Unicode.Scalar(byte)).hexDigitValue else { return nil }
            value = value * 16 + UInt32(digit)
        }
        return value
    }
}
