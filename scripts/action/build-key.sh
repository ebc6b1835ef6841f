#!/usr/bin/env bash
# The animidx GitHub Action (action.yml), step 1: where animidx is built and its cache key.
#
# The key names what the binary is made of: the action's source files (a hash of their
# contents: the same commit gives the same key, whatever ref it was fetched by), the OS release
# and architecture of the runner (the binary links the system's libraries), and the URL the
# SARIF rules link to (built in). Outputs (GITHUB_OUTPUT): key, prefix (the install directory
# actions/cache keeps), docs-url, index-dir (where `animidx lint` keeps its index).
set -euo pipefail

src=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
out=${GITHUB_OUTPUT:?GITHUB_OUTPUT is not set: this script is a step of the GitHub Action}

# Where the documentation the SARIF rules link to is published: the action's own repository at
# the ref it was used at (the runner fetches OWNER/REPO@REF to .../_actions/OWNER/REPO/REF), or,
# for a local action (uses: ./...), the repository being built at its commit.
docs_url=
action_path=${GITHUB_ACTION_PATH:-$src}
server=${GITHUB_SERVER_URL:-https://github.com}
case $action_path in
    */_actions/*/*/*)
        rest=${action_path#*/_actions/}
        IFS=/ read -r owner repo ref sub <<< "$rest"
        docs_url="$server/$owner/$repo/blob/$ref${sub:+/$sub}" ;;
    *)
        ws=${GITHUB_WORKSPACE:-}
        if [[ -n $ws && -n ${GITHUB_REPOSITORY:-} && -n ${GITHUB_SHA:-} &&
              ( $action_path == "$ws" || $action_path == "$ws"/* ) ]]; then
            sub=${action_path#"$ws"}
            docs_url="$server/$GITHUB_REPOSITORY/blob/$GITHUB_SHA$sub"
        fi ;;
esac

os=$(. /etc/os-release 2>/dev/null && echo "${ID:-linux}-${VERSION_ID:-rolling}" || echo linux)
arch=$(uname -m)
# The sources: every file but version-control data and build directories (build*/).
hash=$(cd "$src" && {
        find . \( -path ./.git -o -path './build*' \) -prune -o -type f -print0 |
            LC_ALL=C sort -z | xargs -0 sha256sum
        echo "docs_url=$docs_url os=$os arch=$arch"
    } | sha256sum | cut -c1-20)
key="animidx-build-$os-$arch-$hash"
prefix="${RUNNER_TOOL_CACHE:-${RUNNER_TEMP:?RUNNER_TEMP is not set}}/animidx/$hash"
# as lint finds it: $XDG_CACHE_HOME/animidx when that is absolute, else ~/.cache/animidx
if [[ ${XDG_CACHE_HOME:-} == /* ]]; then index_dir=$XDG_CACHE_HOME/animidx; else index_dir=$HOME/.cache/animidx; fi

{
    echo "key=$key"
    echo "prefix=$prefix"
    echo "docs-url=$docs_url"
    echo "index-dir=$index_dir"
} >> "$out"
echo "animidx: build key $key (installed in $prefix)"
