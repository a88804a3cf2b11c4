#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# House rules that a grep can hold: only main() ends the process; the model and the data plane
# neither print nor read clocks; every C file carries an SPDX line.
# Usage: style.sh (run from the source root)
set -u
. "$(dirname "$0")/cli/lib.sh"

hits=$(grep -nE '\b(exit|_exit|abort|rte_exit|rte_panic)\s*\(' models/*.c control/*.c tools/*.c experiment/*.c \
	dataplane/*.c traces/*.c 2>/dev/null | grep -v '^tools/syncemu.c:' || true)
[ -z "$hits" ] && ok "no exit/abort/rte_exit/rte_panic outside main" || { bad "process exits outside main:"; echo "$hits"; }

hits=$(grep -nE '\b(printf|puts|fprintf|perror)\s*\(' models/*.c dataplane/*.c 2>/dev/null || true)
[ -z "$hits" ] && ok "models/ and dataplane/ do not print" || { bad "printing in models/ or dataplane/:"; echo "$hits"; }

hits=$(grep -nE '\b(rte_rdtsc|rte_get_tsc_cycles|clock_gettime|gettimeofday|time)\s*\(' models/*.c \
	$(ls dataplane/*.c 2>/dev/null | grep -v 'dataplane/clock.c') 2>/dev/null || true)
[ -z "$hits" ] && ok "no clock reads in models/ or dataplane/ elements" || { bad "clock reads:"; echo "$hits"; }

for f in $(git ls-files '*.c' '*.h' 2>/dev/null || ls */*.c */*.h); do
	head -3 "$f" | grep -q 'SPDX-License-Identifier' || bad "$f has no SPDX line"
done
ok "SPDX lines checked"

hits=$(grep -lE 'models/.*\brte_|#include <rte_' models/*.c models/*.h 2>/dev/null || true)
[ -z "$hits" ] && ok "models/ does not use DPDK" || { bad "DPDK in models/:"; echo "$hits"; }

finish
