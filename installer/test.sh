#!/usr/bin/env bash
# Installs what is missing, builds, and runs every test: the full build (GUI tests offscreen),
# then the same suites, widgets included, under AddressSanitizer and UBSan.
# A test that was skipped fails this script as a failed one does.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
bash "$root/installer/deps.sh"
export QT_QPA_PLATFORM=offscreen
export XDG_RUNTIME_DIR=${XDG_RUNTIME_DIR:-$(mktemp -d)}
chmod 0700 "$XDG_RUNTIME_DIR"

# ctest over one build tree (ctest options after it); fails when a test failed or was skipped
# (CTest counts a QSKIP apart from a pass, see tests/CMakeLists.txt), naming the skipped ones.
run_ctest() {
  local dir=$1; shift
  local log status=0 skipped
  log=$(mktemp)
  ctest --test-dir "$dir" --output-on-failure "$@" | tee "$log" || status=$?
  skipped=$(sed -n 's/^[[:space:]]*[0-9]* - \(.*\) (Skipped)$/\1/p' "$log")
  rm -f "$log"
  if [ -n "$skipped" ]; then
    echo "installer/test.sh: skipped tests count as failures:" $skipped >&2
    grep -h "^SKIP   : " "$dir/Testing/Temporary/LastTest.log" >&2 || true
    status=1
  fi
  return "$status"
}

# Two suites at a time (the suites hold on a loaded machine); the `timing` ones run alone.
bash "$root/installer/build.sh" build/test -DCMAKE_BUILD_TYPE=RelWithDebInfo
run_ctest "$root/build/test" -j2
bash "$root/installer/deb_test.sh" build/test  # the .deb installed, a normal user capturing, purged clean

bash "$root/installer/build.sh" build/asan -DCMAKE_BUILD_TYPE=Debug -DANTHRO_BUILD_GUI=ON \
  -DANTHRO_SANITIZE=address,undefined
run_ctest "$root/build/asan" --label-exclude timing -j2

# The libFuzzer targets (clang 14, ASan/UBSan), each run 20 s from its seeds in tests/fuzz/corpus.
CXX=clang++-14 cmake -S "$root" -B "$root/build/fuzz" -G Ninja -DANTHRO_FUZZ=ON -DANTHRO_BUILD_GUI=OFF >/dev/null
cmake --build "$root/build/fuzz" --target fuzz
run_ctest "$root/build/fuzz" -R '^fuzz_' -j2
