#!/usr/bin/env bash
# Runs one `swift` command at a time on this machine (2 cores, one shared .build): every
# build or test a person or helper starts goes through this lock, so two never starve each other.
#   scripts/serial-swift.sh build --target RideServer
#   scripts/serial-swift.sh test --skip-build --filter DuplicateKeyTests
exec flock /tmp/ridebeacon-swift.lock swift "$@"
