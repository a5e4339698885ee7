#!/usr/bin/env bash
# Installs what is missing, builds, and runs every test: the optimised tree (the one run.sh builds,
# GUI tests offscreen) and its .deb, then one clang tree under AddressSanitizer and UBSan that
# holds the same suites, widgets included, and the libFuzzer targets. A test that was skipped
# fails this script as a failed one does. Ends with the phase table (docs/testing.md).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
export QT_QPA_PLATFORM=offscreen
export XDG_RUNTIME_DIR=${XDG_RUNTIME_DIR:-$(mktemp -d)}
chmod 0700 "$XDG_RUNTIME_DIR"

# Each phase's wall time and outcome, printed at the end however the script ends.
phases=() failed=0 started=$SECONDS tests_passed=0 tests_failed=0
phase() {  # phase NAME COMMAND...
  local name=$1 start=$SECONDS status=0; shift
  echo "installer/test.sh: phase '$name'"
  "$@" || status=$?
  phases+=("$name|$((SECONDS - start))|$status")
  [ "$status" -eq 0 ] || failed=1
  return "$status"
}
phase_table() {
  local row name seconds status
  echo
  echo "installer/test.sh phases on $(nproc) cores, $(date -u +%Y-%m-%d):"
  printf '  %-42s %8s  %s\n' phase "wall" result
  for row in "${phases[@]}"; do
    IFS='|' read -r name seconds status <<<"$row"
    printf '  %-42s %5dm%02ds  %s\n' "$name" $((seconds / 60)) $((seconds % 60)) \
      "$([ "$status" -eq 0 ] && echo ok || echo "FAILED ($status)")"
  done
  printf '  %-42s %5dm%02ds\n' total $(((SECONDS - started) / 60)) $(((SECONDS - started) % 60))
  echo "tests: $tests_passed passed, $tests_failed failed"
}
trap phase_table EXIT

# ctest over one build tree (ctest options after it); fails when a test failed or was skipped
# (CTest counts a QSKIP apart from a pass, see tests/CMakeLists.txt), naming the skipped ones.
run_ctest() {
  local dir=$1; shift
  local log status=0 skipped failed_here ran_here
  log=$(mktemp)
  ctest --test-dir "$dir" --output-on-failure "$@" | tee "$log" || status=$?
  skipped=$(sed -n 's/^[[:space:]]*[0-9]* - \(.*\) (Skipped)$/\1/p' "$log")
  read -r failed_here ran_here < <(sed -n 's/.* tests passed, \([0-9]*\) tests\{0,1\} failed out of \([0-9]*\)$/\1 \2/p' "$log" | tail -1) || true
  tests_failed=$((tests_failed + ${failed_here:-0})) tests_passed=$((tests_passed + ${ran_here:-0} - ${failed_here:-0}))
  rm -f "$log"
  if [ -n "$skipped" ]; then
    echo "installer/test.sh: skipped tests count as failures:" $skipped >&2
    grep -h "^SKIP   : " "$dir/Testing/Temporary/LastTest.log" >&2 || true
    status=1
  fi
  return "$status"
}

phase "deps (apt-get)" bash "$root/installer/deps.sh"

# The optimised tree, as run.sh builds it plus the tests: two suites at a time (the suites hold
# on a loaded machine), those labelled `timing` alone.
release=build/release
phase "build $release (gcc, Release)" bash "$root/installer/build.sh" $release -DCMAKE_BUILD_TYPE=Release
phase "ctest $release" run_ctest "$root/$release" -j2 || true
# The .deb installed, a normal user capturing, purged clean.
phase ".deb test" bash "$root/installer/deb_test.sh" $release || true

# One clang tree for the sanitizers and the fuzz targets, so core is compiled twice in all, not
# three times. -O0 with line tables: the sanitizers' reports keep file and line.
sanitize=build/sanitize
phase "build $sanitize (clang, ASan+UBSan)" env CXX=clang++-14 bash "$root/installer/build.sh" $sanitize \
  -DCMAKE_BUILD_TYPE=Debug "-DCMAKE_CXX_FLAGS_DEBUG=-O0 -gline-tables-only" -DANTHRO_FUZZ=ON -DANTHRO_BUILD_GUI=ON
# Less `timing` (promised in optimised builds) and `scale` (docs/testing.md lists those suites).
phase "ctest $sanitize" run_ctest "$root/$sanitize" --label-exclude 'timing|scale|fuzz' -j2 || true
# The libFuzzer targets, each run 20 s from its seeds in tests/fuzz/corpus; a crash's stack with
# file and line (clang-14's symbolizer is not on PATH by that name).
export ASAN_SYMBOLIZER_PATH=/usr/lib/llvm-14/bin/llvm-symbolizer
phase "fuzz targets" run_ctest "$root/$sanitize" --label-regex fuzz -j2 || true

exit "$failed"
