#!/usr/bin/env bash
# query_bench.sh: how fast the index answers at a million clips.
#
# Writes an index of 100,000 skeletons and 1,000,000 clips (bench/make_index: the index's own
# write path and link pass, no files) and times, as a user runs them (a whole process each):
#
#   animidx clips --skeleton X              target: under 10 ms
#   animidx show PATH (a model, a clip)     target: under 10 ms
#   animidx issues --code C --limit 100     target: under 50 ms
#
# See bench/README.md.
set -euo pipefail

usage() {
    cat <<'EOF'
usage: bench/query_bench.sh [--models N] [--clips K] [--runs R] [--db FILE]
                            [--tmpdir DIR] [--build-dir DIR] [--no-build] [--keep]

  --models N     skeletons (one model file each; default 100000)
  --clips K      clips per model (default 10: a million clips)
  --runs R       runs per query, the median is reported (default 21)
  --db FILE      use (or, when missing, write and keep) this index
  --tmpdir DIR   where the temp index goes (default $TMPDIR, else /tmp)
  --build-dir D  release build dir (default $SCAN_BENCH_BUILD_DIR, else <repo>/build-bench)
  --no-build     use the binaries already in the build dir
  --keep         keep the temp index (the path is printed)
EOF
}

bench=query_bench
# shellcheck source=bench/args.sh
. "$(dirname "${BASH_SOURCE[0]}")/args.sh"
models=100000
clips=10
runs=21
db=
tmp_base=${TMPDIR:-/tmp}

while [[ $# -gt 0 ]]; do
    case $1 in
        --models)    need_arg "$@"; models=$2; shift 2 ;;
        --clips)     need_arg "$@"; clips=$2; shift 2 ;;
        --db)        need_arg "$@"; db=$2; shift 2 ;;
        *) shared_option "$@"; shift "$taken" ;;
    esac
done
positive models clips runs

release_build cli/animidx bench/make_index
animidx=$build_dir/cli/animidx
make_index=$build_dir/bench/make_index
# shellcheck source=bench/lib.sh
. "$here/lib.sh"

work=$(mktemp -d "$tmp_base/animidx-query-bench.XXXXXX")
cleanup() { if (( keep )); then log "kept $work"; else rm -rf "$work"; fi; }
trap cleanup EXIT
trap 'exit 130' INT TERM
: > "$work/empty.ini"
cd "$work"
if [[ -z $db ]]; then
    db=$work/index.db
fi
if [[ ! -f $db ]]; then
    log "writing the index: $models skeletons, $((models * clips)) clips ($db)"
    t0=$(now)
    "$make_index" "$db" --models "$models" --clips "$clips" 2> "$work/make_index.log"
    log "written in $(elapsed "$t0" "$(now)") s"
fi
db_mb=$(du -sm "$db" | cut -f1)

# The model and clip in the middle of the index (make_index's names).
mid=$(( models / 2 ))
model=$(printf 'M_%06d' "$mid")
set_dir=$(printf 'set_%04d' $(( mid / 100 )))
model_path="Art/Models/$set_dir/$model.ALO"
clip_path="Art/Models/$set_dir/${model}_DIE_00.ALA"

# q NAME TARGET_MS ARGS...: runs `animidx ARGS --db DB` RUNS times, prints a report row.
results=()
q() {
    local name=$1 target=$2; shift 2
    local t=() t0 i rc
    for (( i = 0; i < runs; i++ )); do
        t0=$(now)
        rc=0
        "$animidx" "$@" --db "$db" --config "$work/empty.ini" > "$work/out.txt" 2> "$work/err.txt" || rc=$?
        t+=("$(awk -v a="$t0" -v b="$(now)" 'BEGIN { printf "%.2f", (b - a) * 1000 }')")
        if (( rc >= 2 )); then
            echo "query_bench: animidx $* exited $rc: $(cat "$work/err.txt")" >&2
            exit 1
        fi
    done
    local m rows
    m=$(median "${t[@]}")
    rows=$(wc -l < "$work/out.txt")
    local v=MISS
    le "$m" "$target" && v=PASS
    results+=("$(printf '%-52s %8s ms  %-4s (target < %s ms; %s lines of output)' "$name" "$m" "$v" "$target" "$rows")")
}

q "clips --skeleton $model --json" 10 clips --skeleton "$model" --json
q "show $model_path --json" 10 show "$model_path" --json
q "show $clip_path --json" 10 show "$clip_path" --json
q "issues --code BONE_NOT_IN_SKELETON --limit 100 --json" 50 issues --code BONE_NOT_IN_SKELETON --limit 100 --json
q "issues --code SIZE_MISMATCH --limit 100 --json" 50 issues --code SIZE_MISMATCH --limit 100 --json

cpu=$(awk -F': ' '/^model name/ { print $2; exit }' /proc/cpuinfo 2>/dev/null || true)
echo
echo "animidx query benchmark  $(date -u '+%Y-%m-%d %H:%M UTC')"
echo "machine   nproc=$(nproc)  ${cpu:-unknown cpu}; load average $(cut -d' ' -f1-3 /proc/loadavg)"
echo "index     $db: $db_mb MB, $models skeletons, $((models * clips)) clips ($(( db_mb * 1048576 / (models * clips) )) bytes a clip)"
echo "runs      $runs per query, median wall time of the whole process (start, open, query, print)"
echo
printf '%s\n' "${results[@]}"
