#!/usr/bin/env bash
# The .debs as a user meets them. As root: bash installer/deb_test.sh [BUILD_DIR]  (default build/release)
#  1. packs BUILD_DIR (built whole, as installer/test.sh does) with CPack: anthro-workbench, which must hold and
#     depend on nothing of Wireshark's, and anthro-workbench-wireshark, which must hold only the
#     plugin, in the folder of the installed tshark's Wireshark version, depend on that Wireshark
#     version (libwiresharkN (>= MAJOR.MINOR~), (<< MAJOR.MINOR+1~)) and run no maintainer scripts;
#     installs the workbench's .deb alone with apt-get, its dependencies resolved from Debian; the
#     capture helper must have its capabilities;
#  2. a normal user (useradd) captures on lo with the installed `anthro-wb capture` while an
#     `anthro-wb session` runs against an `anthro-wb endpoint` of that user, and the pcapng holds
#     the session, decrypted with the keys it embeds (`anthro-wb analyze`); the installed
#     `anthro-wb report` (which runs the package's private anthro-wb-report) makes a PDF of it;
#  3. the same user's installed `anthro-workbench --capture-check` (offscreen) captures a
#     session from the session page and one from Session → Start capture…;
#  4. a copy of the helper without capabilities gives that user the setcap command;
#  5. the manual pages are found by `man -w`, bash-completion's loader finds anthro-wb's completion,
#     the desktop entry, its AppStream metainfo, icons and pcapng MIME type are in place, and the
#     entry is offered for pcap and pcapng (mimeinfo.cache) without becoming their default;
#  6. the plugin's .deb installed with apt-get: the same user's tshark, with no WIRESHARK_PLUGIN_DIR,
#     loads it from Wireshark's system folder and reads the token texts `anthro-wb decode` reads
#     from that user's capture of step 2;
#  7. `apt-get purge` of both leaves none of either package's paths, nor the entry in
#     mimeinfo.cache, nor the anthro protocol in tshark, and the user is removed.
# A build tree without the plugin (no libwireshark-dev when it was configured) fails, as a test.
# Idempotent (a user or packages left by an earlier run are removed first); cleans up on failure.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=$root/${1:-build/release}
user=anthro-deb-test
package=anthro-workbench
plugin_package=anthro-workbench-wireshark
helper=/usr/lib/anthro-workbench/anthro-capture

fail() { echo "deb_test: FAIL: $*" >&2; exit 1; }
step() { echo "deb_test: $*"; }
[ "$(id -u)" -eq 0 ] || fail "run as root (it installs a package and adds a user)"
[ -f "$build/CPackConfig.cmake" ] || fail "$build is not a configured build tree (installer/build.sh builds one)"
grep -qx "ANTHRO_WIRESHARK_PLUGIN:BOOL=ON" "$build/CMakeCache.txt" ||
  fail "$build does not build the Wireshark plugin, so there is no $plugin_package to test: install" \
    "libwireshark-dev and libgcrypt20-dev (installer/deps.sh does) and configure it with -DANTHRO_WIRESHARK_PLUGIN=ON"
command -v tshark >/dev/null || fail "no tshark (installer/deps.sh installs it)"

