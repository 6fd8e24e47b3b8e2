#!/usr/bin/env bash
# Fetches and unpacks the third-party sources attnviz builds from, idempotently:
#   Dear ImGui 1.90.1   Debian source package imgui   1.90.1+ds-1     (trixie)
#   SDL2 2.26.5         Debian source package libsdl2 2.26.5+dfsg-1   (for the wasm build)
# SDL2 is only unpacked here: each WebAssembly build tree compiles it with its
# own flags (cmake/sdl2_wasm.cmake says why and how); the native builds use
# Debian's libsdl2-dev. Nothing here is committed; everything lands in build/deps/.
# Usage: scripts/fetch-deps.sh [imgui] [sdl2-src]   (default: both)
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
deps="$root/build/deps"
IMGUI_VERSION=1.90.1+ds-1
SDL2_VERSION=2.26.5+dfsg-1
mkdir -p "$deps/src"

want=("$@")
[ ${#want[@]} -gt 0 ] || want=(imgui sdl2-src)

SUDO=""
[ "$(id -u)" -eq 0 ] || SUDO="sudo"

# deb-src entries for bookworm and trixie, on the same mirror as the binary
# entries (read from the machine's own apt configuration, never hard-coded).
ensure_deb_src() {
  local f=/etc/apt/sources.list.d/attnviz-src.sources
  [ -f "$f" ] && return 0
  local uri
  uri=$(awk '/^Types:.*deb/{t=1} t&&/^URIs:/{print $2; exit}' /etc/apt/sources.list.d/debian.sources 2>/dev/null || true)
  if [ -z "$uri" ]; then
    uri=$(awk '$1=="deb"{for(i=2;i<=NF;i++) if($i ~ /^(http|https|file):/){print $i; exit}}' /etc/apt/sources.list 2>/dev/null || true)
  fi
  [ -n "$uri" ] || { echo "fetch-deps: cannot find the Debian mirror in apt's sources" >&2; exit 1; }
  $SUDO tee "$f" >/dev/null <<SRC
Types: deb-src
URIs: $uri
Suites: bookworm bookworm-updates trixie
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
SRC
  $SUDO apt-get update -qq
}

# fetch_source PACKAGE VERSION: downloads the orig tarball into build/deps/src.
fetch_source() {
  local pkg=$1 ver=$2 upstream=${2%-*}
  local tarball
  tarball=$(ls "$deps/src/${pkg}_${upstream}.orig.tar."* 2>/dev/null | head -n1 || true)
  if [ -z "$tarball" ]; then
    ensure_deb_src
    (cd "$deps/src" && apt-get source --download-only -qq "$pkg=$ver" >&2) || {
      # A stale package list may not know the version yet.
      $SUDO apt-get update -qq
      (cd "$deps/src" && apt-get source --download-only -qq "$pkg=$ver" >&2)
    }
    tarball=$(ls "$deps/src/${pkg}_${upstream}.orig.tar."* | head -n1)
  fi
  echo "$tarball"
}

# unpack TARBALL DEST: unpacks with the top folder stripped, once.
unpack() {
  local tarball=$1 dest=$2
  [ -f "$dest/.unpacked" ] && return 0
  rm -rf "$dest" && mkdir -p "$dest"
  tar -xf "$tarball" -C "$dest" --strip-components=1
  touch "$dest/.unpacked"
}

for w in "${want[@]}"; do
  case "$w" in
    imgui)
      [ -f "$deps/imgui/.unpacked" ] || unpack "$(fetch_source imgui "$IMGUI_VERSION")" "$deps/imgui"
      ;;
    sdl2-src)
      [ -f "$deps/sdl2-src/.unpacked" ] || unpack "$(fetch_source libsdl2 "$SDL2_VERSION")" "$deps/sdl2-src"
      ;;
    *) echo "fetch-deps: unknown dependency '$w'" >&2; exit 1 ;;
  esac
done
