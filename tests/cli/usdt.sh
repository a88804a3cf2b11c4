#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# The data plane's USDT probes are in the binary: readelf -n lists provider syncemu and every
# probe of dataplane/usdt.h (or none at all when built without sys/sdt.h).
# Usage: usdt.sh SYNCEMU_BINARY yes|no (whether meson found sys/sdt.h) (run from the source root)
set -u
. "$(dirname "$0")/lib.sh"
se=$1
built=$2

command -v readelf >/dev/null || { echo "skip - readelf is not installed"; exit 77; }
readelf -n "$se" >"$tmp/notes" 2>&1 || bad "readelf -n $se failed"
if [ "$built" != yes ]; then
	if grep -q 'Provider: syncemu' "$tmp/notes"; then
		bad "built without sys/sdt.h, yet it has probes"
	else
		ok "built without sys/sdt.h: no probes"
	fi
	finish
fi
expect_grep "$tmp/notes" ".note.stapsdt" "the binary has a .note.stapsdt section"
expect_grep "$tmp/notes" "Provider: syncemu" "provider syncemu"
for p in run_start run_end step_info step_end sync_start sync_end phase_start phase_end \
	busy_start busy_end drop module_binding queue_sample; do
	grep -A1 'Provider: syncemu' "$tmp/notes" | grep -qx "    Name: $p" &&
		ok "probe $p" || bad "probe $p is not in the notes"
done
# every probe documented in usdt.h is in the binary, and the other way round
doc=$(grep -E '^ \*   [a-z_]+\(' dataplane/usdt.h | grep -oE '(^ \*   |/ )[a-z_]+\(' |
	grep -oE '[a-z_]+' | sort -u)
bin=$(grep -A1 'Provider: syncemu' "$tmp/notes" | sed -n 's/^    Name: //p' | sort -u)
[ "$doc" = "$bin" ] && ok "usdt.h documents exactly the probes in the binary" ||
	bad "usdt.h and the binary differ: $(diff <(echo "$doc") <(echo "$bin") | tr '\n' ' ')"
finish
