#!/usr/bin/env bash
# Install the npm MCP servers the MCP tests start (pinned in tests/mcp/package-lock.json)
# into tests/mcp/node_modules. Idempotent: does nothing when the installed tree already
# matches the lock file. The pip servers (mcp-server-git, mcp-server-time) come with the
# dev extras of pyproject.toml.
set -euo pipefail

dir="$(cd "$(dirname "${BASH_SOURCE[0]}")/../tests/mcp" && pwd)"
cd "$dir"

if ! command -v npm >/dev/null 2>&1; then
    echo "install_mcp_servers: npm not found; install Node.js 18+ first" >&2
    exit 1
fi

stamp="node_modules/.agent-tui-lock.sha256"
want="$(sha256sum package-lock.json | cut -d' ' -f1)"
if [[ -f "$stamp" && "$(cat "$stamp")" == "$want" \
      && -f node_modules/@modelcontextprotocol/server-everything/dist/index.js \
      && -f node_modules/@modelcontextprotocol/server-filesystem/dist/index.js ]]; then
    echo "install_mcp_servers: up to date in $dir/node_modules"
    exit 0
fi

npm ci --no-audit --no-fund --loglevel=error
echo "$want" > "$stamp"
echo "install_mcp_servers: installed into $dir/node_modules"
