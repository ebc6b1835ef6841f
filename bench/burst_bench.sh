#!/usr/bin/env bash
# burst_bench.sh: how fast animidxd indexes a burst of changes (a mod install, a batch export).
#
# Starts animidxd (release build) on a tree, pauses it, writes N new models into one directory
# that also has a subdirectory (the common case: Data/Art/Models with sub-folders), resumes it
# and times `animidx resume` to `animidx sync` returning. Baseline, measured in the same run on
# the same files: a fresh `animidx scan --jobs 1` of a copy of that directory (the daemon
# decodes bursts on its own threads, so the baseline is the decode cost itself). Prints the
# ratio burst / fresh scan; the target is within 2x. See bench/README.md.
set -euo pipefail

usage() {
    cat <<'EOF'
usage: bench/burst_bench.sh [--files N] [--runs R] [--tmpdir DIR] [--build-dir DIR] [--no-build]

  --files N      files in the burst (default 2000)
  --runs R       runs; the median is reported (default 3)
  --tmpdir DIR   where the temp tree goes (default $TMPDIR, else /tmp)
  --build-dir D  release build dir (default <repo>/build-bench)
  --no-build     use the binaries already in the build dir
EOF
}

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
repo=$(cd "$here/.." && pwd)
files=2000
runs=3
tmpbase=${TMPDIR:-/tmp}
build="$repo/build-bench"
do_build=1
while [ $# -gt 0 ]; do
    case "$1" in
        --files) files=$2; shift 2 ;;
        --runs) runs=$2; shift 2 ;;
        --tmpdir) tmpbase=$2; shift 2 ;;
        --build-dir) build=$2; shift 2 ;;
        --no-build) do_build=0; shift ;;
        -h|--help) usage; exit 0 ;;
        *) usage >&2; exit 2 ;;
    esac
done

if [ $do_build = 1 ]; then
    if [ ! -f "$build/build.ninja" ]; then
        echo "burst_bench: meson setup $build (release)" >&2
        meson setup "$build" "$repo" --buildtype=release -Db_ndebug=true >/dev/null
    fi
    ninja -C "$build" daemon/animidxd cli/animidx tests/amxgen >/dev/null
fi
animidxd="$build/daemon/animidxd"
animidx="$build/cli/animidx"
amxgen="$build/tests/amxgen"

work=$(mktemp -d "$tmpbase/animidx-burst.XXXXXX")
daemon_pid=
cleanup() {
    if [ -n "$daemon_pid" ]; then kill "$daemon_pid" 2>/dev/null || true; wait "$daemon_pid" 2>/dev/null || true; fi
    rm -rf "$work"
}
trap cleanup EXIT
export XDG_RUNTIME_DIR="$work/run"
mkdir -p "$work/run" "$work/src"
"$amxgen" model "$work/src/m.alo" --bones Root,Body,Gun --vertices 300 >/dev/null

now() { date +%s.%N; }
median() { sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }

burst=()
fresh=()
for run in $(seq 1 "$runs"); do
    root="$work/root$run"
    mkdir -p "$root/Models/Sub"
    "$amxgen" model "$root/Models/Sub/X.ALO" --bones Root,Body >/dev/null
    "$animidxd" --foreground --db "$work/i$run.db" "$root" 2>"$work/log$run" &
    daemon_pid=$!
    for _ in $(seq 1 100); do "$animidx" sync >/dev/null 2>&1 && break; sleep 0.05; done
    "$animidx" pause >/dev/null
    python3 - "$work/src/m.alo" "$root/Models" "$files" <<'PY'
import shutil, sys
src, dst, n = sys.argv[1], sys.argv[2], int(sys.argv[3])
for i in range(n):
    shutil.copyfile(src, "%s/UM_BURST_%05d.ALO" % (dst, i))
PY
    sleep 0.2 # the events are queued
    t0=$(now)
    "$animidx" resume >/dev/null
    "$animidx" sync >/dev/null
    t1=$(now)
    rows=$(python3 -c "import sqlite3,sys; print(sqlite3.connect(sys.argv[1]).execute('SELECT count(*) FROM files').fetchone()[0])" "$work/i$run.db")
    if [ "$rows" != $((files + 1)) ]; then
        echo "burst_bench: run $run: $rows rows after sync, want $((files + 1))" >&2
        exit 1
    fi
    kill "$daemon_pid"; wait "$daemon_pid" || true; daemon_pid=
    burst+=("$(echo "$t1 - $t0" | bc)")

    mkdir -p "$work/copy$run"
    cp "$root"/Models/*.ALO "$work/copy$run/"
    t0=$(now)
    "$animidx" scan "$work/copy$run" --db "$work/fresh$run.db" --jobs 1 --quiet >/dev/null
    t1=$(now)
    fresh+=("$(echo "$t1 - $t0" | bc)")
done

b=$(printf '%s\n' "${burst[@]}" | median)
f=$(printf '%s\n' "${fresh[@]}" | median)
ratio=$(echo "scale=2; $b / $f" | bc)
result=$(echo "$ratio <= 2" | bc)
printf '%-38s %8s   %s\n' "measurement" "wall s" "wall s of each run"
printf '%-38s %8.3f   %s\n' "burst of $files files: resume to sync" "$b" "${burst[*]}"
printf '%-38s %8.3f   %s\n' "fresh scan of the same files, 1 job" "$f" "${fresh[*]}"
echo
printf 'burst / fresh scan   %5sx   %s   <= 2x\n' "$ratio" "$([ "$result" = 1 ] && echo PASS || echo MISS)"
