# Two commands matter: `make demo` and `make test` (`make check` is its fast lane). Each installs what it needs when missing.
SHELL := /bin/bash
SWIFT ?= swift
# What building needs (the demo needs nothing more): the C libraries behind CDBus, CBluetooth and
# CEspeakNG, SQLite for GRDB, pkg-config.
BUILD_APT_PACKAGES := libbluetooth-dev libdbus-1-dev libsqlite3-dev libespeak-ng-dev pkg-config libpocketsphinx-dev pocketsphinx-en-us
# What only the tests and benchmarks use: postgresql (the tests start a private server from it,
# scripts/test-postgres.sh); python3-venv (Bumble peers, schemathesis); curl (README walk-through);
# dbus + python3-dbusmock (the BlueZ D-Bus radio's tests run a private bus with dbusmock's bluez5
# template); chromium (the dispatcher page's browser test); wrk (`make bench-server`); nginx, openssl
# (`make deploy-check` runs deploy/nginx's TLS proxy on its own ports; the packaged nginx service is
# not used: in a container apt does not start it).
# libpocketsphinx-dev + pocketsphinx-en-us: voice commands (CPocketSphinx, its US English model).
# feedbackd: the haptics tests run Debian's daemon on a private session bus (no motor needed).
# fuse3 + python3-pyfuse3: powerfs, the power-loss harness's FUSE filesystem (run by /usr/bin/python3,
# Debian's pyfuse3 is built against its libfuse3: nothing to compile).
TEST_APT_PACKAGES := python3-venv postgresql curl dbus python3-dbusmock chromium wrk nginx openssl fuse3 python3-pyfuse3 feedbackd
APT_PACKAGES := $(BUILD_APT_PACKAGES) $(TEST_APT_PACKAGES)
# Bumble virtual controllers: the radio tests' real peers (h4 over TCP).
BUMBLE_VERSION := 0.0.236
VENV := .venv
SUDO := $(shell [ "$$(id -u)" = 0 ] || echo sudo)
FUZZ_SECONDS ?= 10
FUZZ_SCRATCH := .build-fuzz
SHARED ?= ../shared

# Reliability (RELIABILITY.md): crash durability, many servers, load, deploy checks.
.PHONY: fuzz-api-build fuzz-api-run
.PHONY: reliability reliability-smoke durability durability-smoke load load-smoke load-soak deploy-check power-loss power-loss-smoke

.PHONY: demo demo-ranging bench-guide sim-fidelity check test serve build release deps deps-build venv test-venv fuzz fuzz-smoke fuzz-build bench bench-server schemathesis ranging-eval ranging-carried clean

# The guide demo: the real server on SQLite in a temp dir, a passenger and a driver over its API,
# a simulated passenger guided by the real guide over the simulated radio channel to touch and
# "Ride confirmed"; prints the transcript and a JSON summary, writes the audio to demo.wav.
# DEMO_ARGS="--seed 13 --start-distance 40" varies it.
DEMO_ARGS ?=
demo: deps-build release
	.build/release/ridebeacon demo --audio-out demo.wav $(DEMO_ARGS)

# The Foundation stage's demo: calibrate on one phone pair's recordings at known distances, then
# range the same pair's 2.5 m -> 0.3 m step with a plot.
DEMO_POSITIONS := fixtures/traces/herald-test12B-positions.csv
DEMO_TRACE := fixtures/traces/herald-test12B-step-2.5m-to-0.3m.csv
demo-ranging: deps-build release
	@mkdir -p out
	.build/release/ridebeacon calibrate --trace $(DEMO_POSITIONS) > out/demo-calibration.json
	.build/release/ridebeacon range --trace $(DEMO_TRACE) --calibration out/demo-calibration.json \
		--plot out/demo.svg > out/demo.csv
	@echo "demo-ranging: wrote out/demo-calibration.json, out/demo.csv ($$(($$(wc -l < out/demo.csv) - 1)) rows) and out/demo.svg"
	@column -s, -t < out/demo.csv | awk 'NR == 1 || NR % 30 == 2' | head -20

