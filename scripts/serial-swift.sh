#!/usr/bin/env bash
# Runs one `swift` command at a time on this machine (2 cores, one shared .build): every
# build or test a person or helper starts goes through this lock, so two never starve each other.
#   scripts/serial-swift.sh build --target RideServer
#   scripts/serial-swift.sh test --skip-build --filter DuplicateKeyTests
# -o: the lock stays with flock itself, not with swift's children, so a compiler orphaned by a
# killed build (seen twice: a `timeout` that killed swift-build alone) cannot hold it for good.
exec flock -o /tmp/ridebeacon-swift.lock swift "$@"
