#!/usr/bin/env bash
# How many core/widgets/app files outside a wire format's own folder name it (issue 37's
# measure): each at most its ceiling, which only ever goes down; the goal is 5 (its
# registration and what must name it to offer it). And users see the names they know: no
# "seed 00N" (where a format came from) but in the table of old plan ids still accepted.
# Usage: format_names.sh SOURCE_DIR
set -euo pipefail
cd "$1"
# format; its folder; what names it; lines left out (CPU affinity is no wire format); ceiling
formats=(
  'Layer Zero;layerzero;layer.?zero|\blz_|LayerZero;;4'
  'token stream;tokenstream;token.?stream|TokenStream;;5'
  'session affinity;affinity;affinity;cpu.?affinity|sched_setaffinity;5'
)
failed=0
printf '%-18s %6s %8s\n' format files ceiling
for row in "${formats[@]}"; do
  IFS=';' read -r name folder pattern skip ceiling <<<"$row"
  files=$(grep -rI -i -E "$pattern" core widgets app --include='*.cpp' --include='*.h' --exclude-dir="$folder" |
    { if [ -n "$skip" ]; then grep -v -i -E "$skip" || true; else cat; fi; } | cut -d: -f1 | sort -u)
  count=$(printf '%s' "$files" | grep -c . || true)
  printf '%-18s %6d %8d\n' "$name" "$count" "$ceiling"
  if [ "$count" -gt "$ceiling" ]; then
    echo "FAIL: $name is named by $count files outside core/$folder/ (at most $ceiling):" >&2
    printf '  %s\n' $files >&2
    failed=1
  fi
done
seeds=$(grep -rIn -i -E 'seed.?00[0-9]' core widgets app resources installer CMakeLists.txt |
  grep -v -E '^core/rollout/plan.cpp:[0-9]+: +\{"seed00[0-9]-[a-z-]+", "[a-z0-9-]+"\},$' || true)
if [ -n "$seeds" ]; then
  echo "FAIL: \"seed 00N\" where users see names (say Layer Zero, token stream, session affinity):" >&2
  printf '%s\n' "$seeds" >&2
  failed=1
fi
exit $failed
