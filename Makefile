# Airlock's entry points. `make run` and `make test` install what they need
# (once) and work on a fresh machine; see README.md.

SHELL := /bin/bash
.DEFAULT_GOAL := help

# Builds live outside the clone so repeated runs on one machine are incremental.
export CARGO_TARGET_DIR ?= $(HOME)/.cache/airlock/target
export PATH := $(CURDIR)/end2end/node_modules/.bin:$(HOME)/.cargo/bin:$(PATH)
export RUST_BACKTRACE ?= 0
# Where the compiled site (JS, WASM, CSS, public files) is written and served from.
export LEPTOS_SITE_ROOT ?= $(CURDIR)/target/site

CARGO_LEPTOS_VERSION := 0.3.11
# The CLI must match the `wasm-bindgen` crate exactly, so read it from the lock file.
WASM_BINDGEN_VERSION := $(shell awk '/^name = "wasm-bindgen"$$/ { getline; gsub(/"/, "", $$3); print $$3; exit }' Cargo.lock)
SUDO := $(shell [ "$$(id -u)" = 0 ] || echo sudo)

.PHONY: help run server-run server-release site-run cargo-leptos dev release site-release nightly-wasm test test-setup clients tools rust-tools node-tools python-tools chromium lint fmt test-postgres bench interactive faults fuzz

help:
	@echo "make run    serve Airlock on http://127.0.0.1:3000 (embedded defaults, optimised build)"
	@echo "make dev    the same from a debug build that rebuilds and reloads on every change"
	@echo "make release  the release server and a size-optimised site in target/site-release"
	@echo "make test   every unit, integration and browser test"
	@echo "make lint   clippy and rustfmt checks"
	@echo "make bench  benchmarks in release mode (prints a table, writes */target/bench/*.json)"
	@echo "make fuzz   the fuzz targets, 20 s each (cargo-fuzz, nightly)"
	@echo "make faults the full fault runs: 1,000 conflicting decision pairs, 50 SIGKILLs of a"
	@echo "            server and 50 of one of two replicas, HTTP fuzzing with 100 examples per"
	@echo "            operation (make test runs 50 pairs, 5 kills, 10 examples)"

## Installs -------------------------------------------------------------------

tools: rust-tools node-tools

# wasm-bindgen binds the browser bundle to JS (frontend/site.sh).
rust-tools:
	@rustup target list --installed | grep -qx wasm32-unknown-unknown \
		|| rustup target add wasm32-unknown-unknown
	@wasm-bindgen --version 2>/dev/null | grep -qF "$(WASM_BINDGEN_VERSION)" \
		|| cargo install wasm-bindgen-cli --version $(WASM_BINDGEN_VERSION)

# cargo-leptos rebuilds and reloads on every change for `make dev`, and only
# there: `make run` and `make test` build with frontend/site.sh, since
# building cargo-leptos took ten minutes of a first run. It is installed
# unoptimised (--debug), 7.5 minutes instead of 18 on two cores: it only
# drives cargo, wasm-bindgen and wasm-opt, so its own speed does not show.
cargo-leptos: rust-tools
	@cargo leptos --version 2>/dev/null | grep -qF "$(CARGO_LEPTOS_VERSION)" \
		|| cargo install cargo-leptos --version $(CARGO_LEPTOS_VERSION) --locked \
		   --ignore-rust-version --features no_downloads --debug

# npm's binaryen provides wasm-opt for release builds; Playwright drives Chromium.
node-tools: end2end/node_modules/.package-lock.json

end2end/node_modules/.package-lock.json: end2end/package-lock.json
	cd end2end && npm ci --no-audit --no-fund
	@touch $@

# The MCP Python SDK, for the tests that leave as its programs do, a2a-sdk
# 0.3 and (in an environment of its own) 1.x for the A2A tests, and the
# Python client (clients/python) with what tests and lints it.
python-tools: .venv/.installed .venv-a2a/.installed

.venv/.installed: server/tests/requirements.txt clients/python/pyproject.toml
	python3 -m venv .venv
	.venv/bin/pip install --quiet --disable-pip-version-check -r server/tests/requirements.txt \
		-e 'clients/python[test]'
	@touch $@

.venv-a2a/.installed: server/tests/requirements-a2a.txt
	python3 -m venv .venv-a2a
	.venv-a2a/bin/pip install --quiet --disable-pip-version-check -r server/tests/requirements-a2a.txt
	@touch $@

chromium:
	@test -x /usr/bin/chromium || { $(SUDO) apt-get update && $(SUDO) apt-get install -y chromium; }

## Running ---------------------------------------------------------------------

