/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * EAL start-up.  Without hugepages or NICs (as on a laptop or a CI machine) the EAL runs with
 * --no-huge --no-pci and the frames live in ordinary memory; on a host with hugepages and NICs
 * the user passes their own flags (--eal "...").
 *
 * A process that serves telemetry gets a file prefix of its own (dp_eal_init_apart()): DPDK
 * keeps one telemetry socket per prefix (<runtime dir>/dpdk_telemetry.v2), so two processes of
 * one prefix would share a socket that only the first one serves.  Its runtime directory,
 * which DPDK leaves behind, is removed at the end.
 */
#define ALLOW_EXPERIMENTAL_API	/* rte_intr_instance_alloc and its kin */
#include <dirent.h>
#include <sched.h>
#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <stdatomic.h>
#include <string.h>
#include <time.h>
#include <sys/eventfd.h>
#include <sys/stat.h>
#include <unistd.h>

#include <rte_eal.h>
#include <rte_errno.h>
#include <rte_interrupts.h>
#include <rte_mbuf.h>

#include "eal.h"
#include "frame.h"

#define MAX_ARGS 64
#define TELEMETRY_SOCKET "dpdk_telemetry.v2"

static int eal_up;
static bool eal_ending;	/* dp_eal_fini() is next: leave the pools to it */
/* an own prefix's runtime directory and its telemetry socket, "" if none (for the cleanup) */
static char own_dir[PATH_MAX], own_sock[PATH_MAX + sizeof(TELEMETRY_SOCKET)];

int
dp_eal_cpus(char *buf, size_t len, uint32_t *n)
{
	cpu_set_t set;
	size_t at = 0;
	int c, first = -1;

	*n = 0;
	if (len == 0)
		return -E2BIG;
	buf[0] = '\0';
	if (sched_getaffinity(0, sizeof(set), &set) != 0)
		return -errno;
	for (c = 0; c <= CPU_SETSIZE; c++) {
		bool in = c < CPU_SETSIZE && CPU_ISSET(c, &set);
		int k;

		if (in) {
			(*n)++;
			if (first < 0)
				first = c;
			continue;
		}
		if (first < 0)
			continue;
		k = first == c - 1 ? snprintf(buf + at, len - at, "%s%d", at ? "," : "", first)
				   : snprintf(buf + at, len - at, "%s%d-%d", at ? "," : "", first,
					      c - 1);
		if (k < 0 || (size_t)k >= len - at)
			return -E2BIG;
		at += (size_t)k;
		first = -1;
	}
	return *n > 0 ? 0 : -ENODEV;
}

int
dp_eal_default(char *buf, size_t len, uint32_t lcores, uint32_t mem_mb)
{
	char cpus[256];
	uint32_t n, i;
	size_t at;
	int k, rc;

	rc = dp_eal_cpus(cpus, sizeof(cpus), &n);
	if (rc != 0)
		return rc;
	k = snprintf(buf, len, "%s --lcores ", DP_EAL_DEFAULT_NO_L);
	if (k < 0 || (size_t)k >= len)
		return -E2BIG;
	at = (size_t)k;
	for (i = 0; i < (lcores ? lcores : 1); i++) {
		k = snprintf(buf + at, len - at, "%s%u@(%s)", i ? "," : "", i, cpus);
		if (k < 0 || (size_t)k >= len - at)
			return -E2BIG;
		at += (size_t)k;
	}
	if (mem_mb > 0) {
		k = snprintf(buf + at, len - at, " -m %u", mem_mb);
		if (k < 0 || (size_t)k >= len - at)
			return -E2BIG;
	}
	return 0;
}

