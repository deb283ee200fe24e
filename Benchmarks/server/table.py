"""Turns run.sh's JSON lines into the Markdown table of BENCHMARKS.md ("Ride server")."""
import json, sys

rows = [json.loads(line) for line in open(sys.argv[1]) if line.strip()]
hello = {r["backend"]: r["rps"] for r in rows if r["case"] == "hello"}
goal = {"get": 0.50, "list": 0.50, "write": 0.25}
print("| database | case | connections | req/s | vs hello | p50 ms | p99 ms | errors (socket / non-2xx) |")
print("| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: |")
for r in rows:
    ratio = r["rps"] / hello[r["backend"]] if r["backend"] in hello and "@" not in r["case"] else None
    mark = ""
    if ratio is not None and r["case"] in goal:
        mark = " ✓" if ratio >= goal[r["case"]] else " ✗"
    p99 = f'{r["p99_ms"]:.2f}' + ((" ✓" if r["p99_ms"] < 10 else " ✗") if "@" in r["case"] else "")
    print(f'| {r["backend"]} | {r["case"]} | {r["connections"]} | {r["rps"]:,.0f} | '
          f'{"" if ratio is None else f"{ratio:.0%}{mark}"} | {r["p50_ms"]:.2f} | {p99} | {r["socket_errors"]} / {r["non2xx"]} |')
