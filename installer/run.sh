#!/usr/bin/env bash
# The main job: installs what is missing, builds Release, and starts the workbench against the
# embedded local endpoint; with no display it runs the headless demo instead.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
bash "$root/installer/deps.sh"
# Only what the main job runs: the GUI, anthro-wb, its capture helper and report program (test.sh
# builds the rest of the same tree: tests, benchmarks, the Wireshark plugin).
bash "$root/installer/build.sh" build/release -DCMAKE_BUILD_TYPE=Release \
  -- anthro-workbench anthro-wb anthro-capture anthro-wb-report
bin="$root/build/release/app"
if [ -n "${DISPLAY:-}${WAYLAND_DISPLAY:-}" ]; then
  export XDG_RUNTIME_DIR=${XDG_RUNTIME_DIR:-$(mktemp -d)}
  chmod 0700 "$XDG_RUNTIME_DIR"
  exec "$bin/anthro-workbench" "$@"
fi
echo "No display: running the headless demo (anthro-wb demo)."
exec "$bin/anthro-wb" demo "$@"
