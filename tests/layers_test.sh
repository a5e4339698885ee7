#!/usr/bin/env bash
# core/layers.cmake against small trees: an include of a later area and a folder the README's
# line leaves out each stop it naming the file; includes downwards pass. Then the real tree
# passes. Usage: layers_test.sh SOURCE_DIR
set -euo pipefail
src=$1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
check() { cmake -DANTHRO_ROOT="$1" -P "$src/core/layers.cmake" 2>&1; }
mkdir -p "$tmp/t/core/low" "$tmp/t/core/high"
printf '# x\n\nCore layers, lowest first (cmake checks): `low` < `high`\n' >"$tmp/t/README.md"
printf '#include "low/a.h"\n#include <vector>\n' >"$tmp/t/core/high/b.cpp"
printf '#pragma once\n#include "low/c.h"\n' >"$tmp/t/core/low/a.h"
check "$tmp/t" >/dev/null || { echo "a downward include was refused"; exit 1; }
printf '#include "high/b.h"\n' >"$tmp/t/core/low/d.cpp"
if out=$(check "$tmp/t"); then echo "an upward include passed"; exit 1; fi
grep -q 'core/low/d.cpp: #include "high/b.h": low/ is below high/' <<<"$out" || { echo "unexpected: $out"; exit 1; }
rm "$tmp/t/core/low/d.cpp"
mkdir "$tmp/t/core/stray"
if out=$(check "$tmp/t"); then echo "an area missing from the README's line passed"; exit 1; fi
grep -q 'core/stray/: not in README.md' <<<"$out" || { echo "unexpected: $out"; exit 1; }
rmdir "$tmp/t/core/stray"
printf '# no line\n' >"$tmp/t/README.md"
if out=$(check "$tmp/t"); then echo "a README without the line passed"; exit 1; fi
check "$src" >/dev/null || { check "$src"; exit 1; }
echo "layers: ok"
