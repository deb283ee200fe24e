/// Issue 39: a transition that sequences its own event when nobody else is sequencing.
///
/// A transition staged its event (`ride_event_pending`) and committed; the server then ran a
/// sequencing run (`rb_sequence_events_3`: the global sequencing lock, the staged events moved
/// into `ride_event` in order, a NOTIFY, its own commit and WAL flush) before answering. Runs
/// are shared under load, but at the lifecycle mix's rates nearly every write had one of its
/// own: a second transaction, commit and round trip per transition. Driven alone by pgbench
/// (`CALL` of the move, then of the run, against the `_9` move; BENCHMARKS.md), the pair cost
/// PostgreSQL 20–35 % more CPU than the one call.
///
/// The `_9` procedures (`v9`, migration `self-sequencing-transitions`) are the `_8` bodies with
/// one step before their COMMIT: when the answer is 'ok' or 'replay' (a replay's first attempt
/// may have committed without its run), they *try* the sequencing lock and, holding it, run
/// `rb_sequence_events_1` in their own transaction, answering `sequenced_` true. Order is kept
/// as before: every insert into `ride_event` happens under that lock, held until its commit,
/// and the moving statement's snapshot is taken after the lock, so it sees every event staged
/// and committed before. A transition never waits for the lock (a try, not a wait): when a
/// run or another transition holds it, it commits its staged event as `_8` did, answers
/// `sequenced_` false and the server sequences it (`PostgresStore.sequenced(unlessDone:)`), so
/// no new lock waits, nor deadlocks, come in through the transitions; holding the lock through
/// the commit's flush is what a run did too.
extension FoldedTransitions {
    /// Migration `self-sequencing-transitions`.
    static let v9 = procedures(.selfWhenFree)

    /// Who moves a transition's staged event into the history.
    enum Sequencing {
        /// The server, by a sequencing run after the transition's commit (`_8`).
        case byTheServer
        /// The transition itself when the sequencing lock is free, else the server (`_9`).
        case selfWhenFree

        var version: Int { self == .byTheServer ? 8 : 9 }
        /// The events channel the NOTIFY of a self-sequenced event goes to: the last IN argument.
        var channelArgument: String { self == .byTheServer ? "" : ", p_channel text" }
        /// Whether the transaction sequenced: the last OUT argument.
        var sequencedResult: String { self == .byTheServer ? "" : ", OUT sequenced_ boolean" }
        /// The step before the COMMIT (each line after the first indented as the body's).
        var beforeCommit: String {
            guard self == .selfWhenFree else { return "" }
            return [
                "sequenced_ := false;",
                "IF outcome_ IN ('ok', 'replay') THEN",
                "    sequenced_ := pg_try_advisory_xact_lock(\(AdvisoryLock.eventSequencing));",
                "    IF sequenced_ THEN PERFORM rb_sequence_events_1(p_channel); END IF;",
                "END IF;",
                "",
            ].joined(separator: "\n    ")
        }
    }

    /// `CALL rb_move_ride_9($1, …, $10, NULL × 4)`: the move's nine arguments, then the channel.
    static let moveCall = call("rb_move_ride_9", arguments: 10)
    /// `CALL rb_create_request_9($1, …, $13, NULL × 4)`.
    static let createRequestCall = call("rb_create_request_9", arguments: 13)
    /// `CALL rb_accept_9($1, …, $12, NULL × 4)`.
    static let acceptCall = call("rb_accept_9", arguments: 12)

    private static func call(_ name: String, arguments n: Int) -> String {
        "CALL \(name)(" + ((1...n).map { "$\($0)" } + Array(repeating: "NULL", count: 4)).joined(separator: ", ") + ")"
    }
}
