#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# [impair] end to end: a lossy WAN under the tcp transport (the loss rate against P, every byte
# still delivered, lost retransmissions resent without waiting for the RTO, the lost frames at
# their own capture point read by tshark), the same seed the
# same trace and two partitions the trace of one, jitter with and without reordering (TCP sees
# frames out of order only with it), the refusals (a bad word named by its byte offset, jitter on
# a link cut between partitions, a loss under the frames transport), and the bridge's WAN each
# way over ring ports (background frames lost at the loss rate, counted and traced).
#
# Bounds: a link's losses are independent draws (random P), so over the n frames it carried the
# count is binomial: within 6 sigma of n P (2e-9 by chance; the draws are seeded, so a given
# build gives one answer).  Nothing here is timed.
# Usage: impair.sh SYNCEMU_BINARY [quick]   (quick: the sanitizer build, for memory errors: the
# runs that repeat one for its trace, the refusals beyond one, and tshark left out)
set -u
. "$(dirname "$0")/lib.sh"
se=$(realpath "$1")
quick=${2:-}
command -v python3 >/dev/null || skip "python3 is not installed"

tcp=(--quiet --set job.transport=tcp --set run.steps=3 --set report.variants=A --json)

# the fraction lost on each WAN link of a run's JSON, within 6 sigma of P; prints the counts
loss_check() {	# JSON P
	python3 - "$1" "$2" <<'PY'
import json, math, sys
r = json.load(open(sys.argv[1]))["runs"][0]
p = float(sys.argv[2])
out = []
for e in r["elements"]:
    if not e["name"].startswith("wan") or e["kind"] != "link":
        continue
    n, k = e["rx"], e["lost"]
    bound = 6 * math.sqrt(n * p * (1 - p))
    assert abs(k - n * p) <= bound, "%s: %d lost of %d, expected %.1f +- %.1f" % (e["name"], k, n, n * p, bound)
    assert e["drop"] == k, "%s: drops %d besides the %d lost" % (e["name"], e["drop"], k)
    out.append("%s %d of %d (%.3f %%)" % (e["name"], k, n, 100.0 * k / n))
print("; ".join(out))
PY
}

expect_rc 0 "tcp without impairments" -- "$se" run "${tcp[@]}"
cp "$tmp/out" "$tmp/clean.json"
# (each traced run in a directory of its own: the trace's header names its file, the same name)
mkdir -p "$tmp/a" "$tmp/b" "$tmp/p"
expect_rc 0 "tcp over a WAN losing 1 % of frames, traced" -- env -C "$tmp/a" "$se" run "${tcp[@]}" \
	--set 'impair.wan=loss random 1%' --trace t.pcapng
cp "$tmp/out" "$tmp/l1.json"
if loss_check "$tmp/l1.json" 0.01 >"$tmp/lc" 2>&1; then
	ok "each WAN link lost 1 % of its frames within 6 sigma: $(cat "$tmp/lc")"
else
	bad "the loss rate"
	sed 's/^/    /' "$tmp/lc"
fi
if python3 - "$tmp/clean.json" "$tmp/l1.json" >"$tmp/d" 2>&1 <<'PY'
import json, sys
a, b = (json.load(open(f))["runs"][0] for f in sys.argv[1:3])
assert a["tcp"]["resent"] == 0, a["tcp"]
assert b["tcp"]["resent"] > 0, b["tcp"]
assert a["tcp"]["delivered_bytes"] == b["tcp"]["delivered_bytes"], (a["tcp"], b["tcp"])
assert b["step_ms"]["median"] > a["step_ms"]["median"]
print("%d segments resent, %d bytes delivered as without loss; median step %.3f ms against %.3f" %
      (b["tcp"]["resent"], b["tcp"]["delivered_bytes"], b["step_ms"]["median"], a["step_ms"]["median"]))
PY
then
	ok "TCP resends what was lost: $(cat "$tmp/d")"
else
	bad "TCP under loss"
	sed 's/^/    /' "$tmp/d"
fi
# A retransmission lost again is found by RACK (RFC 8985) once a segment sent after it is
# delivered, as Linux finds it, and goes a third time within the recovery.  Were it left to the
# RTO, a run would have at least about as many timeouts as retransmissions lost: P x resent.
expect_rc 0 "tcp over a WAN losing 5 % of frames" -- "$se" run "${tcp[@]}" \
	--set 'impair.wan=loss random 5%'
