#!/usr/bin/env bash
# Installs each peer into its own folder under bench/.cache/peers/, pinned, from PyPI and the npm registry.
# One system failing to install does not stop the others; each writes <name>/.installed or <name>/install.err.
set -u
HERE="$(cd "$(dirname "$0")" && pwd)"
CACHE="${PEERS_CACHE:-$HERE/../.cache/peers}"
PY311="${PEERS_PYTHON:-python3}"
# mcp-memory-service loads the sqlite-vec extension: it needs a Python whose sqlite3 can load extensions (Debian's can).
PYSYS="${PEERS_PYTHON_SQLITE_EXT:-/usr/bin/python3}"
# basic-memory asks for Python >= 3.12.
PY312="${PEERS_PYTHON312:-}"
if [ -z "$PY312" ]; then
    for candidate in python3.12 python3.13 /root/.pyenv/versions/3.12*/bin/python3.12 /root/.pyenv/versions/3.13*/bin/python3.13; do
        if "$candidate" -c 'import sys; assert sys.version_info >= (3, 12)' 2>/dev/null; then PY312="$candidate"; break; fi
    done
fi
mkdir -p "$CACHE"

python_peer() {  # name python requirements-file
    local name="$1" py="$2" req="$3" dir="$CACHE/$1"
    if [ -f "$dir/.installed" ] && [ "$dir/.installed" -nt "$req" ]; then echo "peers: $name already installed"; return; fi
    rm -rf "$dir"; mkdir -p "$dir"
    if [ -z "$py" ] || ! "$py" -c 'import sys' 2>/dev/null; then
        echo "no suitable Python interpreter found (set PEERS_PYTHON312)" > "$dir/install.err"; echo "peers: $name NOT installed"; return
    fi
    echo "peers: installing $name ($(cat "$req" | tr '\n' ' '))"
    if nice -n 10 "$py" -m venv "$dir/venv" >"$dir/install.log" 2>&1 \
        && nice -n 10 "$dir/venv/bin/python" -m pip install --quiet --upgrade pip >>"$dir/install.log" 2>&1 \
        && nice -n 10 "$dir/venv/bin/python" -m pip install --quiet -r "$req" >>"$dir/install.log" 2>&1; then
        "$dir/venv/bin/python" -m pip freeze > "$dir/freeze.txt"; touch "$dir/.installed"; echo "peers: $name installed"
    else
        tail -5 "$dir/install.log" > "$dir/install.err"; echo "peers: $name NOT installed: $(tail -1 "$dir/install.err")"
    fi
}

npm_peer() {
    local dir="$CACHE/server-memory"
    if [ -f "$dir/.installed" ] && [ "$dir/.installed" -nt "$HERE/npm/package-lock.json" ]; then echo "peers: server-memory already installed"; return; fi
    rm -rf "$dir"; mkdir -p "$dir"
    cp "$HERE/npm/package.json" "$HERE/npm/package-lock.json" "$dir/"
    echo "peers: installing @modelcontextprotocol/server-memory (npm ci)"
    if ! command -v npm >/dev/null; then echo "npm not found" > "$dir/install.err"; echo "peers: server-memory NOT installed"; return; fi
    if (cd "$dir" && nice -n 10 npm ci --no-audit --no-fund >install.log 2>&1); then touch "$dir/.installed"; echo "peers: server-memory installed"
    else tail -5 "$dir/install.log" > "$dir/install.err"; echo "peers: server-memory NOT installed"; fi
}

only="${1:-all}"
case "$only" in all|server-memory) npm_peer ;; esac
case "$only" in all|mem0) python_peer mem0 "$PY311" "$HERE/requirements-mem0.txt" ;; esac
case "$only" in all|mcp-memory-service) python_peer mcp-memory-service "$PYSYS" "$HERE/requirements-mcp-memory-service.txt" ;; esac
case "$only" in all|basic-memory) python_peer basic-memory "$PY312" "$HERE/requirements-basic-memory.txt" ;; esac
exit 0
