# Two commands on a fresh machine: `make run` serves knotwork, `make test` tests it.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
TEST_STAMP := $(VENV)/.installed-test
# The web UI's bundle is built from web/ (npm ci + esbuild), not committed; a wheel builds it too (setup.py).
UI := src/knotwork/adapters/http/static/app.js
UI_SRC := $(wildcard web/src/*) web/package.json web/package-lock.json web/build.mjs web/tsconfig.json

.PHONY: run test bench peers clean ui wheel first-hour

# `make run` installs what serving needs; `make test` adds the test, benchmark, PostgreSQL and framework extras.
$(STAMP): pyproject.toml setup.py
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e .
	touch $(STAMP)

$(TEST_STAMP): $(STAMP)
	$(BIN)/python -m pip install --quiet -e '.[test,bench,postgres,langgraph,langchain,agents,pydantic-ai]'
	touch $(TEST_STAMP)

$(UI): $(UI_SRC)
	@if command -v npm >/dev/null 2>&1; then \
		cd web && npm ci --no-audit --no-fund && npm run build; \
	else \
		echo "make: npm not found: the web UI is not built (GET / answers 503, its browser tests are skipped)"; \
	fi

ui: $(UI)

run: $(STAMP) $(UI)
	$(BIN)/knotwork serve

# The suite starts some hundreds of knotwork processes: with PYTHONDONTWRITEBYTECODE set in the environment,
# each would compile the package from source again, and each worker would rewrite every test module's asserts
# again; the bytecode is kept instead (__pycache__/ is ignored by git).
# Its temporary files (pytest's tmp_path, the PostgreSQL data folders) go to a folder of its own in /dev/shm when
# there is one with at least 2 GB free (a run writes about 0.6 GB; a container's default /dev/shm of 64 MB is
# passed over): SQLite files there are as real, but a commit (synchronous=FULL) needs no disk flush, which on a
# virtual disk costs milliseconds each; the folder is removed after the run.
test: $(TEST_STAMP) $(UI)
	@tmp=; free=$$(df -Pk /dev/shm 2>/dev/null | awk 'NR == 2 {print $$4}'); \
	if [ "$${free:-0}" -ge 2097152 ] 2>/dev/null; then tmp=$$(mktemp -d /dev/shm/knotwork-test.XXXXXX 2>/dev/null) || tmp=; fi; \
	echo "TMPDIR=$${tmp:-$${TMPDIR:-/tmp}} PYTHONDONTWRITEBYTECODE= $(BIN)/python -m pytest -n 2 -q"; \
	TMPDIR=$${tmp:-$${TMPDIR:-/tmp}} PYTHONDONTWRITEBYTECODE= $(BIN)/python -m pytest -n 2 -q; status=$$?; \
	if [ -n "$$tmp" ]; then rm -rf "$$tmp"; fi; exit $$status

bench: $(TEST_STAMP)
	$(BIN)/python bench/ingest.py

# knotwork beside Mem0, mcp-memory-service, basic-memory and the MCP reference memory server (bench/peers/README.md).
# Installs each peer, pinned, under bench/.cache/peers/ (not part of `make test`); takes 30-60 minutes on 2 cores.
peers: $(TEST_STAMP)
	nice -n 10 bash bench/peers/install.sh
	nice -n 10 $(BIN)/python bench/peers/run.py $(PEERS_ARGS)

# A wheel from this tree, with the web UI's bundle in it (setup.py builds it; needs Node.js and npm).
wheel: $(STAMP)
	rm -rf dist && $(BIN)/python -m pip wheel --quiet --no-deps --wheel-dir dist .

# A new user's first hour from that wheel: fresh venv without Node, server, UI and /docs in Chromium, CLI quick start.
first-hour: $(TEST_STAMP) wheel
	$(BIN)/python bench/first_hour.py dist/knotwork-*.whl

clean:
	rm -rf $(VENV) build dist src/*.egg-info .pytest_cache web/node_modules src/knotwork/adapters/http/static