# What people evaluate: an optimised server and the browser bundle in release
# mode (size-optimised profile, wasm-opt, precompressed), all on stable Rust,
# so a first `make run` needs no second toolchain. `make release` builds the
# smaller nightly bundle for deployments. `make dev` is the fast debug build,
# rebuilt and reloaded in the browser on every change. Each site folder holds
# its bundle's names (hash.txt), so one server serves either.
SITE_RUN := $(CURDIR)/target/site-run

# A first run serves as soon as the server is built, with the style sheet in
# place: the browser bundles (ten more minutes on two cores) build behind it,
# logged to target/site-run.log, and pages work without them until then.
# Later runs build the bundles first, so a server never serves older ones.
run: server-run node-tools
	@if [ -f $(SITE_RUN)/hash-chat.txt ]; then $(MAKE) --no-print-directory site-run; else \
		frontend/site.sh style $(SITE_RUN); \
		echo "Serving before the browser bundles are built ($(SITE_RUN).log): pages work without them."; \
		{ $(MAKE) --no-print-directory site-run >$(SITE_RUN).log 2>&1 \
			&& echo "The browser bundles are built: the next page loads them." \
			|| echo "The browser bundles failed to build: see $(SITE_RUN).log"; } & \
	fi
	LEPTOS_SITE_ROOT=$(SITE_RUN) $(CARGO_TARGET_DIR)/quick-release/airlock serve

# The server at opt-level 1 (the `quick-release` profile in Cargo.toml): a
# first run builds it in two thirds of the time `release` takes.
server-run:
	cargo build --profile quick-release -p server --bin airlock

server-release:
	cargo build --release -p server --bin airlock

site-run: tools
	frontend/site.sh release $(SITE_RUN)

dev: cargo-leptos node-tools
	cargo leptos watch

## Release ---------------------------------------------------------------------

# The browser bundle for deployments is built on nightly: build-std recompiles
# the standard library for size, panics abort without formatting a message
# or a source location, and Debug formatting compiles to nothing (the bundle
# never shows it): a tenth off the compressed WASM, for a longer build and a
# second toolchain. The server is built on stable as always. These flags
# replace .cargo/config.toml's for the browser build, so they repeat its
# `--cfg erase_components`, which the server's HTML needs too.
SITE_RELEASE := $(CURDIR)/target/site-release
NIGHTLY_WASM_RUSTFLAGS := -Zunstable-options -Cpanic=immediate-abort -Zlocation-detail=none \
	-Zfmt-debug=none --cfg erase_components

nightly-wasm:
	@rustup toolchain list | grep -q '^nightly' || rustup toolchain install nightly --profile minimal
	@rustup component list --toolchain nightly --installed | grep -q '^rust-src' \
		|| rustup component add rust-src --toolchain nightly
	@rustup target list --toolchain nightly --installed | grep -qx wasm32-unknown-unknown \
		|| rustup target add wasm32-unknown-unknown --toolchain nightly

site-release: tools nightly-wasm
	RUSTUP_TOOLCHAIN=nightly CARGO_UNSTABLE_BUILD_STD=std,panic_abort \
		CARGO_TARGET_WASM32_UNKNOWN_UNKNOWN_RUSTFLAGS="$(NIGHTLY_WASM_RUSTFLAGS)" \
		frontend/site.sh release $(SITE_RELEASE)

release: server-release site-release

## Testing ---------------------------------------------------------------------

# What the tests need, installed side by side: the installs wait on the
# network and the disk while wasm-bindgen-cli compiles.
test-setup: tools python-tools chromium clients/typescript/node_modules/.package-lock.json

test:
	$(MAKE) --no-print-directory -j4 test-setup
	cargo test --workspace
	cargo build -p server --bin airlock
	@# The clients' tests mostly wait on servers: they run while the site compiles.
	@$(MAKE) --no-print-directory clients >$(CARGO_TARGET_DIR)/clients.log 2>&1 & clients=$$!; \
		frontend/site.sh debug $(LEPTOS_SITE_ROOT); built=$$?; \
		wait $$clients; tested=$$?; cat $(CARGO_TARGET_DIR)/clients.log; \
		[ $$built = 0 ] && [ $$tested = 0 ] || { echo "make clients: $$tested, the site: $$built"; exit 1; }
	AIRLOCK_FUZZ_SIGN_IN=1 .ci/schemathesis short
	@if [ -n "$$AIRLOCK_TEST_DATABASE_URL" ]; then .ci/schemathesis short "$$AIRLOCK_TEST_DATABASE_URL"; \
	else echo "AIRLOCK_TEST_DATABASE_URL is not set: HTTP fuzzing on PostgreSQL skipped"; fi
	cd end2end && npx playwright test

