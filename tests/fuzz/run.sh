#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Fuzz the trace reader (traces/reader.h) with libFuzzer: build tests/fuzz/fuzz_reader.c with
# clang -fsanitize=fuzzer,address,undefined into a temporary directory, run it for a bounded time
# on a copy of tests/fuzz/corpus/, and fail on any crash, leak, sanitizer report or timeout (the
# work directory, with the crashing inputs, is then kept).
# Exits 77 (skip) if clang, libFuzzer's runtime, libpcap or zlib is missing.
# Usage: run.sh SRCDIR [SECONDS]     (environment: FUZZ_SECONDS, FUZZ_JOBS, FUZZ_KEEP=1)
set -u

src=${1:?usage: run.sh SRCDIR [SECONDS]}
secs=${2:-${FUZZ_SECONDS:-60}}
skip() { echo "fuzz-reader: SKIP: $*"; exit 77; }

cc=
for c in clang clang-18 clang-17 clang-16 clang-15 clang-14; do
	command -v "$c" >/dev/null 2>&1 && { cc=$c; break; }
done
[ -n "$cc" ] || skip "clang not found"
for p in libpcap zlib; do
	pkg-config --exists "$p" || skip "pkg-config cannot find $p"
done

work=$(mktemp -d "${TMPDIR:-/tmp}/fuzz-reader.XXXXXX") || exit 1
cleanup() { [ "${FUZZ_KEEP:-0}" = 1 ] && echo "fuzz-reader: kept $work" || rm -rf "$work"; }
trap cleanup EXIT

# Does this clang have libFuzzer's runtime (libclang-rt-NN-dev)?
printf 'int LLVMFuzzerTestOneInput(const char *d, unsigned long n) { return 0; }\n' \
	>"$work/probe.c"
"$cc" -fsanitize=fuzzer "$work/probe.c" -o "$work/probe" >"$work/probe.log" 2>&1 ||
	skip "$cc cannot link -fsanitize=fuzzer (install libclang-rt-dev): $(head -c 300 "$work/probe.log")"

t=$src/traces
"$cc" -std=gnu11 -g -O1 -D_GNU_SOURCE -fsanitize=fuzzer,address,undefined \
	-fno-sanitize-recover=undefined -I"$t" \
	"$src/tests/fuzz/fuzz_reader.c" "$t/reader.c" "$t/reader_pcap.c" "$t/reader_pcapng.c" \
	"$t/source.c" "$t/decode.c" $(pkg-config --cflags --libs libpcap zlib) \
	-o "$work/fuzz_reader" || { echo "fuzz-reader: build failed"; exit 1; }

mkdir "$work/corpus" "$work/artifacts"
cp "$src"/tests/fuzz/corpus/* "$work/corpus/"
echo "fuzz-reader: $secs s on $(ls "$work/corpus" | wc -l) seeds"
( cd "$work" && ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 \
	UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
	./fuzz_reader -max_total_time="$secs" -rss_limit_mb=2048 -timeout=10 -max_len=65536 \
	-jobs="${FUZZ_JOBS:-1}" -workers="${FUZZ_JOBS:-1}" -print_final_stats=1 \
	-artifact_prefix="$work/artifacts/" "$work/corpus" >"$work/fuzz.log" 2>&1 )
rc=$?
tail -n 25 "$work/fuzz.log"
crashes=$(ls "$work/artifacts" | wc -l)
if [ $rc -ne 0 ] || [ "$crashes" -ne 0 ]; then
	echo "fuzz-reader: FAIL (exit $rc, $crashes artifacts; kept in $work/artifacts)"
	FUZZ_KEEP=1
	for a in "$work"/artifacts/*; do
		[ -e "$a" ] || continue
		echo "--- $(basename "$a") ($(wc -c <"$a") bytes):"
		od -A d -t x1 "$a" | head -n 20
	done
	exit 1
fi
echo "fuzz-reader: PASS"
