# groundwire's build. `make demo` and `make test` are all a newcomer needs; both set
# up .venv (Python >= 3.11, exact pins from constraints/dev.txt).
#
# Four environments, each from exact pins of its own in constraints/:
#   .venv                 dev.txt       the newest supported versions, lint, tests, bench
#   build/venv-generate   generate.txt  protoc (grpcio-tools 1.72.2) for `make generate`
#   build/venv-lowest     lowest.txt    the lowest supported versions: `make test-lowest`
#   build/venv-beam       beam.txt      beside Apache Beam 2.77: `make test-beam`
#   build/venv-spark      spark.txt     beside PySpark 4.3 (and a Java runtime): `make test-spark`
# and, unpinned, the newest releases the ranges admit: build/venv-latest{,-beam,-spark} for
# `make test-latest`.

PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
PIP_VERSION := 26.3
BUF := node_modules/.bin/buf
PY_STAMP := $(VENV)/.installed
NODE_STAMP := node_modules/.installed
TS_STAMP := typescript/node_modules/.installed
OFFSETS_STAMP := typescript/offsets/node_modules/.installed
GEN_VENV := build/venv-generate
LOWEST_VENV := build/venv-lowest
BEAM_VENV := build/venv-beam
SPARK_VENV := build/venv-spark

.PHONY: install demo generate check-generated proto-deps polyglot-tools polyglot test-polyglot \
	baseline breaking lint docs test test-loaded test-lowest test-beam test-spark java bench ci lock clean

install: $(PY_STAMP) $(NODE_STAMP)

# A venv at $(1), pip pinned, then `pip install -c $(2) $(3)`; `make` reruns it when the
# pins or pyproject.toml change.
define make_venv
	@$(PYTHON) -c 'import sys; sys.exit(0 if sys.version_info >= (3, 11) else "groundwire needs Python >= 3.11")'
	test -x $(1)/bin/python || $(PYTHON) -m venv $(1)
	$(1)/bin/python -m pip install --quiet --disable-pip-version-check "pip==$(PIP_VERSION)"
	$(1)/bin/pip install --quiet -c $(2) $(3)
	touch $(1)/.installed
endef

$(PY_STAMP): pyproject.toml constraints/dev.txt
	$(call make_venv,$(VENV),constraints/dev.txt,-e ".[dev]")

$(GEN_VENV)/.installed: constraints/generate.txt
	$(call make_venv,$(GEN_VENV),constraints/generate.txt,grpcio-tools googleapis-common-protos)

# The lowest and Beam environments install groundwire as users do, from a built wheel, not
# editable; their test targets reinstall it first, so they always test the current tree.
# (A comma would split $(call)'s arguments, so the extras are in a variable.)
LOWEST_REQUIREMENTS := ".[test,langchain]"
$(LOWEST_VENV)/.installed: pyproject.toml constraints/lowest.txt
	$(call make_venv,$(LOWEST_VENV),constraints/lowest.txt,$(LOWEST_REQUIREMENTS))

# (A comma would split $(call)'s arguments, so the extras are in a variable.)
BEAM_REQUIREMENTS := ".[emulator,test,beam]" apache-beam==2.77.0
$(BEAM_VENV)/.installed: pyproject.toml constraints/beam.txt
	$(call make_venv,$(BEAM_VENV),constraints/beam.txt,$(BEAM_REQUIREMENTS))

SPARK_REQUIREMENTS := ".[emulator,test,spark]"
$(SPARK_VENV)/.installed: pyproject.toml constraints/spark.txt
	$(call make_venv,$(SPARK_VENV),constraints/spark.txt,$(SPARK_REQUIREMENTS))

REINSTALL = bin/pip install --quiet --no-deps --force-reinstall .

$(NODE_STAMP): package.json package-lock.json
	npm ci --no-audit --no-fund --loglevel=error
	touch $@

# The TypeScript client's own packages (connect-es, Google's official Node clients, tsc), apart
# from the build tools, and the offsets package's (its devDependencies: tsc and Node's types,
# which its `prepare` script, the build, needs): only `make test-polyglot` needs them. The
# client links the offsets package, whose prepare npm runs: its packages come first.
$(OFFSETS_STAMP): typescript/offsets/package.json typescript/offsets/package-lock.json
	cd typescript/offsets && npm ci --no-audit --no-fund --loglevel=error
	touch $@

