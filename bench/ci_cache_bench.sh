#!/usr/bin/env bash
# ci_cache_bench.sh: what caching lint's index buys a CI job. Every CI run starts from a fresh
# checkout: every file is written anew (new modification times), the contents mostly the same.
# With the index restored from a cache (actions/cache), `animidx lint` finds each file's time
# changed, re-hashes it (XXH3), finds the content hash it has, and decodes nothing.
#
#   lint, cold: no index (the first run, or no cache)            vs  cat of every file
#   lint, fresh checkout + restored index                        vs  cat; files decoded: 0
#   lint, same checkout, second run (sizes and times unchanged)  vs  find stat walk
#
# The tree is the real-shape one (amxgen mod: models, ~10 clips each, game object XML; see
# real_shape_bench.sh), or --tree DIR. Each run copies the pristine tree to the same path (a
# checkout) and restores the index file saved after the cold run (a cache restore); the copy
# leaves the files in the page cache, as a checkout does. See bench/README.md.
set -euo pipefail

usage() {
    cat <<'EOF'
usage: bench/ci_cache_bench.sh [--models N] [--tree DIR] [--runs R] [--seed S]
                               [--tmpdir DIR] [--build-dir DIR] [--no-build] [--keep]

  --models N     models in the generated tree (default 300: ~3,400 files, ~240 MB)
  --tree DIR     measure a copy of this tree instead of a generated one (a real mod's Data)
  --runs R       runs per measurement, the median is reported (default 5)
  --seed S       amxgen seed (default 1)
  --tmpdir DIR   where the temp trees go (default $SCAN_BENCH_TMPDIR, else $TMPDIR, else /tmp)
  --build-dir D  release build dir (default $SCAN_BENCH_BUILD_DIR, else <repo>/build-bench)
  --no-build     use the binaries already in the build dir (no meson/ninja)
  --keep         keep the temp trees and indexes (the path is printed)
EOF
}

bench=ci_cache_bench
# shellcheck source=bench/args.sh
. "$(dirname "${BASH_SOURCE[0]}")/args.sh"

models=300
given_tree=
runs=5
seed=1

while [[ $# -gt 0 ]]; do
    case $1 in
        --models)    need_arg "$@"; models=$2; shift 2 ;;
        --tree)      need_arg "$@"; given_tree=$2; shift 2 ;;
        *) shared_option "$@"; shift "$taken" ;;
    esac
done
positive models runs seed
if [[ -n $given_tree && ! -d $given_tree ]]; then
    echo "ci_cache_bench: --tree $given_tree is not a directory" >&2
    exit 2
fi


release_build cli/animidx tests/amxgen
animidx=$build_dir/cli/animidx
amxgen=$build_dir/tests/amxgen

# shellcheck source=bench/lib.sh
. "$here/lib.sh"

mkdir -p "$tmp_base"
work=$(mktemp -d "$tmp_base/animidx-ci-cache.XXXXXX")
cleanup() { if (( keep )); then log "kept $work"; else rm -rf "$work"; fi; }
trap cleanup EXIT
trap 'exit 130' INT TERM
mkdir -p "$work/out" "$work/checkout"
: > "$work/empty.ini"

# ---- the pristine tree (what the repository holds) ----
load_start=$(cut -d' ' -f1-3 /proc/loadavg)
if [[ -n $given_tree ]]; then
    log "copying $given_tree"
    mkdir -p "$work/pristine"
    cp -r "$given_tree" "$work/pristine/Data"
    shape="a copy of $(cd "$given_tree" && pwd)"
else
    log "writing the tree: amxgen mod --models $models (in $work)"
    "$amxgen" mod "$work/pristine" --models "$models" --seed "$seed" >/dev/null
    shape="amxgen mod --models $models --seed $seed"
fi
files=$(find "$work/pristine" -type f | wc -l)
bytes=$(find "$work/pristine" -type f -printf '%s\n' | awk '{ s += $1 } END { printf "%d", s }')
data_mb=$(awk -v b="$bytes" 'BEGIN { printf "%.1f", b / 1048576 }')

tree=$work/checkout/Data            # the job's checkout: always this path, as in CI
cache=$work/cache                   # XDG_CACHE_HOME: lint keeps its index in cache/animidx
saved=$work/saved-index             # what actions/cache saved after the cold run

checkout() { rm -rf "$tree"; cp -r "$work/pristine/Data" "$tree"; }
# lint JSONOUT USEOUT: one `animidx lint` of the checkout (exit 1: findings, fine); its wall time
lint() {
    local js=$1 use=$2 t0 t1 rc=0
    t0=$(now)
    (cd "$work/checkout" && XDG_CACHE_HOME=$cache run_rss "$use" "$animidx" lint Data \
        --config "$work/empty.ini" --format json --quiet > "$js") || rc=$?
    t1=$(now)
    if (( rc >= 2 )); then
        echo "ci_cache_bench: animidx lint exited $rc" >&2
        exit 1
    fi
    elapsed "$t0" "$t1"
}
decoded() { json_num "$1" files_decoded; }

