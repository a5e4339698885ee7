#!/usr/bin/env bash
# Installs what is missing, builds, and runs every test: the full build (GUI tests offscreen),
# then the core suites again under AddressSanitizer and UBSan.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
bash "$root/installer/deps.sh"
export QT_QPA_PLATFORM=offscreen
export XDG_RUNTIME_DIR=${XDG_RUNTIME_DIR:-$(mktemp -d)}
chmod 0700 "$XDG_RUNTIME_DIR"

bash "$root/installer/build.sh" build/test -DCMAKE_BUILD_TYPE=RelWithDebInfo
ctest --test-dir "$root/build/test" --output-on-failure
bash "$root/installer/deb_test.sh" build/test  # the .deb installed, a normal user capturing, purged clean

bash "$root/installer/build.sh" build/asan -DCMAKE_BUILD_TYPE=Debug -DANTHRO_BUILD_GUI=OFF \
  -DANTHRO_SANITIZE=address,undefined
ctest --test-dir "$root/build/asan" --output-on-failure --label-exclude timing

# The libFuzzer targets (clang 14, ASan/UBSan), each run 20 s from its seeds in tests/fuzz/corpus.
CXX=clang++-14 cmake -S "$root" -B "$root/build/fuzz" -G Ninja -DANTHRO_FUZZ=ON -DANTHRO_BUILD_GUI=OFF >/dev/null
cmake --build "$root/build/fuzz" --target fuzz
ctest --test-dir "$root/build/fuzz" -R '^fuzz_' --output-on-failure
