#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# meson install --destdir into a scratch directory: the programs, the scenarios, the sample
# link kernels, the Wireshark dissector, wan-delays, a man page per command and
# syncemu-scenario(5) (man -l reads each), the scenario keys page, and the bash and zsh
# completions (they complete a command, an option and a scenario key); syncemu --version and
# syncemu version agree.
# Usage: install.sh BUILD_DIR
set -u
. "$(dirname "$0")/lib.sh"
build=$1
here=$(cd "$(dirname "$0")" && pwd)
dest=$tmp/dest
command -v meson >/dev/null || skip "no meson"
if ! meson install -C "$build" --destdir "$dest" --no-rebuild --quiet >"$tmp/log" 2>&1; then
	bad "meson install --destdir"
	sed 's/^/    /' "$tmp/log" | tail -20
	exit 1
fi
ok "meson install --destdir $dest"
# where things went: the prefix from the installed syncemu
se=$(find "$dest" -path '*/bin/syncemu' -type f | head -1)
[ -x "$se" ] && ok "the program: ${se#$dest}" || { bad "no bin/syncemu in $dest"; exit 1; }
bin=$(dirname "$se")
prefix=$(dirname "$bin")
[ -x "$bin/syncemu-wan-delays" ] && ok "wan-delays as syncemu-wan-delays" || bad "no syncemu-wan-delays"
# syncemu lab runs the syncemu-lab installed beside it, which runs that syncemu
[ -x "$bin/syncemu-lab" ] && "$se" lab --help 2>&1 | grep -q "^usage: syncemu lab" &&
	ok "syncemu lab runs the installed syncemu-lab" || bad "syncemu lab: $("$se" lab --help 2>&1 | head -2)"
if [ -x "$build/tools/top/syncemu-top" ]; then
	[ -x "$bin/syncemu-top" ] && ok "syncemu-top" || bad "syncemu-top built but not installed"
fi
n=0
for f in 1dc8 2dc4-100g 2dc4-25g 2dc4-400g 2dc4-800g 2dc4-8g 8dc1-100g 8dc1-25g; do
	[ -f "$prefix/share/syncemu/scenarios/$f.ini" ] && n=$((n + 1))
done
[ $n -eq "$(ls scenarios/*.ini | wc -l)" ] && [ -f "$prefix/share/syncemu/scenarios/sizes-websearch.csv" ] &&
	ok "the $n scenarios and the sizes CSV in share/syncemu/scenarios" || bad "scenarios: $n installed"
expect_rc 0 "the installed scenarios load" -- "$se" scenario check "$prefix"/share/syncemu/scenarios/*.ini
expect_rc 0 "a scenario by its name" -- env SYNCEMU_SCENARIO_DIR="$prefix/share/syncemu/scenarios" \
	"$se" model 2dc4-25g -t step
expect_grep "$tmp/out" "from $prefix/share/syncemu/scenarios/2dc4-25g.ini" "found in the installed scenarios"
for k in deck.bpf.c modular.bpf.c syncemu_kernel.h; do
	[ -f "$prefix/share/syncemu/kernels/$k" ] || bad "no kernels/$k"
done
if command -v clang >/dev/null; then
	[ -f "$prefix/share/syncemu/kernels/deck.bpf.o" ] && ok "the sample link kernels, sources and objects" ||
		bad "no deck.bpf.o"
fi
lua=$(find "$dest" -path '*/wireshark/plugins/syncemu.lua' | head -1)
[ -n "$lua" ] && ok "the dissector in Wireshark's Lua plugins: ${lua#$dest}" || bad "no wireshark/plugins/syncemu.lua"
if command -v tshark >/dev/null && [ -n "$lua" ]; then
	"$build/tools/syncemu" run -q -n 2 -v A -l 0.3 --trace "$tmp/t.pcapng" >/dev/null
	if SYNCEMU_DISSECTOR=$lua "$bin/syncemu-wan-delays" "$tmp/t.pcapng" --summary >"$tmp/wd" 2>&1 &&
		grep -q '^wan0>1 *sync' "$tmp/wd"; then
		ok "the installed wan-delays reads a trace with the installed dissector"
	else
		bad "installed wan-delays: $(head -3 "$tmp/wd")"
	fi
fi

# a man page per command of 'syncemu --help', and one for syncemu
cmds=$("$se" --help | awk '/^commands:/ { on = 1; next } on && /^$/ { exit } on { print $1 }')
man1=$prefix/share/man/man1
if ! command -v help2man >/dev/null; then
	bad "help2man is not installed: no man pages (tools/setup-deps installs it)"
