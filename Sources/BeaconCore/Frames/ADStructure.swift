/// One advertising-data structure: `length | type | value` (Core Spec Vol 3 Part C §11).
public struct ADStructure: Equatable, Sendable {
    /// The AD type (0x01 flags, 0xFF manufacturer data, …).
    public var type: UInt8
    /// The bytes after the type.
    public var value: ArraySlice<UInt8>

    /// A structure of `type` holding `value`.
    public init(type: UInt8, value: ArraySlice<UInt8>) {
        self.type = type
        self.value = value
    }

    /// AD type: flags (discoverability, BR/EDR support).
    public static let flags: UInt8 = 0x01
    /// AD type: the device's complete name.
    public static let completeLocalName: UInt8 = 0x09
    /// AD type: manufacturer data (an iBeacon's home, company 0x004C).
    public static let manufacturerSpecificData: UInt8 = 0xFF

    /// Splits advertising data into its structures. A zero length byte ends the data early
    /// (the spec's padding); a structure whose length runs past the end is an error.
    public static func parse(_ data: some RandomAccessCollection<UInt8>) -> Result<[ADStructure], DecodeError> {
        let bytes = Array(data)
        var out: [ADStructure] = []
        let error = forEach(in: bytes[...]) { out.append($0); return true }
        if let error { return .failure(error) }
        return .success(out)
    }

    /// Walks the structures without allocating; `body` returns false to stop early.
    /// Returns the error that ended the walk, if any.
    @inlinable
    @discardableResult
    public static func forEach(in data: ArraySlice<UInt8>, _ body: (ADStructure) -> Bool) -> DecodeError? {
        var i = data.startIndex
        while i < data.endIndex {
            let length = Int(data[i])
            if length == 0 { return nil }
            let valueStart = i + 2
            let end = i + 1 + length
            guard end <= data.endIndex else {
                return DecodeError(offset: i - data.startIndex, "AD structure length \(length) runs past the end (\(data.endIndex - i - 1) bytes left)")
            }
            let structure = ADStructure(type: data[i + 1], value: data[valueStart..<end])
            if !body(structure) { return nil }
            i = end
        }
        return nil
    }

    /// Encodes structures back to advertising data.
    public static func encode(_ structures: [ADStructure]) -> [UInt8] {
        var out: [UInt8] = []
        for s in structures {
            out.append(UInt8(truncatingIfNeeded: s.value.count + 1))
            out.append(s.type)
            out.append(contentsOf: s.value)
        }
        return out
    }
}
