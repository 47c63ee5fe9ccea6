# The README's two commands: `make demo` and `make test`.
# Each installs what is missing (Debian packages, a Python venv for test tools), then builds.

SWIFT        ?= swift
APT_PACKAGES := libsqlite3-dev libmicrohttpd-dev pkg-config sqlite3 python3-venv libssl-dev libpq-dev postgresql chromium chromium-driver
VENV         := .venv
SUDO         := $(shell [ "$$(id -u)" = 0 ] || echo sudo)

.PHONY: deps venv build release demo test test-in-process test-end-to-end test-build test-browser package-build client-build bench clean

deps:
	@missing=""; for p in $(APT_PACKAGES); do dpkg -s $$p >/dev/null 2>&1 || missing="$$missing $$p"; done; \
	if [ -n "$$missing" ]; then \
	  echo "make: installing Debian packages:$$missing"; \
	  $(SUDO) apt-get update -qq && DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq $$missing; \
	fi

venv: $(VENV)/.stamp
$(VENV)/.stamp: tools/requirements.txt
	python3 -m venv $(VENV)
	$(VENV)/bin/pip install -q -r tools/requirements.txt
	touch $@

build: deps
	$(SWIFT) build

release: deps
	$(SWIFT) build -c release

demo: release
	.build/release/abctl demo

# The suites that run the built binaries and a live server (each test waits on them without holding
# one of the test pool's threads) in a run of their own, at most four at once: each starts servers
# and programs of its own, and all 145 at once on two cores starved the ones that measure deadlines.
END_TO_END := EndToEndTests|AbctlClientTests
END_TO_END_WIDTH := 4
# The bundle `swift test` builds, run directly: two `swift test` at once would wait on each other's
# lock on .build. Every suite is a Swift Testing one (no XCTest).
TEST_BUNDLE := .build/debug/abctlPackageTests.xctest

# The venv is made while Swift compiles: pip mostly waits on downloads. The app's package (Client/)
# compiles beside the main build, in the moments the main build waits on one module or one link.
# The in-process run and the end-to-end run then go side by side: the end-to-end tests spend much of
# their time waiting on servers, timers and one long program each, time the in-process suites use.
# Each run's output is printed whole when it ends (--output-sync), not interleaved.
test: deps
	$(MAKE) --no-print-directory -j3 venv package-build client-build
	$(VENV)/bin/check-jsonschema --schemafile Experiments/schema.json $$(ls Experiments/*.json | grep -v -e schema.json -e products.json)
	$(MAKE) --no-print-directory -j2 --output-sync=target test-in-process test-end-to-end
	$(MAKE) --no-print-directory test-browser

# Without a build of their own: run after `make test-build` (or `swift build --build-tests`).
test-in-process:
	$(TEST_BUNDLE) --testing-library swift-testing --skip '$(END_TO_END)'

test-end-to-end:
	ABCTL_BIN=$(CURDIR)/.build/debug/abctl $(TEST_BUNDLE) --testing-library swift-testing --filter '$(END_TO_END)' \
	  --experimental-maximum-parallelization-width $(END_TO_END_WIDTH)

# The console in Debian's chromium (Tests/Browser): every page signed in, at 1280 and 390 px, with
# axe-core and with JavaScript off. It stops itself after 110 s; `timeout` is the backstop.
test-browser: deps venv
	ABCTL_BIN=$(CURDIR)/.build/debug/abctl timeout 150 $(VENV)/bin/python Tests/Browser/console_in_a_browser.py

# Every target with the tests, and the package an app adds (Client/), built alone from its own
# folder: no system library, no C headers. The two builds share nothing, so they may run at once.
test-build: package-build client-build

package-build:
	$(SWIFT) build --build-tests

client-build:
	cd Client && $(SWIFT) build

# Every benchmark script prints its figures next to its reference (C, sqlite3, nginx) from the same run.
bench: deps
	@for script in bench/*.sh; do echo "== $$script"; bash $$script || exit 1; done

clean:
	rm -rf .build $(VENV)
