#!/usr/bin/env bash
# Runs the official MCP conformance suite (@modelcontextprotocol/conformance, pinned in
# test/conformance/package.json) against mcp-beaver serving test/conformance/conformance.mcp.kdl, once per
# protocol era (2025-06-18, 2025-11-25, 2026-07-28), and judges the results against
# test/conformance/expected-failures.yaml (see test/conformance/evaluate.mjs).
#
#   npm run conformance            (or: bash test/conformance/run.sh)
#
# Needs only the loopback: a local upstream (upstream.mjs) and the gateway both listen on
# 127.0.0.1. The suite needs Node >= 22 and runs under the `node` package pinned beside it
# (test/conformance/node_modules/node/bin/node); the gateway runs under the machine's own node.
# Exit code: 1 when a scenario fails that expected-failures.yaml does not list; an expected
# failure that passes now is a note. KEEP_RESULTS=1 keeps the results folder.
set -euo pipefail
cd "$(dirname "$0")/../.."

ERAS=(2025-06-18 2025-11-25 2026-07-28)
ERA_TIMEOUT=45 # seconds per era (all scenarios of one era take about a second)
DIR=test/conformance
CONFORMANCE=$DIR/node_modules/@modelcontextprotocol/conformance/dist/index.js
SUITE_NODE=$DIR/node_modules/node/bin/node
# The suite and its Node 24 live in their own package (test/conformance/package.json).
if [ ! -x "$SUITE_NODE" ] || [ ! -f "$CONFORMANCE" ]; then
  npm ci --prefix "$DIR" --no-audit --no-fund >/dev/null || { echo "conformance: cannot install the suite" >&2; exit 1; }
fi

# The gateway runs on the machine's node, not on node_modules/.bin/node (the Node 24 that
# `npm run` puts first on PATH).
GATEWAY_NODE="$(PATH="$(tr ':' '\n' <<<"$PATH" | grep -v '/node_modules/\.bin$' | paste -sd: -)" command -v node || true)"
[ -n "$GATEWAY_NODE" ] || GATEWAY_NODE=node

fail() {
  echo "conformance: $*" >&2
  exit 1
}
[ -f "$CONFORMANCE" ] || fail "$CONFORMANCE is missing: run npm ci"
[ -x "$SUITE_NODE" ] || fail "$SUITE_NODE is missing: run npm ci --prefix test/conformance"
suite_major="$("$SUITE_NODE" -p 'process.versions.node.split(".")[0]')" || fail "$SUITE_NODE does not run"
[ "$suite_major" -ge 22 ] || fail "the suite needs Node >= 22, $SUITE_NODE is $suite_major"

WORK="$(mktemp -d -t mcp-beaver-conformance.XXXXXX)"
PIDS=()
cleanup() {
  local pid
  for pid in "${PIDS[@]}"; do kill "$pid" 2>/dev/null || true; done
  for pid in "${PIDS[@]}"; do
    for _ in $(seq 1 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
    kill -9 "$pid" 2>/dev/null || true
  done
  if [ "${KEEP_RESULTS:-0}" = 1 ]; then echo "conformance: results kept in $WORK"; else rm -rf "$WORK"; fi
}
trap cleanup EXIT

# wait_for_line FILE REGEX SECONDS PID: prints the first line of FILE matching REGEX.
wait_for_line() {
  local deadline=$((SECONDS + $3)) line
  while [ "$SECONDS" -lt "$deadline" ]; do
    line="$(grep -m1 -E "$2" "$1" 2>/dev/null || true)"
    if [ -n "$line" ]; then
      echo "$line"
      return 0
    fi
    kill -0 "$4" 2>/dev/null || return 1
    sleep 0.1
  done
  return 1
}

echo "== conformance: suite $("$SUITE_NODE" -p "require('./$DIR/node_modules/@modelcontextprotocol/conformance/package.json').version") on node $("$SUITE_NODE" --version); gateway on node $("$GATEWAY_NODE" --version)"

# 1. The upstream API the grants call.
UPSTREAM_PORT=0 "$GATEWAY_NODE" "$DIR/upstream.mjs" >"$WORK/upstream.log" 2>&1 &
PIDS+=($!)
line="$(wait_for_line "$WORK/upstream.log" '^upstream listening [0-9]+$' 10 "${PIDS[-1]}")" ||
  { cat "$WORK/upstream.log" >&2; fail "the upstream did not start"; }
upstream_port="${line##* }"

# 2. The gateway, on a free port, with base-url pointed at that upstream.
sed "s#http://127.0.0.1:18931#http://127.0.0.1:${upstream_port}#" "$DIR/conformance.mcp.kdl" >"$WORK/conformance.mcp.kdl"
# The files the spec's resources read sit beside it.
cp "$DIR/pixel.png" "$WORK/pixel.png"
"$GATEWAY_NODE" bin/mcp-beaver.js serve "$WORK/conformance.mcp.kdl" --http 127.0.0.1:0 >"$WORK/gateway.log" 2>&1 &
PIDS+=($!)
line="$(wait_for_line "$WORK/gateway.log" '"msg":"mcp-beaver listening"' 30 "${PIDS[-1]}")" ||
  { cat "$WORK/gateway.log" >&2; fail "the gateway did not start"; }
base="$(sed -E 's/.*"url":"(http:\/\/127\.0\.0\.1:[0-9]+)".*/\1/' <<<"$line")"
ready=0
for _ in $(seq 1 100); do
  if curl -fsS --max-time 2 "$base/readyz" >/dev/null 2>&1; then
    ready=1
    break
  fi
  sleep 0.1
done
[ "$ready" = 1 ] || { cat "$WORK/gateway.log" >&2; fail "$base/readyz never answered 200"; }
echo "== conformance: gateway at $base/mcp, upstream at 127.0.0.1:$upstream_port"

# 3. The suite, once per era: every scenario of that protocol version (--suite all also
# runs the ones the suite marks pending).
runs=()
broken=0
for era in "${ERAS[@]}"; do
  out="$WORK/results/$era"
  mkdir -p "$out"
  echo
  echo "== conformance: protocol $era"
  rc=0
  timeout -k 5 "$ERA_TIMEOUT" "$SUITE_NODE" "$CONFORMANCE" server --url "$base/mcp" \
    --suite all --spec-version "$era" --timeout 20000 -o "$out" >"$WORK/$era.log" 2>&1 || rc=$?
  # The suite's own count of checks; the verdict per scenario is evaluate.mjs's, below.
  grep -E '^Total: ' "$WORK/$era.log" || true
  if [ "$rc" -gt 1 ]; then # 0: all passed, 1: some failed; anything else: no verdict
    broken=1
    tail -n 30 "$WORK/$era.log"
    echo "conformance: the $era run did not finish (exit $rc; time limit ${ERA_TIMEOUT}s)" >&2
  fi
  runs+=("$era=$out")
done

# 4. The verdict.
verdict=0
"$SUITE_NODE" "$DIR/evaluate.mjs" "$DIR/expected-failures.yaml" "${runs[@]}" || verdict=$?
[ "$broken" = 0 ] || fail "a run did not finish: its results are incomplete"
exit "$verdict"