else
	pages=0
	for c in - $cmds; do
		p=$man1/syncemu-$c.1
		[ "$c" = - ] && p=$man1/syncemu.1
		[ "$c" = top ] && [ ! -x "$build/tools/top/syncemu-top" ] && continue
		if [ ! -f "$p" ]; then
			bad "no man page $(basename "$p")"
			continue
		fi
		if ! MANWIDTH=100 man -l "$p" >"$tmp/man" 2>"$tmp/manerr" || ! grep -q '^NAME' "$tmp/man" ||
			! grep -q '^SYNOPSIS' "$tmp/man"; then
			bad "man -l $(basename "$p"): $(head -3 "$tmp/manerr")"
			continue
		fi
		# a command's page has the sections of tc-netem(8)'s and iperf3(1)'s kind
		if [ "$c" != - ]; then
			lack=
			for sec in DESCRIPTION 'EXIT STATUS' EXAMPLES 'SEE ALSO'; do
				grep -q "^$sec\$" "$tmp/man" || lack="$lack $sec"
			done
			[ "$c" = version ] || grep -q '^FILES$' "$tmp/man" || lack="$lack FILES"
			[ -z "$lack" ] || { bad "$(basename "$p") has no$lack"; continue; }
		fi
		# every option of the command's --help is in its page
		if [ "$c" != - ]; then
			"$se" "$c" --help | awk '/^options:/ { on = 1; next } on && /^$/ { exit }
				on && match($0, /^  +(-[A-Za-z], )?--[a-z][a-z0-9-]*/) {
					s = substr($0, 1, RLENGTH); sub(/.*--/, "--", s); print s }' >"$tmp/opts"
			missing=$(while read -r o; do grep -qF -- "$o" "$tmp/man" || echo "$o"; done <"$tmp/opts")
			[ -z "$missing" ] || { bad "$(basename "$p") lacks $missing"; continue; }
		fi
		pages=$((pages + 1))
	done
	ok "man -l reads $pages pages (syncemu and each command), each with every option of its --help, a command's with DESCRIPTION, EXIT STATUS, EXAMPLES, FILES and SEE ALSO"
	n_pages=$(ls "$man1" | wc -l)
	[ "$n_pages" -eq "$pages" ] && ok "no man page for a command syncemu does not have" ||
		bad "$n_pages pages installed, $pages commands"
fi

# man finds the installed pages by name, as a user's 'man syncemu-scenario' does once the prefix is
# on the MANPATH (man-db puts /usr/local/share/man there): the command's page first, as crontab(1)
# comes before crontab(5), pointing to the keys' page, which 'man 5 syncemu-scenario' opens
mp=$prefix/share/man
if MANWIDTH=100 MANPATH=$mp man syncemu-scenario >"$tmp/man" 2>"$tmp/manerr" &&
	grep -q '^SYNCEMU-SCENARIO(1)' "$tmp/man" && grep -q 'syncemu-scenario(5)' "$tmp/man" &&
	MANWIDTH=100 MANPATH=$mp man 5 syncemu-scenario >"$tmp/man5" 2>>"$tmp/manerr" &&
	grep -q '^KEYS' "$tmp/man5" && grep -q '^EXAMPLES' "$tmp/man5" &&
	MANWIDTH=100 MANPATH=$mp man syncemu-lab 2>/dev/null | grep -q '^EXIT STATUS'; then
	ok "man syncemu-scenario opens the command's page, naming syncemu-scenario(5); man 5 syncemu-scenario the keys (KEYS, EXAMPLES); man syncemu-lab opens"
else
	bad "man syncemu-scenario: $(head -2 "$tmp/manerr") $(head -1 "$tmp/man")"
fi
# the README and docs/ as in the tree: the README's links resolve there
docdir=$prefix/share/doc/syncemu
[ -f "$docdir/README.md" ] && [ -f "$docdir/docs/guides/lab.md" ] && [ -f "$docdir/docs/index.md" ] &&
	[ ! -e "$docdir/docs/meson.build" ] &&
	ok "the README and docs/ in share/doc/syncemu" || bad "share/doc/syncemu: no README.md or docs/"

# the scenario keys: syncemu-scenario(5), and the page of the keys
p=$prefix/share/man/man5/syncemu-scenario.5
if [ -f "$p" ] && MANWIDTH=100 man -l "$p" >"$tmp/man" 2>/dev/null && grep -q '^KEYS' "$tmp/man" &&
	grep -q '^ *bandwidth ' "$tmp/man"; then
	ok "man -l reads syncemu-scenario(5)"