$(TS_STAMP): typescript/package.json typescript/package-lock.json $(OFFSETS_STAMP)
	cd typescript && npm ci --no-audit --no-fund --loglevel=error
	touch $@

## generate: compile protos/ into generated/ (commit the result)
generate: $(GEN_VENV)/.installed
	$(GEN_VENV)/bin/python tools/generate.py

## check-generated: fail when generated/ has drifted from protos/
check-generated: generate
	@git status --porcelain -- generated | grep . && { echo "generated/ is stale: run 'make generate' and commit"; exit 1; } || echo "generated/ matches protos/"

## proto-deps: the google/api, google/rpc and google/type protos that protos/ (and the other
## languages' clients) import, from the pinned npm package google-proto-files into the
## git-ignored build/proto-deps (no Python venv needed), so that a fresh `buf build` works
PROTO_DEPS := $(addprefix google/api/,annotations client field_behavior http launch_stage resource) \
	$(addprefix google/rpc/,code error_details status) google/type/date
proto-deps: $(NODE_STAMP)
	for name in $(PROTO_DEPS); do \
	  install -D -m 644 node_modules/google-proto-files/$$name.proto build/proto-deps/$$name.proto || exit 1; \
	done

## polyglot-tools: the Debian packages that Go's and Java's generation and builds need
## (go/apt-packages.txt, java/apt-packages.txt), installed when one is missing (apt-get update first)
APT_PACKAGES = $(sort $(shell cat $(wildcard go/apt-packages.txt java/apt-packages.txt) /dev/null))
polyglot-tools:
	@missing=$$(for package in $(APT_PACKAGES); do dpkg -s $$package >/dev/null 2>&1 || echo $$package; done); \
	if [ -n "$$missing" ]; then \
	  echo "apt-get install" $$missing; \
	  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $$missing; \
	fi

## polyglot: generate every language's code from protos/ into build/polyglot/<language>/
## (buf.gen.yaml; TypeScript and Java also get google.rpc's error details, which no package they
## can install serves; TypeScript a package.json that makes its files ES modules; Go a go.mod that
## makes build/polyglot/go the module a team points its `replace` at)
polyglot: proto-deps polyglot-tools
	$(BUF) generate
	$(BUF) generate build/proto-deps --path build/proto-deps/google/rpc --template typescript/buf.gen.rpc.yaml
	echo '{"type": "module"}' > build/polyglot/ts/package.json
	cp go/genproto.go.mod build/polyglot/go/go.mod
	$(BUF) generate build/proto-deps --path build/proto-deps/google/rpc --template java/buf.gen.rpc.yaml

## test-polyglot: generate and compile each language with docs/polyglot.md's snippets, install
## @groundwire/offsets into a project outside the repository, then run each language's client
## against a fresh `groundwire serve` (conformance/run_polyglot.py); installs npm and Debian
## packages itself.
## POLYGLOT_PYTHON: the Python that runs the driver and the emulator (default .venv's)
POLYGLOT_PYTHON ?= $(BIN)/python
POLYGLOT_SCRIPTS := $(wildcard typescript/test.sh go/test.sh java/test.sh)
test-polyglot: $(if $(filter $(BIN)/python,$(POLYGLOT_PYTHON)),$(PY_STAMP)) polyglot $(TS_STAMP)
	PYTHONPATH=$(CURDIR)/src:$(CURDIR)/generated $(POLYGLOT_PYTHON) conformance/run_polyglot.py $(POLYGLOT_SCRIPTS)

## baseline: record the current protos as the release that `breaking` compares with
baseline: generate $(NODE_STAMP)
	$(BUF) build protos -o baseline/protos.binpb

## breaking: fail on wire- or JSON-breaking changes since the baseline
breaking: generate $(NODE_STAMP)
	$(BUF) breaking protos --against baseline/protos.binpb

## lint: buf lint, ruff format and ruff check, mypy on src/ and tests/
lint: generate $(NODE_STAMP) $(PY_STAMP)
	$(BUF) lint
	$(BIN)/ruff format --check src tests tools bench
	$(BIN)/ruff check src tests tools bench
	$(BIN)/mypy
	$(BIN)/lint-imports --no-cache

