#!/usr/bin/env bash
# The animidx GitHub Action (action.yml), the last step: the job summary (summary.py: the
# verdict, findings per code, the first errors) and the job's verdict: exits with lint's status
# (0 passed, 1 findings at or above fail-on, 2 usage or configuration, 3 I/O).
#
# Environment: ANIMIDX_EXIT_CODE and ANIMIDX_JSON (from lint.sh), GITHUB_STEP_SUMMARY.
set -uo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
rc=${ANIMIDX_EXIT_CODE:-}
code=$rc
[[ $rc =~ ^[0-9]+$ ]] || { rc=3; code=none; }   # lint did not run: an earlier step failed
python3 "$here/summary.py" "${ANIMIDX_JSON:-}" "$code" ||
    echo "::warning title=animidx lint::the job summary could not be written"
exit "$rc"
