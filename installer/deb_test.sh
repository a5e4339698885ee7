#!/usr/bin/env bash
# The .deb as a user meets it. As root: bash installer/deb_test.sh [BUILD_DIR]  (default build/test)
#  1. packs BUILD_DIR (Release or RelWithDebInfo) with CPack and installs the .deb with apt-get,
#     its dependencies resolved from Debian; the capture helper must have its capabilities;
#  2. a normal user (useradd) captures on lo with the installed `anthro-wb capture` while an
#     `anthro-wb session` runs against an `anthro-wb endpoint` of that user, and the pcapng holds
#     the session, decrypted with the keys it embeds (`anthro-wb analyze`);
#  3. the same user's installed `anthro-workbench --capture-check` (offscreen) captures a
#     session from the session page and one from Session → Start capture…;
#  4. a copy of the helper without capabilities gives that user the setcap command;
#  5. the manual pages are found by `man -w`, bash-completion's loader finds anthro-wb's completion,
#     the desktop entry, its AppStream metainfo, icons and pcapng MIME type are in place, and the
#     entry is offered for pcap and pcapng (mimeinfo.cache) without becoming their default;
#  6. `apt-get purge` leaves none of the package's paths, nor the entry in mimeinfo.cache, and the
#     user is removed.
# Idempotent (a user or package left by an earlier run is removed first); cleans up on failure.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=$root/${1:-build/test}
user=anthro-deb-test
package=anthro-workbench
helper=/usr/lib/anthro-workbench/anthro-capture

fail() { echo "deb_test: FAIL: $*" >&2; exit 1; }
step() { echo "deb_test: $*"; }
[ "$(id -u)" -eq 0 ] || fail "run as root (it installs a package and adds a user)"
[ -f "$build/CPackConfig.cmake" ] || fail "$build is not a configured build tree (installer/build.sh builds one)"

remove_user() {
  if id "$user" >/dev/null 2>&1; then userdel -r "$user" >/dev/null 2>&1 || userdel -f -r "$user" >/dev/null 2>&1 || true; fi
}
purge_package() {
  if dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -qv "not-installed"; then
    DEBIAN_FRONTEND=noninteractive apt-get purge -y -qq "$package" >/dev/null
  fi
}

work=$(mktemp -d /tmp/anthro-deb-test.XXXXXX)
chmod 0755 "$work"  # the user runs the capability-less helper copy from here
pids=()
cleanup() {
  local status=$?
  for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
  for pid in "${pids[@]}"; do wait "$pid" 2>/dev/null || true; done
  remove_user
  purge_package || true
  rm -rf "$work" "/tmp/anthro-deb-xdg"
  [ $status -eq 0 ] && step "passed" || echo "deb_test: failed (status $status)" >&2
}
trap cleanup EXIT
remove_user
purge_package

step "building and packing $build"
cmake --build "$build" --target anthro-wb anthro-workbench anthro-capture dist_files
cpack -G DEB --config "$build/CPackConfig.cmake" -B "$work/pkg" >/dev/null
deb=$(ls "$work"/pkg/${package}_*.deb)
dpkg-deb -I "$deb" | grep -E "Depends|postinst|prerm|postrm" | sed 's/^/  /'

step "apt-get install $deb"
export DEBIAN_FRONTEND=noninteractive
if ! apt-get install -y -qq "$deb" >"$work/apt.log" 2>&1; then
  apt-get update -qq && apt-get install -y -qq "$deb" >"$work/apt.log" 2>&1 || { cat "$work/apt.log"; fail "apt-get install"; }
fi
dpkg -L "$package" >"$work/files"
grep -qx "$helper" "$work/files" || fail "the package does not hold $helper"
caps=$(getcap "$helper")
step "  $caps"
echo "$caps" | grep -q "cap_net_admin,cap_net_raw=eip" || fail "postinst did not give $helper its capabilities: '$caps'"

