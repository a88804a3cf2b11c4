#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# syncemu-scenario(5) from the key table, the one source of its text:
#   mkkeysman.sh SYNCEMU VERSION OUT.5
# It reads 'syncemu scenario keys --markdown' (a row per key, then a row per kind of unit) and
# writes a section per [section], a paragraph per key; a row that is not five cells (keys) or
# three (units) fails the page rather than print it wrong.
set -eu
se=$1 version=$2 out=$3
tmp=$out.tmp
trap 'rm -f "$tmp"' EXIT
"$se" scenario keys --markdown | awk -v version="$version" '
function roff(s) {
	gsub(/\\/, "\\e", s)
	gsub(/-/, "\\-", s)
	if (s ~ /^[.\047]/)
		s = "\\&" s
	return s
}
function cells(line, n,    i, m) {
	sub(/^\| /, "", line)
	sub(/ \|$/, "", line)
	m = split(line, c, / \| /)
	if (m != n) {
		printf "mkkeysman.sh: a row of %d cells, expected %d: %s\n", m, n, line > "/dev/stderr"
		bad = 1
		exit 1
	}
}
BEGIN {
	print ".TH SYNCEMU\\-SCENARIO 5 \"\" \"syncemu " version "\" \"syncemu manual\""
	print ".SH NAME"
	print "syncemu\\-scenario \\- the scenario file of syncemu: every section and key"
	print ".SH SYNOPSIS"
	print "\\fISCENARIO\\fR.ini: lines \\fB[\\fIsection\\fB]\\fR and \\fIkey\\fR \\fB=\\fR \\fIvalue\\fR;"
	print "on a command line, \\fB\\-\\-set\\fR \\fIsection\\fR.\\fIkey\\fR=\\fIvalue\\fR."
	print ".SH DESCRIPTION"
	print "A scenario is an INI file, read by \\fBsyncemu model\\fR, \\fBrun\\fR, \\fBsweep\\fR,"
	print "\\fBvalidate\\fR and \\fBbridge\\fR (\\fBsyncemu scenario check\\fR checks one,"
	print "\\fBsyncemu scenario dump\\fR prints one with every key)."
	print "A key that is not set takes its default; a value is checked against what its key allows,"
	print "and any error names the file, the line, the key and what is allowed."
	print "A value with a unit takes any unit of its kind (UNITS below)."
	print "This page is the key table that \\fBsyncemu scenario keys\\fR prints."
	print ".SH KEYS"
	state = 0
}
/^\| Key \| Type / { state = 1; next }
/^\| Type \| Stored in / { state = 2; print ".SH UNITS"; next }
/^\|[-|]+\|$/ { next }
/^$/ { next }
state == 1 {
	cells($0, 5)
	key = c[1]
	gsub(/`/, "", key)
	sec = key
	sub(/\..*/, "", sec)
	name = key
	sub(/^[^.]*\./, "", name)
	if (sec != last) {
		print ".SS [" roff(sec) "]"
		last = sec
	}
	print ".TP"
	print "\\fB" roff(name) "\\fR (" roff(c[2]) "; default " roff(c[3]) "; allowed " roff(c[4]) ")"
	print roff(c[5])
	keys++
	next
}
state == 2 {
	cells($0, 3)
	print ".TP"
	print "\\fB" roff(c[1]) "\\fR (stored in " roff(c[2]) ")"
	print roff(c[3])
	next
}
{ printf "mkkeysman.sh: unexpected line: %s\n", $0 > "/dev/stderr"; bad = 1; exit 1 }
END {
	if (bad)
		exit 1
	if (keys == 0) {
		print "mkkeysman.sh: no keys in syncemu scenario keys --markdown" > "/dev/stderr"
		exit 1
	}
	print ".SH EXAMPLES"
	print "A WAN of 1 Gbit/s and 10 ms each way, beside background traffic at 30 % of it:"
	print ".PP"
	print ".nf"
	print ".RS"
	print "[wan]"
	print "bandwidth = 1 Gbit/s"
	print "latency = 10 ms"
	print "[background]"
	print "load = 0.3"
	print ".RE"
	print ".fi"
	print ".PP"
	print "The same from the command line, and a file with every key to edit:"
	print ".PP"
	print ".nf"
	print ".RS"
	print "syncemu run \\-\\-set wan.bandwidth=1Gbit/s \\-\\-set wan.latency=10ms \\-l 0.3"
	print "syncemu scenario dump \\-\\-set wan.latency=10ms >my.ini"
	print "syncemu scenario check my.ini"
	print ".RE"
	print ".fi"
	print ".SH FILES"
	print ".TP"
	print ".I PREFIX/share/syncemu/scenarios/"
	print "The scenarios of the deck: \\fBsyncemu run 2dc4\\-25g\\fR finds 2dc4\\-25g.ini there,"
	print "or in \\fB$SYNCEMU_SCENARIO_DIR\\fR."
	print ".TP"
	print ".I PREFIX/share/doc/syncemu/scenario\\-keys.md"
	print "The same keys as a page."
	print ".SH SEE ALSO"
	print ".BR syncemu (1),"
	print ".BR syncemu\\-scenario (1),"
	print ".BR syncemu\\-run (1),"
	print ".B syncemu scenario keys"
}' >"$tmp"
mv "$tmp" "$out"
trap - EXIT
