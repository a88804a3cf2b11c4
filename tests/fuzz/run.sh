#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Fuzz one target with libFuzzer: build tests/fuzz/fuzz_TARGET.c with clang
# -fsanitize=fuzzer,address,undefined into a temporary directory, run it for a bounded time on a
# copy of tests/fuzz/corpus/TARGET/ (with tests/fuzz/TARGET.dict if there is one), and fail on
# any crash, leak, sanitizer report or timeout (the work directory, with the crashing inputs, is
# then kept).
#   reader    the trace reader (traces/reader.h): a whole pcap or pcapng file, read as packets,
#             as a job's byte streams (traces/streams.h), as syncemu's frames and as bursts
#             (traces/syncs.h) and as step times (traces/appsteps.h)
#   scenario  the scenario loader (control/scenario.h): a file, "%%", --set lines; links DPDK's
#             cfgfile and rte_bpf (pkg-config libdpdk) and libelf, and needs no EAL
# Exits 77 (skip) if clang, libFuzzer's runtime or a library the target needs is missing.
# Usage: run.sh SRCDIR TARGET [SECONDS]   (environment: FUZZ_SECONDS, FUZZ_JOBS, FUZZ_KEEP=1)
set -u

src=${1:?usage: run.sh SRCDIR TARGET [SECONDS]}
target=${2:?usage: run.sh SRCDIR TARGET [SECONDS]}
secs=${3:-${FUZZ_SECONDS:-60}}
name=fuzz-$target
skip() { echo "$name: SKIP: $*"; exit 77; }

case $target in
reader)
	t=$src/traces
	pkgs="libpcap zlib"
	incs="-I$t"
	srcs="$t/reader.c $t/reader_pcap.c $t/reader_pcapng.c $t/source.c $t/decode.c
	      $t/select.c $t/streams.c $t/split.c $t/joint.c $t/appsteps.c $t/syncs.c $t/bursts.c
	      $src/models/stream.c
	      $src/models/queueing.c"
	incs="$incs -I$src/models"
	max_len=65536
	;;
scenario)
	c=$src/control
	pkgs="libdpdk libelf"
	incs="-I$c"
	srcs="$c/scenario.c $c/scenario_keys.c $c/scenario_lint.c $c/scenario_values.c
	      $c/scenario_limits.c $c/units.c $c/bgsizes.c $c/impair_spec.c $c/impair_files.c
	      $src/models/*.c $src/dataplane/kernel_prog.c"
	max_len=16384
	;;
*)
	echo "$name: no such target (reader, scenario)"
	exit 2
	;;
esac

cc=
for c in clang clang-18 clang-17 clang-16 clang-15 clang-14; do
	command -v "$c" >/dev/null 2>&1 && { cc=$c; break; }
done
[ -n "$cc" ] || skip "clang not found"
for p in $pkgs; do
	pkg-config --exists "$p" || skip "pkg-config cannot find $p"
done

work=$(mktemp -d "${TMPDIR:-/tmp}/$name.XXXXXX") || exit 1
cleanup() { [ "${FUZZ_KEEP:-0}" = 1 ] && echo "$name: kept $work" || rm -rf "$work"; }
trap cleanup EXIT

# Does this clang have libFuzzer's runtime (libclang-rt-NN-dev)?
printf 'int LLVMFuzzerTestOneInput(const char *d, unsigned long n) { return 0; }\n' \
	>"$work/probe.c"
"$cc" -fsanitize=fuzzer "$work/probe.c" -o "$work/probe" >"$work/probe.log" 2>&1 ||
	skip "$cc cannot link -fsanitize=fuzzer (install libclang-rt-dev): $(head -c 300 "$work/probe.log")"

# shellcheck disable=SC2086	# the lists are words
"$cc" -std=gnu11 -g -O1 -D_GNU_SOURCE -fsanitize=fuzzer,address,undefined \
	-fno-sanitize-recover=undefined $incs $(pkg-config --cflags $pkgs) \
	"$src/tests/fuzz/fuzz_$target.c" $srcs $(pkg-config --libs $pkgs) -lm \
	-o "$work/fuzz_$target" >"$work/build.log" 2>&1 ||
	{ echo "$name: build failed"; tail -n 30 "$work/build.log"; exit 1; }

mkdir "$work/corpus" "$work/artifacts"
cp "$src/tests/fuzz/corpus/$target"/* "$work/corpus/"
dict=
[ -f "$src/tests/fuzz/$target.dict" ] && dict=-dict=$src/tests/fuzz/$target.dict
echo "$name: $secs s on $(ls "$work/corpus" | wc -l) seeds"
( cd "$work" && ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 \
	UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
	"./fuzz_$target" -max_total_time="$secs" -rss_limit_mb=2048 -timeout=10 \
	-max_len="$max_len" $dict -jobs="${FUZZ_JOBS:-1}" -workers="${FUZZ_JOBS:-1}" \
	-print_final_stats=1 -artifact_prefix="$work/artifacts/" "$work/corpus" \
	>"$work/fuzz.log" 2>&1 )
rc=$?
tail -n 25 "$work/fuzz.log"
[ -f "$work/fuzz-0.log" ] && grep -E '^(#[0-9]+ +DONE|stat::|INFO: |==|SUMMARY)' "$work/fuzz-0.log" | tail -n 20
crashes=$(ls "$work/artifacts" | wc -l)
if [ $rc -ne 0 ] || [ "$crashes" -ne 0 ]; then
	echo "$name: FAIL (exit $rc, $crashes artifacts; kept in $work/artifacts)"
	FUZZ_KEEP=1
	for a in "$work"/artifacts/*; do
		[ -e "$a" ] || continue
		echo "--- $(basename "$a") ($(wc -c <"$a") bytes):"
		od -A d -t x1 "$a" | head -n 20
	done
	exit 1
fi
echo "$name: PASS"