useradd -m -s /bin/sh "$user"
home=$(getent passwd "$user" | cut -d: -f6)
install -d -m 0700 -o "$user" -g "$user" /tmp/anthro-deb-xdg
# The user's own environment: nothing of root's, no ANTHRO_CAPTURE_HELPER.
as_user() {
  runuser -u "$user" -- env -i HOME="$home" PATH=/usr/bin:/bin LANG=C.UTF-8 XDG_RUNTIME_DIR=/tmp/anthro-deb-xdg \
    QT_QPA_PLATFORM=offscreen "$@"
}
wait_for_line() {  # FILE PATTERN SECONDS
  for _ in $(seq $(($3 * 10))); do grep -q "$2" "$1" 2>/dev/null && return 0; sleep 0.1; done
  return 1
}
# A capture's analysis as "PACKETS CONNECTIONS" and, a connection, "ALPN:decrypted:STREAMS"
# (or "ALPN:encrypted:STREAMS" when no key opened it).
summary() {
  as_user anthro-wb analyze "$1" --format json | python3 -c '
import json, sys
a = json.load(sys.stdin)
conns = ["%s:%s:%d" % (c["alpn"], "decrypted" if c["decryption"] == "ok" else "encrypted", len(c["streams"]))
         for c in a["connections"]]
print(a["packets"], len(conns), *conns)'
}

step "as $user: anthro-wb capture on lo while a session runs"
as_user anthro-wb endpoint --listen 127.0.0.1:0 --ttft-ms 20 --itl-ms 2 --tokens 20 >"$work/endpoint.out" 2>&1 &
pids+=($!)
wait_for_line "$work/endpoint.out" "^listening anthro://" 30 || { cat "$work/endpoint.out"; fail "the endpoint did not start"; }
port=$(sed -n 's|^listening anthro://127.0.0.1:\([0-9]*\)$|\1|p' "$work/endpoint.out")
as_user anthro-wb capture --interface lo --filter "tcp port $port" --duration 3 --output "$home/s.pcapng" \
  --keylog "$home/keys.log" >"$work/capture.out" 2>"$work/capture.err" &
capture=$!
pids+=($capture)
wait_for_line "$work/capture.err" "capturing on lo" 10 || { cat "$work/capture.err"; fail "anthro-wb capture did not start"; }
as_user env SSLKEYLOGFILE="$home/keys.log" anthro-wb session --target "anthro://127.0.0.1:$port" --repeat 2 >/dev/null
wait "$capture" || { cat "$work/capture.err"; fail "anthro-wb capture exited with $?"; }
step "  $(cat "$work/capture.out")"
got=$(summary "$home/s.pcapng")
step "  analyze: $got"
[[ $got =~ ^[1-9][0-9]+\ 1\ anthro-v1:decrypted:2$ ]] || fail "the CLI's capture does not hold the session, decrypted: $got"

step "as $user: anthro-workbench --capture-check (the session page's capture, Start capture…)"
as_user anthro-workbench --capture-check "$home/gui" | sed 's/^/  /' || fail "anthro-workbench --capture-check"
got=$(summary "$home/gui/session.pcapng")
step "  session page: $got"
[[ $got =~ ^[1-9][0-9]+\ 1\ anthro-v1:decrypted:2$ ]] || fail "the session page's capture does not hold the session: $got"
got=$(summary "$home/gui/dialog.pcapng")
step "  Start capture: $got"
# The dialog captures the wire with no key log: the session's one TLS connection, encrypted.
[[ $got =~ ^[1-9][0-9]+\ 1\ [^\ ]*:encrypted:0$ ]] || fail "the dialog's capture does not hold the session: $got"

step "as $user: a helper without capabilities names the setcap command"
install -d -m 0755 "$work/nocaps"
cp "$helper" "$work/nocaps/anthro-capture"  # cp leaves the capabilities behind
[ -z "$(getcap "$work/nocaps/anthro-capture")" ] || fail "the copy kept its capabilities"
set +e
as_user env ANTHRO_CAPTURE_HELPER="$work/nocaps/anthro-capture" anthro-wb capture --interface lo --duration 1 \
  --output "$home/denied.pcapng" 2>"$work/denied.err"
code=$?
set -e
step "  exit $code: $(cat "$work/denied.err")"
[ $code -ne 0 ] || fail "a capture without capabilities succeeded"
grep -qF "sudo setcap cap_net_raw,cap_net_admin+eip $work/nocaps/anthro-capture" "$work/denied.err" ||
  fail "no setcap command in: $(cat "$work/denied.err")"
[ ! -e "$home/denied.pcapng" ] || fail "a refused capture left $home/denied.pcapng"

