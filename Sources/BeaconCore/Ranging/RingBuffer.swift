/// A fixed-capacity FIFO over preallocated storage: appending to a full buffer overwrites the
/// oldest element. Storage is allocated once in `init`, so per-sample updates never allocate
/// (the ranging path runs millions of times per second in benchmarks).
struct RingBuffer<Element: Sendable>: Sendable {
    private var storage: ContiguousArray<Element>
    /// Index in `storage` of the oldest element.
    private var head = 0
    private(set) var count = 0

    init(capacity: Int, filler: Element) {
        precondition(capacity > 0, "ring buffer needs room for at least one element")
        storage = ContiguousArray(repeating: filler, count: capacity)
    }

    var capacity: Int { storage.count }
    var isEmpty: Bool { count == 0 }
    var isFull: Bool { count == storage.count }

    /// Element `i` counted from the oldest (0) to the newest (`count - 1`).
    subscript(i: Int) -> Element {
        var index = head + i
        if index >= storage.count { index -= storage.count }
        return storage[index]
    }

    var oldest: Element? { count > 0 ? self[0] : nil }
    var newest: Element? { count > 0 ? self[count - 1] : nil }

    /// Appends, dropping (and returning) the oldest element when full.
    @discardableResult
    mutating func append(_ element: Element) -> Element? {
        var index = head + count
        if index >= storage.count { index -= storage.count }
        if count == storage.count {
            let dropped = storage[index]
            storage[index] = element
            head = head + 1 == storage.count ? 0 : head + 1
            return dropped
        }
        storage[index] = element
        count += 1
        return nil
    }

    @discardableResult
    mutating func removeOldest() -> Element? {
        guard count > 0 else { return nil }
        let element = storage[head]
        head = head + 1 == storage.count ? 0 : head + 1
        count -= 1
        return element
    }

    mutating func removeAll() {
        head = 0
        count = 0
    }
}

/// Up to `capacity` values kept sorted, for small running medians without sorting per sample.
struct SortedWindow: Sendable {
    private var values: ContiguousArray<Double>
    private(set) var count = 0

    init(capacity: Int) {
        values = ContiguousArray(repeating: 0, count: capacity)
    }

    var capacity: Int { values.count }
    var isFull: Bool { count == values.count }

    /// Inserts keeping order; ignored when full (callers stop feeding once warm).
    mutating func insert(_ value: Double) {
        guard count < values.count else { return }
        var i = count
        while i > 0 && values[i - 1] > value {
            values[i] = values[i - 1]
            i -= 1
        }
        values[i] = value
        count += 1
    }

    var median: Double {
        guard count > 0 else { return .nan }
        let mid = count / 2
        return count % 2 == 1 ? values[mid] : 0.5 * (values[mid - 1] + values[mid])
    }

    mutating func removeAll() { count = 0 }
}
