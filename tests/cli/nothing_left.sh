#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# A command that fails leaves nothing it made and says why: --tables whose write fails mid-table
# (a file-size limit, EFBIG, as a full disk's ENOSPC) names the file and the reason and leaves
# no directory it made; a sweep whose runs cannot start, and one a signal stops before its
# first run, leave no -o directory they made; a directory that was there stays.  And the --ctl
# socket: replaced by a link right after bind() (a preloaded stand-in for whoever else can
# write its directory), nothing is done through the link: the file it leads to keeps its mode.
# Usage: nothing_left.sh SYNCEMU LIBBIND_SWAP plain|sanitized
set -u
. "$(dirname "$0")/lib.sh"
se=$(realpath "$1")
swap=$(realpath "$2")
build=${3:-plain}

# -- --tables: 150 short steps make a table of 15 kB, past the 8 KiB its stream buffers (so the
# write fails in the middle, not at the end); the files may not pass 4 KiB (ulimit -f)
rc=0
(ulimit -f 4 && trap '' XFSZ && exec "$se" run -v A -n 150 -q --set job.parameters=200000 \
	--set job.topk_kept=0 --tables "$tmp/tabs") \
	>/dev/null 2>"$tmp/err" || rc=$?
[ "$rc" = 1 ] && ok "--tables, a write that fails: exit 1" || bad "--tables: exit $rc"
expect_grep "$tmp/err" "--tables: cannot write $tmp/tabs/steps-1.csv: File too large" \
	"it names the file and the reason"
[ ! -e "$tmp/tabs" ] && ok "the directory it made is removed (no table in it)" ||
	bad "left: $(ls -la "$tmp/tabs")"

# -- sweep: no run can start (the EAL refuses its flags): no directory left
expect_rc 1 "sweep whose runs cannot start" -- "$se" sweep -k run.steps -V 1 -v A -q \
	-o "$tmp/sw1" --eal "--no-such-flag"
[ ! -e "$tmp/sw1" ] && ok "the -o directory it made is removed" || bad "left: $tmp/sw1"
mkdir "$tmp/there"
expect_rc 1 "the same into a directory that was there" -- "$se" sweep -k run.steps -V 1 -v A -q \
	-o "$tmp/there" --eal "--no-such-flag"
[ -d "$tmp/there" ] && ok "that directory stays" || bad "a directory that was there was removed"

# -- sweep: a signal before the first run: strace sends SIGTERM as the mkdir of -o returns (the
# directory made, nothing in it yet; SIGTERM: a script's background job ignores SIGINT)
if command -v strace >/dev/null && strace -qq -o /dev/null true 2>/dev/null; then
	expect_rc 130 "sweep stopped before its first run" -- strace -qq -o /dev/null \
		-e trace=mkdir -e inject=mkdir:signal=SIGTERM:when=1 \
		"$se" sweep -k run.steps -V 1 -v A -q -o "$tmp/sw2"
	expect_grep "$tmp/err" "before the first run: nothing written, and the directory it made removed" \
		"it says so"
	[ ! -e "$tmp/sw2" ] && ok "no directory left" || bad "left: $(ls -la "$tmp/sw2")"
else
	echo "skip - no strace (or no ptrace here): the sweep stopped before its first run"
fi

# -- --ctl: the socket replaced by a link to a file of mode 0644 right after it is bound
# (the preload does nothing under AddressSanitizer, which must come first: plain build only)
if [ "$build" = sanitized ]; then
	echo "skip - the preloaded bind() under AddressSanitizer"
else
	mkdir "$tmp/d"
	printf 'keep\n' >"$tmp/victim"
	chmod 0644 "$tmp/victim"
	ln -s "$tmp/victim" "$tmp/d/planted"
	LD_PRELOAD=$swap BIND_SWAP_PATH=$tmp/d/ctl.sock BIND_SWAP_LINK=$tmp/d/planted \
		"$se" run -v A -n 2 -q --ctl "$tmp/d/ctl.sock" >/dev/null 2>"$tmp/err"
	[ ! -e "$tmp/d/planted" ] && [ -L "$tmp/d/ctl.sock" ] &&
		ok "--ctl: the socket was replaced by the link after bind()" ||
		bad "the stand-in did not act: $(ls -la "$tmp/d")"
	[ "$(stat -c %a "$tmp/victim")" = 644 ] && [ "$(cat "$tmp/victim")" = keep ] &&
		ok "the file the link leads to keeps its mode (644) and content" ||
		bad "the file behind the link: mode $(stat -c %a "$tmp/victim")"
	[ -L "$tmp/d/ctl.sock" ] && ok "the link is not removed at exit (not the socket it bound)" ||
		bad "the link was removed"
fi
finish
