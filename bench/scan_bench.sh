#!/usr/bin/env bash
# scan_bench.sh: how fast `animidx scan` indexes a large tree, against what the machine allows.
#
#   cold scan (fresh index)      vs  cat of every file          target: within 2x
#   no-change rescan (same index) vs  find stat walk             target: within 2x
#   peak RSS of the cold scan at the full tree and at 1/4 of it  target: independent of size
#
# Builds its own release binaries (build-bench/), writes a sample tree with amxgen in a temp
# dir, measures each step RUNS times (median reported), prints a table and removes the tree.
# See bench/README.md.
set -euo pipefail

usage() {
    cat <<'EOF'
usage: bench/scan_bench.sh [--models N] [--vertices V] [--jobs N] [--runs R] [--seed S]
                           [--tmpdir DIR] [--build-dir DIR] [--no-build] [--keep]

  --models N     models in the full tree; each is 1 .ALO + 2 .ALA files (default 1500)
  --vertices V   vertices per mesh (4 meshes, 144 B per vertex) (default 300: ~350 MB)
  --jobs N       animidx scan --jobs (default: nproc)
  --runs R       runs per measurement, the median is reported (default 3)
  --seed S       amxgen seed (default 1)
  --tmpdir DIR   where the temp tree goes (default $SCAN_BENCH_TMPDIR, else $TMPDIR, else /tmp)
  --build-dir D  release build dir (default $SCAN_BENCH_BUILD_DIR, else <repo>/build-bench)
  --no-build     use the binaries already in the build dir (no meson/ninja)
  --keep         keep the temp tree and databases (the path is printed)

Dropping the page cache (for the cold cat/scan) needs root; without it both run warm and the
output says so.
EOF
}

bench=scan_bench
# shellcheck source=bench/args.sh
. "$(dirname "${BASH_SOURCE[0]}")/args.sh"

models=1500
vertices=300
jobs=$(nproc)
runs=3
seed=1

while [[ $# -gt 0 ]]; do
    case $1 in
        --models)    need_arg "$@"; models=$2; shift 2 ;;
        --vertices)  need_arg "$@"; vertices=$2; shift 2 ;;
        --jobs)      need_arg "$@"; jobs=$2; shift 2 ;;
        *) shared_option "$@"; shift "$taken" ;;
    esac
done
positive models vertices jobs runs seed
quarter_models=$(( models / 4 ))
(( quarter_models >= 1 )) || { echo "scan_bench: --models must be at least 4" >&2; exit 2; }


# ---- 1. release binaries ----
release_build cli/animidx tests/amxgen
animidx=$build_dir/cli/animidx
amxgen=$build_dir/tests/amxgen

# ---- temp area ----
mkdir -p "$tmp_base"
work=$(mktemp -d "$tmp_base/animidx-scan-bench.XXXXXX")
cleanup() {
    if (( keep )); then
        log "kept $work"
    else
        rm -rf "$work"
    fi
}
trap cleanup EXIT
trap 'exit 130' INT TERM
tree=$work/tree
qtree=$work/tree-quarter
mkdir -p "$work/db" "$work/out"
: > "$work/empty.ini"     # an empty config: no user/repo animidx.ini changes what is scanned
cd "$work"                # and no ./animidx.ini is picked up

# ---- helpers ----
# shellcheck source=bench/lib.sh
. "$here/lib.sh"

# scan DB TREE JSONOUT USEOUT: one `animidx scan`, prints its wall time (usage in USEOUT). Exit 0 and 1 (findings)
# are fine; 2 and 3 (usage, I/O, database) stop the benchmark.
scan() {
    local db=$1 dir=$2 js=$3 use=$4 t0 t1 rc=0
    t0=$(now)
    run_rss "$use" "$animidx" scan "$dir" --db "$db" --config "$work/empty.ini" \
        --jobs "$jobs" --json --quiet > "$js" || rc=$?
    t1=$(now)
    if (( rc >= 2 )); then
        echo "scan_bench: animidx scan $dir exited $rc; its output:" >&2
        cat "$js" >&2
        exit 1
    fi
    elapsed "$t0" "$t1"
}

