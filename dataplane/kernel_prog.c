/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Link-kernel programs through rte_bpf.
 *
 * rte_bpf needs no EAL: a scenario naming a kernel is checked by loading it (syncemu scenario
 * check), and each run loads its own.  rte_bpf reports why its verifier refused a program only
 * through the DPDK log, so the log goes to a memory stream while loading and its text ends up in
 * the error message.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <fcntl.h>
#include <gelf.h>
#include <unistd.h>

#include <rte_bpf.h>
#include <rte_errno.h>
#include <rte_log.h>

#include "../models/kernel.h"
#include "../models/packet.h"
#include "kernel_prog.h"

_Static_assert(SM_STAGE_COUNT == 4, "dp_kernel_rates() fills four stages");
_Static_assert((int)SYNCEMU_OP_COUNT == (int)SM_OP_COUNT, "syncemu_kernel.h's ops are enum sm_op's");
_Static_assert(sizeof(unsigned long long) == 8 && sizeof(unsigned int) == 4,
	       "syncemu_kernel.h's fields have the widths of the BPF target");
_Static_assert(sizeof(struct syncemu_kernel_ctx) == 40 + 8 * SYNCEMU_OP_COUNT,
	       "syncemu_kernel.h's context has no padding");

/*
 * Why rte_bpf refused a program, from what it logged: its lines but the last ("rte_bpf_elf_load(...)
 * failed"), joined by "; ", without pointer values; the last line if there is nothing else.
 */
static void
log_reason(char *log, char *out, size_t len)
{
	size_t n = 0;
	char *line, *save = NULL, *last = NULL;

	out[0] = '\0';
	if (log == NULL || log[0] == '\0') {
		snprintf(out, len, "no reason given");
		return;
	}
	for (line = strtok_r(log, "\n", &save); line != NULL; line = strtok_r(NULL, "\n", &save)) {
		char *p = line, *q;
		size_t l;

		last = line;
		if (strncmp(line, "rte_bpf_elf_load(", 17) == 0)
			continue;
		/* "validate(0x7ffd...) loops detected;" -> "validate: loops detected" */
		q = strstr(p, "(0x");
		if (q != NULL && strchr(q, ')') != NULL) {
			char *e = strchr(q, ')') + 1;

			memmove(q + 1, e, strlen(e) + 1);
			*q = ':';
		}
		l = strlen(p);
		while (l > 0 && (p[l - 1] == ';' || p[l - 1] == ' ' || p[l - 1] == '\r'))
			p[--l] = '\0';
		if (l == 0 || n + l + 3 >= len)
			continue;
		n += (size_t)snprintf(out + n, len - n, "%s%s", n > 0 ? "; " : "", p);
	}
	if (n == 0)
		snprintf(out, len, "%s", last != NULL ? last : "no reason given");
}

/*
 * What rte_bpf would only call "invalid": the file is not an ELF object, not for BPF, or has no
 * section of that name (then the code sections it has).  0, or -EINVAL with @p why.
 */
static int
elf_check(const char *path, const char *section, char *why, size_t len)
{
	char names[256] = "";
	size_t shstrndx, n = 0;
	Elf_Scn *scn = NULL;
	GElf_Ehdr eh;
	int fd, rc = -EINVAL;
	Elf *elf;

	if (elf_version(EV_CURRENT) == EV_NONE) {
		snprintf(why, len, "libelf: %s", elf_errmsg(-1));
		return -EINVAL;
	}
	fd = open(path, O_RDONLY);
	if (fd < 0) {
		snprintf(why, len, "%s", strerror(errno));
		return -ENOENT;
	}
	elf = elf_begin(fd, ELF_C_READ, NULL);
	if (elf == NULL || elf_kind(elf) != ELF_K_ELF || gelf_getehdr(elf, &eh) == NULL) {
		snprintf(why, len, "not an ELF object file");
		goto out;
	}
	if (eh.e_machine != EM_BPF) {
		snprintf(why, len, "an ELF object for machine %u, not for BPF (EM_BPF, %u): "
			 "compile it with clang -target bpf", eh.e_machine, EM_BPF);
		goto out;
	}
	if (elf_getshdrstrndx(elf, &shstrndx) != 0) {
		snprintf(why, len, "no section names: %s", elf_errmsg(-1));
		goto out;
	}
	while ((scn = elf_nextscn(elf, scn)) != NULL) {
		const char *name;
		GElf_Shdr sh;

		if (gelf_getshdr(scn, &sh) == NULL)
			continue;
		name = elf_strptr(elf, shstrndx, sh.sh_name);
		if (name == NULL)
			continue;
		if (strcmp(name, section) == 0) {
			rc = 0;
			goto out;
		}
		if ((sh.sh_flags & SHF_EXECINSTR) && sh.sh_size > 0 && n + strlen(name) + 3 <
		    sizeof(names))
			n += (size_t)snprintf(names + n, sizeof(names) - n, "%s%s", n ? ", " : "",
					      name);
	}
	snprintf(why, len, "no section '%s' (its code is in: %s; [module] kernel_section names "
		 "another)", section, n ? names : "no section");
out:
	if (elf != NULL)
		elf_end(elf);
	close(fd);
	return rc;
}

