#!/usr/bin/env bash
# The README's demo: builds animidx if needed, writes a small demo Data tree with the project's
# own sample writer (no game files needed), scans it into a SQLite index and shows the summary,
# the findings and which clips target a skeleton.
set -euo pipefail
cd "$(dirname "$0")/.."

scripts/deps.sh
if [ ! -f build/build.ninja ]; then
    meson setup build >/dev/null
fi
ninja -C build >/dev/null

out=${1:-demo-out}
rm -rf "$out"
mkdir -p "$out"
build/tests/amxgen demo "$out/game"
db="$out/index.db"

echo "== animidx scan $out/game --db $db"
build/cli/animidx scan "$out/game" --db "$db"
echo
echo "== animidx clips --skeleton VSF_DEMO_XWING --db $db"
build/cli/animidx clips --skeleton VSF_DEMO_XWING --db "$db"
echo
echo "== animidx issues --severity warning --db $db"
build/cli/animidx issues --severity warning --db "$db"
