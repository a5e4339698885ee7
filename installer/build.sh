#!/usr/bin/env bash
# Configures and builds one build tree: build.sh DIR [cmake options...] [-- TARGET...]
# (every target when none is named).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
dir=$1; shift
options=() targets=()
while [ $# -gt 0 ]; do
  if [ "$1" = -- ]; then shift; targets=("$@"); break; fi
  options+=("$1"); shift
done
# ccache keyed by paths relative to the checkout, so a clone in another folder (as CI makes)
# hits what this one compiled; and large enough for both trees (test.sh) with room to spare.
export CCACHE_BASEDIR=$root CCACHE_NOHASHDIR=true CCACHE_MAXSIZE=${CCACHE_MAXSIZE:-12G}
cmake -S "$root" -B "$root/$dir" -G Ninja "${options[@]}" >/dev/null
cmake --build "$root/$dir" ${targets[@]:+--target "${targets[@]}"}
