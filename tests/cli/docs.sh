#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# The documentation: every source file on a design page, every page of docs/ reached from the
# README and every relative link resolving (docs_check.py); the scenario keys page equal to
# 'syncemu scenario keys --markdown', in the tree and as built; syncemu-scenario(5) read by
# man -l with every key; the README's commands working.
#   docs.sh SYNCEMU SCENARIO_KEYS_MD SYNCEMU_SCENARIO_5   (from the source tree)
se=$(realpath "$1") keys_built=$(realpath "$2") man5=$(realpath "$3")
src=$PWD
. "$(dirname "$0")/lib.sh"
command -v python3 >/dev/null || skip "python3 is not installed"

python3 "$src/tests/cli/docs_check.py" >"$tmp/check" 2>&1
rc=$?
cat "$tmp/check"
[ "$rc" -eq 0 ] || { grep -q '^not ok' "$tmp/check" || bad "docs_check.py: exit $rc"; fails=$((fails + 1)); }

# the keys page: the command's output, byte for byte
"$se" scenario keys --markdown >"$tmp/keys.md" || bad "syncemu scenario keys --markdown failed"
if cmp -s "$tmp/keys.md" docs/reference/scenario-keys.md; then
	ok "docs/reference/scenario-keys.md equals 'syncemu scenario keys --markdown'"
else
	bad "docs/reference/scenario-keys.md differs from 'syncemu scenario keys --markdown'" \
		"(make it with: build/tools/syncemu scenario keys --markdown >docs/reference/scenario-keys.md)"
	diff "$tmp/keys.md" docs/reference/scenario-keys.md | head -5 | sed 's/^/    /'
fi
cmp -s "$tmp/keys.md" "$keys_built" && ok "the built keys page equals it too" ||
	bad "$keys_built differs from 'syncemu scenario keys --markdown'"

# the man page: man -l reads it (as tests/cli/install.sh reads the commands'), with every key
# under its section
if ! command -v man >/dev/null; then
	echo "skip - man -l syncemu-scenario.5: man is not installed"
elif ! MANWIDTH=100 man -l "$man5" >"$tmp/man" 2>"$tmp/manerr" || ! grep -q '^NAME' "$tmp/man" ||
	[ -s "$tmp/manerr" ]; then
	bad "man -l $(basename "$man5"): $(head -3 "$tmp/manerr")"
else
	# the keys of the table, and those of the page (a key is a paragraph's first word under its
	# section's heading), as section.key lines
	awk -F'`' '/^\| `/ { sub(/ .*/, "", $2); print $2 }' "$tmp/keys.md" | sort >"$tmp/names"
	awk '/^[A-Z]/ { on = ($0 == "KEYS") } on && /^   \[/ { s = substr($1, 2, length($1) - 2) }
		on && /^       [^ ]/ && s != "" { print s "." $1 }' "$tmp/man" | sort -u >"$tmp/man_names"
	missing=$(comm -23 "$tmp/names" "$tmp/man_names")
	[ -z "$missing" ] && ok "man -l reads syncemu-scenario(5), with its $(wc -l <"$tmp/names") keys" ||
		bad "syncemu-scenario(5) lacks: $(echo $missing | head -c 300)"
fi

# the README's set-up commands exist and run
for c in tools/quickstart tools/run-tests; do
	grep -qx "$c" README.md || bad "README.md no longer shows '$c' on a line of its own"
	[ -x "$c" ] && ok "$c is executable" || bad "$c is not an executable file"
done
# each 'build/tools/syncemu ...' line of the README's code blocks, run in that order (a later one
# reads what an earlier one wrote) in a scratch directory with the scenarios: exit 0. The steps
# are cut to 2 (-n 2): what is checked is the command line and the files, not the results.
mkdir "$tmp/readme"
ln -s "$src/scenarios" "$tmp/readme/scenarios"
awk '/^```/ { f = !f; next } f && /^build\/tools\/syncemu / { print }' README.md >"$tmp/cmds"
[ -s "$tmp/cmds" ] || bad "README.md has no 'build/tools/syncemu' command in a code block"
while IFS= read -r line; do
	cmd=${line#build/tools/syncemu }
	cmd=$(sed -E 's/(^| )-n [0-9]+( |$)/\1-n 2\2/' <<<"$cmd")
	if (cd "$tmp/readme" && eval "\"\$se\" $cmd" >"$tmp/out" 2>"$tmp/err"); then
		ok "README: syncemu ${line#build/tools/syncemu }"
	else
		bad "README: '$line' fails: $(tail -2 "$tmp/err")"
	fi
done <"$tmp/cmds"
[ "$fails" -eq 0 ]