if python3 - "$tmp/out" >"$tmp/d" 2>&1 <<'PY'
import json, sys
t = json.load(open(sys.argv[1]))["runs"][0]["tcp"]
lost_again = 0.05 * t["resent"]
assert t["timeouts"] < lost_again, t
print("%d timeouts against about %.0f retransmissions lost (%d resent)" %
      (t["timeouts"], lost_again, t["resent"]))
PY
then
	ok "lost retransmissions go again without an RTO: $(cat "$tmp/d")"
else
	bad "lost retransmissions"
	sed 's/^/    /' "$tmp/d"
fi
if tshark_ok; then
	want=$(python3 -c "
import json, sys
r = json.load(open(sys.argv[1]))['runs'][0]
print(' '.join('%s.loss=%d' % (e['name'], e['lost']) for e in r['elements'] if 'lost' in e))" "$tmp/l1.json")
	got=$(tshark -r "$tmp/a/t.pcapng" -T fields -e frame.interface_name 2>/dev/null |
		grep '\.loss$' | sort | uniq -c | awk '{printf "%s%s=%s", (NR > 1 ? " " : ""), $2, $1}')
	[ -n "$want" ] && [ "$got" = "$want" ] && ok "tshark finds the lost frames at their capture points: $got" ||
		bad "the trace's lost frames: tshark '$got', the run '$want'"
else
	echo "# tshark not installed: the trace's loss points are not read"
fi
if [ "$quick" != quick ]; then
expect_rc 0 "the same seed again" -- env -C "$tmp/b" "$se" run "${tcp[@]}" \
	--set 'impair.wan=loss random 1%' --trace t.pcapng
cmp -s "$tmp/a/t.pcapng" "$tmp/b/t.pcapng" && ok "the same trace, byte for byte" ||
	bad "the same seed gave another trace"
expect_rc 0 "two partitions" -- env -C "$tmp/p" "$se" run "${tcp[@]}" \
	--set 'impair.wan=loss random 1%' --set run.partitions=2 --trace t.pcapng
cmp -s "$tmp/a/t.pcapng" "$tmp/p/t.pcapng" && ok "two partitions: the trace of one, byte for byte" ||
	bad "two partitions gave another trace"
expect_rc 0 "another seed" -- "$se" run "${tcp[@]}" --set 'impair.wan=loss random 1%' --set run.seed=2
lost() { python3 -c "import json,sys; print(sum(e.get('lost', 0) for e in json.load(open(sys.argv[1]))['runs'][0]['elements']))" "$1"; }
l2=$(lost "$tmp/out") l1=$(lost "$tmp/l1.json")
[ -n "$l1" ] && [ -n "$l2" ] && [ "$l1" != "$l2" ] && ok "another seed, other losses ($l2 against $l1)" ||
	bad "another seed lost the same frames"
fi

# ECN: RED marks the ECT data segments of a run whose TCP has transport.ecn; the sync's class is
# lossless (queues.sync_lossless's default), so RED never drops them: every mark reaches its
# receiver (CE received = marked), is echoed, and cuts a window; nothing is resent
mkdir -p "$tmp/e" "$tmp/r"
red='red min 30kB max 150kB probability 10% ecn'
expect_rc 0 "tcp with ECN through RED, traced" -- env -C "$tmp/e" "$se" run "${tcp[@]}" \
	--set "impair.wan=$red" --set transport.ecn=yes --trace t.pcapng
cp "$tmp/out" "$tmp/ecn.json"
if python3 - "$tmp/clean.json" "$tmp/ecn.json" >"$tmp/d" 2>&1 <<'PY'
import json, sys
a, b = (json.load(open(f))["runs"][0] for f in sys.argv[1:3])
wan = [e for e in b["elements"] if "marked" in e]
marked = sum(e["marked"] for e in wan)
assert len(wan) == 2 and marked > 0, wan
assert all(e["aqm_drops"] == 0 and e["drop"] == 0 for e in wan), wan
t = b["tcp"]
assert t["ce_received"] == marked, (t, marked)
assert 0 < t["ecn_window_cuts"] <= marked and t["resent"] == 0, t
assert t["delivered_bytes"] == a["tcp"]["delivered_bytes"]
assert "ce_received" not in a["tcp"]
print("%d marked, %d received CE, %d window cuts, nothing resent; max queue %s B against %s without" % (
    marked, t["ce_received"], t["ecn_window_cuts"],
    "/".join(str(e["max_queue_bytes"]) for e in wan),
    "/".join(str(e["max_queue_bytes"]) for e in a["elements"] if e["name"].startswith("wan"))))
PY
then
	ok "ECN: $(cat "$tmp/d")"
else
	bad "ECN through RED"
	sed 's/^/    /' "$tmp/d"
fi
if tshark_ok; then
	# the marks are in the frames' bytes: CE at the .mark points, ECE on the ACKs back
	want=$(python3 -c "
import json, sys
r = json.load(open(sys.argv[1]))['runs'][0]
print(sum(e.get('marked', 0) for e in r['elements']))" "$tmp/ecn.json")
	# (one pass: interface, ECN field, ECE flag, TCP payload)
	tshark -r "$tmp/e/t.pcapng" -T fields -e frame.interface_name -e ip.dsfield.ecn \
		-e tcp.flags.ece -e tcp.len 2>/dev/null >"$tmp/ecn.tsv"
	read -r ce ece ect < <(awk -F'\t' '
		$1 ~ /\.mark$/ && $2 == 3 { ce++ }
		$1 ~ /\.in$/ && ($3 == 1 || $3 == "True") { ece++ }
		$4 > 0 && $2 == 0 { ect++ }
		END { print ce + 0, ece + 0, ect + 0 }' "$tmp/ecn.tsv")
	[ "$ce" = "$want" ] && [ "$ece" -gt 0 ] && [ "$ect" -eq 0 ] &&
		ok "tshark: $ce frames CE at the .mark points (the run: $want), $ece ACKs with ECE, every data segment ECN-capable" ||
		bad "the trace's ECN: CE at .mark $ce (the run $want), ECE $ece, data not ECT $ect"
fi
if [ "$quick" != quick ]; then
# without ECN, with the sync's class lossy: RED drops early, TCP resends, each drop traced
expect_rc 0 "tcp through RED dropping (sync_lossless = no)" -- env -C "$tmp/r" "$se" run \
	"${tcp[@]}" --set 'impair.wan=red min 30kB max 150kB probability 10%' \
	--set queues.sync_lossless=no --trace t.pcapng
if python3 - "$tmp/out" >"$tmp/d" 2>&1 <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))["runs"][0]
wan = [e for e in r["elements"] if "aqm_drops" in e]
d = sum(e["aqm_drops"] for e in wan)
assert d > 0 and all(e["marked"] == 0 for e in wan), wan
assert r["tcp"]["resent"] > 0, r["tcp"]
print(d)
PY
then
	drops=$(cat "$tmp/d")
	if tshark_ok; then
		got=$(tshark -r "$tmp/r/t.pcapng" -T fields -e frame.interface_name 2>/dev/null |
			grep -c '\.aqm$')
		[ "$got" = "$drops" ] && ok "RED without ECN drops early ($drops frames, each at a .aqm point) and TCP resends" ||
			bad "RED's drops: the run $drops, the trace's .aqm points $got"
	else
		ok "RED without ECN drops early ($drops frames) and TCP resends"
	fi
else
	bad "RED dropping"
	sed 's/^/    /' "$tmp/d"
fi
# DCTCP's step: an ECT frame is marked when the queue it joins holds more than K
expect_rc 0 "tcp with ECN through a step threshold (mark 60kB)" -- "$se" run "${tcp[@]}" \
	--set 'impair.wan=mark 60kB' --set transport.ecn=yes
python3 -c "
import json, sys
r = json.load(open(sys.argv[1]))['runs'][0]
wan = [e for e in r['elements'] if 'marked' in e]
assert sum(e['marked'] for e in wan) == r['tcp']['ce_received'] > 0
assert all(e['aqm_drops'] == 0 for e in wan)
print(sum(e['marked'] for e in wan))" "$tmp/out" >"$tmp/d" 2>&1 &&
	ok "the step threshold marked $(cat "$tmp/d") frames, all received CE, none dropped" ||
	{ bad "the step threshold"; sed 's/^/    /' "$tmp/d"; }
fi

# jitter: fifo keeps the order, reorder lets frames overtake
order() {	# JSON: "reordered out_of_order"
	python3 -c "
import json, sys
r = json.load(open(sys.argv[1]))['runs'][0]
print(sum(e.get('reordered', 0) for e in r['elements']), r['tcp']['out_of_order'])" "$1"
}
expect_rc 0 "200 us of normal jitter, fifo" -- "$se" run "${tcp[@]}" --set 'impair.wan=jitter 200us normal'
read -r re ooo < <(order "$tmp/out")
[ "$re" = 0 ] && [ "$ooo" = 0 ] && ok "fifo: no frame overtaken, none out of order at TCP" ||
	bad "fifo: $re overtaken, $ooo out of order"
expect_rc 0 "the same with reordering" -- "$se" run "${tcp[@]}" \
	--set 'impair.wan=jitter 200us normal reorder'
read -r re ooo < <(order "$tmp/out")
[ "$re" -gt 0 ] && [ "$ooo" -gt 0 ] && ok "reorder: $re frames overtaken, TCP saw $ooo out of order" ||
	bad "reorder: $re overtaken, $ooo out of order"
expect_rc 0 "a link of its own (wan1>0) over the WAN's" -- "$se" run "${tcp[@]}" \
	--set 'impair.wan=loss random 1%' --set 'impair.link0=wan1>0 loss gemodel 1% 10%'
python3 -c "
import json, sys
e = {x['name']: x for x in json.load(open(sys.argv[1]))['runs'][0]['elements']}
a, b = e['wan0>1'], e['wan1>0']
sys.exit(not (a['lost'] > 0 and b['lost'] > 2 * b['rx'] * 0.01))" "$tmp/out" &&
	ok "wan1>0 takes its own (Gilbert-Elliott, 9 % in bursts), wan0>1 the WAN's" ||
	bad "a link's own impairment"

# duplicates and corruption: each within 6 sigma of its probability of the frames that arrive,
# every byte still delivered, a corrupted frame dropped as its receiver's checksum would
expect_rc 0 "tcp over a WAN duplicating 2 % and corrupting 1 % of frames" -- "$se" run "${tcp[@]}" \
	--set 'impair.wan=duplicate 2% corrupt 1%'
python3 - "$tmp/out" "$tmp/clean.json" >"$tmp/d" 2>&1 <<'PY' && ok "duplicates and corruption: $(cat "$tmp/d")" || bad "duplicates and corruption: $(cat "$tmp/d")"
import json, sys
r = json.load(open(sys.argv[1]))["runs"][0]
c = json.load(open(sys.argv[2]))["runs"][0]
out = []
for e in r["elements"]:
    if not e["name"].startswith("wan") or e["kind"] != "link":
        continue
    n = e["rx"] - e["duplicated"]	# frames the link carried
    for k, p in (("corrupted", 0.01), ("duplicated", 0.02 * 0.99)):
        b = 6 * (n * p * (1 - p)) ** 0.5
        assert abs(e[k] - n * p) <= b, (e["name"], k, e[k], n * p, b)
    assert e["drop"] == e["corrupted"], e
    out.append("%s %d corrupted, %d duplicated of %d" % (e["name"], e["corrupted"], e["duplicated"], n))
assert r["tcp"]["delivered_bytes"] == c["tcp"]["delivered_bytes"]
assert r["tcp"]["duplicates"] > 0
print("; ".join(out) + "; TCP saw %d duplicates, every byte delivered" % r["tcp"]["duplicates"])
PY
expect_rc 1 "duplicates under the frames transport" -- "$se" run --quiet --set run.steps=3 \
	--set report.variants=A --set 'impair.wan=duplicate 1%'
expect_grep "$tmp/err" "duplicated a frame of the sync" "says what and why"

# a trace-driven link (Mahimahi's format): wan0>1's capacity is 10 opportunities in a 10 ms
# cycle, at 1, 1, 1, 3, 3, 8, 8, 8, 8 and 10 ms, 1504 bytes each (12.03 Mbit/s); wan1>0 keeps
# its rate.  Every frame starts (its .out point) at one of those times and none elsewhere.
printf '1\n1\n1\n3\n3\n8\n8\n8\n8\n10\n' >"$tmp/v.trace"
mkdir -p "$tmp/lt"
expect_rc 0 "wan0>1 driven by a Mahimahi trace, traced" -- env -C "$tmp/lt" "$se" run "${tcp[@]}" \
	--set job.bytes=256kB --set "impair.link0=wan0>1 trace $tmp/v.trace" --trace t.pcapng
python3 - "$tmp/out" >"$tmp/d" 2>&1 <<'PY' &&
import json, sys
r = json.load(open(sys.argv[1]))["runs"][0]
e = {x["name"]: x for x in r["elements"]}
n = e["wan0>1"]["tx"]
# at 12 Mbit/s the step is the trace's: 256 kB take 0.7 ms at 100 GbE, 170 ms here
assert r["step_ms"]["min"] > 50, r["step_ms"]
assert "impaired" in r["flags"], r["flags"]
print("%d frames over wan0>1, median step %.1f ms" % (n, r["step_ms"]["median"]))
PY
	ok "the trace is the link's capacity: $(cat "$tmp/d")" || { bad "the trace-driven run"; sed 's/^/    /' "$tmp/d"; }
if tshark_ok; then
	# (and the bytes within the opportunities: a frame of L bytes takes L - 10, its IP packet
	# and a TUN header, as Mahimahi counts; up to the last start's, 1504 each)
	tshark -r "$tmp/lt/t.pcapng" -T fields -e frame.interface_name -e frame.time_epoch \
		-e frame.len 2>/dev/null | python3 -c "
import sys
on, off, other, used, last = 0, [], 0, 0, 0
for line in sys.stdin:
    name, t, n = line.split()
    ms = round(float(t) * 1e3, 6)
    if name == 'wan0>1.out':
        if ms == int(ms) and int(ms) % 10 in (1, 3, 8, 0):
            on += 1
            used += int(n) - 10
            last = int(ms)
        else:
            off.append(ms)
    elif name == 'wan1>0.out' and ms != int(ms):
        other += 1
opps = (last // 10) * 10 + sum(1 for m in (1, 1, 1, 3, 3, 8, 8, 8, 8) if m <= last % 10)
assert on > 0 and not off and other > 0, (on, off[:5], other)
assert used - 9004 <= 1504 * opps, (used, opps)
print(on, other, used, opps)" >"$tmp/d" 2>&1 && read -r on other used opps <"$tmp/d" &&
		ok "tshark: all $on frames start on wan0>1 at the trace's times ($used bytes by the last start, $opps opportunities), $other on wan1>0 between them" ||
		{ bad "the trace's opportunities in the capture"; sed 's/^/    /' "$tmp/d"; }
fi
expect_rc 2 "a trace whose times go back" -- "$se" run "${tcp[@]}" \
	--set "impair.wan=trace $(printf '5\n3\n' >"$tmp/bad.trace"; echo "$tmp/bad.trace")"
expect_grep "$tmp/err" "line 2: 3 ms is before the line above" "names the file's line"

# refusals
expect_rc 2 "a probability without %" -- "$se" run "${tcp[@]}" --set 'impair.wan=loss random 1'
expect_grep "$tmp/err" "[impair] wan = 'loss random 1': '1' at byte 12" "names the key and the byte"
[ "$quick" = quick ] || expect_rc 2 "netem's delay word" -- "$se" run "${tcp[@]}" --set 'impair.wan=delay 5ms'
[ "$quick" = quick ] ||
	expect_grep "$tmp/err" "give the variation as 'jitter TIME'" "says what to write"
expect_rc 1 "jitter on a WAN link cut between two partitions" -- "$se" run "${tcp[@]}" \
	--set 'impair.wan=jitter 100us' --set run.partitions=2
expect_grep "$tmp/err" "run.partitions = 1" "names the remedy"
expect_rc 1 "loss under the frames transport" -- "$se" run --quiet --set run.steps=3 \
	--set report.variants=A --set 'impair.wan=loss random 1%'
expect_grep "$tmp/err" "losses need job.transport = tcp" "says why"
expect_rc 1 "a link this run does not have" -- "$se" run "${tcp[@]}" \
	--set 'impair.link3=wan7>1 loss random 1%'
expect_grep "$tmp/err" "this run has no link wan7>1" "names it"

# the bridge over ring ports: background from A to B through a WAN losing in bursts
slow=(--set wan.bandwidth=10MB/s --set wan.latency=2ms --set queues.wan=2MB --set run.mtu=1500
      --set background.size=64kB --set background.directions=one --set background.load=0.8)
expect_rc 0 "bridge: A to B losing 2 % in bursts (gemodel 1 % 50 %), B to A clean" -- \
	"$se" bridge --a ring:ia --b ring:ib "${slow[@]}" -d 2s -q --json \
	--set 'impair.ab=loss gemodel 1% 50% jitter 1ms normal reorder' --trace "$tmp/br.pcapng"
cp "$tmp/out" "$tmp/br.json"
if python3 - "$tmp/br.json" >"$tmp/d" 2>&1 <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))["directions"]
ab, ba = d["ab"], d["ba"]
assert "lost" not in ba, ba
n = ab["bg_frames"] + ab["lost"]
assert n > 3000, n
rate = ab["lost"] / n
# In real time the frames are as many as the wall clock lets through, so the count varies from
# run to run.  A Markov chain's count is not binomial: losses come in bursts, about
# B = n P (1 - pi_bad) of them, each of geometric length (mean 1/R, variance (1 - R) / R^2), so the
# count's relative deviation is about sqrt((1 + (1 - R)) / B); held within 6 of it.
p, r = 0.01, 0.5
stat = p / (p + r)
bursts = n * p * (1 - stat)
bound = 6 * ((2 - r) / bursts) ** 0.5 * stat
assert abs(rate - stat) <= bound, (rate, stat, bound)
assert ab["reordered"] > 0, ab
print("%d of %d frames lost (%.2f %%, stationary %.2f %% +- %.2f), %d overtaken" %
      (ab["lost"], n, 100 * rate, 100 * stat, 100 * bound, ab["reordered"]))
