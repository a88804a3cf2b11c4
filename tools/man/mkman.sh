#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# A man page from a command's --help, the one source of its text:
#   mkman.sh SYNCEMU HELP2MAN VERSION COMMAND|- OUT.1 [COMMAND.h2m]
# COMMAND '-' is syncemu itself; else 'syncemu COMMAND', named by its line in 'syncemu --help'.
# COMMAND.h2m (tools/man/) adds the sections a --help does not hold: FILES and SEE ALSO.
set -eu
se=$1 h2m=$2 version=$3 cmd=$4 out=$5 extra=${6:-}
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
if [ "$cmd" = - ]; then
	name=syncemu
	what="emulate the gradient sync of training workers over data centres"
	sub=
else
	name=syncemu-$cmd
	what=$("$se" --help | awk -v c="$cmd" '$1 == c { $1 = ""; sub(/^ +/, ""); print; exit }')
	[ -n "$what" ] || { echo "mkman.sh: '$cmd' is not a command of 'syncemu --help'" >&2; exit 1; }
	sub=$cmd
fi
# help2man's sections come from "Usage:", "Options:", "Examples:": the help's own headings,
# capitalised on the way; each example a paragraph of its own; the help's "Exit codes: ..."
# paragraph becomes EXIT STATUS (below), which help2man would not make of it
# (a --help that fails, e.g. syncemu top's before syncemu-top exists, fails the page)
cat >"$dir/$name" <<SH
#!/bin/sh
"$se" $sub "\$@" >"$dir/help" || exit 1
sed -e 's/^usage:/Usage:/' -e 's/^options:\$/Options:/' \
	-e 's/^examples\{0,1\}:\$/Examples:/' -e 's/^commands:\$/Commands:/' \
	-e '/^  syncemu /{x;p;x;}' "$dir/help" | awk '/^[Ee]xit codes: / { skip = 1 } /^\$/ { skip = 0 } !skip'
SH
chmod +x "$dir/$name"
"$dir/$name" --help >/dev/null || { echo "mkman.sh: 'syncemu $sub --help' failed" >&2; exit 1; }
# the help's "Exit codes: ..." to its paragraph's end is the EXIT STATUS section
"$se" $sub --help | awk '/^[Ee]xit codes: / { on = 1; sub(/^[Ee]xit codes: */, "") } /^$/ { on = 0 }
	on' >"$dir/exit"
: >"$dir/include"
[ -s "$dir/exit" ] && { echo '[EXIT STATUS]'; cat "$dir/exit"; } >>"$dir/include"
if [ -n "$extra" ]; then
	cat "$extra" >>"$dir/include"
elif [ -n "$sub" ]; then
	printf '[SEE ALSO]\n.BR syncemu (1),\n.B syncemu %s \\-\\-help\n' "$sub" >>"$dir/include"
else
	printf '[SEE ALSO]\nsyncemu-COMMAND(1) for each command; the scenario keys: \\fBsyncemu scenario keys\\fR\n' >>"$dir/include"
fi
"$h2m" --include="$dir/include" --no-info --no-discard-stderr --version-string="$version" --section=1 \
	--source="syncemu $version" --manual="syncemu manual" --name="$what" \
	--output="$out" "$dir/$name"
