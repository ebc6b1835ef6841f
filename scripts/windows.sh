#!/usr/bin/env bash
# The Windows build: cross-builds animidx.exe and animidxd.exe with Debian's mingw-w64 and runs
# the Windows suites under wine (README "Windows").
#   scripts/windows.sh             build the dependencies (cached), build-win/, run the suites
#   scripts/windows.sh --no-test   build only
#   scripts/windows.sh --deps-only install the packages and build the dependencies, no more
#   scripts/windows.sh --packages  print the Debian packages it installs (.ci/run installs
#                                  them with the Linux suites' in one apt-get)
# The dependencies are built from Debian's source packages and kept in
# ${AMX_WIN_CACHE:-~/.cache/animidx-windows}/deps-HASH (HASH: of scripts/windows/build-deps.sh),
# so the next run on the same machine reuses them. Ends with "N passed, N failed".
set -uo pipefail
cd "$(dirname "$0")/.."
test=1 build=1
# gcc-mingw-w64-x86-64-win32: the one cross compiler the build uses (the mingw-w64 package would
# add the C++, 32-bit and POSIX-thread compilers: 188 MB more to fetch, 837 MB to unpack)
packages=(gcc-mingw-w64-x86-64-win32 libz-mingw-w64-dev libgpg-error-mingw-w64-dev wine wine64
          cmake tcl dpkg-dev zip groff-base python3)
for a in "$@"; do
    case $a in
        --no-test) test=0 ;;
        --deps-only) test=0 build=0 ;;
        --packages) echo "${packages[*]}"; exit 0 ;;
        -h|--help) sed -n '2,11p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
        *) echo "windows.sh: unknown option $a (try --help)" >&2; exit 2 ;;
    esac
done

scripts/deps.sh "${packages[@]}" || exit 1

cache=${AMX_WIN_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/animidx-windows}
key=$(cat scripts/windows/build-deps.sh scripts/windows/cross.ini.in | sha256sum | cut -c1-16)
prefix=$cache/deps-$key
mkdir -p build-win-deps
sed "s|@PREFIX@|$prefix|" scripts/windows/cross.ini.in > build-win-deps/cross.ini

# The Debian source packages: deb-src lines for a moment (the default list has binaries only).
# bookworm's libinih source is not served; trixie's is.
fetch_sources() { # dir
    local dir=$1 list=/etc/apt/sources.list.d/animidx-deb-src-$$.sources
    mkdir -p "$dir"
    if [ "$(id -u)" -ne 0 ]; then
        echo "windows.sh: fetching Debian source packages needs root (apt-get)" >&2
        return 1
    fi
    cat > "$list" <<SRC
Types: deb-src
URIs: http://deb.debian.org/debian
Suites: bookworm trixie
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
SRC
    apt-get update -qq
    local rc=0
    (cd "$dir" && apt-get source -qq sqlite3/bookworm libuv1/bookworm libxml2/bookworm \
        xxhash/bookworm libinih/trixie >/dev/null 2>&1) || rc=1
    rm -f "$list"
    apt-get update -qq
    return $rc
}

start=$SECONDS
if [ ! -f "$prefix/done" ]; then
    echo "windows.sh: building the dependencies into $prefix"
    rm -rf "$prefix" "$cache/src-$key"
    fetch_sources "$cache/src-$key" || { echo "windows.sh: apt-get source failed"; exit 1; }
    bash scripts/windows/build-deps.sh "$cache/src-$key" "$prefix" "$PWD/build-win-deps/cross.ini" ||
        { echo "windows.sh: the dependencies did not build"; exit 1; }
    rm -rf "$cache/src-$key"
    touch "$prefix/done"
    echo "windows.sh: dependencies built in $((SECONDS - start)) s"
else
    echo "windows.sh: dependencies from the cache ($prefix)"
fi
[ $build = 1 ] || exit 0

# ---- the build: build-win/cli/animidx.exe and build-win/daemon/animidxd.exe, static ----
export WINEDEBUG=-all WINEPREFIX=${WINEPREFIX:-$cache/wine}
# a build made against other dependencies (the recipe changed) starts over
if [ -f build-win/build.ninja ] && [ "$(cat build-win/.deps-key 2>/dev/null)" != "$key" ]; then
    rm -rf build-win
fi
if [ ! -f build-win/build.ninja ]; then
    meson setup build-win --cross-file build-win-deps/cross.ini >build-win-deps/setup.log 2>&1 ||
        { cat build-win-deps/setup.log; echo "windows.sh: meson setup failed"; exit 1; }
    echo "$key" > build-win/.deps-key
fi
# wine runs the man page and completion generators: one wine server for the whole run. A new
# prefix is made at wine's first start, whose services stay: started by a generator or a test,
# they would hold its output pipe open and the reader would wait for ever (a fresh machine, as
# CI's, has no prefix). So wine starts here, with nothing of ours to inherit.
wineserver -p 2>/dev/null
trap 'wineserver -k 2>/dev/null' EXIT
t=$SECONDS
wine wineboot --init </dev/null >/dev/null 2>&1
echo "windows.sh: wine ready in $((SECONDS - t)) s"
ninja -C build-win >/dev/null || { ninja -C build-win; echo "windows.sh: the build failed"; exit 1; }

