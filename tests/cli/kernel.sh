#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# The module's link kernel as an eBPF program ([module] kernel, run by rte_bpf on every frame):
#   - the sample deck.bpf.o gives the built-in kernel's step times to the picosecond, every
#     variant with a module and every budget;
#   - the sample modular.bpf.o (20 mod ops per byte on the FPGA) moves the binding stage to the
#     FPGA where the deck's kernel binds at the optics (E'[free]) or at the compute budget
#     (E[high]), as the analytic model predicts for ops_mod = 20: the same binding, the hot spot,
#     the shares within 1 percentage point and the step within 0.01 % (the program adds a few
#     gathers on each step's first frame, which ops per byte do not have);
#   - syncemu model and scenario dump read the program's ops per byte;
#   - bad programs are refused naming the key and the reason (no file, not ELF, no such section,
#     a loop, an access outside the context), and a program that fails mid-run stops the run
#     naming the frame.
# Usage: kernel.sh SYNCEMU DECK.bpf.o MODULAR.bpf.o (run from the source root)
set -u
. "$(dirname "$0")/lib.sh"
se=$1
deck=$2
modular=$3

[ -f "$deck" ] && [ -f "$modular" ] || skip "the sample kernels are not built (no clang)"
command -v clang >/dev/null || skip "no clang to build the test programs"
command -v python3 >/dev/null || skip "no python3"

# run_json OUT ARGS...: syncemu run -j -q -e, 20 steps, no trace
run_json() {
	local out=$1
	shift
	"$se" run -n 20 --trace none -j -q -e "$@" >"$out" 2>"$tmp/err" ||
		{ bad "syncemu run $*: exit $?"; sed 's/^/    /' "$tmp/err" | head -5; }
}

# model_json OUT ARGS...: syncemu model -j, the step and shares tables
model_json() {
	local out=$1
	shift
	"$se" model -t step,shares -j "$@" >"$out" 2>"$tmp/err" ||
		{ bad "syncemu model $*: exit $?"; sed 's/^/    /' "$tmp/err" | head -5; }
}

# 1. deck.bpf.o is the built-in kernel.
run_json "$tmp/builtin.json" -v "E,E'" -b all
run_json "$tmp/deck.json" -v "E,E'" -b all --set module.kernel="$deck"
python3 - "$tmp/builtin.json" "$tmp/deck.json" >"$tmp/c1" 2>&1 <<'PY'
import json, sys
a = {r["label"]: r for r in json.load(open(sys.argv[1]))["runs"]}
b = {r["label"]: r for r in json.load(open(sys.argv[2]))["runs"]}
assert sorted(a) == sorted(b) and len(a) == 6, (sorted(a), sorted(b))
for k in a:
    sa = [s["emulated_ms"] for s in a[k]["steps"]["rows"]]
    sb = [s["emulated_ms"] for s in b[k]["steps"]["rows"]]
    assert len(sa) == 20 and sa == sb, "%s: %s vs %s" % (k, sa, sb)
    assert a[k]["module_binding"] == b[k]["module_binding"], k
print("6 runs of 20 steps, every step the same to the ps")
PY
if [ $? -eq 0 ]; then ok "deck.bpf.o = the built-in kernel: $(cat "$tmp/c1")"; else bad "deck.bpf.o:"; sed 's/^/    /' "$tmp/c1"; fi

# 2. modular.bpf.o moves the binding stage to the FPGA, as the model predicts for ops_mod = 20.
run_json "$tmp/mod.json" -v "E,E'" -b high,free --set module.kernel="$modular"
model_json "$tmp/m_deck.json" -v "E,E'" -b high,free
model_json "$tmp/m_mod.json" -v "E,E'" -b high,free --set module.ops_mod=20
model_json "$tmp/m_prog.json" -v "E,E'" -b high,free --set module.kernel="$modular"
python3 - "$tmp/mod.json" "$tmp/m_deck.json" "$tmp/m_mod.json" "$tmp/m_prog.json" \
	>"$tmp/c2" 2>&1 <<'PY'
import json, sys
run = {r["label"]: r for r in json.load(open(sys.argv[1]))["runs"]}
def model(path):
    t = json.load(open(path))["tables"]
    out = {}
    for r in t["step"]["rows"]:
        out.setdefault("%s[%s]" % (r["variant"], r["budget"]), {}).update(r)
    for r in t["shares"]["rows"]:
        out["%s[%s]" % (r["variant"], r["budget"])]["shares"] = r
    return out
