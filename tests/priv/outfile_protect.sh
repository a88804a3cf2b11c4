#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Output paths obey the kernel's protections: root's syncemu never writes through a path with
# more rights than root's own open(path, O_WRONLY | O_CREAT) has.  A user made here (useradd)
# plants, in a sticky directory every user can write (mode 1777, as /tmp) made here, a link to
# a scratch file root owns in another directory, a dangling link, a link as the output's
# directory, one as sweep's -o and as --tables, a FIFO and a regular file of its own.  With
# fs.protected_symlinks, protected_fifos and protected_regular set to 1 (saved, set and
# restored in a trap), syncemu refuses each (exit 2), naming the path and the kernel's reason,
# and every file is left byte for byte as it was, nothing made.  What the kernel allows still
# works: root's own link in the same directory, and the user's link in a directory of the
# user's own (not sticky), whose target gets the trace.  A scratch tree under the test's own
# directory; the user is removed at the end.
# Usage: outfile_protect.sh SYNCEMU
set -u
. "$(dirname "$0")/../cli/lib.sh"
se=$(realpath "$1")
[ "$(id -u)" -eq 0 ] || skip "needs root (a user made with useradd, the fs.protected_* sysctls)"
command -v useradd >/dev/null && command -v userdel >/dev/null || skip "no useradd"
command -v setpriv >/dev/null || skip "no setpriv (util-linux)"
knobs="protected_symlinks protected_fifos protected_regular"
for k in $knobs; do
	[ -w "/proc/sys/fs/$k" ] || skip "cannot set fs.$k"
done

user=seout$$
declare -A saved=()
restore() {
	local k
	for k in "${!saved[@]}"; do echo "${saved[$k]}" >"/proc/sys/fs/$k"; done
	id "$user" >/dev/null 2>&1 && userdel "$user" 2>/dev/null
	cleanup_pids
}
trap restore EXIT
useradd --system --no-create-home --shell /usr/sbin/nologin "$user" 2>"$tmp/e" ||
	skip "useradd: $(cat "$tmp/e")"
as_user() { setpriv --reuid "$user" --regid "$(id -g "$user")" --clear-groups "$@"; }
for k in $knobs; do
	saved[$k]=$(cat "/proc/sys/fs/$k")
	echo 1 >"/proc/sys/fs/$k"
done

chmod 0755 "$tmp"
sticky=$tmp/sticky		# as /tmp: anyone writes, only an entry's owner removes it
targets=$tmp/targets		# root's, in another directory
mkdir "$sticky" "$targets" "$tmp/own"
chmod 1777 "$sticky"
chown "$user" "$tmp/own"	# the user's own directory: not sticky
printf 'the target, not to be replaced\n' >"$targets/secret"
printf 'the user file\n' >"$tmp/userfile"
as_user ln -s "$targets/secret" "$sticky/t.pcapng"
as_user ln -s "$targets/made.pcapng" "$sticky/dangling.pcapng"
as_user ln -s "$targets" "$sticky/dir"
as_user mkfifo "$sticky/fifo"
as_user cp "$tmp/userfile" "$sticky/theirs.pcapng"
ln -s "$targets/mine.pcapng" "$sticky/mine.pcapng"	# root's own link: followed
as_user ln -s "$targets/ok.pcapng" "$tmp/own/ok.pcapng"	# not sticky: followed
state() {
	find "$targets" "$sticky" -printf '%p %y %s %m %u %l\n' | sort
	md5sum "$targets"/* "$sticky/theirs.pcapng"
}
state >"$tmp/before"

RUN=(run -v A -n 1 -q)
# refused DESC PATH-FRAGMENT REASON -- CMD...: exit 2, the path and the kernel's reason named
refused() {
	local desc=$1 path=$2 why=$3
	shift 4
	expect_rc 2 "$desc" -- timeout 60 "$@"
	expect_grep "$tmp/err" "$path" "$desc: names the path"
	expect_grep "$tmp/err" "$why" "$desc: says the kernel's reason"
}
sym="Permission denied (the kernel's fs.protected_symlinks = 1"
refused "--trace through another user's link in a sticky directory" "$sticky/t.pcapng" "$sym" \
	-- "$se" "${RUN[@]}" --trace "$sticky/t.pcapng"
refused "--trace through another user's dangling link" "$sticky/dangling.pcapng" "$sym" \
	-- "$se" "${RUN[@]}" --trace "$sticky/dangling.pcapng"
refused "--trace in a directory that is another user's link" "$sticky/dir" "$sym" \
	-- "$se" "${RUN[@]}" --trace "$sticky/dir/x.pcapng"
# (a FIFO without a reader: the code before this waited for one; timeout guards that hang)
refused "--trace on another user's FIFO in a sticky directory" "$sticky/fifo" \
	"Permission denied (the kernel's fs.protected_fifos = 1" \
	-- "$se" "${RUN[@]}" --trace "$sticky/fifo"
refused "--trace over another user's file in a sticky directory" "$sticky/theirs.pcapng" \
	"Permission denied (the kernel's fs.protected_regular = 1" \
	-- "$se" "${RUN[@]}" --trace "$sticky/theirs.pcapng"
refused "sweep -o another user's link" "$sticky/dir" "$sym" \
	-- "$se" sweep -k run.steps -V 1 -v A -n 1 -q -o "$sticky/dir"
refused "--tables another user's link" "$sticky/dir" "$sym" \
	-- "$se" "${RUN[@]}" --tables "$sticky/dir"
state >"$tmp/after"
diff "$tmp/before" "$tmp/after" >"$tmp/diff" &&
	ok "every file as it was, byte for byte; nothing made" || bad "files changed: $(cat "$tmp/diff")"

# what the kernel allows is still written, through the link, the link kept
expect_rc 0 "--trace through root's own link in the sticky directory" -- \
	"$se" "${RUN[@]}" --trace "$sticky/mine.pcapng"
[ -L "$sticky/mine.pcapng" ] && [ -s "$targets/mine.pcapng" ] && ok "its target holds the trace" ||
	bad "root's own link: $(ls -l "$sticky/mine.pcapng" "$targets/mine.pcapng" 2>&1)"
expect_rc 0 "--trace through the user's link in the user's own directory" -- \
	"$se" "${RUN[@]}" --trace "$tmp/own/ok.pcapng"
[ -L "$tmp/own/ok.pcapng" ] && [ -s "$targets/ok.pcapng" ] && ok "its target holds the trace" ||
	bad "the user's link: $(ls -l "$tmp/own/ok.pcapng" "$targets/ok.pcapng" 2>&1)"
finish
