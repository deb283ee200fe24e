import RideWire

/// The ride's state machine, once (issue 38): requested → accepted → arrived → confirmed →
/// completed, and cancelled from any state before completed. Every store's transition, the
/// in-memory double and the PostgreSQL functions' allowed-from lists read it here.
///
/// ```swift
/// RideState.arrived.canMove(to: .confirmed)   // true
/// RideLifecycle.states(from: .arrived)        // [.confirmed, .cancelled]
/// ```
public enum RideLifecycle {
    /// Whether the lifecycle allows going from `current` to `next`.
    public static func canMove(from current: RideState, to next: RideState) -> Bool {
        switch (current, next) {
        case (.requested, .accepted), (.accepted, .arrived), (.arrived, .confirmed), (.confirmed, .completed):
            true
        case (_, .cancelled):
            current.isActive
        default:
            false
        }
    }

    /// The states `current` may move to, in `RideState.allCases` order.
    public static func states(from current: RideState) -> [RideState] {
        RideState.allCases.filter { canMove(from: current, to: $0) }
    }

    /// The states a ride may be in to move to `next` (a store's allowed-from list).
    public static func states(movingTo next: RideState) -> [RideState] {
        RideState.allCases.filter { canMove(from: $0, to: next) }
    }
}

extension RideState {
    /// Whether the lifecycle allows going from this state to `next` (`RideLifecycle`).
    public func canMove(to next: RideState) -> Bool { RideLifecycle.canMove(from: self, to: next) }
}