remove_user() {
  if id "$user" >/dev/null 2>&1; then userdel -r "$user" >/dev/null 2>&1 || userdel -f -r "$user" >/dev/null 2>&1 || true; fi
}
purge_package() {  # PACKAGE...: those dpkg knows, purged
  local known=() p
  for p in "$@"; do
    if dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -qv "not-installed"; then known+=("$p"); fi
  done
  if [ ${#known[@]} -gt 0 ]; then
    DEBIAN_FRONTEND=noninteractive apt-get purge -y -qq "${known[@]}" >/dev/null
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
  purge_package "$plugin_package" "$package" || true
  rm -rf "$work" "/tmp/anthro-deb-xdg"
  [ $status -eq 0 ] && step "passed" || echo "deb_test: failed (status $status)" >&2
}
trap cleanup EXIT
remove_user
purge_package "$plugin_package" "$package"

step "building and packing $build"
cmake --build "$build" --target anthro-wb anthro-workbench anthro-capture anthro-wireshark dist_files
cpack -G DEB --config "$build/CPackConfig.cmake" -B "$work/pkg" >/dev/null
arch=$(dpkg --print-architecture)
multiarch=$(dpkg-architecture -qDEB_HOST_MULTIARCH)
version=$(sed -n 's/^set(CPACK_PACKAGE_VERSION "\(.*\)")$/\1/p' "$build/CPackConfig.cmake")
deb=$work/pkg/${package}_${version}_$arch.deb
plugin_deb=$work/pkg/${plugin_package}_${version}_$arch.deb
step "  made: $(cd "$work/pkg" && echo *.deb)"
[ -f "$deb" ] || fail "cpack made no $(basename "$deb")"
dpkg-deb -I "$deb" | grep -E "Package|Depends|postinst|prerm|postrm" | sed 's/^/  /'
# The workbench's package must not bring Wireshark along: not the plugin, not libwireshark.
depends=$(dpkg-deb -f "$deb" Depends)
! grep -qi "wireshark" <<<"$depends" || fail "$package depends on Wireshark: $depends"
dpkg-deb -c "$deb" >"$work/contents"
! grep -qiE "wireshark|anthro-v1\.so" "$work/contents" ||
  fail "$package holds Wireshark's files: $(grep -iE "wireshark|anthro-v1\.so" "$work/contents" | awk '{print $6}' | tr '\n' ' ')"
[ -f "$plugin_deb" ] || fail "cpack made no $(basename "$plugin_deb") (the configure step says why)"
[ "$(find "$work/pkg" -maxdepth 1 -name "*.deb" | wc -l)" -eq 2 ] ||
  fail "cpack made other packages: $(cd "$work/pkg" && echo *.deb)"
dpkg-deb -I "$plugin_deb" | grep -E "Package|Depends|Enhances|Section|postinst|prerm|postrm" | sed 's/^/  /'
# Only the plugin, in the folder of the Wireshark version tshark is (it loads plugins/MAJOR.MINOR
# only), and no maintainer scripts.
wireshark_version=$(tshark --version 2>/dev/null | sed -n '1s/^TShark (Wireshark) \([0-9]*\)\.\([0-9]*\)\..*/\1 \2/p')
read -r ws_major ws_minor <<<"$wireshark_version"
[ -n "$ws_minor" ] || fail "cannot read Wireshark's version from: $(tshark --version 2>/dev/null | head -1)"
plugin_path=/usr/lib/$multiarch/wireshark/plugins/$ws_major.$ws_minor/epan/anthro-v1.so
files=$(dpkg-deb -c "$plugin_deb" | awk '$1 !~ /^d/ {print $6}')
[ "$files" = ".$plugin_path" ] || fail "$plugin_package should hold only .$plugin_path, it holds: $files"
scripts=$(dpkg-deb --ctrl-tarfile "$plugin_deb" | tar -t | grep -E "(pre|post)(inst|rm)$" || true)
[ -z "$scripts" ] || fail "$plugin_package runs maintainer scripts: $scripts"
# Bound to the Wireshark version it was built for, in the package of the libwireshark tshark runs.
plugin_depends=$(dpkg-deb -f "$plugin_deb" Depends)
lib=$(ldd "$(command -v tshark)" | awk '$1 ~ /^libwireshark\.so\./ {print $3}')
[ -n "$lib" ] || fail "tshark links no libwireshark"
lib_package=$(dpkg-query -S "$(readlink -f "$lib")" | cut -d: -f1)
for bound in "$lib_package (>= $ws_major.$ws_minor~)" "$lib_package (<< $ws_major.$((ws_minor + 1))~)"; do
  grep -qF "$bound" <<<"$plugin_depends" || fail "$plugin_package does not depend on $bound: $plugin_depends"
done
[ "$(dpkg-deb -f "$plugin_deb" Enhances)" = "tshark, wireshark" ] ||
  fail "$plugin_package does not enhance tshark and wireshark: $(dpkg-deb -f "$plugin_deb" Enhances)"

step "apt-get install $deb (alone)"
export DEBIAN_FRONTEND=noninteractive
if ! apt-get install -y -qq "$deb" >"$work/apt.log" 2>&1; then
  apt-get update -qq && apt-get install -y -qq "$deb" >"$work/apt.log" 2>&1 || { cat "$work/apt.log"; fail "apt-get install"; }
fi
dpkg -L "$package" >"$work/files"
# Nothing it depends on, all the way down, is Wireshark's: installed alone it pulls in no libwireshark.
closure=$(apt-cache depends --recurse --important "$package" | grep -v "^ " | sort -u)
! grep -qi "wireshark" <<<"$closure" || fail "$package pulls in $(grep -i "wireshark" <<<"$closure" | tr '\n' ' ')"
step "  $(wc -l <<<"$closure") packages in its dependency closure, none of Wireshark's"
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
as_user anthro-wb analyze "$home/s.pcapng" --format json >"$home/analysis.json" || fail "anthro-wb analyze --format json"
as_user anthro-wb report "$home/analysis.json" --to pdf --output "$home/analysis.pdf" 2>"$work/report.err" ||
  { cat "$work/report.err"; fail "the installed anthro-wb report"; }
[ "$(head -c 5 "$home/analysis.pdf")" = "%PDF-" ] || fail "anthro-wb report wrote no PDF"
step "  report: $(cat "$work/report.err")"

step "as $user: anthro-workbench --capture-check (the session page's capture, Start capture…)"
as_user anthro-workbench --capture-check "$home/gui" | sed 's/^/  /' || fail "anthro-workbench --capture-check"
got=$(summary "$home/gui/session.pcapng")
step "  session page: $got"
[[ $got =~ ^[1-9][0-9]+\ 1\ anthro-v1:decrypted:2$ ]] || fail "the session page's capture does not hold the session: $got"
got=$(summary "$home/gui/dialog.pcapng")
step "  Start capture: $got"
# The dialog is given no key log, yet the session is the app's own: its keys are embedded
# (issue 41), so its one TLS connection decrypts.
[[ $got =~ ^[1-9][0-9]+\ 1\ anthro-v1:decrypted:2$ ]] || fail "the dialog's capture does not decrypt the app's own session: $got"

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

step "apt-get install $plugin_deb"
# tshark lists protocols into a file: grep -q leaving a pipe early would kill it (pipefail).
as_user tshark -G protocols >"$work/protocols" || fail "tshark -G protocols"
! grep -q "	anthro$" "$work/protocols" || fail "tshark knows anthro before $plugin_package is installed"
apt-get install -y -qq "$plugin_deb" >"$work/apt.log" 2>&1 || { cat "$work/apt.log"; fail "apt-get install $plugin_deb"; }
dpkg -L "$plugin_package" >"$work/plugin-files"
grep -qxF "$plugin_path" "$work/plugin-files" && [ -f "$plugin_path" ] || fail "$plugin_path is not installed by $plugin_package"
step "as $user: tshark loads the plugin from Wireshark's folder and decrypts the capture of the CLI"
as_user tshark -G protocols >"$work/protocols" || fail "tshark -G protocols"
grep -q "	anthro$" "$work/protocols" || fail "the user's tshark does not list the anthro protocol"
as_user tshark -G plugins >"$work/plugins" || fail "tshark -G plugins"
grep -qP "^anthro-v1\.so\s*\t.*\t\Q$plugin_path\E$" "$work/plugins" ||
  fail "tshark did not load $plugin_path: $(grep anthro "$work/plugins" || echo none)"
step "  $(grep -P "^anthro-v1\.so\s" "$work/plugins" | tr -s ' \t' ' ')"
# One line a packet; a packet with several frames joins their texts with the aggregator, a
# character no text holds (checked below), not the default comma a token may be.
as_user tshark -r "$home/s.pcapng" -o tls.keylog_file:"$home/keys.log" -o tcp.reassemble_out_of_order:TRUE \
  -Y anthro.text -T fields -E occurrence=a -E aggregator=$'\x1f' -e anthro.text >"$work/tshark.txt" 2>"$work/tshark.err" ||
  { cat "$work/tshark.err"; fail "tshark -r $home/s.pcapng"; }
as_user anthro-wb decode "$home/s.pcapng" --format jsonl >"$work/decode.jsonl" 2>"$work/decode.err" ||
  { cat "$work/decode.err"; fail "anthro-wb decode $home/s.pcapng"; }
python3 - "$work/decode.jsonl" "$work/tshark.txt" <<'EOF' || fail "tshark's texts are not decode's"
import json, sys
want = [e["text"] for e in map(json.loads, open(sys.argv[1], encoding="utf-8"))
        if e.get("kind") == "frame" and e.get("type") == "STREAM_TOKEN"]
got = [t for line in open(sys.argv[2], encoding="utf-8", newline="\n").read().splitlines() for t in line.split("\x1f")]
assert want, "decode found no STREAM_TOKEN frames"
assert all("\x1f" not in t and "\n" not in t for t in want), "a text holds the aggregator or a newline"
if got != want:
    print(f"decode: {len(want)} texts {want!r}\ntshark: {len(got)} texts {got!r}", file=sys.stderr)
    sys.exit(1)
print(f"deb_test:   tshark and decode: the same {len(want)} token texts, {''.join(want)!r}")
EOF

for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; wait "$pid" 2>/dev/null || true; done
pids=()
remove_user

step "apt-get purge $package $plugin_package"
apt-get purge -y -qq "$package" "$plugin_package" >/dev/null
left=()
while read -r path; do
  [ "$path" = "/." ] && continue
  [ -e "$path" ] || [ -L "$path" ] || continue
  [ -d "$path" ] && dpkg -S "$path" >/dev/null 2>&1 && continue  # a directory other packages share
  left+=("$path")
done < <(cat "$work/files" "$work/plugin-files")
[ ${#left[@]} -eq 0 ] || fail "left behind after purge: ${left[*]}"
! grep -q "$app_id\.desktop" /usr/share/applications/mimeinfo.cache 2>/dev/null ||
  fail "mimeinfo.cache still offers $app_id.desktop after purge"
man -w anthro-wb >/dev/null 2>&1 && fail "man -w anthro-wb still finds a page after purge"
for p in "$package" "$plugin_package"; do
  status=$(dpkg-query -W -f='${Status}' "$p" 2>/dev/null || true)
  [ -z "$status" ] || [[ $status == *not-installed ]] || fail "dpkg still knows $p: $status"
done
# Root's tshark reads the system plugin folder too.
tshark -G protocols >"$work/protocols" 2>/dev/null || fail "tshark -G protocols"
! grep -q "	anthro$" "$work/protocols" || fail "tshark still knows anthro after purge"
step "  none of their $(cat "$work/files" "$work/plugin-files" | wc -l) paths left"
