# Two commands on a fresh machine: `make run` serves knotwork, `make test` tests it.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
# The web UI's bundle is built from web/ (npm ci + esbuild), not committed; see README "Web UI".
UI := src/knotwork/adapters/http/static/app.js
UI_SRC := $(wildcard web/src/*) web/package.json web/package-lock.json web/build.mjs web/tsconfig.json

.PHONY: run test bench peers clean ui

$(STAMP): pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[test,bench,postgres]'
	touch $(STAMP)

$(UI): $(UI_SRC)
	@if command -v npm >/dev/null 2>&1; then \
		cd web && npm ci --no-audit --no-fund && npm run build; \
	else \
		echo "make: npm not found: the web UI is not built (GET / answers 503, its browser tests are skipped)"; \
	fi

ui: $(UI)

run: $(STAMP) $(UI)
	$(BIN)/knotwork serve

test: $(STAMP) $(UI)
	$(BIN)/python -m pytest -n 2 -q

bench: $(STAMP)
	$(BIN)/python bench/ingest.py

# knotwork beside Mem0, mcp-memory-service, basic-memory and the MCP reference memory server (bench/peers/README.md).
# Installs each peer, pinned, under bench/.cache/peers/ (not part of `make test`); takes 30-60 minutes on 2 cores.
peers: $(STAMP)
	nice -n 10 bash bench/peers/install.sh
	nice -n 10 $(BIN)/python bench/peers/run.py $(PEERS_ARGS)

clean:
	rm -rf $(VENV) build src/*.egg-info .pytest_cache web/node_modules src/knotwork/adapters/http/static
