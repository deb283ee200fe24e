import Synchronization

/// One value per store kind, made on first use and shared by a suite's tests: every CREATE
/// DATABASE costs the shared PostgreSQL a burst of fsyncs, and a loaded machine then misses the
/// store's 5 s deadline, so suites whose tests only look at their own rides share one database
/// (or one `World`) per kind.
///
/// ```swift
/// static let worlds = PerStoreKind { try await World.make($0) }
/// let world = try await Self.worlds.value(for: kind)
/// ```
public final class PerStoreKind<Value: Sendable>: Sendable {
    private let make: @Sendable (StoreKind) async throws -> Value
    private let made = Mutex<[StoreKind: Task<Value, any Error>]>([:])

    public init(_ make: @escaping @Sendable (StoreKind) async throws -> Value) {
        self.make = make
    }

    /// The value for `kind`: made by the first caller, the same for every later one (a failure
    /// too, so a database that could not be made fails every test that needs it).
    public func value(for kind: StoreKind) async throws -> Value {
        let task = made.withLock { made in
            if let task = made[kind] { return task }
            let task = Task { [make] in try await make(kind) }
            made[kind] = task
            return task
        }
        return try await task.value
    }
}