# The fast lane for the edit-build-test loop: the whole package builds (the build's apt packages
# only), then every suite runs except those tagged as needing more than the toolchain (.postgres,
# .chromium, .bumble, .process, .network, .slow: Tests/TestSupport/TestTags.swift). No
# PostgreSQL, Chromium, .venv or network; the store and server suites run their SQLite half.
# RIDEBEACON_FAST_LANE=1 makes a fixture that would start a process, Bumble or a PostgreSQL
# connection fail with the tag its suite lacks. CHECK_ARGS="--filter Guide" narrows it further.
# Like `make test`, it gives the suites a TMPDIR of the run's own, removed when the run passes.
# FOR="Sources/BeaconCore" (paths or module names) builds and runs only the test targets nearest
# the change, read off Package.swift's graph by scripts/fast-lane-targets.sh (DEPENDENTS=all: every
# test target that depends on it). SwiftPM links all test targets into one test product, so the
# others are left out of the package (RIDEBEACON_TEST_TARGETS, end of Package.swift) and this
# narrowed build keeps a .build-check of its own: .build's test product stays whole.
CHECK_ARGS ?=
FOR ?=
DEPENDENTS ?=
check: deps-build
	set -o pipefail; if [ -n "$(FOR)" ]; then \
		targets="$$(SWIFT="$(SWIFT)" scripts/fast-lane-targets.sh $(if $(filter all,$(DEPENDENTS)),--all) $(FOR))" && \
		echo "make check FOR=$(FOR): $${targets:-no test target, nothing to run}" || exit $$?; \
		[ -n "$$targets" ] || exit 0; \
		export RIDEBEACON_TEST_TARGETS="$$targets"; scratch_path="--scratch-path .build-check"; \
		$(SWIFT) build $$scratch_path --product RideBeaconPackageTests || exit $$?; \
	else $(SWIFT) build --build-tests || exit $$?; fi; \
	skips="$$(scripts/fast-lane-skips.sh)" && status=0 && scratch="$$(mktemp -d /tmp/rb-check-XXXXXX)" && \
		{ TMPDIR="$$scratch" env -u RIDEBEACON_TEST_POSTGRES_URL -u RIDEBEACON_REQUIRE_PEERS -u RIDEBEACON_REQUIRE_BROWSER \
			RIDEBEACON_FAST_LANE=1 $(SWIFT) test $$scratch_path --skip-build --skip "$$skips" $(CHECK_ARGS) || status=$$?; } && \
		{ [ $$status != 0 ] || rm -rf "$$scratch"; } && exit $$status

# At most this many test cases run at once (Swift Testing's SWT_EXPERIMENTAL_MAXIMUM_PARALLELIZATION_WIDTH).
# Unbounded, every async test starts together: the test process held ~1 450 descriptors, and
# Foundation's Process.run, which lists /proc/self/fd with a 256-byte copy of each entry, read
# past the end of a full directory buffer and crashed (seen on a clean clone); 8 keeps it near
# 330 and the suite as fast (144 s against 146 s here).
TEST_WIDTH ?= 8
export SWT_EXPERIMENTAL_MAXIMUM_PARALLELIZATION_WIDTH = $(TEST_WIDTH)

# The whole suite, as CI runs it (`make check` is its fast part).
# A hung suite is stopped after TEST_LIMIT with SIGQUIT, which makes the Swift runtime print
# every thread's backtrace, so a hang fails with its cause rather than running out CI's clock
# (the suite takes 12–25 minutes here).
TEST_LIMIT ?= 50m
# The PostgreSQL halves of the store and server suites run against a private server, started
# fresh for each run in TEST_PG_DIR on the first free port from 55450 and stopped after it (a
# cluster kept between runs grew by every run's databases, and after a machine restart synced them
# all before answering); its URL is exported so they never skip. TEST_PG_DIR is under /tmp, one
# per checkout: as root the server runs as the postgres user, who may not enter the checkout (a
# clone in a `mktemp -d` directory, mode 0700, could not initdb inside its .build). RIDEBEACON_REQUIRE_PEERS and
# RIDEBEACON_REQUIRE_BROWSER make the radio and Chromium suites fail, not skip, when Bumble,
# chromium or .venv are missing. The suites' temporary files go to a directory of the run's own
# (TMPDIR), removed after a run that passes (fixtures leave theirs for a failure to be inspected).
TEST_PG_DIR ?= /tmp/ridebeacon-test-pg-$(shell printf %s "$(CURDIR)" | md5sum | cut -c1-10)
test: deps venv test-venv
	$(SWIFT) build --build-tests
	export RIDEBEACON_TEST_PG_DIR=$(TEST_PG_DIR) && RIDEBEACON_TEST_POSTGRES_URL="$$(scripts/test-postgres.sh fresh)" && \
		export RIDEBEACON_TEST_POSTGRES_URL && status=0 && scratch="$$(mktemp -d /tmp/rb-test-XXXXXX)" && \
		{ TMPDIR="$$scratch" RIDEBEACON_REQUIRE_PEERS=1 RIDEBEACON_REQUIRE_BROWSER=1 timeout --signal=QUIT --kill-after=2m $(TEST_LIMIT) \
			$(SWIFT) test --skip-build || status=$$?; } && \
		{ [ $$status != 0 ] || rm -rf "$$scratch"; } && scripts/test-postgres.sh stop && exit $$status
	$(MAKE) schemathesis
	$(MAKE) fuzz-smoke
	$(MAKE) reliability-smoke