PY
then
	ok "bridge: $(cat "$tmp/d")"
else
	bad "bridge: the impaired direction"
	sed 's/^/    /' "$tmp/d"
fi
if tshark_ok; then
	n=$(tshark -r "$tmp/br.pcapng" -T fields -e frame.interface_name 2>/dev/null | grep -c '^wan\.ab\.loss$')
	want=$(python3 -c "import json,sys; print(json.load(open(sys.argv[1]))['directions']['ab']['lost'])" "$tmp/br.json")
	[ "$n" = "$want" ] && ok "bridge: tshark finds the $n lost frames at wan.ab.loss" ||
		bad "bridge: wan.ab.loss holds $n frames, the summary says $want"
fi

# live: impair.loss and impair.jitter through --ctl on a clean bridge
sock=$tmp/imp.sock
"$se" bridge --a ring:la --b ring:lb "${slow[@]}" --ctl "$sock" -d 3s -q --json \
	>"$tmp/live.json" 2>"$tmp/live.err" &
brl=$!
pids+=("$brl")
for i in $(seq 1 100); do
	"$se" ctl "$sock" status 2>/dev/null | grep -q '"running": 1' && break
	sleep 0.05
done
"$se" ctl "$sock" set impair.loss 0.05 >"$tmp/l1" 2>&1
expect_grep "$tmp/l1" '"ok": true, "key": "impair.loss", "value": 0.05, "old": 0' \
	"set impair.loss 0.05 on a clean bridge"
