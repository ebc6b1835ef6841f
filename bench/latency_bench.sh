#!/usr/bin/env bash
# latency_bench.sh: how soon a saved file is visible in the index while animidxd runs.
#
# Starts animidxd (release build) on an amxgen tree, then saves files one at a time (new clips
# and rewrites of existing ones, each open/write/close) and polls the index read-only, as the
# CLI reads it, until the file's row (with the new mtime) is there. The latency of a file is the
# time from its close() returning to that row being visible. Prints p50/p90/p99/max, and p99
# minus the settle period against the target: p99 under 100 ms beyond the settle period.
# See bench/README.md.
set -euo pipefail

usage() {
    cat <<'EOF'
usage: bench/latency_bench.sh [--files N] [--settle MS] [--models M] [--tmpdir DIR]
                              [--build-dir DIR] [--no-build] [--keep]

  --files N      files saved and timed (default 300: half new clips, half rewrites)
  --settle MS    the daemon's settle_ms (default 50, the default of the config)
  --models M     models in the tree indexed beforehand; each is 1 .ALO + 2 .ALA files in
                 directories of 300 files (default 2000: 6000 files)
  --tmpdir DIR   where the temp tree goes (default $TMPDIR, else /tmp)
  --build-dir D  release build dir (default <repo>/build-bench)
  --no-build     use the binaries already in the build dir
  --keep         keep the temp tree, index and daemon log (the path is printed)
EOF
}

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
repo=$(cd "$here/.." && pwd)
files=300
settle=50
models=2000
tmpbase=${TMPDIR:-/tmp}
build="$repo/build-bench"
do_build=1
keep=0
while [ $# -gt 0 ]; do
    case "$1" in
        --files) files=$2; shift 2 ;;
        --settle) settle=$2; shift 2 ;;
        --models) models=$2; shift 2 ;;
        --tmpdir) tmpbase=$2; shift 2 ;;
        --build-dir) build=$2; shift 2 ;;
        --no-build) do_build=0; shift ;;
        --keep) keep=1; shift ;;
        -h|--help) usage; exit 0 ;;
        *) usage >&2; exit 2 ;;
    esac
done

if [ $do_build = 1 ]; then
    if [ ! -f "$build/build.ninja" ]; then
        echo "latency_bench: meson setup $build (release)" >&2
        meson setup "$build" "$repo" --buildtype=release -Db_ndebug=true >/dev/null
    fi
    ninja -C "$build" daemon/animidxd tests/amxgen >/dev/null
fi
animidxd="$build/daemon/animidxd"
amxgen="$build/tests/amxgen"

tmp=$(mktemp -d "$tmpbase/amxd-bench-XXXXXX")
pid=
cleanup() {
    if [ -n "$pid" ] && kill -0 "$pid" 2>/dev/null; then
        kill -TERM "$pid"
        wait "$pid" || true
    fi
    if [ $keep = 1 ]; then
        echo "latency_bench: kept $tmp" >&2
    else
        rm -rf "$tmp"
    fi
}
trap cleanup EXIT

echo "latency_bench: writing $models models ($((models * 3)) files)" >&2
"$amxgen" bench "$tmp/tree" --models "$models" --vertices 40 >/dev/null
cat > "$tmp/animidx.ini" <<EOF
[index]
database = $tmp/index.db
[scan]
roots = $tmp/tree
[daemon]
socket = $tmp/d.sock
settle_ms = $settle
log = $tmp/daemon.log
log_level = info
EOF
"$animidxd" --config "$tmp/animidx.ini" --foreground 2>>"$tmp/daemon.log" &
pid=$!

python3 - "$tmp" "$files" "$settle" "$models" <<'PY'
import json, os, socket, sqlite3, statistics, sys, time

tmp, nfiles, settle, models = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
tree = os.path.join(tmp, "tree")


def request(cmd):
    s = socket.socket(socket.AF_UNIX)
    s.settimeout(600)
    s.connect(os.path.join(tmp, "d.sock"))
    s.sendall((json.dumps({"cmd": cmd}) + "\n").encode())
    buf = b""
    while not buf.endswith(b"\n"):
        chunk = s.recv(65536)
        if not chunk:
            break
        buf += chunk
    s.close()
    return json.loads(buf)


t0 = time.time()
while True:
    try:
        request("status")
        break
    except OSError:
        if time.time() - t0 > 60:
            sys.exit("latency_bench: the daemon did not start; see %s/daemon.log" % tmp)
        time.sleep(0.05)
request("sync")  # the initial scan
st = request("status")
print("initial scan: %d files indexed in %.1f s" % (st["files"], time.time() - t0), file=sys.stderr)

# a clip's bytes, from the tree: new files are copies of it, rewrites append a byte
src = os.path.join(tree, "Data/Art/Models/set_000/BM_BENCH_00000_IDLE_00.ALA")
with open(src, "rb") as f:
    clip = f.read()

con = sqlite3.connect("file:%s?mode=ro" % os.path.join(tmp, "index.db"), uri=True,
                      isolation_level=None)
q = "SELECT mtime_ns FROM files WHERE path = ?"
lat = {"new": [], "rewrite": []}
for i in range(nfiles):
    m = (i * 37) % models
    d = "Data/Art/Models/set_%03d" % (m // 100)
    if i % 2 == 0:
        kind, rel = "new", "%s/BM_BENCH_%05d_WALK_%02d.ALA" % (d, m, i // models)
        data = clip
    else:
        kind, rel = "rewrite", "%s/BM_BENCH_%05d_DIE_00.ALA" % (d, m)
        with open(os.path.join(tree, rel), "rb") as f:
            data = f.read() + b"\0"
    path = os.path.join(tree, rel)
    with open(path, "wb") as f:
        f.write(data)
    closed = time.monotonic()
    want = os.stat(path).st_mtime_ns
    while True:
        row = con.execute(q, (rel,)).fetchone()
        if row and row[0] == want:
            break
        if time.monotonic() - closed > 30:
            sys.exit("latency_bench: %s not visible after 30 s" % rel)
        time.sleep(0.0005)
    lat[kind].append((time.monotonic() - closed) * 1000)
    time.sleep(0.01)

st = request("status")


def pct(v, p):
    v = sorted(v)
    return v[min(len(v) - 1, int(round(p / 100 * (len(v) - 1))))]


allv = lat["new"] + lat["rewrite"]
print("animidxd latency: close() -> row visible to a read-only reader, settle_ms = %d" % settle)
print("  index: %d files; %d saves (%d new files, %d rewrites), one at a time, 10 ms apart"
      % (st["files"], len(allv), len(lat["new"]), len(lat["rewrite"])))
print("  %-10s %8s %8s %8s %8s" % ("", "p50", "p90", "p99", "max"))
for name, v in (("new", lat["new"]), ("rewrite", lat["rewrite"]), ("all", allv)):
    print("  %-10s %7.1f %8.1f %8.1f %8.1f   ms" % (name, pct(v, 50), pct(v, 90), pct(v, 99), max(v)))
beyond = pct(allv, 99) - settle
print("  p99 beyond the settle period: %.1f ms (target < 100 ms): %s"
      % (beyond, "PASS" if beyond < 100 else "MISS"))
print("  daemon: %d batches, %d overflows, %d scan errors" % (st["batches"], st["overflows"],
                                                             st["scan_errors"]))
PY
kill -TERM "$pid"
if wait "$pid"; then
    echo "  daemon stopped cleanly (exit 0)"
else
    echo "  daemon exit status $? (see $tmp/daemon.log)"
    keep=1
fi
pid=
