import Foundation

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
/// The `_9` procedures (`v9`, migration `self-sequencing-transitions`) are the `_8` bodies, and
/// those of cancelling a request (`rb_cancel_request_2`) and of a touch proof
/// (`rb_touch_proof_7`), with one step before their COMMIT: when the answer is 'ok' or
/// 'replay' (a replay's first attempt may have committed without its run; a touch proof's
/// replay answers before the step), they *try* the sequencing lock and, holding it, run
/// `rb_sequence_events_1` in their own transaction, answering `sequenced_` true. Order is kept
/// as before: every insert into `ride_event` happens under that lock, held until its commit,
/// and the moving statement's snapshot is taken after the lock, so it sees every event staged
/// and committed before. When a run or another transition holds the lock, the transition
/// commits its staged event as `_8` did, answers `sequenced_` false and the server sequences
/// it (`PostgresStore.sequencedTransition`).
///
/// The move itself must not make a transition wait either: its foreign-key checks take FOR KEY
/// SHARE on the ride and request rows of *other* writers' staged events, which a session
/// holding such a row FOR UPDATE (a ride note, the locator, a touch proof, an ETA, cancelling a
/// request) blocks — and a transition waiting there holds the global lock and its own rows,
/// where it could even close a deadlock (a review found one through a reused idempotency key).
/// So the move runs in a block of its own with `lock_timeout` at 1 ms: any wait, or any error
/// in another writer's staged row, rolls the block back (the events stay staged), answers
/// `sequenced_` false and leaves the event to the server's run, which waits as runs always did.
/// The block costs a subtransaction; `lock_timeout` is restored before the COMMIT, whose
/// NOTIFY takes a lock of its own.
extension FoldedTransitions {
    /// Migration `self-sequencing-transitions`: the folded three, cancelling a request and a
    /// touch proof.
    static let v9 = procedures(.selfWhenFree) + [cancelRequest, touchProof]

    /// `rb_cancel_request_2` (TransitionProcedures: `rb_cancel_request_1`, then COMMIT) with the step.
    private static let cancelRequest = """
        CREATE PROCEDURE rb_cancel_request_9(p_account text, p_key text, p_operation text, p_id text, p_actor text, p_reason text,
            p_now timestamptz, p_channel text, OUT outcome_ text, OUT info_ text, OUT result_ bytea, OUT sequenced_ boolean) LANGUAGE plpgsql AS $$
        BEGIN
            SELECT * INTO outcome_, info_, result_ FROM rb_cancel_request_1(p_account, p_key, p_operation, p_id, p_actor, p_reason, p_now);
            \(Sequencing.selfWhenFree.beforeCommit)COMMIT;
        END $$
        """

    /// `rb_touch_proof_7` (TouchProofResend, a shipped text) with the step before its one COMMIT
    /// (its early answers RETURN before it: `sequenced_` NULL, read as not sequenced).
    private static let touchProof: String = {
        var text = TouchProofResend.v7[0]
        for (shipped, sequencing) in [("CREATE PROCEDURE rb_touch_proof_7(", "CREATE PROCEDURE rb_touch_proof_9("),
                                      ("p_resent_since timestamptz,", "p_resent_since timestamptz, p_channel text,"),
                                      ("OUT result_ bytea)", "OUT result_ bytea, OUT sequenced_ boolean)"),
                                      ("    COMMIT;\nEND $$", "    " + Sequencing.selfWhenFree.beforeCommit + "COMMIT;\nEND $$")] {
            precondition(text.components(separatedBy: shipped).count == 2, "rb_touch_proof_7's text no longer has \(shipped)")
            text = text.replacingOccurrences(of: shipped, with: sequencing)
        }
        return text
    }()

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
        /// How long the move may wait for a row lock before it leaves the events to the server.
        static let moveLockTimeout = "1ms"

        /// The step before the COMMIT (each line after the first indented as the body's).
        var beforeCommit: String {
            guard self == .selfWhenFree else { return "" }
            return [
                "sequenced_ := false;",
                "IF outcome_ IN ('ok', 'replay') THEN",
                "    IF pg_try_advisory_xact_lock(\(AdvisoryLock.eventSequencing)) THEN",
                "        DECLARE",
                "            lock_wait text := current_setting('lock_timeout');",
                "        BEGIN",
                "            PERFORM set_config('lock_timeout', '\(Self.moveLockTimeout)', true);",
                "            PERFORM rb_sequence_events_1(p_channel);",
                "            PERFORM set_config('lock_timeout', lock_wait, true);",
                "            sequenced_ := true;",
                "        EXCEPTION WHEN OTHERS THEN",
                "            sequenced_ := false;",
                "        END;",
                "    END IF;",
                "END IF;",
                "",
            ].joined(separator: "\n    ")
        }
    }

    /// The `_9` procedures' calls: their IN arguments (the channel last), then their four OUT ones.
    static let moveCall = TransitionSQL.call("rb_move_ride_9", arguments: 10, outs: 4)
    static let createRequestCall = TransitionSQL.call("rb_create_request_9", arguments: 13, outs: 4)
    static let acceptCall = TransitionSQL.call("rb_accept_9", arguments: 12, outs: 4)
    static let cancelRequestCall = TransitionSQL.call("rb_cancel_request_9", arguments: 8, outs: 4)
    static let touchProofCall = TransitionSQL.call("rb_touch_proof_9", arguments: 27, outs: 4)
}
