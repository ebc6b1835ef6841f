#!/usr/bin/env bash
# Runs every test: the whole suite in a normal build and again under ASan + UBSan, the unit
# suite in a release build, and, when clang is there, every libFuzzer harness for
# AMX_FUZZ_SECONDS (default 20) in an ASan + UBSan fuzzing build (the fuzz suite).
# Ends with a line "N passed, N failed" (one count per test program and build).
# (--packages: print the Debian packages it installs besides scripts/deps.sh's, and stop.)
set -uo pipefail
cd "$(dirname "$0")/.."

# chromium: the report test renders report.html in a real browser (it skips without one).
# libxml2-utils (xmllint) and python3-jsonschema: the lint test validates JUnit and SARIF;
# groff-base: the cli test checks the man pages; python3-yaml: the action test reads action.yml;
# pre-commit and git: the hook test runs pre-commit on a generated repository.
packages=(chromium libxml2-utils python3-jsonschema groff-base python3-yaml pre-commit git)
if [ "${1:-}" = --packages ]; then
    echo "${packages[*]}"
    exit 0
fi
scripts/deps.sh "${packages[@]}" || exit 1
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

# The fuzzers, a short run each (a crash, a leak, a sanitizer report or a timeout fails it;
# the inputs found stay in build-fuzz/tests/fuzz-work/). Needs clang's libFuzzer.
fuzz_dirs=""
if command -v clang >/dev/null 2>&1; then
    fuzz_dirs=build-fuzz
    if [ ! -f build-fuzz/build.ninja ]; then
        meson setup build-fuzz --native-file tests/fuzz/clang.ini -Dfuzzing=true \
            -Db_sanitize=address,undefined -Db_lundef=false \
            -Dfuzz_seconds="${AMX_FUZZ_SECONDS:-20}" >/dev/null || true
    else
        meson configure build-fuzz -Dfuzz_seconds="${AMX_FUZZ_SECONDS:-20}" >/dev/null || true
    fi
    # only the harnesses: the rest of the tree is built and tested by the builds above
    fuzz_targets=$(meson introspect build-fuzz --targets 2>/dev/null | python3 -c '
import json, os, sys
print(" ".join(os.path.relpath(t["filename"][0], "build-fuzz") for t in json.load(sys.stdin)
               if t["name"].startswith("fuzz_")))' || true)
    if [ -n "$fuzz_targets" ] && { ninja -C build-fuzz $fuzz_targets >/dev/null ||
                                  ninja -C build-fuzz $fuzz_targets; }; then
        meson test -C build-fuzz --no-rebuild --suite fuzz --print-errorlogs \
            --num-processes "$(nproc)" || true
    else
        rm -f build-fuzz/meson-logs/testlog.json
    fi
else
    echo "clang is not installed: the fuzzers are not run (apt-get install clang)"
fi

AMX_FUZZ_DIRS="$fuzz_dirs" python3 - <<'PY'
import json, os, sys
passed = failed = skipped = 0
for d in ("build-test", "build-asan", "build-release") + tuple(filter(None, [os.environ.get("AMX_FUZZ_DIRS")])):
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