"$se" ctl "$sock" set impair.jitter 500us >"$tmp/l2" 2>&1
expect_grep "$tmp/l2" '"ok": true, "key": "impair.jitter", "value": 0.0005' "set impair.jitter 500us"
"$se" ctl "$sock" set impair.loss 2 >"$tmp/l3" 2>&1
expect_grep "$tmp/l3" "impair.loss" "a probability of 2 refused, the key named"
"$se" ctl "$sock" status >"$tmp/l4" 2>&1
expect_grep "$tmp/l4" '"impair.loss": 0.05' "status shows the loss in force"
rc=0
wait "$brl" || rc=$?
[ $rc -eq 0 ] || bad "the live bridge: exit $rc: $(head -c 300 "$tmp/live.err")"
python3 - "$tmp/live.json" >"$tmp/d" 2>&1 <<'PY' && ok "the live loss: $(cat "$tmp/d")" || bad "the live change: $(cat "$tmp/d")"
import json, sys
d = json.load(open(sys.argv[1]))
ab = d["directions"]["ab"]
assert len(d["live_changes"]) == 2, d["live_changes"]
# lost only after the change: of the n frames at most, a binomial count at 5 %: under
# 5 % of n plus 6 of its deviations; and some
n = ab["bg_frames"] + ab["lost"]
assert 0 < ab["lost"] <= 0.05 * n + 6 * (n * 0.05 * 0.95) ** 0.5, ab
print("%d of %d frames lost after it landed, 2 changes in the summary" % (ab["lost"], ab["bg_frames"] + ab["lost"]))
PY

[ $fails -eq 0 ] && echo "all checks passed" && exit 0
exit 1
