"""What must hold in the database after crashes: every acknowledged write is there exactly
once, no request became two rides, every history is gap-free and legal, and each ride's state
is its last event's."""

from collections import defaultdict

NEXT = {
    "requested": {"accepted", "cancelled"},
    "accepted": {"arrived", "cancelled"},
    "arrived": {"confirmed", "cancelled"},
    "confirmed": {"completed", "cancelled"},
    "completed": set(),
    "cancelled": set(),
}


def verify(tables, acks, expected_requests, expected_rides):
    """`acks`: (request_id, ride_id or None, state) for every acknowledged write.
    `expected_requests` / `expected_rides`: how many the clients created (each with its own
    Idempotency-Key, so a retry that wrote twice would show up as one too many); None for a
    backup, which may also hold writes that were still unacknowledged when it was taken.
    Returns (counts, problems)."""
    problems = []
    requests = {row[0]: row for row in tables["requests"]}
    rides = {row[0]: row for row in tables["rides"]}
    events = defaultdict(list)
    for request_id, ride_id, sequence, state, event_id in tables["events"]:
        events[request_id].append((sequence, state, ride_id, event_id))

    rides_per_request = defaultdict(list)
    for ride_id, request_id, _, _ in rides.values():
        rides_per_request[request_id].append(ride_id)
    doubled = {r: ids for r, ids in rides_per_request.items() if len(ids) > 1}
    if doubled:
        problems.append(f"{len(doubled)} requests became more than one ride: {list(doubled.items())[:3]}")
    if expected_requests is not None and len(requests) != expected_requests:
        problems.append(f"{len(requests)} ride requests stored, clients created {expected_requests}")
    if expected_rides is not None and len(rides) != expected_rides:
        problems.append(f"{len(rides)} rides stored, clients had {expected_rides} accepts acknowledged")

    found = 0
    for request_id, ride_id, state in acks:
        history = [s for _, s, _, _ in events.get(request_id, [])]
        present = request_id in requests and history.count(state) == 1
        if ride_id is not None:
            present = present and ride_id in rides and rides[ride_id][1] == request_id
        if present:
            found += 1
        else:
            problems.append(f"acknowledged write missing or repeated: request {request_id} ride {ride_id} -> {state} (history {history})")

    for request_id, history in events.items():
        sequences = [s for s, _, _, _ in history]
        if sequences != list(range(1, len(sequences) + 1)):
            problems.append(f"request {request_id}: event sequences {sequences} have a gap or repeat")
        states = [s for _, s, _, _ in history]
        if states[0] != "requested":
            problems.append(f"request {request_id}: history starts with {states[0]}")
        for before, after in zip(states, states[1:]):
            if after not in NEXT[before]:
                problems.append(f"request {request_id}: illegal step {before} -> {after} in {states}")
        ride_ids = rides_per_request.get(request_id, [])
        if ride_ids:
            ride = rides[ride_ids[0]]
            if ride[2] != states[-1]:
                problems.append(f"ride {ride[0]}: state {ride[2]} but last event {states[-1]}")
            if any(r not in (None, ride[0]) for _, _, r, _ in history):
                problems.append(f"ride {ride[0]}: events name another ride")
    for request_id in requests:
        if request_id not in events:
            problems.append(f"request {request_id} has no history")

    counts = {"acknowledged": len(acks), "found": found, "requests": len(requests), "rides": len(rides),
              "events": len(tables["events"])}
    return counts, problems


def last_states(acks):
    """The state each request's last acknowledged write left it in."""
    final = {}
    for request_id, _, state in acks:
        final[request_id] = state
    return final


def verify_final_states(tables, acks):
    problems = []
    states = defaultdict(list)
    for request_id, _, sequence, state, _ in tables["events"]:
        states[request_id].append(state)
    for request_id, state in last_states(acks).items():
        if states.get(request_id, [None])[-1] != state:
            problems.append(f"request {request_id}: last acknowledged write left it {state}, database says {states.get(request_id)}")
    return problems


def confirm_outcome(code, err):
    """What an `admin confirm-ride` attempt's exit code and stderr mean for a client that
    retries it (the command has no Idempotency-Key): "done" when it confirmed the ride, or when
    the ride is already confirmed (an earlier attempt committed before its answer was lost);
    "retry" when the database could not be reached; "fatal" otherwise. The CLI writes its
    errors as sentences (capitalised, ending in a full stop), so words are matched without case."""
    said = err.lower()
    if code == 0 or "the ride is confirmed; it cannot become confirmed" in said:
        return "done"
    if "unavailable" in said or "database" in said or "connect" in said:
        return "retry"
    return "fatal"
