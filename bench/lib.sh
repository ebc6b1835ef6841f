# bench/lib.sh: what the benchmarks share (sourced): peak RSS and CPU time of a command,
# wall clocks, medians and ratios, dropping the page cache. The caller sets `log` and `work`.

# ---- peak-RSS measurement: GNU time, else python3's getrusage(RUSAGE_CHILDREN) ----
rss_tool=
if [[ ${SCAN_BENCH_RSS:-} == python3 ]] && command -v python3 >/dev/null; then
    rss_tool=python3      # forced (to test the fallback)
elif [[ -x /usr/bin/time ]] && /usr/bin/time -f %M -o /dev/null true 2>/dev/null; then
    rss_tool=gnu-time
elif [[ $(id -u) -eq 0 ]] && command -v apt-get >/dev/null \
        && { DEBIAN_FRONTEND=noninteractive apt-get install -y -qq time >/dev/null 2>&1 \
             || { apt-get update -qq >/dev/null 2>&1 \
                  && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq time >/dev/null 2>&1; }; } \
        && [[ -x /usr/bin/time ]]; then
    rss_tool=gnu-time
elif command -v python3 >/dev/null; then
    rss_tool=python3
else
    echo "bench: need /usr/bin/time (Debian package 'time') or python3 for peak RSS" >&2
    exit 1
fi

# run_rss OUTFILE CMD...: runs CMD, writes "MAXRSS_KIB USER_S SYS_S" as the last line of
# OUTFILE, returns CMD's status.
run_rss() {
    local out=$1; shift
    if [[ $rss_tool == gnu-time ]]; then
        /usr/bin/time -f '%M %U %S' -o "$out" "$@"
    else
        python3 - "$out" "$@" <<'PY'
# getrusage(RUSAGE_CHILDREN).ru_maxrss is the max over every child, and a child forked from
# python already holds python's RSS (~13 MB) when it execs, so it is a floor, not the child's
# peak. Measure that floor with /bin/true first: above it, ru_maxrss is the command's own peak;
# at or below it, use the command's VmHWM polled from /proc every millisecond instead.
import os, resource, subprocess, sys, time
subprocess.call(["true"])
floor = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
p = subprocess.Popen(sys.argv[2:])
hwm = 0
while p.poll() is None:
    try:
        with open("/proc/%d/status" % p.pid) as f:
            for line in f:
                if line.startswith("VmHWM:"):
                    hwm = max(hwm, int(line.split()[1]))
    except (OSError, ValueError):
        pass
    time.sleep(0.001)
ru = resource.getrusage(resource.RUSAGE_CHILDREN)
peak = ru.ru_maxrss if ru.ru_maxrss > floor + 512 else hwm
with open(sys.argv[1], "w") as f:
    f.write("%d %.2f %.2f\n" % (peak, ru.ru_utime, ru.ru_stime))
sys.exit(p.returncode if p.returncode >= 0 else 128 - p.returncode)
PY
    fi
}

# ---- numbers ----
now() { printf '%s' "$EPOCHREALTIME"; }
elapsed() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.3f", b - a }'; }
median() { printf '%s\n' "$@" | sort -g | awk '{ v[NR] = $1 } END { printf "%.3f", (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
maxof() { printf '%s\n' "$@" | sort -g | tail -n 1; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (b > 0) printf "%.2f", a / b; else print "inf" }'; }
le() { awk -v a="$1" -v b="$2" 'BEGIN { exit !(a <= b) }'; }
cached_mb() { awk '/^Cached:/ { printf "%d", $2 / 1024 }' /proc/meminfo; }

drop_ok=0
drop_caches() {
    sync
    if (( drop_ok )); then
        echo 3 > /proc/sys/vm/drop_caches
    fi
}

# json_num FILE KEY: the first number after "KEY": in FILE (animidx --json output).
json_num() { sed -n "s/.*\"$2\": *\([0-9.eE+-]*\).*/\1/p" "$1" | head -n 1; }


# check_drop TREE_MB: can the page cache be dropped, and does it work? Sets drop_ok and
# drop_note. Call it right after writing the tree: its pages are in the cache, so a drop that
# works makes Cached fall by about the tree's size.
check_drop() {
    local tree_mb=$1 before after
    drop_note="no: /proc/sys/vm/drop_caches is not writable (not root?); cat and cold scan ran WARM"
    if [[ -w /proc/sys/vm/drop_caches ]]; then
        before=$(cached_mb)
        if (sync; echo 3 > /proc/sys/vm/drop_caches) 2>/dev/null; then
            after=$(cached_mb)
            drop_ok=1
            if (( before - after >= tree_mb / 2 )); then
                drop_note="yes (page cache Cached ${before} -> ${after} MB on a test drop): cat and cold scan ran COLD"
            else
                drop_note="written, but Cached only ${before} -> ${after} MB (tree ${tree_mb} MB): the drop may not take effect here; cat and cold scan may be WARM"
            fi
        else
            drop_note="no: writing /proc/sys/vm/drop_caches failed; cat and cold scan ran WARM"
        fi
    fi
}

# timed USEOUT CMD...: runs CMD (stdout to /dev/null) under run_rss, so that every timed
# command pays the same wrapper exec; prints the wall time, CPU time (user+sys, children
# included) and max RSS go to USEOUT.
usage_rss() { tail -n 1 "$1" | awk '{ print $1 }'; }
usage_cpu() { tail -n 1 "$1" | awk '{ printf "%.2f", $2 + $3 }'; }
timed() {
    local out=$1 t0 t1; shift
    t0=$(now)
    run_rss "$out" "$@" > /dev/null
    t1=$(now)
    elapsed "$t0" "$t1"
}
