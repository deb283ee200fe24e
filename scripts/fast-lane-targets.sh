#!/bin/bash
# Prints the test targets `make check FOR=…` builds and runs, space-separated: those nearest what
# changed, read off Package.swift's graph (`swift package dump-package`), so nothing is named by
# hand and a new target is covered the day it lands.
#   scripts/fast-lane-targets.sh Sources/BeaconCore            -> BeaconCoreTests
#   scripts/fast-lane-targets.sh RideSession Tests/GuideTests  -> GuideTests RideSessionTests
#   scripts/fast-lane-targets.sh --all Sources/BeaconCore      -> every test target on BeaconCore
# Each argument is a module name or a path (a file or directory inside a target).
# - A source module's own test targets: those that list it among their dependencies, not counting
#   a test target that lists it only beside a module built on it (RideServerTests lists
#   BeaconCore but tests RideServer), unless the test target is named for it (GuideTests tests
#   Guide, with GuideSimulation's walks). A module without tests of its own (RadioCore) takes
#   the nearest tests of each module built directly on it, and so on up.
# - A fixture module under Tests/ (TestSupport, SessionDoubles, RideBeaconTesting): every test
#   target that links it. A test target: itself.
# - With --all, every test target that depends on the module, however far up: a change low in
#   the graph (BeaconCore) then reaches nearly all of them, the server's included.
# - Anything else (Package.swift, the Makefile, fixtures/, docs/): every test target.
# `make check` with no FOR runs everything; `make test` is the gate.
set -euo pipefail
cd "$(dirname "$0")/.."
all=0
if [ "${1:-}" = --all ]; then all=1; shift; fi
[ $# -gt 0 ] || { echo "usage: $0 [--all] PATH-OR-MODULE…" >&2; exit 2; }
# The whole graph (no RIDEBEACON_TEST_TARGETS), in the fast lane's own scratch directory so it
# never waits on a build holding .build.
graph=$(env -u RIDEBEACON_TEST_TARGETS ${SWIFT:-swift} package --scratch-path .build-check dump-package)
read -r -d '' program <<'PY' || true
import json, os, sys

all_dependents = sys.argv[1] == "1"
package = json.load(sys.stdin)
targets = {t["name"]: t for t in package["targets"]}

def path_of(t):
    default = ("Tests/" if t["type"] == "test" else "Sources/") + t["name"]
    return os.path.normpath(t.get("path") or default)

def deps(name):
    out = []
    for d in targets[name].get("dependencies", []):
        kind, value = next(iter(d.items()))
        if kind in ("byName", "target") and value[0] in targets:
            out.append(value[0])
    return out

def is_fixture(name):
    return targets[name]["type"] != "test" and path_of(targets[name]).startswith("Tests/")

def closure(names):
    seen, todo = set(), list(names)
    while todo:
        n = todo.pop()
        if n not in seen:
            seen.add(n)
            todo.extend(deps(n))
    return seen

tests = sorted(n for n, t in targets.items() if t["type"] == "test")

def own_tests(module):
    picked = []
    for test in tests:
        direct = [d for d in deps(test) if not is_fixture(d)]
        named_for_it = test == module + "Tests"
        if module in direct and (named_for_it or module not in closure(d for d in direct if d != module)):
            picked.append(test)
    return picked

def nearest(module, seen):
    if module in seen:
        return set()
    seen.add(module)
    own = own_tests(module)
    if own:
        return set(own)
    found = set()
    for user in targets:
        if targets[user]["type"] != "test" and not is_fixture(user) and module in deps(user):
            found |= nearest(user, seen)
    return found

def target_for(argument):
    if argument in targets:
        return argument
    path = os.path.normpath(os.path.relpath(os.path.abspath(argument)))
    best = None
    for name, t in targets.items():
        root = path_of(t)
        if path == root or path.startswith(root + "/"):
            if best is None or len(root) > len(path_of(targets[best])):
                best = name
    return best

picked = set()
for argument in sys.argv[2:]:
    name = target_for(argument)
    if name is None:
        print(f"fast-lane-targets: {argument} is in no target: every test target", file=sys.stderr)
        picked |= set(tests)
    elif targets[name]["type"] == "test":
        picked.add(name)
    elif is_fixture(name) or all_dependents:
        picked |= {t for t in tests if name in closure(deps(t))}
    else:
        found = nearest(name, set())
        if not found:
            print(f"fast-lane-targets: no test target reaches {name}", file=sys.stderr)
        picked |= found
print(" ".join(sorted(picked)))
PY
python3 -c "$program" "$all" "$@" <<<"$graph"
