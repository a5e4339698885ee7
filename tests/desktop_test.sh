#!/usr/bin/env bash
# desktop_test.sh DIST_DIR COMPLETION APP_ID ANTHRO_WB [ANTHRO_WORKBENCH]
# What the .deb installs besides the programs, as installer/CMakeLists.txt makes it in DIST_DIR:
#  1. anthro-wb(1), rendered by man, holds every command `anthro-wb --help` lists, and for each the
#     summary and every option (its value and help) `anthro-wb COMMAND --help` prints;
#     anthro-workbench(1) every option `anthro-workbench --help` prints;
#  2. the bash completion, sourced into this shell and called as bash calls it, offers the
#     commands, a command's options, the fault names `anthro-wb endpoint --fault` accepts and the
#     choices of --format;
#  3. (with the desktop app) the desktop entry and the AppStream metainfo pass desktop-file-validate and
#     `appstreamcli validate`; the entry opens pcap and pcapng files; the icons are PNGs of their
#     sizes; the pcapng MIME package compiles with update-mime-database.
set -euo pipefail
dist=$1 completion=$2 app_id=$3 wb=$4 workbench=${5:-}
export LC_ALL=C MANWIDTH=1000  # man's ASCII output, one line per paragraph
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export XDG_RUNTIME_DIR=$work  # anthro-workbench --help's QStandardPaths asks for one
failures=0
fail() { echo "FAIL: $*" >&2; failures=$((failures + 1)); }
squeeze() { tr -s ' \t\n' ' ' | sed 's/^ //; s/ $//'; }  # whitespace as one space

# The program's own help, parsed: the commands `anthro-wb --help` lists; a command's option lines
# ("--listen HOST:PORT<TAB>help"; the help is on the next line when the left part is long).
commands=$("$wb" --help | awk '/^commands:$/ { on = 1; next } on && /^$/ { exit } on { print $1 }')
[ "$(wc -w <<<"$commands")" -ge 10 ] || fail "anthro-wb --help lists only: $commands"
options_of() {
  "$wb" "$1" --help | awk '
    /^options:$/ { on = 1; next }
    on && /^  -/ { if (left != "") print left "\t" help; line = substr($0, 3); split_at = index(line, "  ")
                   left = split_at ? substr(line, 1, split_at - 1) : line; help = split_at ? substr(line, split_at) : ""
                   sub(/^ +/, "", help); next }
    on && /^ +[^ ]/ { sub(/^ +/, ""); help = $0 }
    END { if (left != "") print left "\t" help }'
}

step() { echo "desktop_test: $*"; }

step "1. anthro-wb(1) against anthro-wb --help"
man -l "$dist/man/anthro-wb.1.gz" | col -bx >"$work/anthro-wb.txt"
[ -s "$work/anthro-wb.txt" ] || fail "man renders nothing of anthro-wb.1.gz"
# The SYNOPSIS is the usage line the program prints (help2man takes it from "Usage: ...").
synopsis=$("$wb" --help | sed -n 's/^Usage: //p')
[ -n "$synopsis" ] || fail "anthro-wb --help has no Usage: line"
awk '/^SYNOPSIS$/ { getline; print; exit }' "$work/anthro-wb.txt" | squeeze | grep -qxF -- "$(squeeze <<<"$synopsis")" ||
  fail "anthro-wb(1) has no SYNOPSIS '$synopsis'"
checked=0
for command in $commands; do
  # The command's subsection: from its "anthro-wb COMMAND ..." heading to the next heading.
  awk -v c="anthro-wb $command" 'index($0, "   " c) == 1 && (length($0) == length(c) + 3 || substr($0, length(c) + 4, 1) == " ") { on = 1; next }
       on && (/^   [^ ]/ || /^[^ ]/) { exit } on' "$work/anthro-wb.txt" | squeeze >"$work/section"
  [ -s "$work/section" ] || { fail "anthro-wb(1) has no section for '$command'"; continue; }
  summary=$("$wb" "$command" --help | sed -n 3p | squeeze)
  grep -qF -- "$summary" "$work/section" || fail "anthro-wb(1) $command: no summary '$summary'"
  while IFS=$'\t' read -r left help; do
    expected=$(squeeze <<<"$left $help")
    grep -qF -- "$expected" "$work/section" || fail "anthro-wb(1) $command: no option '$expected'"
    checked=$((checked + 1))
  done < <(options_of "$command")
