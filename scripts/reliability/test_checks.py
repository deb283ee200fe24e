#!/usr/bin/env python3
"""The durability checks must fail on the damage they exist to find (run by make durability-smoke)."""
import copy
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from checks import confirm_outcome, verify, verify_final_states  # noqa: E402

GOOD = {
    "requests": [("q1", "accepted", "r1"), ("q2", "cancelled", None)],
    "rides": [("r1", "q1", "arrived", "d1")],
    "events": [("q1", None, 1, "requested", 1), ("q1", "r1", 2, "accepted", 2), ("q1", "r1", 3, "arrived", 4),
               ("q2", None, 1, "requested", 3), ("q2", None, 2, "cancelled", 5)],
}
ACKS = [("q1", None, "requested"), ("q1", "r1", "accepted"), ("q1", "r1", "arrived"),
        ("q2", None, "requested"), ("q2", None, "cancelled")]


def problems(tables, acks=ACKS, requests=2, rides=1):
    return verify(tables, acks, requests, rides)[1] + verify_final_states(tables, acks)


def damaged(change):
    tables = copy.deepcopy(GOOD)
    change(tables)
    return tables


assert problems(GOOD) == [], problems(GOOD)
cases = {
    "lost acknowledged write": damaged(lambda t: t["events"].remove(("q1", "r1", 3, "arrived", 4))),
    "write applied twice": damaged(lambda t: t["events"].append(("q1", "r1", 4, "arrived", 6))),
    "request stored twice": damaged(lambda t: t["requests"].append(("q3", "open", None)) or t["events"].append(("q3", None, 1, "requested", 7))),
    "ride twice for one request": damaged(lambda t: t["rides"].append(("r2", "q1", "accepted", "d2"))),
    "gap in history": damaged(lambda t: t["events"].__setitem__(2, ("q1", "r1", 4, "arrived", 4))),
    "state is not the last event's": damaged(lambda t: t["rides"].__setitem__(0, ("r1", "q1", "accepted", "d1"))),
    "illegal step": damaged(lambda t: t["events"].__setitem__(4, ("q2", None, 2, "completed", 5))),
}
for name, tables in cases.items():
    assert problems(tables), f"checks missed: {name}"
print(f"checks: the good history passes; all {len(cases)} kinds of damage are caught")

# admin confirm-ride retried after its answer was lost: the CLI's sentence, as CI saw it.
ALREADY = ("2026-11-26T16:54:33+0000 notice ridebeacon.store.postgres: round_trips=total=2 confirmed=1/1 "
           "[RideStore] round trips at close\nridebeacon: The ride is confirmed; it cannot become confirmed.")
assert confirm_outcome(1, ALREADY) == "done"
assert confirm_outcome(0, "") == "done"
assert confirm_outcome(1, "ridebeacon: The ride is cancelled; it cannot become confirmed.") == "fatal"
assert confirm_outcome(1, "ridebeacon: Cannot open postgres://x: Connection refused.") == "retry"
print("confirm outcomes: an already-confirmed ride counts as confirmed, whatever the sentence's case")
