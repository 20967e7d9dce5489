#!/usr/bin/env bash
# Runs the MCP Inspector's strict tool-schema portability check (`--method tools/list
# --strict`) against the gateway serving each example spec, at /mcp and at each of its
# toolsets' URLs, and fails on any finding (issue 17: zero warnings). The Inspector 2.x
# needs Node >= 22: it and a Node 24 are installed from the npm registry into a cache
# folder outside the repository on first use
# (INSPECTOR_DIR, default ~/.cache/mcp-beaver-inspector), never into node_modules.
#
#   bash scripts/inspector-strict.sh [spec ...]
#
# By default: specs/*.mcp.kdl, and test/fixtures/inspector/*.mcp.kdl for what no example
# spec uses (pick and omit, whose outputSchema is derived from the paths).
#
# Traffic stays on 127.0.0.1; the gateway runs on the machine's node through tsx.
set -euo pipefail
cd "$(dirname "$0")/.."
INSPECTOR_VERSION=2.12.0
NODE_VERSION=24.21.0
DIR="${INSPECTOR_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/mcp-beaver-inspector}"
NODE24="$DIR/node_modules/node/bin/node"
CLI="$DIR/node_modules/@modelcontextprotocol/inspector/clients/launcher/build/index.js"
if [ ! -x "$NODE24" ] || [ ! -f "$CLI" ]; then
  mkdir -p "$DIR"
  printf '{"private":true,"allowScripts":{"node":true}}\n' >"$DIR/package.json"
  timeout 600 npm install --prefix "$DIR" --no-audit --no-fund \
    "node@$NODE_VERSION" "@modelcontextprotocol/inspector@$INSPECTOR_VERSION" >&2 ||
    { echo "inspector-strict: cannot install the Inspector into $DIR" >&2; exit 1; }
fi

specs=("$@")
[ ${#specs[@]} -gt 0 ] || specs=(specs/*.mcp.kdl test/fixtures/inspector/*.mcp.kdl)
# Every variable an example spec reads; the values are dummies (no call is made).
export GITHUB_TOKEN=x DEMO_API_TOKEN=x DEMO_AGENT_KEY=k DEMO_APPROVER_KEY=a DEMO_CONFIRM_KEY=00112233445566778899aabbccddeeff00112233445566778899aabbccddeeff DEMO_TOKEN_KEY=00112233445566778899aabbccddeeff00112233445566778899aabbccddeeff DEMO_ACCOUNTS_CLIENT_ID=x DEMO_ACCOUNTS_CLIENT_SECRET=x STRIPE_SECRET_KEY=x ORDERS_KEYS_READ=k ORDERS_KEYS_ADMIN=k TRACKER_MCP_TOKEN=x \
  TRACKER_TOKEN=x BILLING_CLIENT_ID=x BILLING_CLIENT_SECRET=x WIKI_CLIENT_ID=x WIKI_CLIENT_SECRET=x TEAM_KEYS=k \
  GATEWAY_TOKEN_KEY=00112233445566778899aabbccddeeff00112233445566778899aabbccddeeff \
  ORDERS_DB_URL="${DATABASE_URL:-postgres://postgres@127.0.0.1:5432/test}" ANALYTICS_DB_URL="${DATABASE_URL:-postgres://postgres@127.0.0.1:5432/test}" \
  DATABASE_URL="${DATABASE_URL:-postgres://postgres@127.0.0.1:5432/test}"
WORK="$(mktemp -d -t mcp-beaver-inspector.XXXXXX)"
PID=""
cleanup() {
  [ -z "$PID" ] || kill "$PID" 2>/dev/null || true
  rm -rf "$WORK"
}
trap cleanup EXIT

failed=0
for spec in "${specs[@]}"; do
  port="$(node -e 's=require("net").createServer().listen(0,"127.0.0.1",()=>{console.log(s.address().port);s.close()})')"
  node node_modules/tsx/dist/cli.mjs src/cli/main.ts serve "$spec" --http "127.0.0.1:$port" --no-watch \
    >"$WORK/serve.log" 2>&1 &
  PID=$!
  for _ in $(seq 1 100); do
    grep -q 'mcp-beaver listening' "$WORK/serve.log" 2>/dev/null && break
    kill -0 "$PID" 2>/dev/null || break
    sleep 0.2
  done
  grep -q 'mcp-beaver listening' "$WORK/serve.log" ||
    { echo "inspector-strict: $spec did not start:" >&2; cat "$WORK/serve.log" >&2; exit 1; }
  # /mcp, then each toolset's URL (the Inspector guesses the transport only for a URL
  # ending in /mcp, so it is named).
  for path in /mcp $(sed -n 's/^toolset "\([a-z][a-z0-9-]*\)".*/\/mcp\/\1/p' "$spec"); do
    rc=0
    timeout 120 "$NODE24" "$CLI" --cli "http://127.0.0.1:$port$path" --transport http \
      --header "Authorization: Bearer k" \
      --method tools/list --strict >"$WORK/out.json" 2>"$WORK/err.txt" || rc=$?
    bytes="$(wc -c <"$WORK/out.json")"
    if [ "$rc" -ne 0 ] || [ -s "$WORK/err.txt" ]; then
      echo "== $spec $path: FINDINGS (exit $rc)"
      cat "$WORK/err.txt"
      failed=1
    else
      echo "== $spec $path: no findings (tools/list as the Inspector prints it: $bytes bytes)"
    fi
  done
  kill "$PID" 2>/dev/null || true
  wait "$PID" 2>/dev/null || true
  PID=""
done
exit "$failed"
