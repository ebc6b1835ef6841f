#!/bin/sh
# Runs one libFuzzer harness for a bounded time (the fuzz suite of a -Dfuzzing=true build;
# scripts/test.sh runs it in CI when clang is there).
#
#   run_fuzz.sh HARNESS WORKDIR SECONDS DICT|- SEED_DIR...
#
# New inputs go to WORKDIR/corpus (the seed directories are only read), a crash, leak or
# timeout to WORKDIR/crash-*; the harness's exit status is the result. The last lines of the
# output are libFuzzer's final statistics (executions, coverage, peak memory).
set -eu
harness=$1 work=$2 seconds=$3 dict=$4
shift 4
mkdir -p "$work/corpus"
set -- "$work/corpus" "$@"
seeds=""
for d in "$@"; do
    [ -d "$d" ] && seeds="$seeds $d"
done
if [ "$dict" != "-" ]; then
    set -- -dict="$dict"
else
    set --
fi
# shellcheck disable=SC2086
# a crash exits 1, not libFuzzer's 77 (which meson takes for a skipped test)
exec "$harness" "$@" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -error_exitcode=1 \
    -print_final_stats=1 -artifact_prefix="$work/crash-" $seeds
