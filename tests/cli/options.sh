#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# The command line of every command, as a table: each row is a command line, the exit code it
# must give and a fragment of its message.  Exit 2 for every bad command line, the options that
# set a scenario key included (checked by the key's own rule, named as the user typed them, never
# as an internal --set); exit 3 for what only the whole scenario can check, naming the option the
# value came from; an option whose value is itself an option is refused; exclusive options and
# missing companions are refused naming both.  A failing command writes nothing: no output on
# stdout, no file in the directory it runs in.
# A new option is one row.  The comment of each row says how the code before this table failed
# it ("before: ...") or that it is a regression guard ("guard").
# Usage: options.sh SYNCEMU (run from the source root)
set -u
. "$(dirname "$0")/lib.sh"
se=$(readlink -f "$1")
src=$PWD
top=$(dirname "$se")/top/syncemu-top
command -v python3 >/dev/null || skip "python3 is not installed"

# a small pcap: Ethernet, IPv4, UDP 10.0.0.1:1000 > 10.0.0.2:65535, three packets 1 ms apart
trace=$tmp/t.pcap
small_pcap "$trace"
ini=$src/scenarios/1dc8.ini

rows=(
	# exit|message fragment|command line (after syncemu; $trace, $ini, $tmp expand)
	# -- run: the options that are scenario keys, checked when parsed
	"2|-n '0' (run.steps): out of range (allowed: 1..1000000)|run -n 0"		# before: exit 3, "--set 'run.steps=0'" (the issue's example)
	"2|--steps '0' (run.steps): out of range (allowed: 1..1000000)|run --steps 0"	# before: exit 3, --set
	"2|-n '-5' (run.steps): |run -n -5"						# before: exit 3, --set (a negative number stays a value)
	"2|--seed '-1' (run.seed): no sign allowed (allowed: 0..18446744073709551615|run --seed -1"	# before: exit 3, --set (the issue's example)
	"2|--snaplen '999999999' (trace.snaplen): out of range (allowed: 0..262144)|run --snaplen 999999999"	# before: exit 3, --set (the issue's example)
	"2|--capture 'nosuch' (trace.capture): unknown name 'nosuch' (allowed: a comma list of tx|run --capture nosuch"	# before: exit 3, --set (the issue's example)
	"2|-c 'tx,bogus' (trace.capture): unknown name 'bogus'|run -c tx,bogus"		# before: exit 3, --set
	"2|-l '1' (background.load): out of range (allowed: [0, 1))|run -l 1"		# before: exit 3, --set
	"2|--load 'high' (background.load): |run --load high"				# before: exit 3, --set
	"2|-t '' (trace.file): [trace] file: empty value|run -t ''"			# before: exit 3, --set
	"2|--steps '--trace' (run.steps): |run --steps=--trace"			# before: exit 3, --set (attached with '=': a value)
	# -- run: an option's value that is an option
	"2|-n needs a value; '--trace' is an option|run -n --trace none"	# before: exit 3, "none: cannot open" (the issue's example)
	"2|--seed needs a value; '--json' is an option|run --seed --json"	# before: exit 3, --set
	"2|-t needs a value; '-q' is an option|run -v A -n 1 -t -q"	# before: exit 0, a trace named '-q' written
	"2|--trace needs a value; '--quiet' is an option|run -v A -n 1 --trace --quiet"	# before: exit 0, a trace named '--quiet'
	"2|-n '0' (run.steps): out of range|run --eal '--no-huge --no-pci' -n 0"	# before: exit 3 (--eal takes a value that starts with '-')
	"2|option --eal needs a value|run --eal"			# before: "needs an argument"
	"2|option --s is ambiguous: --set --steps --seed --snaplen|run --s 5"	# before: "unknown option --s"
	# -- run: guards
	"2|-v: unknown 'Q'|run -v Q"					# before: named --variant, not -v
	"2|--background-only: '0s' is not a time in (0, 1 h]|run --background-only 0s"	# guard
	"2|--background-only needs background.load > 0|run --background-only 1s"	# guard
	"2|--mbufs: '5' is not a count in 1024..100000000|run --mbufs 5"	# guard
	"2|unknown option --frobnicate|run --frobnicate"		# guard
	"2|--set 'run.steps=0': [run] steps = '0': out of range|run --set run.steps=0"	# before: exit 3 (a --set value the key's rule refuses is a bad command line)
	"3|2dc4-100g.ini:150: inconsistent scenario: run.frame_payload|run $src/scenarios/2dc4-100g.ini --set run.mtu=1500"
	"3|inconsistent scenario: topology.wan: [ports] dcN|run -n 1 --set topology.wan=mesh --set run.clock=real --set ports.dc0=ring:w --set ports.dc1=ring:w"	# the WAN's shape against ports: at load, not when the run starts	# guard: what only the whole scenario refuses stays exit 3
	"3|/nonexistent.ini: cannot open|run /nonexistent.ini"		# guard
	# -- sweep
	"2|--values and --range exclude each other|sweep -k background.load --values 0.1 --range 0:0.2:0.1 -v A -n 1 -q -o sw"	# before: exit 0, both swept (the issue's example)
	"2|-V and -r exclude each other|sweep -k background.load -V 0.1 -r 0:0.2:0.1 -v A -n 1 -q -o sw"	# before: exit 0
	"2|-k 'wan.bandwith': [wan] bandwith: unknown key; did you mean 'bandwidth'|sweep -k wan.bandwith -V 1GB/s"	# before: exit 3, --set
	"2|--key 'Ep': not a key (expected section.key|sweep --key Ep -V 1"	# before: "--key: 'Ep' is not SECTION.KEY"
	"2|value 2 of wan.bandwidth: -V 'fast' (wan.bandwidth): 'fast' is not a number|sweep -k wan.bandwidth -V 1GB/s,fast"	# before: exit 3, --set
	"2|value 3 of background.load: -r '1' (background.load): out of range|sweep -k background.load -r 0:1:0.5"	# before: exit 3, --set
	"3|value 1 of run.frame_payload: -V '9000' (run.frame_payload): inconsistent scenario: run.frame_payload|sweep -k run.frame_payload -V 9000 -n 1"	# before: "--set 'run.mtu=1500'" (whole scenario: exit 3, the option named)
	"2|-n '0' (run.steps): out of range|sweep -k run.mtu -V 9000 -n 0"		# before: exit 3, --set
	"2|-r: '0:0.9' is not FROM:TO:STEP|sweep -k background.load -r 0:0.9"	# before: named --range, not -r
	"2|needs --key and --values or --range|sweep -k background.load"	# guard
	# -- validate
	"2|--filter 'tcp and and': can't parse filter expression: syntax error|validate $trace --filter 'tcp and and'"	# before: exit 3 (found when the trace is read)
	"2|-f 'udp port': |validate $trace -f 'udp port'"		# before: exit 3
	"2|--hosts: '10.0.0.300' is not an IPv4 or IPv6 address|validate $trace --hosts 10.0.0.300"	# before: exit 3 (the issue's example)
	"2|--hosts: an empty item in the list|validate $trace --hosts 10.0.0.1,,10.0.0.2"	# before: exit 0, the empty item skipped
	"2|--hosts: 'nosuchhost' is not an IPv4 or IPv6 address|validate $trace --hosts nosuchhost"	# before: exit 3 (a name libpcap looked up)
	"2|--ports: '80x' is not a port (allowed: 0..65535|validate $trace --ports 80x"	# before: exit 3 (the issue's example)
	"2|--ports: '70000' is not a port|validate $trace --ports 70000"	# before: exit 3
	"2|--ports: '-1' is not a port|validate $trace --ports -1"	# before: exit 3
	"2|--gap and --period exclude each other|validate $trace --gap 1ms --period 2ms"	# before: exit 0, --period won (the issue's example)
	"2|--variant needs --scenario|validate $trace --variant A"	# before: exit 0, --variant ignored (the issue's example)
	"2|-b needs --variant|validate $trace -s $ini -b low"		# before: exit 0, -b ignored
	"2|-v 'A,C': one variant|validate $trace -s $ini -v A,C"	# before: exit 0, C ignored
	"2|--tolerance: 'abc' is not a percentage >= 0|validate $trace --tolerance abc"	# guard
	"2|missing the trace|validate"					# guard
	"0||validate $trace --hosts 10.0.0.1,fd00::1 --ports 0,65535 --gap 500us"	# guard: good values still pass
	"2|--steps and --collective exclude each other|validate $trace --steps 3 --collective allreduce --ranks 2 --bytes 1MiB"	# new: the streams' options
	"2|--steps and --gap exclude each other|validate $trace --steps 3 --gap 1ms"	# new
	"2|--background and --period exclude each other|validate $trace --background 'tcp port 1' --period 1ms"	# new
	"2|--collective needs --ranks and --bytes|validate $trace --collective allreduce --ranks 2"	# new
	"2|--ranks needs --collective|validate $trace --ranks 4"	# new
	"2|--placement needs --collective|validate $trace --placement cyclic"	# new
	"2|--clock-offset needs --steps-csv|validate $trace --steps 3 --clock-offset 1ms"	# new
	"2|-n: '0' is not a count in 1..1000000|validate $trace -n 0"		# new
	"2|--collective: 'allreduse' (allowed: allreduce, allgather, reducescatter, alltoall)|validate $trace --collective allreduse --ranks 2 --bytes 1MiB"	# new
	"2|--ranks: '1' is not a count in 2..16777216|validate $trace --collective allreduce --ranks 1 --bytes 1MiB"	# new
	"2|--placement: 'ring' (allowed: block, cyclic)|validate $trace --collective allreduce --ranks 2 --placement ring --bytes 1MiB"	# new
	"2|--bytes: '4MB/s' is not a size|validate $trace --collective allreduce --ranks 2 --bytes 4MB/s"	# new
	"2|--rate: 'fast' is not a rate > 0|validate $trace --steps 3 --rate fast"	# new
	"2|--idle: '0s' is not a time > 0|validate $trace --steps 3 --idle 0s"	# new
	"2|--background 'tcp port': |validate $trace --background 'tcp port'"	# new: compiled before the trace is read
	"2|--clock-offset: 'soon' is not a time|validate $trace --steps-csv x.csv --clock-offset soon"	# new
	"2|--gap: 'often' is not a time > 0 or 'auto'|validate $trace --gap often"	# new
	"2|--count: 'bits' (allowed: wire, payload)|validate $trace --gap auto --count bits"	# new
	"0||validate $trace --gap auto --bytes payload"	# guard: --bytes wire|payload, the former spelling of --count
	# -- model
	"2|-t: unknown table 'nope'|model -t nope"			# before: named --table, not -t
	"2|-t needs a value; '--json' is an option|model -t --json"	# before: "--table: unknown table '--json'"
	"2|option --table needs a value|model --table"			# before: "needs an argument"
	"2|unexpected argument 'b.ini'|model a.ini b.ini"		# guard
	"2|--set 'wan.bandwidth=-1GB/s'|model --set wan.bandwidth=-1GB/s"	# before: exit 3
	# -- scenario
	"2|-m is for 'keys', not 'check'|scenario check $ini -m"	# before: exit 0, -m ignored
	"2|--set is for 'check' and 'dump', not 'keys'|scenario keys --set wan.bandwidth=1GB/s"	# before: exit 0, --set ignored
	"2|-s needs a value; '-m' is an option|scenario dump -s -m"	# before: exit 3, --set '-m'
	"2|missing action|scenario"					# guard
	# -- ctl (nothing listens on $tmp/none.sock)
	"2|--timeout needs a value|ctl --timeout"			# before: "unknown option --timeout"
	"2|--timeout needs a value; '--help' is an option|ctl --timeout --help $tmp/none.sock status"	# before: "'--help' is not a number"
	"2|--timeout: '0' is not a number of ms in 1..600000|ctl --timeout=0 $tmp/none.sock status"	# before: "unknown option --timeout=0"
	"1|no syncemu is listening on $tmp/none.sock|ctl --timeout=100 $tmp/none.sock status"	# before: exit 2, --timeout=MS unknown
	"2|--timeout: '-5' is not a number of ms in 1..600000|ctl --timeout -5 $tmp/none.sock status"	# guard
	"2|needs SOCKET and a request|ctl $tmp/none.sock"		# guard
	# -- an empty path: a bad command line everywhere, named as typed
	"2|--ctl '': an empty path|run --ctl ''"				# before: exit 1, "--ctl: : No such file" after the EAL started (the issue's example)
	"2|--queue-csv '': an empty path|run --queue-csv ''"			# before: the same, said once the outputs were opened
	"2|--csv '': an empty path|run --csv ''"				# before: the same, said once the outputs were opened
	"2|--plot '': an empty path|run --plot ''"				# before: the same, said once the outputs were opened
	"2|argument 1 is empty ('')|run ''"					# before: exit 3, ": cannot open"
	"2|-o '': an empty path|sweep -k run.steps -V 1 -o ''"			# before: "cannot create the directory : No such file"
	"2|argument 1 is empty ('')|sweep '' -k run.steps -V 1"			# before: exit 3
	"2|argument 1 is empty ('')|validate ''"				# before: exit 3, "no trace file given"
	"2|--scenario '': an empty path|validate $trace --scenario ''"		# before: exit 3
	"2|--steps-csv '': an empty path|validate $trace --steps-csv ''"	# before: exit 3
	"2|argument 1 is empty ('')|report ''"					# before: "no --out FILE.html"
	"2|-o '': an empty path|report $tmp/none.json -o ''"			# before: exit 3 (its input looked at first)
	"2|--chart-js '': an empty path|report $tmp/none.json -o x.html --chart-js ''"	# before: exit 3
	"2|--ctl '': an empty path|bridge --ctl ''"				# before: "no port A" (refused for another reason)
	"2|SOCKET '': an empty path|ctl '' status"				# before: exit 1, "no syncemu is listening on "
	"2|argument 1 is empty ('')|model ''"					# before: exit 3
	"2|argument 2 is empty ('')|scenario dump ''"				# before: exit 3
)
# syncemu top runs syncemu-top, built only with clang, bpftool, libbpf and BTF; its options are
# parsed before anything needs a privilege
if [ -x "$top" ]; then
	rows+=(
		"2|-p needs a value; '--json' is an option|top -p --json"	# before: "--pid: '--json' is not a process id"
		"2|-i: '0' is not a time in (0, 1 d]|top -i 0 -p 1"		# before: named --interval, not -i
		"2|-p: '0' is not a process id|top -p 0"		# before: named --pid, not -p
		"2|--dur: '-1s' is not a time|top --dur -1s -p 1"	# before: named --duration, not as typed
		"2|which process? give -p PID|top -j"			# guard
	)
