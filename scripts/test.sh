#!/usr/bin/env bash
# Runs every test: the whole suite in a normal build and again under ASan + UBSan, and the unit
# suite in a release build.
# Ends with a line "N passed, N failed" (one count per test program and build).
set -uo pipefail
cd "$(dirname "$0")/.."

# chromium: the report test renders report.html in a real browser (it skips without one).
# libxml2-utils (xmllint) and python3-jsonschema: the lint test validates JUnit and SARIF;
# groff-base: the cli test checks the man pages.
scripts/deps.sh chromium libxml2-utils python3-jsonschema groff-base || exit 1
# The SARIF multitool and the SARIF 2.1.0 schema (npm), into build-tools/.
scripts/test-tools.sh >/dev/null || exit 1

run_suite() { # name, meson setup args...
    local dir=$1
    shift
    if [ ! -f "$dir/build.ninja" ]; then
        meson setup "$dir" "$@" >/dev/null || return 1
    fi
    ninja -C "$dir" >/dev/null || { ninja -C "$dir"; return 1; }
    meson test -C "$dir" --print-errorlogs --num-processes "$(nproc)" || true
}

run_suite build-test
run_suite build-asan -Db_sanitize=address,undefined -Db_lundef=false
# A release build (-O3) warns about things the others do not: it must build, and pass the units.
if [ ! -f build-release/build.ninja ]; then
    meson setup build-release --buildtype=release -Db_ndebug=true >/dev/null || true
fi
if ninja -C build-release >/dev/null || ninja -C build-release; then
    meson test -C build-release --suite unit --print-errorlogs --num-processes "$(nproc)" || true
else
    rm -f build-release/meson-logs/testlog.json
fi

python3 - <<'PY'
import json, os, sys
passed = failed = skipped = 0
for d in ("build-test", "build-asan", "build-release"):
    log = os.path.join(d, "meson-logs", "testlog.json")
    if not os.path.exists(log):
        print(f"{d}: the build failed, so no test ran")
        failed += 1
        continue
    for line in open(log):
        r = json.loads(line)["result"]
        if r in ("OK", "EXPECTEDFAIL"):
            passed += 1
        elif r == "SKIP":
            skipped += 1
        else:
            failed += 1
print(f"{passed} passed, {failed} failed" + (f", {skipped} skipped" if skipped else ""))
sys.exit(1 if failed else 0)
PY