deck, pred, prog = model(sys.argv[2]), model(sys.argv[3]), model(sys.argv[4])
keys = ["compute", "intra", "wan", "module_port", "module_optics", "module_compute", "module_fpga"]
lines = []
for k in ("E[high]", "E'[free]"):
    assert k in run, (k, sorted(run))
    r, p = run[k], pred[k]
    assert deck[k]["hot_spot"] != "module FPGA", (k, deck[k]["hot_spot"])
    assert p["hot_spot"] == "module FPGA", (k, p["hot_spot"])
    assert prog[k]["hot_spot"] == "module FPGA", (k, prog[k]["hot_spot"])
    assert abs(prog[k]["step_ms"] - p["step_ms"]) < 1e-9 * p["step_ms"], (k, prog[k], p)
    assert r["module_binding"] == "fpga", (k, r["module_binding"])
    rows = r["steps"]["rows"]
    mean = sum(s["emulated_ms"] for s in rows) / len(rows)
    fl = p["step_ms"]
    assert abs(r["fluid_ms"] - fl) < 1e-9 * fl, (k, r["fluid_ms"], fl)
    assert abs(mean / fl - 1) < 0.001, (k, mean, fl)
    sh = {x: sum(s[x] for s in rows) / len(rows) for x in keys}
    diff = max(abs(sh[x] - p["shares"][x]) for x in keys)
    assert diff < 1.0, (k, sh, p["shares"])
    lines.append("%s: %s -> FPGA, step %.6f ms (model %.6f, %+.4f %%), shares within %.3f pp"
                 % (k, deck[k]["hot_spot"], mean, fl, 100 * (mean / fl - 1), diff))
print("; ".join(lines))
PY
if [ $? -eq 0 ]; then ok "modular.bpf.o: $(cat "$tmp/c2")"; else bad "modular.bpf.o:"; sed 's/^/    /' "$tmp/c2"; fi

# 3. The dump carries the program and its ops per byte, and loads back.
expect_rc 0 "scenario dump with a kernel" -- "$se" scenario dump --set module.kernel="$modular"
cp "$tmp/out" "$tmp/k.ini"
expect_grep "$tmp/k.ini" "kernel = $(realpath "$modular")" "the dump names the program (absolute)"
expect_grep "$tmp/k.ini" "ops_mod = 20" "the dump has the program's ops per byte"
expect_rc 0 "the dump loads back" -- "$se" scenario check "$tmp/k.ini"

# 4. Bad programs: refused before any run, naming the key and the reason.
mkdir -p "$tmp/k"
cat >"$tmp/k/loop.bpf.c" <<'C'
#include "syncemu_kernel.h"
__attribute__((section("kernel"), used)) unsigned long long
loop(struct syncemu_kernel_ctx *c)
{
	for (unsigned int i = 0; i < c->payload; i++)
		c->ops[SYNCEMU_OP_ADD] += i & 3;
	return 0;
}
C
cat >"$tmp/k/oob.bpf.c" <<'C'
#include "syncemu_kernel.h"
__attribute__((section("kernel"), used)) unsigned long long
oob(struct syncemu_kernel_ctx *c)
{
	c->ops[SYNCEMU_OP_COUNT + 4] = 1;	/* past the context */
	return 0;
}
C
cat >"$tmp/k/fails.bpf.c" <<'C'
#include "syncemu_kernel.h"
__attribute__((section("kernel"), used)) unsigned long long
fails(struct syncemu_kernel_ctx *c)
{
	c->ops[SYNCEMU_OP_FFT] = 10ULL * c->payload;
	return c->step >= 2 && c->offset >= 81920 ? 7 : 0;	/* step 2, frame 11 */
}
C
for p in loop oob fails; do
	clang -O2 -target bpf -Idataplane/kernels -c "$tmp/k/$p.bpf.c" -o "$tmp/k/$p.bpf.o" 2>"$tmp/cc" ||
		{ bad "clang $p.bpf.c"; sed 's/^/    /' "$tmp/cc"; }
done
echo "not an ELF object" >"$tmp/k/text.o"

check_bad() {	# check_bad DESC PATTERN VALUE [--set extra]
	local desc=$1 pat=$2 val=$3
	shift 3
	expect_rc 3 "$desc: refused" -- "$se" run -n 2 --trace none -q -v "E'" -b free \
		--set module.kernel="$val" "$@"
	expect_grep "$tmp/err" "[module] kernel = '$val'" "$desc: the message names the key"
	expect_grep "$tmp/err" "$pat" "$desc: the message says why"
}
check_bad "no such file" "No such file or directory" "$tmp/k/none.bpf.o"
check_bad "not ELF" "not an ELF object file" "$tmp/k/text.o"
check_bad "a host program" "not for BPF" "$se"
check_bad "no such section" "no section 'other' (its code is in: kernel" "$deck" \
	--set module.kernel_section=other
check_bad "a loop" "validate: loops detected" "$tmp/k/loop.bpf.o"
check_bad "outside the context" "memory boundary violation" "$tmp/k/oob.bpf.o"
expect_rc 1 "a program failing mid-run stops the run" -- "$se" run -n 5 --trace none -q \
	-v "E'" -b free --set module.kernel="$tmp/k/fails.bpf.o"
expect_grep "$tmp/err" "the kernel program returned 7 (not 0) on the frame at byte 81920 of stream 2" \
	"the failure names the module's frame"
# a scenario file names its program relative to itself
printf '[module]\nkernel = k/loop.bpf.o\n' >"$tmp/loop.ini"
expect_rc 3 "syncemu scenario check refuses the loop too" -- "$se" scenario check "$tmp/loop.ini"
expect_grep "$tmp/err" "loop.ini:2: [module] kernel = 'k/loop.bpf.o'" \
	"the message names the file, line and key"
printf '[module]\nkernel = k/fails.bpf.o\n' >"$tmp/fails.ini"
expect_rc 0 "a relative kernel path is the scenario file's directory's" -- "$se" scenario check \
	"$tmp/fails.ini"
finish