# schemathesis against a live server and openapi.yaml (bounded: scripts/schemathesis.sh).
schemathesis: test-venv
	$(SWIFT) build --product ridebeacon
	scripts/schemathesis.sh

# Runs the ride server on ./ridebeacon.sqlite (see README, "Ride server").
serve: build
	.build/debug/ridebeacon serve

# apt packages are installed only when one is missing, so a warm machine pays nothing.
deps: PACKAGES = $(APT_PACKAGES)
deps-build: PACKAGES = $(BUILD_APT_PACKAGES)
deps deps-build:
	@missing=""; for p in $(PACKAGES); do dpkg -s $$p >/dev/null 2>&1 || missing="$$missing $$p"; done; \
	if [ -n "$$missing" ]; then \
		echo "installing:$$missing"; \
		$(SUDO) apt-get -o DPkg::Lock::Timeout=300 update -qq && DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get -o DPkg::Lock::Timeout=300 install -y -qq $$missing; \
	fi

# Python peers: Bumble virtual controllers (radio tests and benchmarks), beacontools (benchmarks).
venv: $(VENV)/.ready-bumble-$(BUMBLE_VERSION)
$(VENV)/.ready-bumble-$(BUMBLE_VERSION):
	python3 -m venv $(VENV)
	$(VENV)/bin/pip install -q beacontools==2.1.0 bumble==$(BUMBLE_VERSION)
	touch $@

# Python tools the tests drive: websocket-client (the Chromium DevTools peer), schemathesis,
# selenium-axe-python (for the axe-core 4.9 its wheel bundles, which the page tests run over
# DevTools; axe-selenium-python's newest wheel for Python 3.11 has axe-core 3.1, without WCAG 2.1/2.2 rules).
TEST_PYPI := websocket-client==1.9.2 schemathesis==4.32.5 selenium-axe-python==2.2.0
test-venv: $(VENV)/.test-ready
$(VENV)/.test-ready: Makefile
	python3 -m venv $(VENV)
	$(VENV)/bin/pip install -q $(TEST_PYPI)
	touch $@

build:
	$(SWIFT) build

release:
	$(SWIFT) build -c release --product ridebeacon

# libFuzzer over the HCI, AD, btsnoop, trace and calibration decoders. The seed corpus is
# committed under fixtures/fuzz/; crashes land in fuzz-artifacts/ and become regression tests.
fuzz-build:
	$(SWIFT) build --scratch-path $(FUZZ_SCRATCH) --product FuzzDecoders \
		-Xswiftc -sanitize=fuzzer,address -Xswiftc -parse-as-library -Xswiftc -D -Xswiftc FUZZING -Xswiftc -use-ld=lld

fuzz-smoke: FUZZ_SECONDS = 10
fuzz-smoke: fuzz-run
fuzz: FUZZ_SECONDS = 300
fuzz: fuzz-run

fuzz-run: fuzz-build
	@mkdir -p fuzz-artifacts $(FUZZ_SCRATCH)/corpus
	set -o pipefail; $(FUZZ_SCRATCH)/debug/FuzzDecoders -max_total_time=$(FUZZ_SECONDS) -max_len=4096 \
		-artifact_prefix=fuzz-artifacts/ -print_final_stats=1 $(FUZZ_SCRATCH)/corpus fixtures/fuzz 2>&1 | tail -12