cold=(); restored=(); again=(); cat_t=(); find_t=(); dec_cold=(); dec_restored=(); dec_again=()
rehashed=()
checkout
cat_tree() { find "$tree" -type f -print0 | xargs -0 cat > /dev/null; }
cat_tree
for (( i = 1; i <= runs; i++ )); do
    log "run $i/$runs: checkout, cold lint; checkout, lint with the restored index; lint again"
    cat_t+=("$(timed "$work/out/cat-$i.use" bash -c 'find "$1" -type f -print0 | xargs -0 cat > /dev/null' _ "$tree")")
    find_t+=("$(timed "$work/out/find-$i.use" find "$tree" -type f -printf '%s %T@\n')")
    rm -rf "$cache"
    checkout
    cold+=("$(lint "$work/out/cold-$i.json" "$work/out/cold-$i.use")")
    dec_cold+=("$(decoded "$work/out/cold-$i.json")")
    rm -rf "$saved"
    cp -r "$cache" "$saved"         # the job ends: actions/cache saves the index
    checkout                        # the next job: a fresh checkout ...
    rm -rf "$cache"
    cp -r "$saved" "$cache"         # ... and the cache restored
    restored+=("$(lint "$work/out/restored-$i.json" "$work/out/restored-$i.use")")
    dec_restored+=("$(decoded "$work/out/restored-$i.json")")
    rehashed+=("$(json_num "$work/out/restored-$i.json" files_rehashed)")
    again+=("$(lint "$work/out/again-$i.json" "$work/out/again-$i.use")")
    dec_again+=("$(decoded "$work/out/again-$i.json")")
done
load_end=$(cut -d' ' -f1-3 /proc/loadavg)
same=1
for (( i = 1; i <= runs; i++ )); do
    python3 - "$work/out/cold-$i.json" "$work/out/restored-$i.json" <<'PY' || same=0
import json, sys
a, b = (json.load(open(p)) for p in sys.argv[1:3])
sys.exit(0 if [f["fingerprint"] for f in a["findings"]] == [f["fingerprint"] for f in b["findings"]] else 1)
PY
done
index_mb=$(du -sm "$saved" | cut -f1)

m() { median "$@"; }
mi() { median "$@" | awk '{ printf "%d", $1 }'; }
fmt_runs() { local IFS=' '; echo "$*"; }
row() { printf '%-46s %8s %8s   %s\n' "$@"; }
cold_m=$(m "${cold[@]}"); rest_m=$(m "${restored[@]}"); again_m=$(m "${again[@]}")
cat_m=$(m "${cat_t[@]}"); find_m=$(m "${find_t[@]}")
cpu=$(awk -F': ' '/^model name/ { print $2; exit }' /proc/cpuinfo 2>/dev/null || true)

echo
echo "animidx CI-cache benchmark  $(date -u '+%Y-%m-%d %H:%M UTC')"
echo "machine      nproc=$(nproc)  ${cpu:-unknown cpu}"
echo "             load average at start: $load_start, at end: $load_end"
echo "binary       $animidx (release)   runs=$runs (median)"
echo "tree         $shape: $files files, $data_mb MB; the index $index_mb MB"
echo
row "measurement" "wall s" "decoded" "wall s of each run"
row "cat of every file (warm)" "$cat_m" "" "$(fmt_runs "${cat_t[@]}")"
row "find stat walk" "$find_m" "" "$(fmt_runs "${find_t[@]}")"
row "lint, cold (no index)" "$cold_m" "$(mi "${dec_cold[@]}")" "$(fmt_runs "${cold[@]}")"
row "lint, fresh checkout, restored index" "$rest_m" "$(mi "${dec_restored[@]}")" "$(fmt_runs "${restored[@]}")"
row "lint, same checkout again" "$again_m" "$(mi "${dec_again[@]}")" "$(fmt_runs "${again[@]}")"
echo
echo "restored index: $(ratio "$rest_m" "$cold_m")x the cold lint, $(ratio "$rest_m" "$cat_m")x cat;" \
     "re-hashed $(mi "${rehashed[@]}") files, decoded $(maxof "${dec_restored[@]}") (every run: $(fmt_runs "${dec_restored[@]}"))"
echo "same checkout again: $(ratio "$again_m" "$find_m")x find; decoded $(maxof "${dec_again[@]}")"
if (( same )); then
    echo "findings: the same fingerprints, cold and restored, in every run"
else
    echo "WARNING: the findings differ between the cold and the restored run ($work/out)"
    keep=1
fi
[[ $(maxof "${dec_restored[@]}") == 0 ]] || { echo "WARNING: a run with the restored index decoded files"; keep=1; }
