/// Issue 39: PostgreSQL's work per transition, cut where the profile found it done twice or
/// planned again in every transaction (BENCHMARKS.md, "Issue 39: PostgreSQL's work per
/// transition"). Installed by the migration `transition-work` (a no-op step of that name on
/// SQLite). Neither change alters an answer, so servers of the previous version, which call the
/// same functions, keep working beside it.
///
/// - `rb_json_time_1` (TransitionFunctions) was declared IMMUTABLE around `extract(epoch FROM
///   timestamptz)`, which PostgreSQL marks STABLE; a SQL function whose body is less immutable
///   than its declaration is never inlined, so each ride or request answer ran it as its own SQL
///   function 3–4 times, parsed and planned again in every transaction (2.3 executions per
///   transition). Declared STABLE (what its body is; it is used in no index), the same
///   expression is inlined into the JSON builders. `CREATE OR REPLACE` keeps its name, argument
///   and result, so `rb_ride_json_1` and `rb_request_json_1` pick it up unchanged.
/// - `ride_event_pending`'s foreign keys to `ride_request` and `ride` checked every staged event
///   once more than needed: the staging functions write it under the lock of the ride or
///   request row they have just read or written, and the sequencing run's move into
///   `ride_event` checks both keys again (`ride_event`'s own foreign keys stay), so an event of
///   a missing ride still cannot reach the history. Nothing deletes a ride or a request.
///   1.67 of the 4.67 key checks per transition go.
enum TransitionWork {
    static let v1: [String] = [
        "CREATE OR REPLACE FUNCTION rb_json_time_1(t timestamptz) RETURNS numeric STABLE LANGUAGE sql AS $$ SELECT extract(epoch FROM t) - 978307200 $$",
        """
        ALTER TABLE ride_event_pending DROP CONSTRAINT ride_event_pending_request_id_fkey,
            DROP CONSTRAINT ride_event_pending_ride_id_fkey
        """,
    ]
}
