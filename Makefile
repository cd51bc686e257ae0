# groundwire's build. `make demo` and `make test` are all a newcomer needs; both set
# up .venv (Python >= 3.11, exact pins from constraints.txt) and node_modules (buf).

PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
PIP_VERSION := 26.3
BUF := node_modules/.bin/buf
PY_STAMP := $(VENV)/.installed
NODE_STAMP := node_modules/.installed

.PHONY: install demo generate check-generated baseline breaking lint test bench ci lock clean

install: $(PY_STAMP) $(NODE_STAMP)

$(PY_STAMP): pyproject.toml constraints.txt
	@$(PYTHON) -c 'import sys; sys.exit(0 if sys.version_info >= (3, 11) else "groundwire needs Python >= 3.11")'
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --disable-pip-version-check "pip==$(PIP_VERSION)"
	$(BIN)/pip install --quiet -c constraints.txt -e ".[dev]"
	touch $@

$(NODE_STAMP): package.json package-lock.json
	npm ci --no-audit --no-fund --loglevel=error
	touch $@

## generate: compile protos/ into generated/ (commit the result)
generate: $(PY_STAMP)
	$(BIN)/python tools/generate.py

## check-generated: fail when generated/ has drifted from protos/
check-generated: generate
	@git status --porcelain -- generated | grep . && { echo "generated/ is stale: run 'make generate' and commit"; exit 1; } || echo "generated/ matches protos/"

## baseline: record the current protos as the release that `breaking` compares with
baseline: generate $(NODE_STAMP)
	$(BUF) build protos -o baseline/protos.binpb

## breaking: fail on wire- or JSON-breaking changes since the baseline
breaking: generate $(NODE_STAMP)
	$(BUF) breaking protos --against baseline/protos.binpb

lint: generate $(NODE_STAMP)
	$(BUF) lint
	$(BIN)/ruff format --check src tests tools bench
	$(BIN)/ruff check src tests tools bench
	$(BIN)/mypy

test: $(PY_STAMP)
	$(BIN)/pytest -q

## demo: a real grounding check (non-ASCII answer) against the embedded emulator
demo: $(PY_STAMP)
	$(BIN)/groundwire check --local \
	  --answer "Marie Curie won the Nobel Prize in Physics in 1903. Elle est née à Varsovie en 1867. 東京は日本の首都です。The Eiffel Tower is in Berlin. Let me know if you need anything else!" \
	  --fact "Marie Skłodowska-Curie shared the 1903 Nobel Prize in Physics with Pierre Curie and Henri Becquerel." \
	  --fact "Marie Curie est née à Varsovie le 7 novembre 1867." \
	  --fact "東京は日本の首都であり、最大の都市です。" \
	  --fact "The Eiffel Tower is a wrought-iron lattice tower in Paris, France."

## bench: client, import, offsets and emulator benchmarks side by side; writes bench/results.{json,md}
bench: $(PY_STAMP)
	$(BIN)/python -m bench.run

## ci: everything .ci/run checks
ci: check-generated breaking lint test

## lock: re-resolve the dev environment from pyproject.toml and rewrite constraints.txt
lock:
	rm -rf build/lock-venv && $(PYTHON) -m venv build/lock-venv
	build/lock-venv/bin/pip install --quiet "pip==$(PIP_VERSION)" && build/lock-venv/bin/pip install --quiet -e ".[dev]"
	{ echo "# Exact pins for the dev environment and CI (\`make lock\` refreshes them deliberately)."; \
	  echo "# The library itself declares compatible ranges in pyproject.toml."; \
	  build/lock-venv/bin/pip freeze --exclude-editable | grep -v '^groundwire'; } > constraints.txt

clean:
	rm -rf $(VENV) node_modules build dist