static int
eal_start(const char *args, uint32_t mem_mb, bool apart, char *err, size_t errlen)
{
	char *buf, *argv[MAX_ARGS + 2], *tok, *save = NULL, prefix[48], def[512];
	bool has_prefix = false;
	int argc = 0, rc, i;

	if (eal_up)
		return -EALREADY;
	if (args == NULL) {
		/* one lcore, on the CPUs the process may run on */
		rc = dp_eal_default(def, sizeof(def), 1, mem_mb);
		if (rc != 0) {
			snprintf(err, errlen, "the CPUs this process may run on: %s (give the EAL's "
				 "flags with --eal)", strerror(-rc));
			return rc;
		}
		args = def;
	}
	buf = strdup(args);
	if (buf == NULL)
		return -ENOMEM;
	argv[argc++] = (char *)"syncemu";
	for (tok = strtok_r(buf, " \t", &save); tok != NULL && argc < MAX_ARGS - 2;
	     tok = strtok_r(NULL, " \t", &save))
		argv[argc++] = tok;
	if (tok != NULL) {
		snprintf(err, errlen, "--eal: more than %d arguments", MAX_ARGS - 3);
		free(buf);
		return -E2BIG;
	}
	for (i = 1; i < argc; i++)
		has_prefix |= strncmp(argv[i], "--file-prefix", 13) == 0;
	apart = apart && !has_prefix;
	if (apart) {
		snprintf(prefix, sizeof(prefix), "--file-prefix=syncemu-%d", (int)getpid());
		argv[argc++] = prefix;
	}
	argv[argc] = NULL;
	rc = rte_eal_init(argc, argv);
	free(buf);
	if (rc < 0) {
		snprintf(err, errlen, "the EAL did not start (%s); flags: %s%s", rte_strerror(rte_errno),
			 args, args == def ? " (override with --eal)" : "");
		return -(rte_errno ? rte_errno : EINVAL);
	}
	eal_up = 1;
	if (apart) {
		snprintf(own_dir, sizeof(own_dir), "%s", rte_eal_get_runtime_dir());
		snprintf(own_sock, sizeof(own_sock), "%s/%s", own_dir, TELEMETRY_SOCKET);
	}
	return 0;
}

int
dp_eal_init(const char *args, uint32_t mem_mb, char *err, size_t errlen)
{
	return eal_start(args, mem_mb, false, err, errlen);
}

int
dp_eal_init_apart(const char *args, uint32_t mem_mb, char *err, size_t errlen)
{
	return eal_start(args, mem_mb, true, err, errlen);
}

int
dp_eal_telemetry(char *path, size_t plen, char *prefix, size_t xlen)
{
	const char *dir, *base;
	struct stat st;

	if (!eal_up)
		return -ENODEV;
	dir = rte_eal_get_runtime_dir();
	base = strrchr(dir, '/');
	snprintf(path, plen, "%s/%s", dir, TELEMETRY_SOCKET);
	snprintf(prefix, xlen, "%s", base != NULL ? base + 1 : dir);
	return stat(path, &st) == 0 && S_ISSOCK(st.st_mode) ? 0 : -ENOENT;
}

/* The own prefix's runtime directory and what DPDK left in it (files, sockets; no subdirs). */
static void
remove_own_dir(void)
{
	struct dirent *e;
	DIR *d;
	int fd;

	if (own_dir[0] == '\0')
		return;
	d = opendir(own_dir);
	if (d != NULL) {
		fd = dirfd(d);
		while ((e = readdir(d)) != NULL)
			if (strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0)
				unlinkat(fd, e->d_name, 0);
		closedir(d);
	}
	rmdir(own_dir);
	own_dir[0] = '\0';
	own_sock[0] = '\0';
}

void
dp_eal_signal_cleanup(void)
{
	if (own_sock[0] != '\0')
		unlink(own_sock);
	if (own_dir[0] != '\0')
		rmdir(own_dir);
}

/* the EAL's interrupt thread has run settle_cb; has run park_cb, which never returns */
static atomic_bool settled, parked;

static void
settle_cb(void *arg)
{
	eventfd_t v;

	eventfd_read((int)(intptr_t)arg, &v);	/* an EXT handle's fd is the callback's to read */
	atomic_store(&settled, true);
}

static void
park_cb(void *arg)
{
	eventfd_t v;

	eventfd_read((int)(intptr_t)arg, &v);
	atomic_store(&parked, true);
	for (;;)
		pause();	/* until the process ends */
}

/*
 * Have the EAL's interrupt thread call @p cb (its argument the eventfd) after the callbacks of
 * its current batch: @p cb registered on an eventfd of ours, which is then written.  Returns
 * the eventfd, its handle in @p ihp, or -1 (nothing left registered).
 */
