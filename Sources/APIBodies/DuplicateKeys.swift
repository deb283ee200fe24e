import Foundation

/// Finds a key that appears twice in one JSON object. Foundation's decoder keeps one of the
/// values silently, so `{"pickup":"A","pickup":"B"}` would mean whatever the decoder chose
/// while a proxy or log reader sees the other: such bodies are refused (`invalid_json`).
///
/// Runs only on text the decoder has already accepted as JSON, so it tracks structure, not
/// grammar; on anything unexpected it stops and reports nothing (bounds are checked throughout;
/// FuzzAPIBodies exercises it). Keys compare as Swift strings after unescaping, as the decoder
/// compares them, so `"a"` and `"\u0061"` are the same key.
public enum DuplicateKeys {
    private enum Container {
        case object(keys: Set<String>, expectingKey: Bool)
        case array
    }

    public static func first(in data: Data) -> String? {
        let bytes = [UInt8](data)
        var stack: [Container] = []
        var i = 0
        while i < bytes.count {
            switch bytes[i] {
            case UInt8(ascii: "{"):
                stack.append(.object(keys: [], expectingKey: true))
                i += 1
            case UInt8(ascii: "["):
                stack.append(.array)
                i += 1
            case UInt8(ascii: "}"), UInt8(ascii: "]"):
                guard !stack.isEmpty else { return nil }
                stack.removeLast()
                i += 1
            case UInt8(ascii: ","):
                if case .object(let keys, _) = stack.last { stack[stack.count - 1] = .object(keys: keys, expectingKey: true) }
                i += 1
            case UInt8(ascii: "\""):
                guard let (text, end) = string(bytes, from: i + 1) else { return nil }
                i = end
                if case .object(var keys, true) = stack.last {
                    guard keys.insert(text).inserted else { return text }
                    stack[stack.count - 1] = .object(keys: keys, expectingKey: false)
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
