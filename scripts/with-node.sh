#!/bin/sh
# Runs a command (an npm script's body) with Node >= 22.12 first on PATH.
# If the Node on PATH is recent enough this only costs one `node -e`;
# otherwise it uses the pinned Node that scripts/ensure-node.mjs installs
# into .toolchain/ (installing it first if a postinstall was skipped).
root=$(CDPATH= cd -- "$(dirname -- "$0")/.." && pwd)
if ! node -e 'const [a,b]=process.versions.node.split(".").map(Number);process.exit(a>22||(a===22&&b>=12)?0:1)' 2>/dev/null; then
  node "$root/scripts/ensure-node.mjs" || exit 1
  PATH="$root/.toolchain/node_modules/.bin:$PATH"
  export PATH
fi
exec "$@"
