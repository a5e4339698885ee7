#!/usr/bin/env bash
# man_page.sh PROGRAM VERSION NAME OUT.1.gz: PROGRAM's manual page, gzip'd, made from the help it
# prints, so the page cannot drift from the program. help2man reads `PROGRAM --help`; for
# anthro-wb a COMMANDS section adds, for each command `anthro-wb --help` lists, what
# `anthro-wb COMMAND --help` prints (its synopsis, summary and options). NAME is the page's
# one-line name. Run at build time by installer/CMakeLists.txt.
set -euo pipefail
program=$1 version=$2 name=$3 out=$4
# English help; the GUI's --help needs a QApplication, offscreen; a sanitized build's exit leak
# report is not help.
export LC_ALL=C.UTF-8 LANGUAGE= QT_QPA_PLATFORM=offscreen ASAN_OPTIONS=detect_leaks=0
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export XDG_RUNTIME_DIR=$work  # the GUI's QStandardPaths asks for one

includes=()
commands=$("$program" --help | awk '/^commands:$/ { on = 1; next } on && /^$/ { exit } on { print $1 }')
if [ -n "$commands" ]; then
  for command in $commands; do
    "$program" "$command" --help
    echo  # the end of one command's help
  done | awk '
    # roff: backslashes and hyphens escaped, a leading control character neutralised.
    function roff(s) { gsub(/\\/, "\\e", s); gsub(/-/, "\\-", s); sub(/^[.'"'"']/, "\\\\\\&&", s); return s }
    # "--listen HOST:PORT" or "--help, -h": option names bold, the value italic.
    function term(s,    n, i, w, out, comma) {
      n = split(s, words, " ")
      for (i = 1; i <= n; i++) {
        w = words[i]; comma = sub(/,$/, "", w) ? "," : ""
        out = out (i > 1 ? " " : "") (w ~ /^-/ ? "\\fB" roff(w) "\\fR" : "\\fI" roff(w) "\\fR") comma
      }
      return out
    }
    BEGIN { print "[COMMANDS]" }
    /^Usage: / { sub(/^Usage: /, ""); print ".SS \"" roff($0) "\""; state = "summary"; next }
    state == "summary" && NF { print roff($0); state = "between"; next }
    /^options:$/ { state = "options"; next }
    state == "options" && /^  -/ {
      line = substr($0, 3)
      split_at = index(line, "  ")
      left = split_at ? substr(line, 1, split_at - 1) : line
      help = split_at ? substr(line, split_at) : ""
      sub(/^ +/, "", help)
      print ".TP"; print term(left)
      if (help != "") print roff(help); else pending = 1
      next
    }
    state == "options" && pending && /^ +[^ ]/ { sub(/^ +/, ""); print roff($0); pending = 0; next }
    /^$/ && state == "options" { state = "" }
  ' >"$work/commands.h2m"
  includes=(--include "$work/commands.h2m")
fi

# Run by its name, as a user runs it: Qt's usage line names the program as it was invoked.
PATH="$(dirname "$program"):$PATH" help2man --no-info --version-string="$version" --name="$name" "${includes[@]}" \
  --output="$work/page.1" "$(basename "$program")"
gzip -9n <"$work/page.1" >"$out"
