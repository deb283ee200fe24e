/// Why a command, event or packet could not be encoded: a parameter outside what the
/// Core Spec allows. Encoders throw this rather than send something the controller would
/// reject (or, worse, silently truncate).
public enum EncodeError: Error, Equatable, Sendable, CustomStringConvertible {
    /// A number outside the range the spec allows for `field`.
    case outOfRange(field: String, value: Int, allowed: ClosedRange<Int>)
    /// More bytes than `field`'s length allows.
    case tooLong(field: String, count: Int, maximum: Int)
    /// Parameters each valid alone but not together (said in words).
    case invalidCombination(String)

    /// The field, its value and what is allowed, in words.
    public var description: String {
        switch self {
        case let .outOfRange(field, value, allowed):
            "\(field) \(value) is outside \(allowed.lowerBound)...\(allowed.upperBound)"
        case let .tooLong(field, count, maximum):
            "\(field) is \(count) bytes, at most \(maximum) allowed"
        case let .invalidCombination(message):
            message
        }
    }

    /// Throws `.outOfRange` unless `value` lies in `allowed`.
    static func check<T: BinaryInteger>(_ field: String, _ value: T, in allowed: ClosedRange<Int>) throws(EncodeError) {
        guard allowed.contains(Int(clamping: value)) else {
            throw .outOfRange(field: field, value: Int(clamping: value), allowed: allowed)
        }
    }
}
