#!/usr/bin/env bash
# The HTTP cache conformance suite (http-tests/cache-tests, as cache-tests.fyi scores browsers and proxy caches) run
# against Sluice's private cache behind cache-tests-proxy: it fails on a failure of a test the suite marks required,
# or when fewer tests pass than .ci/cache-tests-baseline.json records, and prints the count beside the browsers'.
#
#     .ci/cache-tests.sh                    # run and compare with the baseline
#     .ci/cache-tests.sh --write-baseline   # run and record what passes as the new baseline
#
# The suite is not part of the repository: it is read from SLUICE_CACHE_TESTS_DIR, by default ../shared/cache-tests
# beside the repository, and skipped with a notice where that directory is missing. Its origin server and client need
# Node.js 18 or later and no npm package.
set -euo pipefail
cd "$(dirname "$0")/.."

suite="${SLUICE_CACHE_TESTS_DIR:-../shared/cache-tests}"
if [ ! -f "$suite/tests/index.mjs" ] || [ ! -f "$suite/test-engine/client/runner.mjs" ]; then
    echo "cache-tests skipped: no suite at $suite (set SLUICE_CACHE_TESTS_DIR to a copy of http-tests/cache-tests)"
    exit 0
fi
suite="$(cd "$suite" && pwd)"
if ! command -v node >/dev/null; then
    echo "cache-tests: the suite at $suite needs Node.js 18 or later, and there is no node on PATH" >&2
    exit 1
fi

swift build --product cache-tests-proxy
proxy="$(swift build --product cache-tests-proxy --show-bin-path)/cache-tests-proxy"
node .ci/cache-tests.mjs "$suite" "$proxy" .ci/cache-tests-baseline.json "$@"
