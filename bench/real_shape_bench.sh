#!/usr/bin/env bash
# real_shape_bench.sh: how fast `animidx scan` indexes a tree shaped like a real mod, against
# what the machine allows, warm and cold, on one decoding thread and on all cores.
#
#   index build, page cache warm, --jobs 1      vs  cat of every file (warm)   target: <= 3x
#   index build, page cache warm, --jobs nproc  vs  cat of every file (warm)   target: <= 2x
#   index build, page cache cold, --jobs nproc  vs  cat of every file (cold)   reported
#   no-change rescan (warm)                     vs  find stat walk (warm)      target: <= 1.5x
#   index bytes per clip; peak RSS at the full tree and at 1/4 of it            reported, flat
#
# The tree (amxgen mod) has the shape of real Empire at War mods: a flat Data/Art/Models of ALO
# models (median 290 KB) and ALA clips with a track per bone (median 73 tracks, ~15 KB), about
# 10 clips per model, game object XML. --tree DIR measures an existing tree instead (a real
# mod). See bench/README.md.
set -euo pipefail

usage() {
    cat <<'EOF'
usage: bench/real_shape_bench.sh [--models N] [--tree DIR] [--runs R] [--seed S]
                                 [--tmpdir DIR] [--build-dir DIR] [--no-build] [--keep]

  --models N     models in the generated tree (default 300: ~3,400 files, ~240 MB)
  --tree DIR     measure this tree instead of a generated one (read only; no 1/4 tree)
  --runs R       runs per measurement, the median is reported (default 5)
  --seed S       amxgen seed (default 1)
  --tmpdir DIR   where the temp tree goes (default $SCAN_BENCH_TMPDIR, else $TMPDIR, else /tmp)
  --build-dir D  release build dir (default $SCAN_BENCH_BUILD_DIR, else <repo>/build-bench)
  --no-build     use the binaries already in the build dir (no meson/ninja)
  --keep         keep the temp tree and databases (the path is printed)

Dropping the page cache (for the cold figures) needs root; without it they are skipped.
EOF
}

bench=real_shape_bench
# shellcheck source=bench/args.sh
. "$(dirname "${BASH_SOURCE[0]}")/args.sh"

models=300
given_tree=
runs=5
seed=1
cores=$(nproc)

while [[ $# -gt 0 ]]; do
    case $1 in
        --models)    need_arg "$@"; models=$2; shift 2 ;;
        --tree)      need_arg "$@"; given_tree=$2; shift 2 ;;
        *) shared_option "$@"; shift "$taken" ;;
    esac
done
positive models runs seed
if [[ -n $given_tree && ! -d $given_tree ]]; then
    echo "real_shape_bench: --tree $given_tree is not a directory" >&2
    exit 2
fi


release_build cli/animidx tests/amxgen
animidx=$build_dir/cli/animidx
amxgen=$build_dir/tests/amxgen

# shellcheck source=bench/lib.sh
. "$here/lib.sh"

mkdir -p "$tmp_base"
work=$(mktemp -d "$tmp_base/animidx-real-shape.XXXXXX")
cleanup() { if (( keep )); then log "kept $work"; else rm -rf "$work"; fi; }
trap cleanup EXIT
trap 'exit 130' INT TERM
mkdir -p "$work/db" "$work/out"
: > "$work/empty.ini"
cd "$work"

# scan DB TREE JOBS JSONOUT USEOUT: one `animidx scan` into DB, prints its wall time.
scan() {
    local db=$1 dir=$2 j=$3 js=$4 use=$5 t0 t1 rc=0
    t0=$(now)
    run_rss "$use" "$animidx" scan "$dir" --db "$db" --config "$work/empty.ini" \
        --jobs "$j" --json --quiet > "$js" || rc=$?
    t1=$(now)
    if (( rc >= 2 )); then
        echo "real_shape_bench: animidx scan $dir exited $rc; its output:" >&2
        cat "$js" >&2
        exit 1
    fi
    elapsed "$t0" "$t1"
}
cat_tree() { find "$1" -type f -print0 | xargs -0 cat > /dev/null; }

# ---- the trees ----
load_start=$(cut -d' ' -f1-3 /proc/loadavg)
if [[ -n $given_tree ]]; then
    tree=$(cd "$given_tree" && pwd)
    shape="given: $tree"
    qtree=
else
    tree=$work/tree
    qtree=$work/tree-quarter
    log "writing the tree: amxgen mod --models $models (in $work)"
    "$amxgen" mod "$tree" --models "$models" --seed "$seed" >/dev/null
    "$amxgen" mod "$qtree" --models $(( (models + 3) / 4 )) --seed "$seed" >/dev/null
    shape="amxgen mod --models $models --seed $seed"
