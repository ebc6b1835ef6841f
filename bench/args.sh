# bench/args.sh: the command line and the build the benchmarks share (sourced first, before
# any work). The caller sets `bench` (its name, for messages) and `usage`, and its defaults;
# this file sets the shared ones, which the caller may change after sourcing it.

here=$(cd "$(dirname "${BASH_SOURCE[1]}")" && pwd)
repo=$(cd "$here/.." && pwd)
keep=0
build=1
tmp_base=${SCAN_BENCH_TMPDIR:-${TMPDIR:-/tmp}}
build_dir=${SCAN_BENCH_BUILD_DIR:-$repo/build-bench}

log() { printf '[%s] %s\n' "$bench" "$*" >&2; }
die() { echo "$bench: $*" >&2; exit 2; }
need_arg() { [[ $# -ge 2 && -n $2 ]] || die "$1 needs a value"; }

# shared_option ARGS...: takes the options every benchmark has (--runs, --seed, --tmpdir,
# --build-dir, --keep, --no-build, --help) and sets `taken` to how many words it used; an
# option it does not know is a usage error.
shared_option() {
    case $1 in
        --runs|--seed)
            # only for a benchmark that has a default for it
            [[ -v ${1#--} ]] || { echo "$bench: unknown option: $1" >&2; usage >&2; exit 2; }
            need_arg "$@"; printf -v "${1#--}" %s "$2"; taken=2 ;;
        --tmpdir)    need_arg "$@"; tmp_base=$2; taken=2 ;;
        --build-dir) need_arg "$@"; build_dir=$2; taken=2 ;;
        --keep)      keep=1; taken=1 ;;
        --no-build)  build=0; taken=1 ;;
        -h|--help)   usage; exit 0 ;;
        *) echo "$bench: unknown option: $1" >&2; usage >&2; exit 2 ;;
    esac
}

# positive NAME...: each named variable must hold a positive integer (its option is --NAME).
positive() {
    local v
    for v in "$@"; do
        [[ ${!v} =~ ^[0-9]+$ && ${!v} -ge 1 ]] || die "--$v must be a positive integer"
    done
}

# release_build TARGET...: builds just these targets of a release build in $build_dir (other
# targets being edited elsewhere must not break the benchmark), unless --no-build; then
# checks they are there.
release_build() {
    if (( build )); then
        if [[ ! -f $build_dir/build.ninja ]]; then
            log "configuring release build in $build_dir"
            meson setup "$build_dir" "$repo" --buildtype=release -Db_ndebug=true >/dev/null
        fi
        log "building $* (ninja -C $build_dir)"
        ninja -C "$build_dir" "$@" >/dev/null
    fi
    build_dir=$(cd "$build_dir" && pwd)
    local t
    for t in "$@"; do
        [[ -x $build_dir/$t ]] || { echo "$bench: $build_dir/$t is missing (build it, or drop --no-build)" >&2; exit 1; }
    done
}
