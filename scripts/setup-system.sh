#!/usr/bin/env bash
# Installs attnviz's system dependencies from Debian's packages, idempotently.
# Fast when everything is present: it checks dpkg before touching apt.
# Usage: scripts/setup-system.sh [group...]   groups: build web test bench python (default: all)
set -euo pipefail

groups=("$@")
[ ${#groups[@]} -gt 0 ] || groups=(build web test)

pkgs_build=(cmake g++ make pkg-config libsdl2-dev libgl-dev libgtest-dev nlohmann-json3-dev libfmt-dev libstb-dev zlib1g-dev
            fonts-dejavu-core fonts-droid-fallback xz-utils)
pkgs_web=(emscripten nodejs python3-fonttools unicode-data zopfli)  # the embed file's subset fonts (scripts/pack_embed.py)
pkgs_test=(chromium xvfb xauth python3-torch python3-numpy libopenblas0-pthread python3-fonttools unicode-data zopfli
           clang-14 libclang-rt-14-dev  # clang: libFuzzer for scripts/fuzz.sh
           python3-build python3-venv python3-pip python3-setuptools python3-wheel  # the notebook suite
           python3-nbclient python3-nbconvert python3-nbformat python3-ipykernel python3-pytest)
# python: `make python` (the wheel: setuptools, python3-build), after the web group's embed file
pkgs_python=(python3-build python3-venv python3-pip python3-setuptools python3-wheel python3-numpy)
pkgs_bench=(python3-torch libopenblas0-pthread)

want=()
for g in "${groups[@]}"; do
  v="pkgs_${g}[@]"
  want+=("${!v}")
done

missing=()
for p in "${want[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0

SUDO=""
[ "$(id -u)" -eq 0 ] || SUDO="sudo"
echo "setup: installing ${missing[*]}" >&2
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >&2