else
	bad "syncemu-scenario(5): not installed, or man -l cannot read it"
fi
cmp -s "$prefix/share/doc/syncemu/scenario-keys.md" <("$se" scenario keys --markdown) &&
	ok "share/doc/syncemu/scenario-keys.md is the installed syncemu's keys" ||
	bad "share/doc/syncemu/scenario-keys.md: missing, or not 'syncemu scenario keys --markdown'"

# completions
bc=$prefix/share/bash-completion/completions/syncemu
if [ -f "$bc" ]; then
	out=$(PATH=$bin:$PATH bash -c '. "$1"
		c() { COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1)); _syncemu; echo "${COMPREPLY[*]}"; }
		c syncemu sw; c syncemu run --ev; c syncemu run --set wan.ba; c syncemu sweep --key background.lo' _ "$bc")
	[ "$out" = $'sweep\n--every-step\nwan.bandwidth=\nbackground.load' ] &&
		ok "bash completes a command, an option, a key to set and a key to sweep" ||
		bad "bash completion: $(echo "$out" | tr '\n' '|')"
	# a key's values (readline splits the word at '=': the line is what tells), --capture's
	# points after a comma, syncemu lab's subcommands and their options, and the same from a
	# build tree's path
	out=$(PATH=$bin:$PATH bash -c '. "$1"
		c() { COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1)); COMP_LINE="$*"; COMP_POINT=${#COMP_LINE}
			_syncemu; echo "${COMPREPLY[*]}"; }
		c syncemu run --set run.fast_forward=st; c syncemu run --capture wan,sw
		c syncemu lab st; c syncemu lab up --hosts; c syncemu lab down --j' _ "$bc")
	[ "$out" = $'steady\nwan,switch\nstatus\n--hosts\n--json' ] &&
		ok "bash completes a key's values, --capture's points, syncemu lab's subcommands and options" ||
		bad "bash completion of values: $(echo "$out" | tr '\n' '|')"
	bash -c '. "$1"; complete -p build/tools/syncemu' _ "$bc" >/dev/null 2>&1 && ok "bash completes build/tools/syncemu too" || bad "no completion for build/tools/syncemu"
else
	bad "no bash completion"
fi
zc=$prefix/share/zsh/vendor-completions/_syncemu
if [ ! -f "$zc" ]; then
	bad "no zsh completion"
elif ! command -v zsh >/dev/null; then
	echo "# zsh is not installed: its completion not tried"
else
	timeout 60 zsh -f "$here/zsh_complete.zsh" "$(dirname "$zc")" "$bin" 'syncemu run --set wan.ba' \
		'syncemu run --set wan.bandwidth=' >"$tmp/z" 2>&1
	grep -q 'syncemu run --set wan.bandwidth=' "$tmp/z" && ok "zsh completes a scenario key to set" ||
		bad "zsh: $(tail -c 300 "$tmp/z" | tr -d '\033')"
	timeout 60 zsh -f "$here/zsh_complete.zsh" "$(dirname "$zc")" "$bin" 'syncemu rep' 'syncemu report' >"$tmp/z" 2>&1
	grep -q 'syncemu report' "$tmp/z" && ok "zsh completes a command" || bad "zsh: $(tail -c 300 "$tmp/z" | tr -d '\033')"
	timeout 60 zsh -f "$here/zsh_complete.zsh" "$(dirname "$zc")" "$bin" 'syncemu run --set run.clock=r' \
		'syncemu run --set run.clock=real' >"$tmp/z" 2>&1
	grep -q 'syncemu run --set run.clock=real' "$tmp/z" && ok "zsh completes a key's value" ||
		bad "zsh, a value: $(tail -c 300 "$tmp/z" | tr -d '\033')"
	timeout 60 zsh -f "$here/zsh_complete.zsh" "$(dirname "$zc")" "$bin" 'syncemu lab st' 'syncemu lab status' \
		>"$tmp/z" 2>&1
	grep -q 'syncemu lab status' "$tmp/z" && ok "zsh completes syncemu lab's subcommands" ||
		bad "zsh, lab: $(tail -c 300 "$tmp/z" | tr -d '\033')"
fi

# one version
[ "$("$se" --version)" = "$("$se" version)" ] && "$se" version | head -1 | grep -q "^syncemu [0-9]" &&
	ok "syncemu --version and syncemu version agree: $("$se" version | head -1)" || bad "versions differ"
[ $fails -eq 0 ]
