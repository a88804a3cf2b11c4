/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Finding the target process and reading its USDT notes.
 *
 * A USDT probe is an ELF note of owner "stapsdt", type 3, in section .note.stapsdt: three
 * addresses (the probe, the .stapsdt.base section, the semaphore), then the provider, the name and
 * the argument specification as strings
 * (https://sourceware.org/systemtap/wiki/UserSpaceProbeImplementation).
 * The binary is read through /proc/PID/exe, which opens the file the process runs even when it was
 * deleted or rebuilt since.
 */
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "target.h"

#define NT_STAPSDT 3

static void
add_probe(struct top_target *t, const char *name)
{
	unsigned int i;

	for (i = 0; i < t->n_probes; i++)
		if (strcmp(t->probes[i], name) == 0)
			return;
	if (t->n_probes < TOP_PROBES_MAX)
		snprintf(t->probes[t->n_probes++], sizeof(t->probes[0]), "%s", name);
}

/* The probes of provider syncemu in the notes of one section. */
static void
read_notes(Elf *elf, Elf_Scn *scn, int addr_bytes, struct top_target *t)
{
	Elf_Data *data = elf_getdata(scn, NULL);
	size_t off = 0, name_off, desc_off;
	GElf_Nhdr nh;

	while (data != NULL && (off = gelf_getnote(data, off, &nh, &name_off, &desc_off)) > 0) {
		const char *desc = (const char *)data->d_buf + desc_off, *prov, *name;
		size_t skip = 3 * (size_t)addr_bytes;

		if (nh.n_type != NT_STAPSDT || nh.n_namesz != 8 ||
		    memcmp((const char *)data->d_buf + name_off, "stapsdt", 8) != 0 ||
		    nh.n_descsz <= skip)
			continue;
		prov = desc + skip;
		if (memchr(prov, '\0', nh.n_descsz - skip) == NULL)
			continue;
		name = prov + strlen(prov) + 1;
		if (name >= desc + nh.n_descsz ||
		    memchr(name, '\0', (size_t)(desc + nh.n_descsz - name)) == NULL)
			continue;
		if (strcmp(prov, "syncemu") == 0)
			add_probe(t, name);
	}
}

static int
read_probes(const char *path, struct top_target *t, char *err, size_t errlen)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC), rc = 0;
	Elf_Scn *scn = NULL;
	size_t shstrndx;
	Elf *elf = NULL;

	if (fd < 0) {
		rc = -errno;
		snprintf(err, errlen, "cannot read %s: %s%s", path, strerror(errno),
			 errno == EACCES || errno == EPERM ? " (needs root)" : "");
		return rc;
	}
	if (elf_version(EV_CURRENT) == EV_NONE ||
	    (elf = elf_begin(fd, ELF_C_READ, NULL)) == NULL || elf_kind(elf) != ELF_K_ELF ||
	    elf_getshdrstrndx(elf, &shstrndx) != 0) {
		snprintf(err, errlen, "%s is not an ELF file libelf can read: %s", path,
			 elf_errmsg(-1));
		rc = -EIO;
		goto out;
	}
	while ((scn = elf_nextscn(elf, scn)) != NULL) {
		const char *name;
		GElf_Shdr sh;

		if (gelf_getshdr(scn, &sh) == NULL || sh.sh_type != SHT_NOTE)
			continue;
		name = elf_strptr(elf, shstrndx, sh.sh_name);
		if (name != NULL && strcmp(name, ".note.stapsdt") == 0)
			read_notes(elf, scn, gelf_getclass(elf) == ELFCLASS32 ? 4 : 8, t);
	}
out:
	if (elf != NULL)
		elf_end(elf);
	close(fd);
	return rc;
}

int
top_target_open(pid_t pid, struct top_target *t, char *err, size_t errlen)
{
	char link[64];
	const char *base;
	ssize_t n;
	int rc;

	memset(t, 0, sizeof(*t));
	t->pid = pid;
	if (pid <= 0 || (kill(pid, 0) != 0 && errno == ESRCH) || top_target_gone(pid)) {
		snprintf(err, errlen, "no process with pid %d", (int)pid);
		return -ESRCH;
	}
	snprintf(link, sizeof(link), "/proc/%d/exe", (int)pid);
	n = readlink(link, t->exe, sizeof(t->exe) - 1);
	if (n < 0) {
		rc = -errno;
		snprintf(err, errlen, "cannot read %s: %s%s", link, strerror(errno),
			 errno == EACCES || errno == EPERM ? " (syncemu-top needs root, or CAP_BPF+"
			 "CAP_PERFMON and the right to trace the process)" : "");
		return rc == -ENOENT ? -ESRCH : rc;
	}
	t->exe[n] = '\0';
	/* a binary replaced since the process started: attach through the link */
	if (n > 10 && strcmp(t->exe + n - 10, " (deleted)") == 0)
		snprintf(t->path, sizeof(t->path), "%s", link);
	else
		snprintf(t->path, sizeof(t->path), "%s", t->exe);
	rc = read_probes(link, t, err, errlen);
	if (rc != 0)
		return rc;
	if (t->n_probes > 0)
		return 0;
	base = strrchr(t->exe, '/');
	base = base != NULL ? base + 1 : t->exe;
	if (strncmp(base, "syncemu", 7) == 0) {
		snprintf(err, errlen, "pid %d runs %s, a syncemu built without USDT probes (no "
			 "syncemu notes in .note.stapsdt): install systemtap-sdt-dev, then rebuild "
			 "(meson setup --reconfigure build -Dusdt=enabled && ninja -C build) and "
			 "restart the run", (int)pid, t->exe);
		return -ENOTSUP;
	}
	snprintf(err, errlen, "pid %d is not syncemu: it runs %s (no syncemu USDT probes)",
		 (int)pid, t->exe);
	return -ENOEXEC;
}

bool
top_target_has(const struct top_target *t, const char *name)
{
	unsigned int i;

	for (i = 0; i < t->n_probes; i++)
		if (strcmp(t->probes[i], name) == 0)
			return true;
	return false;
}

bool
top_target_gone(pid_t pid)
{
	char path[64], buf[512], *p;
	FILE *f;
	size_t n;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	f = fopen(path, "r");
	if (f == NULL)
		return true;
	n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = '\0';
	p = strrchr(buf, ')');	/* the state follows the command, which may hold anything */
	return p == NULL || p[1] == '\0' || p[2] == 'Z' || p[2] == 'X';
}