fi
sync
files=$(find "$tree" -type f | wc -l)
tree_mb=$(du -sm "$tree" | cut -f1)
bytes=$(find "$tree" -type f -printf '%s\n' | awk '{ s += $1 } END { printf "%d", s }')
data_mb=$(awk -v b="$bytes" 'BEGIN { printf "%.1f", b / 1048576 }')
check_drop "$tree_mb"
log "page cache drop: $drop_note"

# ---- measurements: interleaved, so that load on the machine hits each alike ----
cat_w=(); s1_w=(); sn_w=(); cat_c=(); sn_c=(); s1_c=(); find_t=(); rescan_t=(); rss=(); qrss=()
cpu1=(); cpun=()
cat_tree "$tree"    # warm-up: the warm figures start warm
for (( i = 1; i <= runs; i++ )); do
    log "run $i/$runs: warm cat, warm index builds (--jobs 1, --jobs $cores)"
    cat_w+=("$(timed "$work/out/cat-$i.use" bash -c 'find "$1" -type f -print0 | xargs -0 cat > /dev/null' _ "$tree")")
    rm -f "$work/db/one-$i.db"*
    s1_w+=("$(scan "$work/db/one-$i.db" "$tree" 1 "$work/out/one-$i.json" "$work/out/one-$i.use")")
    cpu1+=("$(usage_cpu "$work/out/one-$i.use")")
    rm -f "$work/db/all-$i.db"*
    sn_w+=("$(scan "$work/db/all-$i.db" "$tree" "$cores" "$work/out/all-$i.json" "$work/out/all-$i.use")")
    cpun+=("$(usage_cpu "$work/out/all-$i.use")")
    rss+=("$(usage_rss "$work/out/all-$i.use")")
done
if (( drop_ok )); then
    for (( i = 1; i <= runs; i++ )); do
        log "run $i/$runs: cold cat, cold index builds"
        drop_caches
        cat_c+=("$(timed "$work/out/ccat-$i.use" bash -c 'find "$1" -type f -print0 | xargs -0 cat > /dev/null' _ "$tree")")
        rm -f "$work/db/cold-$i.db"*
        drop_caches
        sn_c+=("$(scan "$work/db/cold-$i.db" "$tree" "$cores" "$work/out/cold-$i.json" /dev/null)")
        rm -f "$work/db/cold1-$i.db"*
        drop_caches
        s1_c+=("$(scan "$work/db/cold1-$i.db" "$tree" 1 "$work/out/cold1-$i.json" /dev/null)")
    done
fi
db=$work/db/all-$runs.db
find "$tree" -type f -printf '%s %T@\n' > /dev/null
scan "$db" "$tree" "$cores" "$work/out/rescan-warmup.json" /dev/null > /dev/null
unchanged_ok=1
for (( i = 1; i <= runs; i++ )); do
    log "run $i/$runs: find stat walk, no-change rescan"
    find_t+=("$(timed "$work/out/find-$i.use" find "$tree" -type f -printf '%s %T@\n')")
    rescan_t+=("$(scan "$db" "$tree" "$cores" "$work/out/rescan-$i.json" "$work/out/rescan-$i.use")")
    [[ $(json_num "$work/out/rescan-$i.json" files_unchanged) == "$files" ]] || unchanged_ok=0
done
if [[ -n $qtree ]]; then
    for (( i = 1; i <= runs; i++ )); do
        rm -f "$work/db/q-$i.db"*
        scan "$work/db/q-$i.db" "$qtree" "$cores" "$work/out/q-$i.json" "$work/out/q-$i.use" > /dev/null
        qrss+=("$(usage_rss "$work/out/q-$i.use")")
    done
fi
load_end=$(cut -d' ' -f1-3 /proc/loadavg)

# ---- the index: clips, tracks, bytes ----
clips=$(json_num "$work/out/all-$runs.json" clips)
db_bytes=$(( $(stat -c %s "$db") + $(stat -c %s "$db-wal" 2>/dev/null || echo 0) ))
per_clip=$(awk -v b="$db_bytes" -v c="$clips" 'BEGIN { if (c > 0) printf "%.0f", b / c; else print "-" }')
tracks="(python3 missing)"
if command -v python3 >/dev/null; then
    tracks=$(python3 - "$db" <<'PY'
import sqlite3, sys
con = sqlite3.connect("file:%s?mode=ro" % sys.argv[1], uri=True)
t = sorted(r[0] for r in con.execute("SELECT track_count FROM clips"))
if t:
    q = lambda p: t[min(len(t) - 1, int(p * len(t)))]
    print("tracks per clip: median %d, p10 %d, p90 %d, max %d" % (q(0.5), q(0.1), q(0.9), t[-1]))
else:
    print("no clips")
PY
)
fi