## docs: the docs site, docs/ into build/site, failing on any warning (a broken link, a
## docstring mkdocstrings cannot read); offline: no web fonts, no plugin that downloads
docs: $(PY_STAMP)
	NO_MKDOCS_2_WARNING=1 $(BIN)/mkdocs build --strict --quiet

## test: the suite, every module's doctests, and a coverage report with a floor
test: $(PY_STAMP)
	$(BIN)/pytest -q --cov --cov-report=term:skip-covered

## test-loaded: the whole suite, `slow` tests included, beside two CPU burners per core
## (tools/loaded.sh), as on a busy laptop or CI runner; not a step of `ci`
test-loaded: $(PY_STAMP)
	tools/loaded.sh $(BIN)/pytest -q -p no:cacheprovider

## test-lowest: the suite at the lowest supported versions (no official clients there, and no
## heavy `slow` cases: the dev suite runs those)
test-lowest: $(LOWEST_VENV)/.installed
	$(LOWEST_VENV)/$(REINSTALL)
	$(LOWEST_VENV)/bin/pytest -q -m "not official and not slow" -p no:cacheprovider

## test-beam: groundwire installed beside Apache Beam 2.77: a check on the embedded emulator, then
## the suite, where the Beam pipeline tests (tests/beam) fail instead of skipping without Beam
test-beam: $(BEAM_VENV)/.installed
	$(BEAM_VENV)/$(REINSTALL)
	$(BEAM_VENV)/bin/groundwire check --local --answer "Paris is in France." --fact "Paris is the capital of France."
	GROUNDWIRE_TEST_BEAM=required $(BEAM_VENV)/bin/pytest -q -m "not official and not slow" -p no:cacheprovider

## test-latest: the newest releases the ranges in pyproject.toml admit, re-resolved on every run
## without pins (`pip install --upgrade --upgrade-strategy eager`), so that a new release is tried
## the day it is out. One environment per heavy extra, whose resolutions differ (Beam caps
## protobuf below 7): build/venv-latest (the dev extras), build/venv-latest-beam and
## build/venv-latest-spark. First each one's direct dependencies, resolved beside the newest their
## range admits and what holds one back (tools/latest_versions.py), then the dev suite (not `slow`:
## those are heavy and `make test` runs them), the Beam tests and the Spark jobs, with the docs
## examples of each environment.
LATEST_VENV := build/venv-latest
LATEST_BEAM_VENV := build/venv-latest-beam
LATEST_SPARK_VENV := build/venv-latest-spark
LATEST_BEAM_REQUIREMENTS := ".[emulator,test,beam]"

# A venv at $(1) upgraded to the newest releases $(2) admits (with --upgrade, pip rebuilds and
# reinstalls groundwire from the tree too), then the table of extras $(3)'s direct dependencies.
define latest_venv
	test -x $(1)/bin/python || $(PYTHON) -m venv $(1)
	$(1)/bin/python -m pip install --quiet --disable-pip-version-check "pip==$(PIP_VERSION)"
	$(1)/bin/pip install --quiet --upgrade --upgrade-strategy eager $(2)
	$(1)/bin/python tools/latest_versions.py $(3)
endef

.PHONY: test-latest
test-latest: java
	$(call latest_venv,$(LATEST_VENV),".[dev]",dev)
	$(call latest_venv,$(LATEST_BEAM_VENV),$(LATEST_BEAM_REQUIREMENTS),emulator test beam)
	$(call latest_venv,$(LATEST_SPARK_VENV),$(SPARK_REQUIREMENTS),emulator test spark)
	$(LATEST_VENV)/bin/pytest -q -m "not slow" -p no:cacheprovider
	GROUNDWIRE_TEST_BEAM=required $(LATEST_BEAM_VENV)/bin/pytest -q -p no:cacheprovider \
	  tests/beam tests/test_docs_examples.py -k "beam"
	GROUNDWIRE_TEST_SPARK=required PYSPARK_PYTHON=$(CURDIR)/$(LATEST_SPARK_VENV)/bin/python SPARK_LOCAL_IP=127.0.0.1 \
	  $(LATEST_SPARK_VENV)/bin/pytest -q -p no:cacheprovider tests/spark tests/test_docs_examples.py -k "spark"

