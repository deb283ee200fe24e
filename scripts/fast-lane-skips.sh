#!/bin/bash
# Prints the `swift test --skip` regex of the fast lane (`make check`): every suite whose `@Suite`
# carries a tag from Tests/TestSupport/TestTags.swift (.postgres, .chromium, .bumble,
# .process, .network, .slow). Swift 6.3.1's `swift test` matches --skip against test ids only
# (`--skip tag:x` is ST-0025, newer toolchains), so the tags are read here, off the sources:
# a tagged suite's id is `<TestTarget>.<Type>`, its tests' ids start with it.
# Tags go on `@Suite`; a tag on a lone `@Test` is refused (the lane could not see it).
set -euo pipefail
cd "$(dirname "$0")/.."
status=0
patterns=()
for target in Tests/*/; do
    name=$(basename "$target")
    case "$name" in TestSupport | SessionDoubles | RideBeaconTesting) continue ;; esac  # fixtures
    while IFS= read -r -d '' file; do
        # Each tagged @Suite: the type declared at or after it (the next `struct/class/enum/actor NAME`).
        # The attribute may span lines (`@Suite("…",` then `.tags(.process), …)` below it).
        while IFS= read -r type; do
            [ -n "$type" ] && patterns+=("^$name\\.([A-Za-z0-9_]+/)*$type(/|\$)")
        done < <(awk '
            /@Suite/ { insuite = 1; tagged = 0 }
            insuite && /\.tags[(]/ { tagged = 1 }
            insuite && match($0, /(struct|class|enum|actor)[ \t]+[A-Za-z_][A-Za-z0-9_]*/) {
                decl = substr($0, RSTART, RLENGTH); sub(/^(struct|class|enum|actor)[ \t]+/, "", decl)
                if (tagged) print decl
                insuite = 0; tagged = 0
            }' "$file")
        if grep -nE '@Test[(].*\.tags[(]' "$file" >&2; then
            echo "fast-lane-skips: $file: put tags on the @Suite (a @Test's tag is invisible to the fast lane)" >&2
            status=1
        fi
    done < <(find "$target" -name '*.swift' -print0)
done
[ "$status" = 0 ] || exit "$status"
(IFS='|'; echo "${patterns[*]}")
