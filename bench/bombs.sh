#!/usr/bin/env bash
# The bomb set of issue 16 (hostile inputs that used to cost minutes or gigabytes), generated at
# run time, each with its time, peak memory and output checked against a bound; see
# bench/README.md ("Bombs"). Builds the binaries in its own build-bombs/ unless --build-dir.
#
#   bench/bombs.sh                          # this checkout: a PASS/MISS table
#   bench/bombs.sh --base OTHER/build       # and a "before" column from another build
#   bench/bombs.sh --only pak-shared,tree   # some of them
#   bench/bombs.sh --keep                   # keep the generated files
#
# Exit status 0 when every bomb of this checkout is within its bounds.
set -euo pipefail
cd "$(dirname "$0")/.."
build=${BOMBS_BUILD_DIR:-build-bombs}
args=()
while [ $# -gt 0 ]; do
    case $1 in
        --build-dir) build=$2; shift 2 ;;
        --base|--only) args+=("$1" "$2"); shift 2 ;;
        --keep) args+=("$1"); shift ;;
        -h|--help) sed -n '2,11p' "$0"; exit 0 ;;
        *) echo "bombs.sh: unknown option $1" >&2; exit 2 ;;
    esac
done
if [ ! -f "$build/build.ninja" ]; then
    meson setup "$build" --buildtype=debugoptimized -Db_ndebug=true >/dev/null
fi
ninja -C "$build" cli/animidx daemon/animidxd tests/amxgen >/dev/null
exec python3 bench/bombs.py --build "$build" "${args[@]}"