## java: a Java runtime for Spark (17 or newer), Debian's headless JRE when `java` is missing
java:
	@command -v java >/dev/null || { \
	  echo "apt-get install openjdk-17-jre-headless"; \
	  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends openjdk-17-jre-headless; }

## test-spark: groundwire installed beside PySpark: the Spark jobs (tests/spark, local[2] against
## the emulator, failing instead of skipping without PySpark), the module's pure tests and the
## examples of docs/spark.md, which skip where PySpark is not installed
test-spark: $(SPARK_VENV)/.installed java
	$(SPARK_VENV)/$(REINSTALL)
	GROUNDWIRE_TEST_SPARK=required PYSPARK_PYTHON=$(CURDIR)/$(SPARK_VENV)/bin/python SPARK_LOCAL_IP=127.0.0.1 \
	  $(SPARK_VENV)/bin/pytest -q -p no:cacheprovider tests/spark tests/test_docs_examples.py -k "spark"

## demo: a real grounding check (non-ASCII answer, claim scores) against the embedded emulator
demo: $(PY_STAMP)
	$(BIN)/groundwire check --local --claim-scores \
	  --answer "Marie Curie won the Nobel Prize in Physics in 1903. Elle est née à Varsovie en 1867. 東京は日本の首都です。The Eiffel Tower is in Berlin. Let me know if you need anything else!" \
	  --fact "Marie Skłodowska-Curie shared the 1903 Nobel Prize in Physics with Pierre Curie and Henri Becquerel." \
	  --fact "Marie Curie est née à Varsovie le 7 novembre 1867." \
	  --fact "東京は日本の首都であり、最大の都市です。" \
	  --fact "The Eiffel Tower is a wrought-iron lattice tower in Paris, France."

## bench: client, import, offsets and emulator benchmarks side by side; writes bench/results.{json,md}
##        SECTIONS=imports,offsets runs only those (throughput, imports, offsets, engine, streams,
##        spark, quality, bigquery) and prints their report without touching the result files;
##        spark runs its jobs in build/venv-spark and build/venv-beam, so bench sets both up
bench: $(PY_STAMP) $(SPARK_VENV)/.installed $(BEAM_VENV)/.installed
	$(BIN)/python -m bench.run $(if $(SECTIONS),--only $(SECTIONS))

## bench-gate: callgrind instructions per call of groundwire and the fair bare stub (sync and
##             asyncio, score and full on each response shape); fails when a cell passes its gate
##             (bench/instructions.py) or grows over 1% past bench/results.md; installs valgrind
.PHONY: bench-gate
bench-gate: $(PY_STAMP)
	@command -v valgrind >/dev/null 2>&1 || { \
	  echo "apt-get install valgrind"; \
	  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends valgrind; \
	}
	$(BIN)/python -m bench.instructions --gate

## ci: everything .ci/run checks
ci: check-generated breaking lint docs test-polyglot test-lowest test-beam test-spark test-latest test

## lock: re-resolve the dev, Beam and Spark environments from pyproject.toml and rewrite their pins
lock:
	$(call lock_venv,build/lock-venv,-e ".[dev]",constraints/dev.txt,the dev environment and CI)
	$(call lock_venv,build/lock-beam,$(BEAM_REQUIREMENTS),constraints/beam.txt,build/venv-beam (beside Apache Beam))
	$(call lock_venv,build/lock-spark,$(SPARK_REQUIREMENTS),constraints/spark.txt,build/venv-spark (beside PySpark))

# Resolves $(2) in a fresh venv $(1) and writes its exact versions to $(3), for $(4).
define lock_venv
	rm -rf $(1) && $(PYTHON) -m venv $(1)
	$(1)/bin/pip install --quiet "pip==$(PIP_VERSION)" && $(1)/bin/pip install --quiet $(2)
	{ echo "# Exact pins for $(4), written by make lock."; \
	  echo "# The library itself declares compatible ranges in pyproject.toml."; \
	  $(1)/bin/pip freeze --exclude-editable | grep -v '^groundwire'; } > $(3)
endef

clean:
	rm -rf $(VENV) node_modules build dist