# ---- 2. sample trees ----
load_start=$(cut -d' ' -f1-3 /proc/loadavg)
log "writing the full tree: amxgen bench --models $models --vertices $vertices (in $work)"
"$amxgen" bench "$tree" --models "$models" --vertices "$vertices" --seed "$seed" >/dev/null
log "writing the 1/4 tree: --models $quarter_models"
"$amxgen" bench "$qtree" --models "$quarter_models" --vertices "$vertices" --seed "$seed" >/dev/null
sync
files=$(find "$tree" -type f | wc -l)
tree_mb=$(du -sm "$tree" | cut -f1)
bytes=$(find "$tree" -type f -printf '%s\n' | awk '{ s += $1 } END { printf "%d", s }')
data_mb=$(awk -v b="$bytes" 'BEGIN { printf "%.1f", b / 1048576 }')
qfiles=$(find "$qtree" -type f | wc -l)
qtree_mb=$(du -sm "$qtree" | cut -f1)

check_drop "$tree_mb"
log "page cache drop: $drop_note"

# ---- 3. measurements ----
cat_t=(); cat_c=(); scan_t=(); scan_c=(); scan_rss=(); find_t=(); find_c=()
rescan_t=(); rescan_c=(); q_t=(); q_c=(); q_rss=()
decoded_ok=1
for (( i = 1; i <= runs; i++ )); do
    log "run $i/$runs: cat"
    drop_caches
    cat_t+=("$(timed "$work/out/cat-$i.use" bash -c 'find "$1" -type f -print0 | xargs -0 cat > /dev/null' _ "$tree")")
    cat_c+=("$(usage_cpu "$work/out/cat-$i.use")")

    log "run $i/$runs: cold scan (fresh index)"
    rm -f "$work/db/full-$i.db"*
    drop_caches
    scan_t+=("$(scan "$work/db/full-$i.db" "$tree" "$work/out/cold-$i.json" "$work/out/cold-$i.use")")
    scan_c+=("$(usage_cpu "$work/out/cold-$i.use")")
    scan_rss+=("$(usage_rss "$work/out/cold-$i.use")")
    [[ $(json_num "$work/out/cold-$i.json" files_decoded) == "$files" ]] || decoded_ok=0
done

# Rescan and find: both warm (the cold scans above left the tree's inodes cached), each after
# one untimed warm-up, on the index of the last cold scan.
rescan_db=$work/db/full-$runs.db
find "$tree" -type f -printf '%s %T@\n' > /dev/null
scan "$rescan_db" "$tree" "$work/out/rescan-warmup.json" /dev/null > /dev/null
unchanged_ok=1
for (( i = 1; i <= runs; i++ )); do
    log "run $i/$runs: find stat walk, no-change rescan"
    find_t+=("$(timed "$work/out/find-$i.use" find "$tree" -type f -printf '%s %T@\n')")
    find_c+=("$(usage_cpu "$work/out/find-$i.use")")
    rescan_t+=("$(scan "$rescan_db" "$tree" "$work/out/rescan-$i.json" "$work/out/rescan-$i.use")")
    rescan_c+=("$(usage_cpu "$work/out/rescan-$i.use")")
    [[ $(json_num "$work/out/rescan-$i.json" files_unchanged) == "$files" ]] || unchanged_ok=0
done

for (( i = 1; i <= runs; i++ )); do
    log "run $i/$runs: cold scan of the 1/4 tree (peak RSS)"
    rm -f "$work/db/quarter-$i.db"*
    drop_caches
    q_t+=("$(scan "$work/db/quarter-$i.db" "$qtree" "$work/out/quarter-$i.json" "$work/out/quarter-$i.use")")
    q_c+=("$(usage_cpu "$work/out/quarter-$i.use")")
    q_rss+=("$(usage_rss "$work/out/quarter-$i.use")")
done
load_end=$(cut -d' ' -f1-3 /proc/loadavg)

# ---- 4. report ----
cat_m=$(median "${cat_t[@]}")
scan_m=$(median "${scan_t[@]}")
find_m=$(median "${find_t[@]}")
rescan_m=$(median "${rescan_t[@]}")
q_m=$(median "${q_t[@]}")
rss_full_mb=$(awk -v k="$(maxof "${scan_rss[@]}")" 'BEGIN { printf "%.1f", k / 1024 }')
rss_q_mb=$(awk -v k="$(maxof "${q_rss[@]}")" 'BEGIN { printf "%.1f", k / 1024 }')
scan_ratio=$(ratio "$scan_m" "$cat_m")
rescan_ratio=$(ratio "$rescan_m" "$find_m")
rss_ratio=$(ratio "$rss_full_mb" "$rss_q_mb")
db_mb=$(du -sm "$rescan_db" | cut -f1)
mbps=$(awk -v b="$bytes" -v t="$scan_m" 'BEGIN { if (t > 0) printf "%.0f", b / 1048576 / t; else print "-" }')
cat_mbps=$(awk -v b="$bytes" -v t="$cat_m" 'BEGIN { if (t > 0) printf "%.0f", b / 1048576 / t; else print "-" }')