# wrk against `ridebeacon serve` on SQLite and a private PostgreSQL (BENCHMARKS.md, "Ride server").
bench-server: deps
	$(SWIFT) build -c release --product ridebeacon
	$(SWIFT) build -c release --product ServerBenchmarkSetup
	Benchmarks/server/run.sh

# The guide on the street (Benchmarks/Guide/street.sh; BENCHMARKS.md, "The street" and "Finding
# each other"): the old open field beside the street, every aid, each driver, each assumption
# swept, on the reporting seeds 10001-11000 with bootstrap intervals.
bench-guide:
	$(SWIFT) build -c release --product GuideBenchmark
	Benchmarks/Guide/street.sh
	.build/release/GuideBenchmark --core-cost

# The simulated channel out of sample (issue 21 part 9; BENCHMARKS.md, "Simulated channel"): the
# channel (scripts/fit_channel.py --receivers) and the report process (fixtures/report-intervals.json)
# from one fixed half of the philotuxo receivers, compared with the other half's real walks; prints
# KS statistics and where KS rejects. The committed fit (all receivers): scripts/fit_channel.py > fixtures/channel-fit.json.
SIM_FIT_RECEIVERS := sensor10,sensor12,sensor31
sim-fidelity: $(VENV)/.ready-numpy
	if [ ! -d $(SHARED)/data/philotuxo ]; then echo "sim-fidelity: $(SHARED)/data/philotuxo not found; nothing to compare"; exit 0; fi; \
	set -e; mkdir -p .build; \
	$(VENV)/bin/python scripts/fit_channel.py --receivers $(SIM_FIT_RECEIVERS) $(SHARED)/data > .build/sim-fidelity-fit.json; \
	$(SWIFT) build -c release --product SimFidelity; \
	.build/release/SimFidelity --fit .build/sim-fidelity-fit.json --fit-receivers $(SIM_FIT_RECEIVERS) \
		--intervals fixtures/report-intervals.json $(SHARED)/data/philotuxo

# numpy for the fit scripts (scripts/fit_*.py).
$(VENV)/.ready-numpy:
	python3 -m venv $(VENV)
	$(VENV)/bin/pip install -q 'numpy>=1.26,<3'
	touch $@

bench: deps venv
	$(SWIFT) build -c release --product PerAdvertisementBenchmark
	Benchmarks/run-per-advertisement.sh

ranging-eval: release
	@if [ -d $(SHARED)/data/herald ]; then \
		$(SHARED)/tools/ranging-eval --ridebeacon .build/release/ridebeacon $(SHARED)/data/herald; \
	else echo "ranging-eval: $(SHARED)/data/herald not found; nothing to score"; fi

# Carried-phone postures (hand sway, body fades, pocket) constructed from the resting recordings,
# each scored by ranging-eval (BENCHMARKS.md, "Ranging for carried phones").
ranging-carried: release
	@if [ -d $(SHARED)/data/herald ]; then \
		python3 Benchmarks/CarriedRanging/postures.py --eval $(SHARED)/tools/ranging-eval \
			--ridebeacon .build/release/ridebeacon out/postures $(SHARED)/data/herald; \
		python3 Benchmarks/CarriedRanging/postures.py --eval $(SHARED)/tools/ranging-eval --only rest,body \
			--ridebeacon .build/release/ridebeacon out/postures-philotuxo $(SHARED)/data/philotuxo; \
	else echo "ranging-carried: $(SHARED)/data/herald not found; nothing to score"; fi

clean:
	rm -rf .build $(FUZZ_SCRATCH) out fuzz-artifacts demo.wav

