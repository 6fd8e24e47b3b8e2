#!/usr/bin/env bash
# test-notebooks.sh: `make test`'s notebook suite (scripts/suite.sh notebook), on the
# packed web app already built (build/embed/attnviz-embed.js):
#   1. the wheel (scripts/build-python.sh)
#   2. a fresh venv with it, the Python tests (pytest: build/test-reports/notebook-python.xml),
#      the example notebooks and the README's demo executed and converted to HTML
#      (tests/python/run_notebooks.py)
#   3. the embed file's own browser test (tests/e2e/embed.test.mjs) and those pages
#      opened offline in Chromium (tests/python/notebooks.test.mjs), one report:
#      build/test-reports/notebook.xml
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
reports=build/test-reports
mkdir -p "$reports"
status=0
scripts/build-python.sh || exit 1
# The Python tests run the states through the wasm CLI (built with the site).
ATTNVIZ_CLI=${ATTNVIZ_CLI:-"node --no-experimental-fetch $root/build/wasm/attnviz-cli.js"} \
  /usr/bin/python3 tests/python/run_notebooks.py --junit "$reports/notebook-python.xml" || status=1
[ -d build/python/run ] || exit 1
node --test --test-concurrency=1 --test-reporter=spec --test-reporter-destination=stdout \
  --test-reporter=junit --test-reporter-destination="$reports/notebook.xml" \
  tests/e2e/embed.test.mjs tests/python/notebooks.test.mjs || status=1
exit $status