verdict() { if le "$1" "$2"; then echo PASS; else echo MISS; fi; }
scan_v=$(verdict "$scan_ratio" 2)
rescan_v=$(verdict "$rescan_ratio" 2)
# "Independent of the tree size": the tree grows 4x, the peak may grow by 25% or 2 MiB, whichever
# is more (SQLite's page cache, 2 MiB by default, fills as the index grows; then it stays put).
rss_allowed=$(awk -v q="$rss_q_mb" 'BEGIN { a = q * 1.25; if (a < q + 2) a = q + 2; printf "%.1f", a }')
rss_v=$(verdict "$rss_full_mb" "$rss_allowed")

fmt_runs() { local IFS=' '; echo "$*"; }
cpu=$(awk -F': ' '/^model name/ { print $2; exit }' /proc/cpuinfo 2>/dev/null || true)
row() { printf '%-32s %8s %8s   %s\n' "$@"; }

echo
echo "animidx scan benchmark  $(date -u '+%Y-%m-%d %H:%M UTC')"
echo "machine      nproc=$(nproc)  ${cpu:-unknown cpu}  $(awk '/^MemTotal:/ { printf "%.0f GiB RAM", $2 / 1048576 }' /proc/meminfo)"
echo "             load average at start: $load_start, at end: $load_end (other work on the machine skews wall times)"
echo "binary       $animidx (release, NDEBUG)   jobs=$jobs   runs=$runs (median)"
echo "tree         $files files, $data_mb MB of data ($tree_mb MB on disk); 1/4 tree: $qfiles files, $qtree_mb MB"
echo "             amxgen bench --models $models --vertices $vertices --seed $seed"
echo "page cache   dropped before each cat and cold scan: $drop_note"
echo "             find stat walk and no-change rescan run warm"
echo "peak RSS via $rss_tool; index after a full scan: $db_mb MB"
echo
row "measurement" "wall s" "cpu s" "wall s of each run"
row "cat of every file (read limit)" "$cat_m" "$(median "${cat_c[@]}")" "$(fmt_runs "${cat_t[@]}")"
row "cold scan, fresh index" "$scan_m" "$(median "${scan_c[@]}")" "$(fmt_runs "${scan_t[@]}")"
row "find stat walk" "$find_m" "$(median "${find_c[@]}")" "$(fmt_runs "${find_t[@]}")"
row "no-change rescan" "$rescan_m" "$(median "${rescan_c[@]}")" "$(fmt_runs "${rescan_t[@]}")"
row "cold scan, 1/4 tree" "$q_m" "$(median "${q_c[@]}")" "$(fmt_runs "${q_t[@]}")"
echo
printf '%-34s %9s   %-6s %s\n' "target" "value" "result" "goal"
printf '%-34s %9s   %-6s %s\n' "cold scan / cat" "${scan_ratio}x" "$scan_v" "<= 2x  (scan $mbps MB/s, cat $cat_mbps MB/s)"
printf '%-34s %9s   %-6s %s\n' "no-change rescan / find" "${rescan_ratio}x" "$rescan_v" "<= 2x"
printf '%-34s %9s   %-6s %s\n' "peak RSS, full tree ($files files)" "${rss_full_mb} MB" "" ""
printf '%-34s %9s   %-6s %s\n' "peak RSS, 1/4 tree ($qfiles files)" "${rss_q_mb} MB" "" ""
printf '%-34s %9s   %-6s %s\n' "peak RSS full / quarter" "${rss_ratio}x" "$rss_v" "full <= $rss_allowed MB: 1/4 tree's +25% or +2 MB (max of the runs)"
echo
(( decoded_ok )) || echo "WARNING: a cold scan did not decode all $files files (see $work/out/cold-*.json)"
(( unchanged_ok )) || echo "WARNING: a rescan did not find all $files files unchanged (see $work/out/rescan-*.json)"
if (( ! decoded_ok || ! unchanged_ok )); then keep=1; fi
