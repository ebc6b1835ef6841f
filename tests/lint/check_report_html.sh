#!/usr/bin/env bash
# Renders report.html in headless Chromium and checks the screenshot is not blank.
#
#   tests/lint/check_report_html.sh REPORT.html OUT.png [--need-color RRGGBB ...]
#
# Exit status: 0 the page rendered (tests/lint/pngcheck.py passed), 1 it did not, 77 Chromium is
# not installed (Debian: apt-get install -y chromium). Nothing is fetched from the network: the
# page is self-contained and the browser runs with networking features off.
set -euo pipefail
if [ $# -lt 2 ]; then
    sed -n '2,9p' "$0" >&2
    exit 2
fi
html=$1
png=$2
shift 2
browser=$(command -v chromium || command -v chromium-browser || true)
if [ -z "$browser" ]; then
    echo "chromium is not installed (apt-get install -y chromium)" >&2
    exit 77
fi
profile=$(mktemp -d)
trap 'rm -rf "$profile"' EXIT
rm -f "$png"
# --no-sandbox: the tests run as root in CI containers, where Chromium's sandbox cannot start.
timeout 120 "$browser" --headless --no-sandbox --disable-gpu --disable-background-networking \
    --disable-component-update --disable-sync --no-first-run --user-data-dir="$profile" \
    --hide-scrollbars --window-size=1200,1800 --screenshot="$png" \
    "file://$(realpath "$html")" >/dev/null 2>&1 || true
if [ ! -s "$png" ]; then
    echo "chromium wrote no screenshot" >&2
    exit 1
fi
# not exec: the EXIT trap removes the browser profile
python3 "$(dirname "$0")/pngcheck.py" "$png" "$@"
