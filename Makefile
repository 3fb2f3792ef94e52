# airtcp — the README's two commands are `make run` and `make test`; both set everything up
# (virtual environment, Python dependencies from PyPI, release build of the Rust core) and are
# idempotent.

SHELL := /bin/bash
VENV ?= .venv
PY := $(VENV)/bin/python
PIP := $(VENV)/bin/pip
AIRTCP := $(VENV)/bin/airtcp
OUT ?= out
export VIRTUAL_ENV := $(abspath $(VENV))

.PHONY: run examples test test-long setup build wheel schema browser tshark rust-test py-test lint docs bench bench-wifi bench-cc bench-ab validation fuzz fuzz-seeds clean

# The main job: build, then reproduce every registered paper in its quick form (the sweeps, the
# figures, the table of published vs airtcp numbers) and print where the HTML report is.
run: build
	$(AIRTCP) reproduce all --quick --out $(OUT)/reproduce-quick

# The example scenarios: a per-flow table per scenario and out/<scenario>/goodput.png.
examples: build
	@set -e; for f in scenarios/examples/*.yaml; do \
	  n=$$(basename $$f .yaml); \
	  echo "== $$f"; \
	  $(AIRTCP) run $$f --out $(OUT)/$$n --force; \
	  $(AIRTCP) plot $(OUT)/$$n; \
	done

# Every test: formatting and lints, the documentation site's strict build, Rust
# unit/integration/property tests, Python tests.
test: build lint docs rust-test py-test

$(VENV)/.deps: pyproject.toml
	python3 -m venv $(VENV)
	$(PIP) install -q --upgrade pip
	$(PIP) install -q "maturin>=1.5,<2"
	$(PIP) install -q $$($(PY) -c 'import tomllib;d=tomllib.load(open("pyproject.toml","rb"))["project"];o=d["optional-dependencies"];print(" ".join(repr(x) for x in d["dependencies"]+o["test"]+o["docs"]))' | tr -d "'")
	touch $@

setup: $(VENV)/.deps

# The package's bytecode is compiled here, as pip does when it installs a wheel: where
# PYTHONDONTWRITEBYTECODE is set, every command would otherwise compile airtcp's modules again
# (a fifth of a short run's start-up).
# The first build installs the package into the venv (editable); later ones only rebuild the
# core in place (--skip-install), without pip's list of requirements already satisfied.
build: setup
	@set -o pipefail; if [ -x $(VENV)/bin/airtcp ]; then \
	  echo "building the core (release) ..."; $(VENV)/bin/maturin develop --release -q --skip-install; \
	else \
	  $(VENV)/bin/maturin develop --release -q 2>&1 | sed -e '/^Requirement already satisfied/d' -e '/^Ignoring /d'; \
	fi
	$(PY) -m compileall -q python/airtcp >/dev/null

# The wheel users `pip install` (everything a run, a sweep or a reproduction reads is inside it),
# into $(WHEELS). Same release profile and cargo target folder as `build`, so after `build` it
# only packs: the core is not compiled twice. Older airtcp wheels there are removed first, so
# the folder holds exactly the one the tests install.
WHEELS ?= $(OUT)/wheels
wheel: setup
	rm -f $(WHEELS)/airtcp-*.whl
	$(VENV)/bin/maturin build --release -q --out $(WHEELS)

# The fast-test profile (Cargo.toml): optimised like release, without its single codegen unit
# and LTO, which cost most of the time of building 30 test binaries and change no result.
rust-test:
	cargo test -p airtcp --profile fast-test -q

# tests/python/test_wheel.py installs the wheel named by AIRTCP_WHEEL into a fresh venv and runs
# it away from the checkout (it is skipped when a developer runs pytest without it).
# On two workers (pytest-xdist), a test file's tests together on one (module fixtures such as
# the wheel's venv are built once); PYTEST_WORKERS=0 runs them in this process.
PYTEST_WORKERS ?= 2
# The ten slowest tests are listed at the end, so that a test that grows is seen.
py-test: build browser tshark wheel
	AIRTCP_WHEEL="$$(echo $(abspath $(WHEELS))/airtcp-*.whl)" $(PY) -m pytest -q -n $(PYTEST_WORKERS) --dist loadfile --durations=10

# The long forms `make test` leaves out (tests marked long: a minute or more each), on demand.
test-long: build
	$(PY) -m pytest -q -m long --long

# The fuzzers' long form (their short form runs in `make test`): the core's JSON entry point
# (crates/airtcp/tests/integration/fuzz_core.rs) and the Python entry points, scenario files and sweep specs
# (tests/python/test_fuzz.py), FUZZ_CASES cases each; the counts by outcome go to
# $(OUT)/fuzz-core.json and $(OUT)/fuzz-python.json.
FUZZ_CASES ?= 5000
fuzz: build
	AIRTCP_FUZZ_CASES=$(FUZZ_CASES) AIRTCP_FUZZ_REPORT=$(abspath $(OUT))/fuzz-core.json \
	  cargo test -p airtcp --release -q --test integration -- fuzz_core:: --nocapture
	AIRTCP_FUZZ_EXAMPLES=$(FUZZ_CASES) AIRTCP_FUZZ_REPORT=$(OUT)/fuzz-python.json \
	  $(PY) -m pytest -q -p no:cacheprovider tests/python/test_fuzz.py

# Rewrites the core fuzzer's seeds (the normalised form of every shipped scenario); a test fails
# when they are stale.
fuzz-seeds: build
	$(PY) tests/python/test_fuzz_seeds.py

# Debian's Chromium, which the tests use to render the HTML reports headless and check them
# (tests/python/browser_check.py); installed with apt-get when missing, as root or with sudo.
# AIRTCP_SKIP_BROWSER=1 skips the install and those tests.
browser:
	@command -v chromium >/dev/null || command -v chromium-browser >/dev/null || \
	[ "$$AIRTCP_SKIP_BROWSER" = 1 ] || { \
	  fail() { echo "make browser: $$1; install Debian's chromium package (apt-get install --no-install-recommends chromium) or set AIRTCP_SKIP_BROWSER=1 to skip the browser tests" >&2; exit 1; }; \
	  if [ "$$(id -u)" = 0 ]; then sudo=; \
	  elif command -v sudo >/dev/null; then sudo=sudo; \
	  else fail "Chromium is missing and installing it needs root or sudo"; fi; \
	  command -v apt-get >/dev/null || fail "Chromium is missing and apt-get is not available"; \
	  echo "== installing Chromium (apt-get install chromium)"; \
	  $$sudo apt-get update -q && $$sudo apt-get install -y -q --no-install-recommends chromium \
	    || fail "apt-get could not install Chromium"; \
	  command -v chromium >/dev/null || fail "apt-get ran but chromium is still not on PATH"; \
	}

# Debian's tshark, which tests/python/test_pcap.py reads the runs' pcap traces with; installed
# with apt-get when missing, as root or with sudo (non-interactive: no packet capture for users,
# which reading files does not need). AIRTCP_SKIP_TSHARK=1 skips the install; the tests that need
# it are then skipped, saying why.
tshark:
	@command -v tshark >/dev/null || [ "$$AIRTCP_SKIP_TSHARK" = 1 ] || { \
	  fail() { echo "make tshark: $$1; install Debian's tshark package (apt-get install --no-install-recommends tshark) or set AIRTCP_SKIP_TSHARK=1 to skip the tests that read pcap files with it" >&2; exit 1; }; \
	  if [ "$$(id -u)" = 0 ]; then sudo=; \
	  elif command -v sudo >/dev/null; then sudo=sudo; \
	  else fail "tshark is missing and installing it needs root or sudo"; fi; \
	  command -v apt-get >/dev/null || fail "tshark is missing and apt-get is not available"; \
	  echo "== installing tshark (apt-get install tshark)"; \
	  echo "wireshark-common wireshark-common/install-setuid boolean false" | $$sudo debconf-set-selections 2>/dev/null || true; \
	  $$sudo apt-get update -q && $$sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends tshark \
	    || fail "apt-get could not install tshark"; \
	  command -v tshark >/dev/null || fail "apt-get ran but tshark is still not on PATH"; \
	}

# The scenario format's JSON Schema, generated by the core from its config types, into the package
# (python/airtcp/data/scenario.schema.json), and the field reference made from it
# (docs/scenario-fields.md) and the front end's models (python/airtcp/scenario/models.py); run it
# after changing a config type (tests compare all three).
schema: build
	$(PY) -c "from airtcp import _core; open('python/airtcp/data/scenario.schema.json', 'w', encoding='utf-8').write(_core.scenario_schema_json())"
	$(PY) -m airtcp.scenario.schema_docs docs/scenario-fields.md
	$(PY) -m airtcp.scenario.model_gen python/airtcp/scenario/models.py

lint:
	cargo fmt --all -- --check
	cargo clippy --workspace --all-targets --release -q -- -D warnings

# The documentation site (mkdocs.yml): docs/*.md, the benchmark READMEs and the API reference
# from the package's docstrings, into $(OUT)/site (open $(OUT)/site/index.html). Strict: a broken
# link or anchor, a page missing from the nav or a docstring that does not render fails it.
# The API reference reads the sources without importing them, so no build is needed. (No
# --quiet: it silences the warnings, and so strict mode with them.)
docs: setup
	$(VENV)/bin/mkdocs build --strict --site-dir $(OUT)/site

# airtcp vs ns-3 on the same scenarios (fetches and compiles ns-3 3.44 on first use);
# e.g. `make bench BENCH_ARGS=--quick`.
bench: build
	$(AIRTCP) bench $(BENCH_ARGS)

# airtcp vs ns-3 3.44 on 802.11b and 802.11a chains and an AODV grid, plus a 10,000-node scale run
# (bench/wifi/README.md); e.g. `make bench-wifi BENCH_ARGS=--quick`.
bench-wifi: build
	$(PY) -m airtcp.bench.wifi $(BENCH_ARGS)

# airtcp's NewReno, Linux Reno, Vegas and Cubic vs ns-3 3.44's on the p2p case (bench/README.md).
bench-cc: build
	$(PY) -m airtcp.bench.cc $(BENCH_ARGS)

# docs/validation.md: every comparison with an independent reference (ns-3's stored runs, closed
# forms), airtcp run live (a few minutes).
validation: build
	$(PY) -m airtcp.bench.validation_page

# This checkout's simulation loop against the build of git revision BASE, same cases, same run
# (events/s ratios and whether the results, without the scenario echo, are the same): make bench-ab BASE=main~1
bench-ab: build
	$(PY) -m airtcp.bench.ab --baseline $(BASE) $(BENCH_ARGS)

clean:
	rm -rf target $(VENV) $(OUT) bench/out
