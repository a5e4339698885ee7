#!/usr/bin/env bash
# Installs every Debian package the build, the apps and the tests need.
# Idempotent: packages already present are skipped, so a second run is quick.
set -euo pipefail

packages=(
  build-essential cmake ninja-build ccache pkg-config lld
  qt6-base-dev qt6-base-dev-tools qt6-tools-dev qt6-l10n-tools qt6-svg-dev libqcustomplot-dev
  fonts-noto-core fonts-noto-cjk fonts-noto-color-emoji
  # Qt's own texts (standard buttons, file dialogs, text menus) in 简体中文
  qt6-translations-l10n
  libssl-dev libsodium-dev libpcap-dev libnghttp2-dev libcap-dev libcap2-bin nlohmann-json3-dev libboost-dev
  libcurl4-openssl-dev
  xvfb xauth tshark tcpdump curl imagemagick poppler-utils openssl
  # CPack's shlibdeps (the .deb test) reads the programs with file(1)
  file
  clang-14 libclang-rt-14-dev
  python3 python3-jsonschema python3-numpy python3-scipy python3-cryptography
  # metrics out: a real Pushgateway, and an independent parser of the text format
  prometheus-pushgateway python3-prometheus-client
  nodejs
  # manual pages and icons made at build time; the completion, man, AppStream and desktop-entry checks
  help2man librsvg2-bin bash-completion man-db appstream desktop-file-utils
  # the Wireshark plugin (app/wireshark), built only when these are present
  libwireshark-dev libgcrypt20-dev libglib2.0-dev
  # a real forward proxy for the client's proxy tests (tests/forward_proxy.h); openssl hashes its password
  squid
)
# npm: the SDK check installs the official npm clients with `npm ci` (tests/CMakeLists.txt,
# sdk_npm_install). Debian's nodejs comes without it (Debian's package npm); NodeSource's nodejs,
# which this project's machines have, bundles its own npm and conflicts with Debian's, so npm is
# asked for only when none is on PATH.
command -v npm >/dev/null 2>&1 || packages+=(npm)

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0

if [ "$(id -u)" -ne 0 ]; then
  echo "installer/deps.sh: missing packages (${missing[*]}); run as root to install them" >&2
  exit 1
fi
export DEBIAN_FRONTEND=noninteractive
# tshark asks whether non-root users may capture; answer before it can block.
echo "wireshark-common wireshark-common/install-setuid boolean false" | debconf-set-selections
apt-get update -qq
apt-get install -y -qq --no-install-recommends "${missing[@]}"