# Crash durability (scripts/reliability/durability.py): kill -9 of `serve` on SQLite with online
# backups under load; PostgreSQL crashed under two servers, then under admin commands, each of
# which must end within 30 s (scripts/reliability/admin_under_crashes.py). Its private PostgreSQL listens on
# RELIABILITY_PG_PORT (own data dir under /tmp), started fresh by the smoke (a cluster kept from
# run to run kept every run's databases) and stopped when reliability-smoke ends.
RELIABILITY_PG_PORT ?= 55433
RELIABILITY_RESULTS ?= .build/reliability
RELIABILITY_PG := RIDEBEACON_TEST_PG_PORT=$(RELIABILITY_PG_PORT) RIDEBEACON_TEST_PG_DIR=/tmp/ridebeacon-reliability-pg-$(RELIABILITY_PG_PORT) scripts/test-postgres.sh
durability-smoke:
	@mkdir -p $(RELIABILITY_RESULTS)
	python3 scripts/reliability/test_checks.py
	$(RELIABILITY_PG) fresh >/dev/null
	python3 scripts/reliability/durability.py --backend sqlite --kills 3 --backups 2 --results $(RELIABILITY_RESULTS)/durability-smoke.jsonl
	RIDEBEACON_RELIABILITY_PG_PORT=$(RELIABILITY_PG_PORT) python3 scripts/reliability/durability.py --backend postgres \
		--db-restarts 2 --db-down-seconds 4 --kills 1 --races 20 --results $(RELIABILITY_RESULTS)/durability-smoke.jsonl
	RIDEBEACON_RELIABILITY_PG_PORT=$(RELIABILITY_PG_PORT) python3 scripts/reliability/admin_under_crashes.py --crashes 6

durability: build
	@mkdir -p $(RELIABILITY_RESULTS)
	python3 scripts/reliability/durability.py --backend sqlite --kills 10 --backups 4 --workers 8 --results $(RELIABILITY_RESULTS)/durability.jsonl
	RIDEBEACON_RELIABILITY_PG_PORT=$(RELIABILITY_PG_PORT) python3 scripts/reliability/durability.py --backend postgres \
		--db-restarts 5 --kills 4 --races 100 --workers 8 --results $(RELIABILITY_RESULTS)/durability.jsonl

# Mixed load with SSE listeners and RSS sampling (Benchmarks/Load/run.sh), SQLite and
# PostgreSQL; the full run's private PostgreSQL listens on LOAD_PG_PORT, the short one shares
# the durability run's. Each line also has CPU per request (servers, PostgreSQL), round trips
# per operation, and pgbench simple-update on the same database (PGBENCH=0 skips it; issue 28).
# Closed-loop transitions against pgbench: Benchmarks/Load/write-ratio.sh.
LOAD_PG_PORT ?= 55434
load-smoke:
	@mkdir -p $(RELIABILITY_RESULTS)
	BUILD=debug RIDES=300 RATE=100 SECONDS_=5 RIDE_LISTENERS=45 DISPATCHER_LISTENERS=5 \
		LOAD_PG_PORT=$(RELIABILITY_PG_PORT) LOAD_PG_DIR=/tmp/ridebeacon-reliability-pg-$(RELIABILITY_PG_PORT) \
		RESULTS=$(RELIABILITY_RESULTS)/load-smoke.jsonl Benchmarks/Load/run.sh

load: deps
	$(SWIFT) build -c release --product ridebeacon
	$(SWIFT) build -c release --product ServerBenchmarkSetup
	$(SWIFT) build -c release --product ServerLoad
	@mkdir -p $(RELIABILITY_RESULTS)
	LOAD_PG_PORT=$(LOAD_PG_PORT) RESULTS=$(RELIABILITY_RESULTS)/load.jsonl Benchmarks/Load/run.sh

# Ten minutes on two servers sharing PostgreSQL at 1 000 req/s with 500 listeners; each
# server's RSS and sockets and PostgreSQL's backends at 0, 5 and 10 min (RELIABILITY.md, "Soak").
load-soak: deps
	$(SWIFT) build -c release --product ridebeacon
	$(SWIFT) build -c release --product ServerBenchmarkSetup
	$(SWIFT) build -c release --product ServerLoad
	@mkdir -p $(RELIABILITY_RESULTS)
	BACKENDS=postgres SECONDS_=600 MARKS="0 300 600" LOAD_PG_PORT=$(LOAD_PG_PORT) \
		RESULTS=$(RELIABILITY_RESULTS)/load-soak.jsonl Benchmarks/Load/run.sh

