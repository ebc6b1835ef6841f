#!/usr/bin/env bash
# Installs the validators the lint tests check animidx's CI outputs with, into build-tools/
# (idempotent; safe to run from several tests at once):
#   - Debian: xmllint (libxml2-utils) for the Jenkins JUnit schema checked in as
#     tests/lint/schemas/jenkins-junit.xsd, and jsonschema (python3-jsonschema);
#   - npm: the SARIF multitool (@microsoft/sarif-multitool, MIT: the SARIF 2.1.0 schema and
#     GitHub's ingestion rules) and the SARIF 2.1.0 JSON schema of @microsoft/jest-sarif (MIT),
#     which jsonschema validates against.
# Prints the tools directory. Exit status 1 when something cannot be installed.
set -euo pipefail
cd "$(dirname "$0")/.."
tools=${AMX_TEST_TOOLS:-$PWD/build-tools}
mkdir -p "$tools"
exec 9>"$tools/.lock"
flock 9
scripts/deps.sh libxml2-utils python3-jsonschema >&2
if ! command -v npm >/dev/null; then
    scripts/deps.sh npm >&2
fi
multitool=$tools/npm/node_modules/@microsoft/sarif-multitool-linux/Sarif.Multitool
if [ ! -x "$multitool" ]; then
    npm install --prefix "$tools/npm" --no-save --no-audit --no-fund --loglevel=error \
        @microsoft/sarif-multitool@5.7.0 >&2
    chmod u+x "$multitool" # its postinstall step does this; newer npm skips install scripts
fi
schema=$tools/sarif-schema-2.1.0.json
if [ ! -s "$schema" ]; then
    tmp=$(mktemp -d)
    (cd "$tmp" && npm pack --silent @microsoft/jest-sarif@1.0.0-beta.0 >/dev/null &&
        tar xzf ./*.tgz package/lib/schemas/sarif-2.1.0-rtm.5.json)
    mv "$tmp/package/lib/schemas/sarif-2.1.0-rtm.5.json" "$schema"
    rm -rf "$tmp"
fi
echo "$tools"
