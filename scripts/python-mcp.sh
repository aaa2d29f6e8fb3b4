#!/usr/bin/env bash
# The official Python MCP SDK, for the host tests (test/HostsMcp.test.ts): a virtual environment
# under node_modules/.cache with `mcp` at the pinned version, made once. pip uses the machine's
# package index configuration; a failed index answers at once (--retries 0) so that one that
# is reachable is tried without waiting. Prints the environment's python.
set -euo pipefail
cd "$(dirname "$0")/.."
version="2.3.0"
venv="node_modules/.cache/python-mcp-$version"
python="$venv/bin/python"
if ! "$python" -c "import mcp" >/dev/null 2>&1; then
  rm -rf "$venv"
  python3 -m venv "$venv" >&2
  "$python" -m pip install --quiet --disable-pip-version-check --retries 0 --timeout 15 "mcp==$version" >&2
fi
echo "$PWD/$python"
