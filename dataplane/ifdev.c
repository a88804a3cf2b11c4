/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A port's kernel interface (ifdev.h).
 *
 * The kernel places a received frame in a TPACKET_V2 ring's frame at tp_mac =
 * TPACKET_ALIGN(TPACKET2_HDRLEN + 16) - ETH_HLEN (net/packet/af_packet.c, tpacket_rcv()), and
 * cuts what does not fit (tp_snaplen < tp_len); DPDK's net_af_packet copies tp_snaplen bytes and
 * drops tp_len, so a cut frame cannot be told by its length: the largest whole frame is known
 * from framesz instead.  PACKET_STATISTICS returns and clears the socket's counts (tp_drops: no
 * room in the ring); the driver never reads them, so they are ours to read.
 */
#include <dirent.h>
#include <errno.h>
#include <linux/if_packet.h>
#include <net/if.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <unistd.h>

#include "ifdev.h"

#define AF_PACKET_FRAMESZ 2048	/* net_af_packet's DFLT_FRAME_SIZE */
#define ETH_HDR 14

/* net_af_packet's devarg @key (",key=N"), or @dflt. */
static uint32_t
af_packet_arg(const char *devargs, const char *key, uint32_t dflt)
{
	char pat[24];
	const char *k;
	unsigned long v;
	char *end;

	snprintf(pat, sizeof(pat), ",%s=", key);
	k = strstr(devargs, pat);
	if (k == NULL)
		return dflt;
	k += strlen(pat);
	errno = 0;
	v = strtoul(k, &end, 0);
	if (errno != 0 || end == k || v > UINT32_MAX)
		return dflt;	/* the driver refuses it itself */
	return (uint32_t)v;
}

uint32_t
dp_ifdev_af_packet_framesz(const char *devargs)
{
	return af_packet_arg(devargs, "framesz", AF_PACKET_FRAMESZ);
}

uint32_t
dp_ifdev_af_packet_blocksz(const char *devargs)
{
	return af_packet_arg(devargs, "blocksz", (uint32_t)getpagesize());
}

uint32_t
dp_ifdev_af_packet_whole(const char *devargs)
{
	uint32_t fs = dp_ifdev_af_packet_framesz(devargs);
	uint32_t mac = TPACKET_ALIGN(TPACKET2_HDRLEN + 16) - ETH_HDR;

	return fs > mac ? fs - mac : 0;
}

/* Inodes of the AF_PACKET sockets of this namespace bound to @ifindex. */
static unsigned int
packet_inodes(int ifindex, unsigned long *ino, unsigned int max)
{
	FILE *f = fopen("/proc/self/net/packet", "r");
	char line[256];
	unsigned int n = 0;

	if (f == NULL)
		return 0;
	/* sk RefCnt Type Proto Iface R Rmem User Inode (net/packet/af_packet.c) */
	while (n < max && fgets(line, sizeof(line), f) != NULL) {
		unsigned long long sk;
		unsigned long rmem, user, inode;
		unsigned int proto;
		int ref, type, iface, run;

		if (sscanf(line, "%llx %d %d %x %d %d %lu %lu %lu", &sk, &ref, &type, &proto,
			   &iface, &run, &rmem, &user, &inode) == 9 && iface == ifindex)
			ino[n++] = inode;
	}
	fclose(f);
	return n;
}

/* This process's descriptors of the sockets @ino. */
static void
find_fds(struct dp_ifdev *d, const unsigned long *ino, unsigned int n)
{
	DIR *dir = opendir("/proc/self/fd");
	struct dirent *e;

	if (dir == NULL)
		return;
	while (d->nfd < DP_IFDEV_SOCKS && (e = readdir(dir)) != NULL) {
		char path[64], target[64];
		unsigned long inode;
		unsigned int i;
		ssize_t k;

		snprintf(path, sizeof(path), "/proc/self/fd/%.40s", e->d_name);
		k = readlink(path, target, sizeof(target) - 1);
		if (k <= 0)
			continue;
		target[k] = '\0';
		if (sscanf(target, "socket:[%lu]", &inode) != 1)
			continue;
		for (i = 0; i < n; i++)
			if (ino[i] == inode)
				d->fd[d->nfd++] = atoi(e->d_name);
	}
	closedir(dir);
}

void
dp_ifdev_read_mtu(struct dp_ifdev *d)
{
	struct ifreq ifr;
	int s = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);

	if (s < 0)
		return;
	memset(&ifr, 0, sizeof(ifr));
	snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "%s", d->name);
	if (ioctl(s, SIOCGIFMTU, &ifr) == 0 && ifr.ifr_mtu > 0)
		d->mtu = (uint32_t)ifr.ifr_mtu;
	close(s);
}

int
dp_ifdev_find(struct dp_ifdev *d, int ifindex)
{
	unsigned long ino[DP_IFDEV_SOCKS];
	unsigned int n;

	memset(d, 0, sizeof(*d));
	if (ifindex <= 0 || if_indextoname((unsigned int)ifindex, d->name) == NULL)
		return -ENODEV;
	d->ifindex = ifindex;
	dp_ifdev_read_mtu(d);
	n = packet_inodes(ifindex, ino, DP_IFDEV_SOCKS);
	if (n > 0)
		find_fds(d, ino, n);
	dp_ifdev_update(d);	/* from now on */
	d->drops = 0;
	return 0;
}

void
dp_ifdev_update(struct dp_ifdev *d)
{
	unsigned int i;

	for (i = 0; i < d->nfd; i++) {
		struct tpacket_stats st;
		socklen_t len = sizeof(st);

		if (getsockopt(d->fd[i], SOL_PACKET, PACKET_STATISTICS, &st, &len) == 0)
			d->drops += st.tp_drops;
	}
}
