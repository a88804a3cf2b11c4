/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Real time inside (rt.h): what its files share.  rt.c holds the engine's hooks, the ports'
 * opening and a run's begin and end; rt_peer.c the protocol of two processes over the ports;
 * rt_mpi.c the control of a run over MPI ranks.
 */
#ifndef DP_RT_IMPL_H
#define DP_RT_IMPL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "capture.h"
#include "record.h"
#include "rt.h"
#include "topology.h"

#define RT_MAGIC 0x54524553u	/* "SERT" little-endian */
#define RT_VERSION 1
#define RT_HDR 48
#define RT_VALS ((DP_CTL_MAX - RT_HDR) / 8)
#define RT_PINGS 32

enum rt_type {
	RT_HELLO = 1,		/* a: config hash, b: DCs here, c: 1 if the peer's HELLO was heard */
	RT_PING,		/* a: sender's clock */
	RT_PONG,		/* a: the PING's a, b: responder's clock */
	RT_START,		/* a: real start, on the receiver's clock */
	RT_START_ACK,
	RT_ARRIVED,		/* gen: barrier generation */
	RT_DONE,		/* a: data frames sent through the ports this run */
	RT_PORTREP,		/* gen: DC, v: a port's figures */
	RT_RESULT,		/* gen: array, a: offset, count: values in v */
	RT_RESULT_END,		/* a: values sent */
	RT_RESULT_ACK,
	RT_TCP,			/* v: the sender's workers' TCP counts (DP_RT_TCP_VALS) */
};

/* The record's arrays, as the follower sends them and the leader merges them. */
enum rt_array { A_COMPUTE, A_ROUND, A_STEP, A_FRAMES, A_GATHERED, A_FINISHED, A_COUNT };

/* rt.c: the record's arrays (a split run's record holds every step: slot i is step i). */
uint64_t rt_array_len(const struct dp_record *r, int a);
uint64_t rt_array_get(const struct dp_record *r, int a, uint64_t i);
/* Both sides' figure: the latest time, the sum of counts. */
void rt_array_merge(struct dp_record *r, int a, uint64_t i, uint64_t v);
/* A port's figures; as RT_PORTREP values (15 of them), and back. */
void rt_port_report(const struct dp_port *p, struct dp_rt_port_report *r);
uint16_t rt_portrep_pack(const struct dp_rt_port_report *r, uint64_t *v);
void rt_portrep_unpack(struct dp_rt_port_report *r, uint32_t dc, const uint64_t *v, uint16_t n);
/* This side's workers' TCP counts into @v (DP_RT_TCP_VALS; zeros without TCP). */
void rt_tcp_pack(const struct dp_topo *t, uint64_t *v);

/* rt_peer.c: two processes over the ports. */
int rt_send_msg(struct dp_rt *rt, uint8_t type, uint32_t run_id, uint32_t gen, uint64_t a,
		uint64_t b, uint64_t c, const uint64_t *v, uint16_t count);
void rt_on_msg(void *arg, struct dp_port *p, const uint8_t *raw, uint32_t len, dp_time_t now);
void rt_wait_for(struct dp_rt *rt, int ms, const volatile bool *flag);
void rt_arrived(void *arg, uint32_t generation, dp_time_t now);
int rt_measure_offset(struct dp_rt *rt, int n, uint64_t end, char *err, size_t errlen);
int rt_hello(struct dp_rt *rt, char *err, size_t errlen);
int rt_send_results(struct dp_rt *rt, const struct dp_topo *t);

/* rt_mpi.c: the control over MPI ranks. */
void rt_mpi_take(struct dp_rt *rt, dp_time_t now);
int rt_mpi_hello(struct dp_rt *rt, int rc, char *err, size_t errlen);
int rt_mpi_start(struct dp_rt *rt, uint32_t run_id, uint64_t *start, char *err, size_t errlen);
bool rt_mpi_drained(struct dp_rt *rt, struct dp_engine *eng, bool idle, uint64_t tx, uint64_t rx);
int rt_mpi_trace(struct dp_rt *rt, struct dp_capture *c, char *err, size_t errlen);
int rt_mpi_results(struct dp_rt *rt, struct dp_topo *t, char *err, size_t errlen);

#endif /* DP_RT_IMPL_H */