done
step "  $(wc -w <<<"$commands") commands, $checked options found in the page"
[ "$checked" -ge 100 ] || fail "only $checked options checked"

if [ -n "$workbench" ]; then
  step "   anthro-workbench(1) against anthro-workbench --help"
  man -l "$dist/man/anthro-workbench.1.gz" | col -bx | squeeze >"$work/anthro-workbench.txt"
  # Without a display, as on a server or over ssh: --help and --version print, the window says why it cannot open.
  nodisplay() { env -u DISPLAY -u WAYLAND_DISPLAY -u QT_QPA_PLATFORM "$@"; }
  nodisplay "$workbench" --version | grep -qE '^anthro-workbench [0-9]' || fail "anthro-workbench --version without a display"
  if nodisplay "$workbench" >"$work/nodisplay.out" 2>&1; then fail "anthro-workbench without a display exited 0"; fi
  [ "$(nodisplay "$workbench" >/dev/null 2>&1; echo $?)" = 1 ] || fail "anthro-workbench without a display: exit $(nodisplay "$workbench" >/dev/null 2>&1; echo $?), not 1"
  grep -q "no display" "$work/nodisplay.out" || fail "anthro-workbench without a display says: $(cat "$work/nodisplay.out")"
  gui_options=$(nodisplay "$workbench" --help | grep -oE '^ +(-[a-zA-Z], )?--[a-z-]+' | grep -oE -- '--[a-z-]+$')
  [ "$(wc -w <<<"$gui_options")" -ge 4 ] || fail "anthro-workbench --help lists only: $gui_options"
  # Qt's usage line names the program as invoked; the page names it as a user types it.
  gui_synopsis=$(nodisplay "$workbench" --help | sed -n 's/^Usage: [^ ]*/anthro-workbench/p' | squeeze)
  grep -qxF -- "SYNOPSIS $gui_synopsis" <(awk '/^SYNOPSIS$/ { getline; print "SYNOPSIS " $0; exit }' \
    <(man -l "$dist/man/anthro-workbench.1.gz" | col -bx) | squeeze) ||
    fail "anthro-workbench(1) has no SYNOPSIS '$gui_synopsis'"
  for option in $gui_options; do
    grep -qF -- "$option" "$work/anthro-workbench.txt" || fail "anthro-workbench(1): no $option"
  done
fi