# ---- report ----
m() { median "$@"; }
cat_wm=$(m "${cat_w[@]}"); s1_wm=$(m "${s1_w[@]}"); sn_wm=$(m "${sn_w[@]}")
find_m=$(m "${find_t[@]}"); rescan_m=$(m "${rescan_t[@]}")
r1=$(ratio "$s1_wm" "$cat_wm"); rn=$(ratio "$sn_wm" "$cat_wm"); rr=$(ratio "$rescan_m" "$find_m")
verdict() { if le "$1" "$2"; then echo PASS; else echo MISS; fi; }
fmt_runs() { local IFS=' '; echo "$*"; }
row() { printf '%-40s %8s %8s   %s\n' "$@"; }
cpu=$(awk -F': ' '/^model name/ { print $2; exit }' /proc/cpuinfo 2>/dev/null || true)

echo
echo "animidx real-shape benchmark  $(date -u '+%Y-%m-%d %H:%M UTC')"
echo "machine      nproc=$cores  ${cpu:-unknown cpu}  $(awk '/^MemTotal:/ { printf "%.0f GiB RAM", $2 / 1048576 }' /proc/meminfo)"
echo "             load average at start: $load_start, at end: $load_end"
echo "binary       $animidx (release)   runs=$runs (median)"
echo "tree         $shape"
echo "             $files files, $data_mb MB; $clips clips; $tracks"
echo "page cache   $drop_note"
echo "index        $(awk -v b="$db_bytes" 'BEGIN { printf "%.1f MB", b / 1048576 }'), $per_clip bytes per clip"
echo
row "measurement" "wall s" "cpu s" "wall s of each run"
row "cat of every file, warm" "$cat_wm" "" "$(fmt_runs "${cat_w[@]}")"
row "index build, warm, --jobs 1" "$s1_wm" "$(m "${cpu1[@]}")" "$(fmt_runs "${s1_w[@]}")"
row "index build, warm, --jobs $cores" "$sn_wm" "$(m "${cpun[@]}")" "$(fmt_runs "${sn_w[@]}")"
if (( drop_ok )); then
    row "cat of every file, cold" "$(m "${cat_c[@]}")" "" "$(fmt_runs "${cat_c[@]}")"
    row "index build, cold, --jobs $cores" "$(m "${sn_c[@]}")" "" "$(fmt_runs "${sn_c[@]}")"
    row "index build, cold, --jobs 1" "$(m "${s1_c[@]}")" "" "$(fmt_runs "${s1_c[@]}")"
fi
row "find stat walk, warm" "$find_m" "" "$(fmt_runs "${find_t[@]}")"
row "no-change rescan, warm" "$rescan_m" "" "$(fmt_runs "${rescan_t[@]}")"
echo
printf '%-40s %9s   %-6s %s\n' "target" "value" "result" "goal"
printf '%-40s %9s   %-6s %s\n' "warm build --jobs 1 / warm cat" "${r1}x" "$(verdict "$r1" 3)" "<= 3x"
printf '%-40s %9s   %-6s %s\n' "warm build --jobs $cores / warm cat" "${rn}x" "$(verdict "$rn" 2)" "<= 2x"
if (( drop_ok )); then
    rc=$(ratio "$(m "${sn_c[@]}")" "$(m "${cat_c[@]}")")
    printf '%-40s %9s   %-6s %s\n' "cold build --jobs $cores / cold cat" "${rc}x" "" "reported"
fi
printf '%-40s %9s   %-6s %s\n' "no-change rescan / find" "${rr}x" "$(verdict "$rr" 1.5)" "<= 1.5x"
full_mb=$(awk -v k="$(maxof "${rss[@]}")" 'BEGIN { printf "%.1f", k / 1024 }')
if (( ${#qrss[@]} )); then
    q_mb=$(awk -v k="$(maxof "${qrss[@]}")" 'BEGIN { printf "%.1f", k / 1024 }')
    allowed=$(awk -v q="$q_mb" 'BEGIN { a = q * 1.25; if (a < q + 2) a = q + 2; printf "%.1f", a }')
    printf '%-40s %9s   %-6s %s\n' "peak RSS full / 1/4 tree" "$full_mb / $q_mb MB" "$(verdict "$full_mb" "$allowed")" "full <= $allowed MB"
else
    printf '%-40s %9s   %-6s %s\n' "peak RSS" "$full_mb MB" "" ""
fi
(( unchanged_ok )) || { echo "WARNING: a rescan did not find all $files files unchanged (see $work/out/rescan-*.json)"; keep=1; }