static int
intr_thread_call(rte_intr_callback_fn cb, struct rte_intr_handle **ihp)
{
	struct rte_intr_handle *ih = rte_intr_instance_alloc(RTE_INTR_INSTANCE_F_PRIVATE);
	int fd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);

	if (ih == NULL || fd < 0 || rte_intr_fd_set(ih, fd) != 0 ||
	    rte_intr_type_set(ih, RTE_INTR_HANDLE_EXT) != 0 ||
	    rte_intr_callback_register(ih, cb, (void *)(intptr_t)fd) != 0) {
		if (fd >= 0)
			close(fd);
		rte_intr_instance_free(ih);
		return -1;
	}
	eventfd_write(fd, 1);
	*ihp = ih;
	return fd;
}

/* Sleep in steps of 1 ms until @p flag is set, @p ms at most. */
static void
wait_flag(atomic_bool *flag, int ms)
{
	int waited;

	for (waited = 0; !atomic_load(flag) && waited < ms; waited++) {
		struct timespec ts = { 0, 1000000 };

		nanosleep(&ts, NULL);
	}
}

void
dp_eal_intr_settle(int ms)
{
	struct rte_intr_handle *ih;
	int fd;

	atomic_store(&settled, false);
	fd = intr_thread_call(settle_cb, &ih);
	if (fd < 0)
		return;
	wait_flag(&settled, ms);
	rte_intr_callback_unregister_sync(ih, settle_cb, (void *)(intptr_t)fd);	/* if it runs */
	close(fd);
	rte_intr_instance_free(ih);
}

/*
 * Park the EAL's interrupt thread (up to @p ms): park_cb never returns.  DPDK 22.11's
 * rte_eal_cleanup() unmaps the EAL's memory without stopping that thread, and interrupt sources
 * may still be registered with handles in that memory (net_memif never unregisters a server's
 * listening socket): any wake-up of the thread after that reads them, a SIGSEGV as the process
 * ends (in one two-rank memif run in four, seen in a core dump, once the teardown no longer
 * spent a second freeing the pools).  Parked, the thread wakes no more; the process ends it.
 */
static void
intr_thread_park(int ms)
{
	static struct rte_intr_handle *ih;	/* in use until the process ends */

	if (intr_thread_call(park_cb, &ih) >= 0)
		wait_flag(&parked, ms);
}

void
dp_eal_fini(void)
{
	if (eal_up) {
		intr_thread_park(1000);
		rte_eal_cleanup();
		remove_own_dir();
	}
	eal_up = 0;
	eal_ending = false;
}

void
dp_eal_ending(void)
{
	eal_ending = eal_up != 0;
}

bool
dp_eal_is_ending(void)
{
	return eal_ending;
}

static uint32_t
data_room(uint32_t frame_max)
{
	return RTE_PKTMBUF_HEADROOM + RTE_ALIGN_CEIL(frame_max, 64);
}

struct rte_mempool *
dp_pool_create(const char *name, uint32_t n, uint32_t frame_max, char *err, size_t errlen)
{
	struct rte_mempool *mp;
	uint32_t room = data_room(frame_max);

	if (room > UINT16_MAX) {
		snprintf(err, errlen, "frames of %u bytes do not fit an mbuf", frame_max);
		return NULL;
	}
	mp = rte_pktmbuf_pool_create(name, n, n >= 4096 ? 256 : 0, DP_MBUF_PRIV, (uint16_t)room,
				     SOCKET_ID_ANY);
	if (mp == NULL)
		snprintf(err, errlen, "no mbuf pool of %u mbufs of %u bytes (%s): give the EAL more "
			 "memory (-m) or lower run.steps' queues", n, room,
			 rte_strerror(rte_errno));
	return mp;
}

uint32_t
dp_pool_mem_mb(uint32_t n, uint32_t frame_max)
{
	uint64_t per = data_room(frame_max) + sizeof(struct rte_mbuf) + DP_MBUF_PRIV + 128;

	return (uint32_t)(((uint64_t)n * per) >> 20) + 128;
}
