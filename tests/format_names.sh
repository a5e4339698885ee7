#!/usr/bin/env bash
# How many core/widgets/app files outside a wire format's own folder name it (issue 37's
# measure): each at most its ceiling, which only ever goes down; the goal is 5 (its
# registration and what must name it to offer it). Usage: format_names.sh SOURCE_DIR
set -euo pipefail
cd "$1"
# format; its folder; what names it; lines left out (CPU affinity is no wire format); ceiling
formats=(
  'Layer Zero;layerzero;layer.?zero|\blz_|LayerZero;;47'
  'token stream;tokenstream;token.?stream|TokenStream;;35'
  'session affinity;affinity;affinity;cpu.?affinity|sched_setaffinity;43'
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
exit $failed
