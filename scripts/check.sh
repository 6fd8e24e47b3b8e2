#!/usr/bin/env bash
# check.sh: `make check`, the fast loop while changing code (docs/build.md).
#   1. builds build/native incrementally and runs its unit tests (engine, UI
#      without a window, CLI, bench smoke; not the desktop-window tests nor the
#      peers, which `make test` runs);
#   2. picks the browser tests of what changed since HEAD (committed or not, new
#      files included), builds the two web apps incrementally and runs those tests.
# E2E=share,export chooses the browser test files (E2E=all: every one, E2E=none:
# none). `make test` stays the full gate: every tree, sanitizers, fuzzing, wasm.
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
export NODE_PATH=${NODE_PATH:-/usr/share/nodejs}
trees=(make --no-print-directory -j"${JOBS:-$(nproc)}" -f scripts/trees.mk)
start=$(date +%s)

# The browser test files for the changed paths (one per line).
e2e_for_changes() {
  local changed
  changed=$( { git diff --name-only HEAD; git ls-files --others --exclude-standard; } 2>/dev/null | sort -u)
  [ -n "$changed" ] || return 0
  local f picks=()
  while read -r f; do
    case "$f" in
      tests/e2e/*.test.mjs) picks+=("$(basename "$f" .test.mjs)") ;;
      tests/e2e/*) picks+=(visualizer) ;;
      ui/app/*/share* | ui/platform/*share* | web/site/*share*) picks+=(share statefile) ;;
      ui/app/*/export* | ui/platform/*export* | ui/platform/png_* | web/site/*export*) picks+=(export statefile) ;;
      engine/src/*/state_file* | engine/src/*/weights_file* | ui/app/*/weights_import* | web/site/*weights*) picks+=(statefile weights) ;;
      ui/app/*/panel_compare* | engine/src/*/analysis*) picks+=(compare) ;;
      ui/app/*/panel_lines*) picks+=(lines) ;;
      ui/app/*/panel_inspector* | ui/app/*/inspector* | engine/src/*/explain*) picks+=(inspector) ;;
      ui/app/*/help* | ui/app/*/*keyboard* | ui/app/*/a11y*) picks+=(keyboard) ;;
      ui/app/*/panel_params* | ui/app/*/panels.* | ui/app/*/layout*) picks+=(layout keyboard visualizer) ;;
      ui/app/*/heatmap* | ui/app/*/panel_stages* | ui/app/*/stage_flow* | ui/app/*/fonts*) picks+=(legible visualizer) ;;
      ui/app/*/engine_session* | engine/src/*/materialize* | engine/src/*/pipeline* | engine/src/*/carry* | engine/src/*/change_set* | engine/src/*/rebuild*) picks+=(lazy visualizer) ;;
      ui/platform/runner* | ui/platform/frame_pacer*) picks+=(idle keyboard load) ;;
      engine/src/*/parallel* | ui/platform/main_web* | web/site/*glue*) picks+=(threads load idle embed) ;;
      web/embed/* | scripts/pack_embed* | web/site/*page* | web/site/*lang*) picks+=(embed load language) ;;
      ui/app/*/menu_file*) picks+=(hostile torch statefile) ;;
      ui/app/*/history* | engine/src/*/state_json* | engine/src/*/json_text*) picks+=(hostile) ;;
      ui/app/*/menu_edit*) picks+=(share torch statefile) ;;
      engine/src/*/torch_script* | engine/cli/*) picks+=(torch) ;;
      web/* | ui/platform/*) picks+=(load visualizer) ;;
      ui/* | assets/* | engine/* | CMakeLists.txt | cmake/*) picks+=(visualizer) ;;
    esac
  done <<< "$changed"
  [ ${#picks[@]} -gt 0 ] && printf '%s\n' "${picks[@]}" | sort -u
  return 0
}

case "${E2E:-}" in
  "") mapfile -t e2e < <(e2e_for_changes) ;;
  none) e2e=() ;;
  all) mapfile -t e2e < <(ls tests/e2e/*.test.mjs | xargs -n1 basename | sed 's/\.test\.mjs$//') ;;
  *) IFS=, read -r -a e2e <<< "$E2E" ;;
esac
files=()
for n in "${e2e[@]}"; do
  [ -f "tests/e2e/$n.test.mjs" ] || { echo "check.sh: no browser test tests/e2e/$n.test.mjs" >&2; exit 2; }
  files+=("tests/e2e/$n.test.mjs")
done

status=0
echo "== check: native build (incremental)${files[*]:+ and both web apps}"
targets=(b-native)
[ ${#files[@]} -gt 0 ] && targets+=(site)
[[ " ${e2e[*]} " == *" embed "* ]] && targets+=(embed)  # build/embed/attnviz-embed.js
"${trees[@]}" "${targets[@]}" || exit 1

echo "== check: native unit tests"
log=build/check-native.log
if ctest --test-dir build/native -E '^(desktop_.*|bench_peers_.*)$' --output-on-failure \
     -j"${JOBS:-$(nproc)}" >"$log" 2>&1; then
  tail -n 3 "$log"
else
  status=1
  tail -n 60 "$log"
fi

if [ ${#files[@]} -gt 0 ]; then
  echo "== check: browser tests of what changed: ${e2e[*]}"
  node --test --test-concurrency="${E2E_CONCURRENCY:-2}" "${files[@]}" || status=1
else
  echo "== check: no browser test picked (nothing under ui/, web/, engine/ or tests/e2e/ changed; E2E=all runs them all)"
fi
echo "== check: $([ $status -eq 0 ] && echo passed || echo FAILED) in $(( $(date +%s) - start ))s"
exit $status