step "2. bash completion"
# shellcheck source=/dev/null
source "$completion"
spec=$(complete -p anthro-wb) || fail "the completion script registers nothing for anthro-wb"
[[ $spec == *"-F _anthro_wb"* ]] || fail "anthro-wb completes with: $spec"
offers() {  # WORD...: what pressing Tab after `anthro-wb WORD...` offers, sorted, one per line
  COMP_WORDS=("$wb" "$@")
  COMP_CWORD=$((${#COMP_WORDS[@]} - 1))
  COMPREPLY=()
  _anthro_wb anthro-wb "${COMP_WORDS[COMP_CWORD]}" "${COMP_WORDS[COMP_CWORD - 1]}"
  [ ${#COMPREPLY[@]} -eq 0 ] || printf '%s\n' "${COMPREPLY[@]}" | sort
}
expect() {  # WHAT EXPECTED ACTUAL
  [ "$2" = "$3" ] || fail "completing $1: offered [$(echo $3)], expected [$(echo $2)]"
}
expect "the command" "$(printf '%s\n' $commands --help | sort)" "$(offers "")"
expect "'d'" "$(printf '%s\n' $commands | grep '^d' | sort)" "$(offers d)"
expect "endpoint's options" "$(options_of endpoint | cut -f1 | grep -oE '^--[a-z0-9-]+' | sort -u)" "$(offers endpoint --)"
expect "rollout --re" "$(options_of rollout | cut -f1 | grep -oE '^--re[a-z0-9-]*' | sort -u)" "$(offers rollout --re)"
# The catalogue as the endpoint names it when a fault is unknown ("valid faults: a, b=MS, ...").
set +e
refusal=$("$wb" endpoint --fault no-such-fault 2>&1)
set -e
faults=$(sed -n 's/.*valid faults: //p' <<<"$refusal" | tr ',' '\n' | sed 's/^ *//; s/=.*//' | sort)
[ "$(wc -l <<<"$faults")" -ge 10 ] || fail "no fault catalogue in: $refusal"
expect "endpoint --fault" "$faults" "$(offers endpoint --fault "")"
expect "endpoint --fault s" "$(grep '^s' <<<"$faults")" "$(offers endpoint --listen 127.0.0.1:0 --fault s)"
expect "endpoint --fault=" "$faults" "$(offers endpoint --fault = "")"
expect "rollout --endpoint-fault" "$faults" "$(offers rollout --endpoint-fault "")"
formats=$(options_of session | cut -f1 | sed -n 's/^--format //p' | tr '|' '\n' | sort)
[ -n "$formats" ] || fail "session --help has no --format choices"
expect "session --format" "$formats" "$(offers session --format "")"
expect "decode's capture (file names)" "" "$(offers decode "")"
expect "session --prompt's text" "" "$(offers session --prompt "")"

if [ -z "$workbench" ]; then  # ANTHRO_BUILD_GUI=OFF: no desktop app, so none of its files
  [ "$failures" -eq 0 ] || { echo "desktop_test: $failures failures" >&2; exit 1; }
  step "passed (no desktop app in this build)"
  exit 0
fi
step "3. desktop entry, metainfo, icons, MIME"
entry=$dist/$app_id.desktop
desktop-file-validate "$entry" || fail "desktop-file-validate $entry"
grep -qE '^Exec=anthro-workbench %f$' "$entry" || fail "the entry's Exec does not pass a file: $(grep ^Exec= "$entry")"
mime=$(sed -n 's/^MimeType=//p' "$entry")
for type in application/vnd.tcpdump.pcap application/x-pcapng; do
  [[ ";$mime" == *";$type;"* ]] || fail "the entry's MimeType lacks $type: $mime"
done
metainfo=$dist/$app_id.metainfo.xml
appstreamcli validate --no-net "$metainfo" || fail "appstreamcli validate $metainfo"
grep -qF "<id>$app_id</id>" "$metainfo" || fail "the metainfo's id is not $app_id"
grep -qF "<launchable type=\"desktop-id\">$app_id.desktop</launchable>" "$metainfo" || fail "the metainfo does not launch $app_id.desktop"
name=$(sed -n 's/^Name=//p' "$entry")
grep -qF "<name>$name</name>" "$metainfo" || fail "the metainfo's name is not the entry's '$name'"
icon=$(sed -n 's/^Icon=//p' "$entry")
for size in 16 22 24 32 48 64 128 256; do
  png=$dist/icons/${size}x${size}/$icon.png
  # A PNG's signature, then its IHDR's width and height (big-endian, bytes 16 to 23).
  signature=$(od -An -tx1 -N8 "$png" 2>/dev/null | tr -d ' \n' || true)
  b=(0 0 0 0 0 0 0 0)
  read -r -a b < <(od -An -tu1 -j16 -N8 "$png" 2>/dev/null) || true
  got="${signature} $(((b[0] << 24) | (b[1] << 16) | (b[2] << 8) | b[3]))x$(((b[4] << 24) | (b[5] << 16) | (b[6] << 8) | b[7]))"
  [ "$got" = "89504e470d0a1a0a ${size}x${size}" ] || fail "$png is not a ${size}x${size} PNG: $got"
done
mkdir -p "$work/mime/packages"
cp "$(dirname "$completion")/pcapng-mime.xml" "$work/mime/packages/"  # installer/, beside the completion
XDG_DATA_DIRS=$work update-mime-database "$work/mime" || fail "update-mime-database"
grep -qE '^[0-9]+:application/x-pcapng:\*\.pcapng$' "$work/mime/globs2" || fail "no *.pcapng glob in the compiled MIME database"

[ "$failures" -eq 0 ] || { echo "desktop_test: $failures failures" >&2; exit 1; }
step "passed"