else
	echo "skip - syncemu top's rows: syncemu-top is not built (see meson's message)"
fi

mkdir "$tmp/cwd"
cd "$tmp/cwd" || exit 1
for row in "${rows[@]}"; do
	IFS='|' read -r want frag cmd <<<"$row"
	eval "set -- $cmd"
	rc=0
	timeout 120 "$se" "$@" >"$tmp/out" 2>"$tmp/err" </dev/null || rc=$?
	what="syncemu $cmd"
	if [ "$rc" -ne "$want" ]; then
		bad "$what: exit $rc, expected $want"
		sed 's/^/    stderr: /' "$tmp/err" | head -3
		continue
	fi
	if [ -n "$frag" ] && ! grep -qF -- "$frag" "$tmp/err"; then
		bad "$what: exit $rc, but '$frag' is not in its message"
		sed 's/^/    stderr: /' "$tmp/err" | head -3
		continue
	fi
	# an option is named as typed: never as the --set it becomes inside
	if [[ "$cmd" != *--set* ]] && grep -qF -- "--set '" "$tmp/err"; then
		bad "$what: the message names an internal --set: $(head -1 "$tmp/err")"
		continue
	fi
	if [ "$want" -ne 0 ] && [ -s "$tmp/out" ]; then
		bad "$what: exit $rc with output on stdout: $(head -1 "$tmp/out")"
		continue
	fi
	ok "$what: exit $rc${frag:+, '$frag'}"
done
left=$(ls -A "$tmp/cwd")
[ -z "$left" ] && ok "the failing commands wrote no file" || bad "files written: $left"

finish