# The zip: the programs, the README and docs, the man pages as text (CRLF: Notepad's).
version=$(sed -n "s/^  version: '\(.*\)',/\1/p" meson.build)
stage=build-win/zip/animidx-$version-windows-x86_64
rm -rf build-win/zip && mkdir -p "$stage/docs/formats"
cp build-win/cli/animidx.exe build-win/daemon/animidxd.exe "$stage/"
x86_64-w64-mingw32-strip "$stage/animidx.exe" "$stage/animidxd.exe"
cp README.md "$stage/"
cp docs/*.md docs/*.json "$stage/docs/"
cp docs/formats/*.md "$stage/docs/formats/"
# the licences of what the static programs hold (the dependency build collects them)
cp -r "$prefix/licenses" "$stage/licenses"
cat > "$stage/licenses/README.txt" <<'TXT'
animidx.exe and animidxd.exe are static programs: they hold SQLite, libuv, libxml2, xxHash,
inih and zlib, and libgpg-error's Win32 iconv (libxml2's encodings), built from Debian's packages.
Each NAME.txt here is that package's Debian copyright file: its copyright holders and licences;
the other files are the licence texts they refer to.

The iconv is under the GNU Lesser General Public License 2.1 or later (LGPL-2.1.txt). To use
the programs with a modified iconv: build it as libiconv.a into the dependency prefix and build
the programs again with scripts/windows.sh from animidx's source (README, "Windows").
TXT
for m in animidx.1 animidxd.8; do
    groff -man -Tutf8 -P-c -P-b -P-u build-win/$m 2>/dev/null | sed 's/$/\r/' > "$stage/$m.txt"
done
(cd build-win/zip && rm -f ../animidx-windows.zip && zip -qr ../animidx-windows.zip .)
echo "windows.sh: built build-win/cli/animidx.exe, build-win/daemon/animidxd.exe and" \
     "build-win/animidx-windows.zip ($((SECONDS - start)) s so far)"
[ $test = 1 ] || exit 0

# ---- the Windows suites, under wine ----
# The Linux build the corpus comparison runs beside (the one scripts/test.sh made, or made here).
# (brought up to date: compared with an older build, a difference would not be the system's)
[ -f build-test/build.ninja ] || meson setup build-test >/dev/null
ninja -C build-test cli/animidx >/dev/null || exit 1
passed=0 failed=0
count() { # a TAP log and the exit status of what wrote it: adds its tests up
    local p f plan
    p=$(grep -c '^ok ' "$1" || true)
    f=$(grep -c '^not ok ' "$1" || true)
    plan=$(sed -n 's/^1\.\.\([0-9]*\)$/\1/p' "$1" | tail -n 1)
    # a suite that stopped part-way (an exception, a timeout) is a failure, not a short pass
    if { [ -n "$plan" ] && [ "$plan" != $((p + f)) ]; } || { [ "$2" != 0 ] && [ "$f" = 0 ]; }; then
        echo "not ok - $1: the suite stopped before its end (exit $2, ${plan:-no} tests planned, $((p + f)) reported)"
        f=$((f + 1))
    fi
    passed=$((passed + p)); failed=$((failed + f))
}
# the unit suite, every test program under wine (meson runs them through the cross file's wine)
t=$SECONDS
meson test -C build-win --no-rebuild --suite unit --num-processes "$(nproc)" --print-errorlogs \
    > build-win-deps/unit.log 2>&1
python3 - build-win/meson-logs/testlog.json > build-win-deps/unit.tap <<'PY'
import json, sys
n = 0
for line in open(sys.argv[1]):
    r = json.loads(line)
    n += 1
    print(("ok" if r["result"] in ("OK", "SKIP") else "not ok") + " %d - %s (%s)" % (n, r["name"], r["result"]))
PY
cat build-win-deps/unit.tap
count build-win-deps/unit.tap 0
echo "windows.sh: unit suite under wine: $((SECONDS - t)) s"
# the corpus: every file dumped, the corpus scanned, queried and linted by both builds
t=$SECONDS
python3 tests/windows/compare_corpus.py build-test/cli/animidx build-win/cli/animidx.exe \
    ../shared/corpus | tee build-win-deps/corpus.tap
count build-win-deps/corpus.tap "${PIPESTATUS[0]}"
echo "windows.sh: corpus comparison: $((SECONDS - t)) s"
# the daemon under wine: watch, rename, sync, stop over the named pipe
t=$SECONDS
python3 tests/windows/test_daemon_windows.py build-win/cli/animidx.exe \
    build-win/daemon/animidxd.exe build-win/tests/amxgen.exe | tee build-win-deps/daemon.tap
count build-win-deps/daemon.tap "${PIPESTATUS[0]}"
echo "windows.sh: daemon under wine: $((SECONDS - t)) s"
# the end-to-end suites of tests/ (e2e, hostile_cli, cli, corpus_index, lint, report,
# link_hostile, daemon, daemon_hostile, follow) against the .exe programs under wine, their input
# files written by the Linux build's amxgen (bytes); what cannot apply on Windows is skipped there
# with the reason (tests/windows/run_e2e.py)
t=$SECONDS
ninja -C build-test tests/amxgen >/dev/null || exit 1
python3 tests/windows/run_e2e.py build-win build-test/tests/amxgen | tee build-win-deps/e2e.tap
count build-win-deps/e2e.tap "${PIPESTATUS[0]}"
echo "windows.sh: end-to-end suites under wine: $((SECONDS - t)) s"
echo "windows.sh: the Windows part took $((SECONDS - start)) s"
echo "windows: $passed passed, $failed failed"
[ "$failed" = 0 ]
