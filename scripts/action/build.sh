#!/usr/bin/env bash
# The animidx GitHub Action (action.yml), step 2, after actions/cache restored the install
# directory if it could: builds animidx unless the restored one runs, and puts it on PATH.
#
# The Debian/Ubuntu packages come from scripts/deps.sh (apt-get, through sudo on GitHub's
# runners); they are installed when a build is needed, or when a restored binary does not run
# (its libraries are missing on this runner). Needs libuv >= 1.44 and meson >= 0.63: Ubuntu
# 24.04 (ubuntu-latest) or Debian 12.
#
# Environment: ANIMIDX_PREFIX (from build-key.sh), ANIMIDX_DOCS_URL (where the SARIF rules
# link to; empty: the default). Outputs (GITHUB_OUTPUT): version (`animidx --version`),
# version-key (the same as a cache key), built (true when this run built it).
set -euo pipefail

src=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
prefix=${ANIMIDX_PREFIX:?ANIMIDX_PREFIX is not set: run build-key.sh first}
out=${GITHUB_OUTPUT:?GITHUB_OUTPUT is not set: this script is a step of the GitHub Action}
bin=$prefix/bin/animidx

runs() { [[ -x $bin ]] && "$bin" --version >/dev/null 2>&1; }

deps() {
    if [[ $(id -u) -ne 0 ]] && command -v sudo >/dev/null && sudo -n true 2>/dev/null; then
        sudo -n "$src/scripts/deps.sh"
    else
        "$src/scripts/deps.sh"
    fi
}

built=false
if runs; then
    echo "animidx: using the cached build in $prefix"
else
    [[ -x $bin ]] && echo "animidx: the cached build does not run here; installing its libraries"
    deps
    if ! runs; then
        echo "animidx: building animidx (release) from $src"
        build=${RUNNER_TEMP:?RUNNER_TEMP is not set}/animidx-build
        rm -rf "$build"
        meson setup "$build" "$src" --buildtype=release -Db_ndebug=true \
            -Ddocs_url="${ANIMIDX_DOCS_URL:-}" >/dev/null
        ninja -C "$build" cli/animidx
        mkdir -p "$prefix/bin"
        install -m 755 "$build/cli/animidx" "$bin"
        rm -rf "$build"
        built=true
    fi
fi
version=$("$bin" --version)
echo "$prefix/bin" >> "${GITHUB_PATH:?GITHUB_PATH is not set}"
{
    echo "version=$version"
    # the version as a cache key (keys take no commas): "animidx-0.1.0-index-schema-1-..."
    echo "version-key=$(printf '%s' "$version" | tr -cs 'A-Za-z0-9.' '-' | sed 's/-$//')"
    echo "built=$built"
} >> "$out"
echo "animidx: $version"
