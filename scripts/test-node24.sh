#!/usr/bin/env bash
# Runs the end-to-end and protocol tests, and the package, install and image checks, on Node 24
# (the Node of the image), with the project's own node_modules:  npm run test:node24
# CI runs these files here only: .ci/run excludes the same list from its first pass.
#
# Node 24 is the repository's pinned one (scripts/node24.sh); it goes first on PATH, so
# everything the tests start (the gateway, npm) runs on it too. Extra arguments go to
# vitest, e.g. `npm run test:node24 -- --reporter=verbose`.
set -euo pipefail
cd "$(dirname "$0")/.."
NODE24="$(bash scripts/node24.sh)"
[ -f node_modules/vitest/vitest.mjs ] || { echo "test:node24: run npm ci first" >&2; exit 1; }
echo "== tests on node $("$NODE24" --version)"
PATH="$(dirname "$NODE24"):$PATH" exec "$NODE24" node_modules/vitest/vitest.mjs run \
  test/e2e test/ship/engines.test.ts test/ship/package.test.ts test/ship/dockerfile.test.ts "$@"