static struct rte_bpf *
load_quiet(const struct rte_bpf_prm *prm, const char *path, const char *section, char *why,
	   size_t len)
{
	FILE *prev = rte_log_get_stream(), *mem;
	char *log = NULL;
	size_t log_len = 0;
	struct rte_bpf *bpf;
	int e;

	mem = open_memstream(&log, &log_len);
	if (mem != NULL)
		rte_openlog_stream(mem);
	bpf = rte_bpf_elf_load(prm, path, section);
	e = rte_errno;
	if (mem != NULL) {
		rte_openlog_stream(prev);
		fclose(mem);
	}
	if (bpf == NULL)
		log_reason(log, why, len);
	free(log);
	rte_errno = e;
	return bpf;
}

int
dp_kernel_load(struct dp_kernel **out, const char *path, const char *section, char *err,
	       size_t errlen)
{
	struct rte_bpf_prm prm;
	struct rte_bpf_jit jit;
	struct syncemu_kernel_ctx ctx;
	struct dp_kernel *k;
	struct stat st;
	char why[512];
	uint64_t rc;

	*out = NULL;
	if (section == NULL || section[0] == '\0')
		section = SYNCEMU_KERNEL_SECTION;
	if (stat(path, &st) != 0) {
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		return -ENOENT;
	}
	if (!S_ISREG(st.st_mode)) {
		snprintf(err, errlen, "%s: not a regular file", path);
		return -EINVAL;
	}
	if (elf_check(path, section, why, sizeof(why)) != 0) {
		snprintf(err, errlen, "%s: %s", path, why);
		return -EINVAL;
	}
	k = calloc(1, sizeof(*k));
	if (k == NULL)
		return -ENOMEM;
	snprintf(k->path, sizeof(k->path), "%s", path);
	snprintf(k->section, sizeof(k->section), "%s", section);
	memset(&prm, 0, sizeof(prm));
	prm.prog_arg.type = RTE_BPF_ARG_PTR;
	prm.prog_arg.size = sizeof(struct syncemu_kernel_ctx);
	k->bpf = load_quiet(&prm, path, section, why, sizeof(why));
	if (k->bpf == NULL) {
		snprintf(err, errlen, "%s: rte_bpf cannot load section '%s': %s (%s; build it "
			 "with clang -O2 -target bpf, one function in section \"%s\", no loops, "
			 "calls or maps)", path, section, why, rte_strerror(rte_errno), section);
		free(k);
		return -EINVAL;
	}
	if (rte_bpf_get_jit(k->bpf, &jit) == 0 && jit.func != NULL)
		k->jit = jit.func;
	/* a test frame: it must run and say something */
	memset(&ctx, 0, sizeof(ctx));
	ctx.payload = 8192;
	ctx.value_bytes = 2;
	ctx.planes = 8;
	ctx.offset = 8192;
	ctx.stream = 1 << 20;
	rc = dp_kernel_run(k, &ctx);
	if (rc != 0) {
		snprintf(err, errlen, "%s: the program returned %llu (not 0) on a test frame of "
			 "8192 bytes", path, (unsigned long long)rc);
		dp_kernel_free(k);
		return -EINVAL;
	}
	*out = k;
	return 0;
}

void
dp_kernel_free(struct dp_kernel *k)
{
	if (k == NULL)
		return;
	rte_bpf_destroy(k->bpf);
	free(k);
}

uint64_t
dp_kernel_run(const struct dp_kernel *k, struct syncemu_kernel_ctx *ctx)
{
	memset(ctx->ops, 0, sizeof(ctx->ops));
	return k->jit != NULL ? k->jit(ctx) : rte_bpf_exec(k->bpf, ctx);
}

int
dp_kernel_ops_per_byte(const struct dp_kernel *k, const struct sm_params *p, uint32_t payload,
		       double ops_per_byte[SM_OP_COUNT], char *err, size_t errlen)
{
	struct syncemu_kernel_ctx ctx;
	uint64_t rc;
	int i;

	memset(&ctx, 0, sizeof(ctx));
	ctx.payload = payload;
	ctx.value_bytes = (unsigned int)(p->job.value_bytes + 0.5);
	ctx.planes = (unsigned int)(p->mod.planes + 0.5);
	ctx.offset = payload;			/* a frame in mid-stream */
	ctx.stream = 1024 * (uint64_t)payload;
	rc = dp_kernel_run(k, &ctx);
	if (rc != 0) {
		snprintf(err, errlen, "%s: the program returned %llu (not 0) on a full frame of %u "
			 "bytes", k->path, (unsigned long long)rc, payload);
		return -EINVAL;
	}
	for (i = 0; i < SM_OP_COUNT; i++)
		ops_per_byte[i] = (double)ctx.ops[i] / payload;
	return 0;
}

void
dp_kernel_rates(const struct sm_module *m, double budget, uint64_t rate[4])
{
	memset(rate, 0, 4 * sizeof(*rate));
	rate[SM_STAGE_COMPUTE] = budget > 0 ? sm_rate(budget) : 0;
	rate[SM_STAGE_FPGA] = m->fpga_rate > 0 ? sm_rate(m->fpga_rate) : 0;
}
