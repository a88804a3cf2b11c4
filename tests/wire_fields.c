/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The syncemu header of every syncemu frame of a trace as the C accessors read it (wire.h), one
 * line per frame, tab-separated in the order and notation tshark prints the Lua dissector's
 * fields with -T fields (cli/wire.sh compares the two).
 *
 * Usage: wire_fields TRACE
 */
#include <inttypes.h>
#include <stdio.h>

#include "reader.h"
#include "wire.h"

int
main(int argc, char **argv)
{
	struct tr_reader *r;
	struct tr_packet p;
	struct tr_ip ip;
	char err[512];
	int rc;

	if (argc != 2) {
		fprintf(stderr, "usage: wire_fields TRACE\n");
		return 2;
	}
	r = tr_reader_open(argv[1], err, sizeof(err));
	if (r == NULL) {
		fprintf(stderr, "wire_fields: %s\n", err);
		return 1;
	}
	while ((rc = tr_reader_next(r, &p, err, sizeof(err))) == 1) {
		const uint8_t *h;
		uint8_t fl;

		if (tr_decode_ip(p.linktype, p.data, p.caplen, &ip) != 0 || ip.proto != 17 ||
		    ip.dport != SM_SE_UDP_DST || ip.l4_data == NULL ||
		    ip.l4_caplen < SM_SE_HDR || sm_se_magic(ip.l4_data) != SM_SE_MAGIC)
			continue;
		h = ip.l4_data;
		fl = sm_se_flags(h);
		printf("0x%08" PRIx32 "\t%u\t0x%02x\t%d\t%d\t%d\t%u\t%" PRIu32 "\t%" PRIu32
		       "\t%u\t%u\t%u\t%u\t%u\t%" PRIu64 "\t%" PRIu32 "\t%" PRIu32 "\t%" PRIu64
		       "\t[%s] %s %u>%u step %" PRIu32 " round %u seq %" PRIu32 " len %" PRIu32 "\n",
		       sm_se_magic(h), sm_se_version(h), fl, !!(fl & SM_SE_F_BG),
		       !!(fl & SM_SE_F_LAST), !!(fl & SM_SE_F_DENSE), sm_se_round(h),
		       sm_se_run_id(h), sm_se_step(h), sm_se_src(h), sm_se_dst(h), sm_se_phase(h),
		       sm_se_kind(h), sm_se_chunk(h), sm_se_offset(h), sm_se_seq(h),
		       sm_se_payload_len(h), sm_se_departure_ns(h), tr_reader_ifname(r, p.ifid),
		       (fl & SM_SE_F_BG) ? "bg" : "sync", sm_se_src(h), sm_se_dst(h), sm_se_step(h),
		       sm_se_round(h), sm_se_seq(h), sm_se_payload_len(h));
	}
	tr_reader_close(r);
	if (rc < 0) {
		fprintf(stderr, "wire_fields: %s\n", err);
		return 1;
	}
	return 0;
}
