"""What the durability driver proves after the load (durability.py): racing accepts and
cross-server streams on two servers, and each online backup restored and checked."""

import os
import threading
import time

from checks import verify
from harness import EventStream, Server, free_port, read_database, request

RIDE_BODY = {"passengerName": "Ana", "pickup": "Main St 1", "dropoff": "Central Station"}


def race_and_cross(run, people):
    """Two servers, one database: racing accepts (one per server) have exactly one winner; a
    ride written through one server streams through the other."""
    a, b = run.servers
    passenger = people["passengers"][0]
    outcomes = []
    rides = 0
    for n in range(run.args.races):
        _, created = request(a.port, "POST", "/v1/ride-requests", passenger, RIDE_BODY, key=f"race-{run.args.seed}-{n}")
        barrier = threading.Barrier(2)
        results = [None, None]

        def accept(slot, server, token, request_id=created["id"]):
            barrier.wait()
            results[slot] = request(server.port, "POST", f"/v1/ride-requests/{request_id}/accept", token)[0]
        threads = [threading.Thread(target=accept, args=(i, s, people["racers"][i])) for i, s in enumerate((a, b))]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        outcomes.append(tuple(results))
        rides += results.count(200)
    one_winner = sum(1 for o in outcomes if sorted(o) == [200, 409])

    _, created = request(a.port, "POST", "/v1/ride-requests", passenger, RIDE_BODY, key=f"cross-{run.args.seed}")
    _, ride = request(a.port, "POST", f"/v1/ride-requests/{created['id']}/accept", people["drivers"][0], key=f"cross-acc-{run.args.seed}")
    status, seen = request(b.port, "GET", f"/v1/rides/{ride['id']}", people["dispatcher"])
    visible = status == 200 and seen["state"] == "accepted"
    stream = EventStream(b.port, f"/v1/rides/{ride['id']}/events", passenger)
    history = [stream.next_event(), stream.next_event()]
    started = time.monotonic()
    request(a.port, "POST", f"/v1/rides/{ride['id']}/arrive", people["drivers"][0], key=f"cross-arr-{run.args.seed}")
    history.append(stream.next_event())
    streamed_after = time.monotonic() - started
    stream.close()
    run.ack(created["id"], ride["id"], "arrived")
    return {"races": len(outcomes), "exactly_one_winner": one_winner, "race_outcomes": sorted(set(outcomes)),
            "accepted_on_a_visible_on_b": visible, "stream_on_b": history,
            "arrive_on_a_streamed_on_b_after_s": round(streamed_after, 3)}, rides + 1, len(outcomes) + 1


def check_backups(run, backups, people):
    """Each backup is a consistent snapshot holding every write acknowledged before it began;
    restored (copied into place and served), it answers."""
    results = []
    for number, backup in enumerate(backups):
        tables = read_database("sqlite:" + backup["file"])
        acks = [(r, ride, s) for _, r, ride, s in backup["acked_before"]]
        counts, problems = verify(tables, acks, None, None)
        restored = os.path.join(run.work, f"restored-{number}.sqlite")
        with open(backup["file"], "rb") as src, open(restored, "wb") as dst:
            dst.write(src.read())
        server = Server(run.binary, "sqlite:" + restored, free_port(), os.path.join(run.work, f"restored-{number}.log"))
        server.start()
        try:
            server.wait_healthy()
            ride_id = next((ride for _, _, ride, _ in reversed(backup["acked_before"]) if ride), None)
            if ride_id:
                status, view = request(server.port, "GET", f"/v1/rides/{ride_id}", people["dispatcher"])
                stored = next(row for row in tables["rides"] if row[0] == ride_id)
                if status != 200 or view["state"] != stored[2]:
                    problems.append(f"restored server answers {status} for ride {ride_id}")
        finally:
            server.stop()
        results.append({"backup_seconds": backup["seconds"], "acknowledged_before_backup": counts["acknowledged"],
                        "found_in_backup": counts["found"], "rides_in_backup": counts["rides"],
                        "restored_and_served": not problems, "problems": problems[:5]})
    return results