# The client packages (clients/): linted, then tested against the debug server.
# Importing AdalFlow patches asyncio for the whole process (nest_asyncio), so
# its tests run in a process of their own, where that patch's stray warnings
# about closing connections are not the client's.
clients: python-tools clients/typescript/node_modules/.package-lock.json
	.venv/bin/ruff check clients/python
	.venv/bin/ruff format --check clients/python
	cd clients/python && ../../.venv/bin/mypy
	.venv/bin/pytest -q clients/python --ignore clients/python/tests/test_adalflow.py
	.venv/bin/pytest -q clients/python/tests/test_adalflow.py -W ignore::pytest.PytestUnraisableExceptionWarning
	cd clients/typescript && npm run --silent lint && npm test --silent

clients/typescript/node_modules/.package-lock.json: clients/typescript/package-lock.json
	cd clients/typescript && npm ci --no-audit --no-fund
	@touch $@

lint:
	cargo fmt --all --check
	cargo clippy --workspace --all-targets -- -D warnings

fmt:
	cargo fmt --all

# Runs the store conformance suite on a local PostgreSQL as well (see .ci/postgres).
test-postgres:
	AIRLOCK_TEST_DATABASE_URL=$$(.ci/postgres) cargo test -p engine

## Benchmarks ------------------------------------------------------------------

# Release-mode benchmarks on SQLite on disk and on a local PostgreSQL.
bench:
	AIRLOCK_BENCH_DATABASE_URL=$$(.ci/postgres) cargo bench -p engine --bench decisions
	cargo bench -p engine --bench resume
	cargo bench -p engine --bench sessions
	cargo bench -p engine --bench policy
	AIRLOCK_BENCH_DATABASE_URL=$$(.ci/postgres) cargo bench -p server --bench decide
	cargo bench -p server --bench floor
	cargo bench -p server --bench gateway
	cargo bench -p server --bench review_page
	cargo bench -p server --bench proxy
	cargo bench -p server --bench notices
	cargo bench -p server --bench fanout
	cargo bench -p server --bench scale
	$(MAKE) server-release site-run
	LEPTOS_SITE_ROOT=$(SITE_RUN) cargo bench -p server --bench page
	$(MAKE) interactive SITE=$(SITE_RUN)
	$(MAKE) site-release
	LEPTOS_SITE_ROOT=$(SITE_RELEASE) cargo bench -p server --bench page
	$(MAKE) interactive SITE=$(SITE_RELEASE)

# Time to interactive on a throttled phone (end2end/bench), from the release
# server and the site folder SITE.
SITE ?= $(SITE_RUN)
interactive: node-tools chromium
	cd end2end && AIRLOCK_SERVER_BIN=$(CARGO_TARGET_DIR)/release/airlock LEPTOS_SITE_ROOT=$(SITE) \
		npx playwright test -c bench.config.ts

## Faults ----------------------------------------------------------------------

FUZZ_TARGETS := config gateway_request review_submission
FUZZ_SECONDS ?= 20

# cargo-fuzz needs a nightly toolchain; both are installed once. Each target
# runs for FUZZ_SECONDS (make faults: 300) from the seeds in engine/fuzz/seeds
# and the corpus kept in the build directory, so later runs go on where
# earlier ones stopped. A crash leaves its input in engine/fuzz/artifacts.
# Not part of `make test`: the nightly sanitizer build alone takes about six
# minutes on a fresh machine.
fuzz:
	@rustup toolchain list | grep -q '^nightly' || rustup toolchain install nightly --profile minimal
	@cargo fuzz --version >/dev/null 2>&1 || cargo install cargo-fuzz --locked
	cd engine && for target in $(FUZZ_TARGETS); do \
		mkdir -p $(CARGO_TARGET_DIR)/fuzz-corpus/$$target && \
		CARGO_TARGET_DIR=$(CARGO_TARGET_DIR)/fuzz cargo +nightly fuzz run $$target \
			$(CARGO_TARGET_DIR)/fuzz-corpus/$$target fuzz/seeds/$$target \
			-- -max_total_time=$(FUZZ_SECONDS) || exit 1; \
	done

# The full fault runs; `make test` runs short versions of the same tests.
faults:
	AIRLOCK_RACE_PAIRS=1000 AIRLOCK_TEST_DATABASE_URL=$$(.ci/postgres) \
		cargo test -p server --test server races:: -- --nocapture
	AIRLOCK_CRASH_KILLS=50 AIRLOCK_TEST_DATABASE_URL=$$(.ci/postgres) \
		cargo test -p server --test server crashes:: -- --nocapture --test-threads 1
	cargo build -p server --bin airlock
	.ci/schemathesis full
	.ci/schemathesis full $$(.ci/postgres)
	$(MAKE) fuzz FUZZ_SECONDS=300