# systemd-analyze verify on deploy/systemd, and the PostgreSQL bootstrap's role serving.
# nginx (deploy/nginx) with TLS in front of a real server, events streamed through it.
deploy-check:
	RIDEBEACON_RELIABILITY_PG_PORT=$(RELIABILITY_PG_PORT) scripts/reliability/deploy_check.sh
	scripts/reliability/proxy_check.sh

# Power loss (scripts/reliability/power_loss.py): the database on powerfs (a FUSE mount that
# forgets what was not fsync'd), cut at random moments, remounted, restarted and checked; the
# negative controls (SQLite synchronous = NORMAL, PostgreSQL fsync = off) must lose writes.
# Run as root; its private PostgreSQL listens on POWER_LOSS_PG_PORT.
POWER_LOSS_PG_PORT ?= 55435
POWER_LOSS_CUTS ?= 200
POWER_LOSS_BINARY ?= .build/debug/ridebeacon
POWER_LOSS := python3 scripts/reliability/power_loss.py --binary $(POWER_LOSS_BINARY) --pg-port $(POWER_LOSS_PG_PORT)
power-loss-smoke:
	@mkdir -p $(RELIABILITY_RESULTS)
	python3 scripts/reliability/test_powerfs.py
	$(POWER_LOSS) --backend sqlite --cuts 8 --results $(RELIABILITY_RESULTS)/power-loss-smoke.jsonl
	$(POWER_LOSS) --backend postgres --cuts 4 --results $(RELIABILITY_RESULTS)/power-loss-smoke.jsonl
	$(POWER_LOSS) --backend sqlite --synchronous NORMAL --expect-loss --cuts 3 --results $(RELIABILITY_RESULTS)/power-loss-smoke.jsonl
	$(POWER_LOSS) --backend postgres --fsync off --expect-loss --cuts 2 --results $(RELIABILITY_RESULTS)/power-loss-smoke.jsonl

power-loss: deps
	$(SWIFT) build --product ridebeacon
	@mkdir -p $(RELIABILITY_RESULTS)
	python3 scripts/reliability/test_powerfs.py
	$(POWER_LOSS) --backend sqlite --cuts $(POWER_LOSS_CUTS) --results $(RELIABILITY_RESULTS)/power-loss.jsonl
	$(POWER_LOSS) --backend postgres --cuts $(POWER_LOSS_CUTS) --results $(RELIABILITY_RESULTS)/power-loss.jsonl
	$(POWER_LOSS) --backend sqlite --synchronous NORMAL --expect-loss --cuts 20 --results $(RELIABILITY_RESULTS)/power-loss.jsonl
	$(POWER_LOSS) --backend postgres --fsync off --expect-loss --cuts 10 --results $(RELIABILITY_RESULTS)/power-loss.jsonl

# What `make test` runs after the unit and integration tests (short, bounded versions).
reliability-smoke: durability-smoke load-smoke deploy-check power-loss-smoke
	$(RELIABILITY_PG) stop

# The full versions; their last results are in RELIABILITY.md.
reliability: durability load

# libFuzzer over the API's JSON bodies (Sources/FuzzAPIBodies): a product of its own, built from
# APIBodies alone (Foundation only), so it builds in seconds beside the decoders' target. Seeds:
# fixtures/fuzz/api/ (fixtures/make_fuzz_api_seeds.py); runs as long as the decoders' target.
fuzz-smoke: fuzz-api-run
fuzz: fuzz-api-run
fuzz-api-build:
	$(SWIFT) build --scratch-path $(FUZZ_SCRATCH) --product FuzzAPIBodies \
		-Xswiftc -sanitize=fuzzer,address -Xswiftc -parse-as-library -Xswiftc -D -Xswiftc FUZZING -Xswiftc -use-ld=lld

fuzz-api-run: fuzz-api-build
	@mkdir -p fuzz-artifacts $(FUZZ_SCRATCH)/corpus-api
	set -o pipefail; $(FUZZ_SCRATCH)/debug/FuzzAPIBodies -max_total_time=$(FUZZ_SECONDS) -max_len=4096 -dict=fixtures/fuzz/api-json.dict \
		-artifact_prefix=fuzz-artifacts/api- -print_final_stats=1 $(FUZZ_SCRATCH)/corpus-api fixtures/fuzz/api 2>&1 | tail -12
