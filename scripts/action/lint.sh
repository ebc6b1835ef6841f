#!/usr/bin/env bash
# The animidx GitHub Action (action.yml), step 3: runs `animidx lint` on the inputs. It never
# fails the step itself (the SARIF upload and the summary still run); the last step exits with
# lint's status.
#
# Runs from the repository root (GITHUB_WORKSPACE), so that SARIF locations are repository
# paths; the paths, base layers, baseline, suppressions and config are taken relative to the
# working-directory input. Two runs: --format json (the summary's data; its lines per code and
# verdict go to the log), then --format sarif (the index is current by then: a stat walk).
#
# Environment (the action's inputs): INPUT_PATHS, INPUT_BASE (one per line, or several on one
# line separated by spaces), INPUT_FAIL_ON, INPUT_BASELINE, INPUT_CONFIG, INPUT_SUPPRESSIONS,
# INPUT_WORKING_DIRECTORY, INPUT_SARIF ("true": write SARIF). Outputs (GITHUB_OUTPUT):
# exit-code, json-file, sarif-file (empty when none was written).
set -uo pipefail

out=${GITHUB_OUTPUT:?GITHUB_OUTPUT is not set: this script is a step of the GitHub Action}
dir=${RUNNER_TEMP:?RUNNER_TEMP is not set}/animidx
mkdir -p "$dir"
json=$dir/lint.json
sarif=$dir/animidx.sarif
rm -f "$json" "$sarif"
cd "${GITHUB_WORKSPACE:-.}" || exit 3
wd=${INPUT_WORKING_DIRECTORY:-.}
wd=${wd%/}

# words LIST: one per line; a list of one line is split at spaces (no globbing)
words() {
    local line w
    if [[ $1 == *$'\n'* ]]; then
        while IFS= read -r line; do
            line=${line#"${line%%[![:space:]]*}"}
            line=${line%"${line##*[![:space:]]}"}
            [[ -n $line ]] && printf '%s\n' "$line"
        done <<< "$1"
    else
        read -r -a ws <<< "$1"
        for w in "${ws[@]}"; do printf '%s\n' "$w"; done
    fi
}
# in_wd PATH: PATH as seen from the repository root
in_wd() { if [[ $1 == /* || $wd == . || -z $wd ]]; then printf '%s' "$1"; else printf '%s/%s' "$wd" "$1"; fi; }

args=(lint)
while IFS= read -r p; do args+=("$(in_wd "$p")"); done < <(words "${INPUT_PATHS:-Data}")
if (( ${#args[@]} == 1 )); then
    echo "::error title=animidx lint::the 'paths' input is empty: give the directories to lint (a mod's Data)"
    echo "exit-code=2" >> "$out"
    exit 0
fi
while IFS= read -r b; do args+=(--base "$(in_wd "$b")"); done < <(words "${INPUT_BASE:-}")
[[ -n ${INPUT_FAIL_ON:-} ]] && args+=(--fail-on "$INPUT_FAIL_ON")
[[ -n ${INPUT_BASELINE:-} ]] && args+=(--baseline "$(in_wd "$INPUT_BASELINE")")
[[ -n ${INPUT_SUPPRESSIONS:-} ]] && args+=(--suppressions "$(in_wd "$INPUT_SUPPRESSIONS")")
[[ -n ${INPUT_CONFIG:-} ]] && args+=(--config "$(in_wd "$INPUT_CONFIG")")

echo "animidx ${args[*]}"
animidx "${args[@]}" --format json > "$json"
rc=$?
{
    echo "exit-code=$rc"
    echo "json-file=$( ((rc <= 1)) && echo "$json")"
} >> "$out"
written=
if (( rc <= 1 )) && [[ ${INPUT_SARIF:-true} == true ]]; then
    animidx "${args[@]}" --format sarif --quiet > "$sarif"
    src=$?
    if (( src <= 1 )); then
        written=$sarif
    else
        echo "::warning title=animidx lint::the SARIF run exited $src; no SARIF is uploaded"
    fi
fi
echo "sarif-file=$written" >> "$out"
exit 0
