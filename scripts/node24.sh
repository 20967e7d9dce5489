#!/usr/bin/env bash
# Prints the path of the repository's Node 24: the `node` package pinned in
# test/conformance/package.json (the Node the conformance suite runs on, the same major
# as the Dockerfile's image), installed from the npm registry into
# test/conformance/node_modules on first use. The steps that need Node 24 (the
# conformance suite, the chart validation, the end-to-end tests on 24) all use this one.
#
#   NODE24="$(bash scripts/node24.sh)" || exit 1
set -euo pipefail
cd "$(dirname "$0")/.."
DIR=test/conformance
NODE24="$PWD/$DIR/node_modules/node/bin/node"
if [ ! -x "$NODE24" ]; then
  timeout 600 npm ci --prefix "$DIR" --no-audit --no-fund >&2 ||
    { echo "node24: npm ci --prefix $DIR failed" >&2; exit 1; }
fi
major="$("$NODE24" -p 'process.versions.node.split(".")[0]')" ||
  { echo "node24: $NODE24 does not run" >&2; exit 1; }
[ "$major" = 24 ] || { echo "node24: $NODE24 is Node $major, not 24" >&2; exit 1; }
echo "$NODE24"
