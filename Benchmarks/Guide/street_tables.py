#!/usr/bin/env python3
"""BENCHMARKS.md's street tables from Benchmarks/Guide/street.sh's out/street/*.txt."""
import pathlib
import re
import sys

root = pathlib.Path(sys.argv[1] if len(sys.argv) > 1 else "out/street")


def parse(path):
    text = path.read_text()
    def grab(pattern, default="n/a"):
        m = re.search(pattern, text)
        return m.group(1) if m else default
    return {
        "touch_med": grab(r"time to touch / straight line: median ([\d.]+ \[[\d., ]+\])"),
        "touch_p90": grab(r"time to touch / straight line: median [\d.]+ \[[^\]]*\], p90 ([\d.]+ \[[^\]]*\])"),
        "conf_med": grab(r"time to confirmation / straight line: median ([\d.]+ \[[\d., ]+\])"),
        "conf_p90": grab(r"time to confirmation / straight line: median [\d.]+ \[[^\]]*\], p90 ([\d.]+ \[[^\]]*\])"),
        "confirmed": grab(r"confirmed in 300 s: (\d+/\d+)"),
        "confirmed_share": grab(r"confirmed in 300 s: \d+/\d+, share ([\d.]+ \[[\d., ]+\])"),
        "wrong": grab(r"wrong-direction cues per walk: ([\d.]+ \[[\d., ]+\])"),
        "safety": grab(r"safety events \(steps into the roadway\): (\d+ in all, walks with any \d+)"),
        "contact": grab(r"phones touched in (\d+) walks"),
        "c2t": grab(r"contact -> \"Touch detected\" in (\d+: median [^;\n]*?s)(?:, p90|$)"),
        "claims": grab(r"true \(strict\) ([\d.]+ % \[[\d., ]+\])"),
        "claims_n": grab(r"spoken distance claims: (\d+)"),
        "lenient": grab(r"within 2x \(lenient, as before\) ([\d.]+ %)"),
        "contra": grab(r"contradictions \(strict\): (\d+ in all, walks with any \d+)"),
        "word": grab(r"confirmed by the ride word (\d+)"),
        "word_offered": grab(r"ride word offered in (\d+) walks"),
        "driver_out": grab(r"driver walked over in (\d+)"),
        "announced": grab(r"sounds announced (\d+, of them with no sound made \d+)"),
        "across_wrong": grab(r"when it was not in (\d+) walks"),
    }


def table(rows, columns):
    print("| " + " | ".join(c for c, _ in columns) + " |")
    print("|" + "---|" * len(columns))
    for row in rows:
        print("| " + " | ".join(str(f(row)) for _, f in columns) + " |")


print("#### Old simulator (open field) vs the street, today's guide (driver `legacy`), seeds 10001-11000\n")
rows = []
for start in ("25", "10"):
    for aids in ("none", "turn", "locator", "all"):
        for world in ("open", "street"):
            path = root / f"{world}-legacy-{start}-{aids}.txt"
            if path.exists():
                rows.append(dict(parse(path), start=start, aids=aids, world=world))
table(rows, [
    ("from", lambda r: r["start"] + " m"), ("aids", lambda r: r["aids"]), ("world", lambda r: r["world"]),
    ("touch ÷ line, median [95 %]", lambda r: r["touch_med"]), ("p90 [95 %]", lambda r: r["touch_p90"]),
    ("confirmed in 300 s", lambda r: r["confirmed"]), ("safety events", lambda r: r["safety"]),
    ("wrong cues / walk", lambda r: r["wrong"]), ("phones touched", lambda r: r["contact"]),
    ("contact → \"Touch detected\"", lambda r: r["c2t"]), ("claims true (strict)", lambda r: r["claims"] + " of " + r["claims_n"]),
    ("contradictions (strict)", lambda r: r["contra"]),
])
print("\n#### The driver modes on the street (all aids), seeds 10001-11000 (the helpful headline also with the first direction a coin toss)\n")
rows = []
for start in ("25", "10"):
    for driver in ("legacy", "helpful", "helpful-coin", "busy", "silent"):
        path = root / f"street-{driver}-{start}-all.txt"
        if path.exists():
            rows.append(dict(parse(path), start=start, driver=driver.replace("-coin", " (first direction a coin toss)")))
table(rows, [
    ("from", lambda r: r["start"] + " m"), ("driver", lambda r: r["driver"]),
    ("confirmation ÷ line, median [95 %]", lambda r: r["conf_med"]), ("p90 [95 %]", lambda r: r["conf_p90"]),
    ("confirmed (touch or word)", lambda r: r["confirmed"] + " (" + r["confirmed_share"] + ")"), ("by word", lambda r: r["word"]),
    ("safety events", lambda r: r["safety"]), ("sounds announced, not made", lambda r: r["announced"]),
    ("driver walked over", lambda r: r["driver_out"]), ("across judged wrongly", lambda r: r["across_wrong"]),
    ("contact → \"Touch detected\"", lambda r: r["c2t"]), ("claims true (strict)", lambda r: r["claims"]),
    ("contradictions (strict)", lambda r: r["contra"]),
])
for driver in ("legacy", "helpful"):
    path = root / f"sweep-{driver}-25-all.txt"
    if path.exists():
        print(f"\n#### Sensitivity, driver `{driver}`, from 25 m, all aids, seeds 10001-10100\n")
        print("| assumption = value | touch ÷ line median, p90 | confirmation ÷ line median, p90 | confirmed | safety events (walks with any) | claims true | contradictions |")
        print("|---|---|---|---|---|---|---|")
        for line in path.read_text().splitlines():
            m = re.match(r"sweep (\S+) = (\S+): touch ratio median ([\d.]+) p90 ([\d.]+), (?:confirmation ratio median ([\d.]+) p90 ([\d.]+), )?confirmed ([\d.]+) %, safety events (\d+)(?: in (\d+) walks)?, claims true ([\d.na]+) %, contradictions (\d+)", line)
            if m:
                conf = f"{m[5]}, {m[6]}" if m[5] else "n/a"
                walks = f" ({m[9]})" if m[9] else ""
                print(f"| {m[1]} = {m[2]} | {m[3]}, {m[4]} | {conf} | {m[7]} % | {m[8]}{walks} | {m[10]} % | {m[11]} |")

for start in ("25", "10"):
    for name in (f"street-helpful-{start}-all", f"street-helpful-coin-{start}-all"):
        path = root / f"{name}-20001.txt"
        if path.exists():
            r = parse(path)
            print(f"\nRepeat on seeds 20001-21000, {name}: confirmation ÷ line median {r['conf_med']}, p90 {r['conf_p90']}, confirmed {r['confirmed']}")