step "as $user: manual pages, bash completion, desktop metadata"
for page in anthro-wb anthro-workbench; do
  where=$(as_user man -w "$page") || fail "man -w $page finds nothing"
  [ "$where" = "/usr/share/man/man1/$page.1.gz" ] || fail "man -w $page: $where"
  as_user env MANWIDTH=200 man "$page" 2>&1 | grep -q "^NAME" || fail "man $page shows no page"
done
step "  man -w: $(as_user man -w anthro-wb) $(as_user man -w anthro-workbench)"
# What an interactive shell does on Tab: bash-completion's loader sources completions/anthro-wb.
offered=$(as_user bash -c 'source /usr/share/bash-completion/bash_completion
  __load_completion anthro-wb || exit 1
  COMP_WORDS=(anthro-wb "") COMP_CWORD=1; _anthro_wb; echo "${COMPREPLY[*]}"
  COMP_WORDS=(anthro-wb endpoint --fault ""); COMP_CWORD=3; _anthro_wb; echo "${#COMPREPLY[@]} faults"') ||
  fail "bash-completion does not load anthro-wb's completion"
step "  completion: $(tr '\n' ';' <<<"$offered")"
commands=$(head -1 <<<"$offered")
[[ " $commands " == *" endpoint "* && " $commands " == *" capture "* ]] || fail "completion offers no commands: $offered"
[[ $(tail -1 <<<"$offered") =~ ^[1-9][0-9]*\ faults$ ]] || fail "completion offers no fault names: $offered"
[ -f /usr/share/bash-completion/completions/anthro-wb ] || fail "no bash completion file"
metainfo=$(grep -E '^/usr/share/metainfo/[^/]+\.metainfo\.xml$' "$work/files") || fail "the package holds no metainfo"
app_id=$(basename "$metainfo" .metainfo.xml)
step "  $app_id: $(grep -cE '^/usr/share/(applications|metainfo|icons|mime)/.*\.[a-z]+$' "$work/files") desktop files"
for path in "/usr/share/applications/$app_id.desktop" "/usr/share/mime/packages/$app_id.xml" \
  /usr/share/icons/hicolor/scalable/apps/anthro-workbench.svg \
  /usr/share/icons/hicolor/{16x16,22x22,24x24,32x32,48x48,64x64,128x128,256x256}/apps/anthro-workbench.png; do
  grep -qxF "$path" "$work/files" && [ -f "$path" ] || fail "$path is not installed by the package"
done
appstreamcli validate --no-net "$metainfo" >/dev/null || fail "appstreamcli validate $metainfo"
# Offered for captures (desktop-file-utils' trigger rebuilt mimeinfo.cache), default nowhere.
for type in application/vnd.tcpdump.pcap application/x-pcapng; do
  grep -q "^$type=.*$app_id\.desktop" /usr/share/applications/mimeinfo.cache ||
    fail "mimeinfo.cache does not offer $app_id.desktop for $type"
done
! grep -q "mimeapps.list" "$work/files" || fail "the package sets default applications"
grep -q "^application/x-pcapng" /usr/share/mime/types || fail "the MIME database has no application/x-pcapng"

for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; wait "$pid" 2>/dev/null || true; done
pids=()
remove_user

step "apt-get purge $package"
apt-get purge -y -qq "$package" >/dev/null
left=()
while read -r path; do
  [ "$path" = "/." ] && continue
  [ -e "$path" ] || [ -L "$path" ] || continue
  [ -d "$path" ] && dpkg -S "$path" >/dev/null 2>&1 && continue  # a directory other packages share
  left+=("$path")
done <"$work/files"
[ ${#left[@]} -eq 0 ] || fail "left behind after purge: ${left[*]}"
! grep -q "$app_id\.desktop" /usr/share/applications/mimeinfo.cache 2>/dev/null ||
  fail "mimeinfo.cache still offers $app_id.desktop after purge"
man -w anthro-wb >/dev/null 2>&1 && fail "man -w anthro-wb still finds a page after purge"
status=$(dpkg-query -W -f='${Status}' "$package" 2>/dev/null || true)
[ -z "$status" ] || [[ $status == *not-installed ]] || fail "dpkg still knows $package: $status"
step "  none of its $(wc -l <"$work/files") paths left"
