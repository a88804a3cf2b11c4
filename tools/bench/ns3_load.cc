// SPDX-License-Identifier: BSD-3-Clause
//
// The direct all-reduce across data centres in ns-3, to hold syncemu's against: under background
// load (tools/bench/ns3-load) and on an 8 DC x 8 mesh (tools/bench/ns3-direct).
//
// D DC x N workers as syncemu's defaults put them: each worker a host on a point-to-point link
// of 400 Gbit/s and 5 us to its DC's router (syncemu: NIC and down link, intra latency 10 us),
// each pair of DC routers joined by a point-to-point link of 100 Gbit/s and 10 us (the WAN's 20
// us less the intra latency), static global routing; MTU 9000, UDP datagrams of 8192 payload
// bytes.  AdamW's 31,666,944-byte all-reduce B as syncemu's job.collective = direct runs it,
// for --steps steps: compute (6PT / (MFU x peak) = 0.491814 ms), N - 1 ring rounds of B / N in
// the DC, the exchange of each worker's B / N with its peers in the D - 1 other DCs, N - 1 ring
// rounds; a barrier after each phase (run.sync = phase); the next step's compute starts at the
// last barrier.  --mode=0: the exchange concurrent, a frame to each peer in turn; --mode=1:
// rounds, round k to the peer k + 1 DCs on.  A round ends when its bytes are in and its frames
// queued.
//
// Background as syncemu's (dataplane/bghost.c): in each DC a host on its own 400 Gbit/s link
// draws transfers with exponential gaps (mean size / (load x 100 Gbit/s)) and sizes of
// --size bytes (fixed, or exponential with --exp=1) from its own generator seeded by --seed,
// queues each one's datagrams on its link as it arrives (the link never idles while a transfer
// waits), to a sink host in the next DC over the same WAN FIFO as the sync.  Queues too long to
// drop (syncemu: --set queues.wan=1GB --set queues.switch=1GB).
//
// ns-3's links charge a datagram of 8192 bytes 8222 (IPv4, UDP, PPP); syncemu's payload
// accounting charges 8192.  Every link's rate is scaled by 8222 / 8192 here, so that a frame
// takes the time syncemu gives it (--scale=0: the nominal rates).  Without it the WAN carries
// 0.37 % more bytes of the same load, which at load 0.9 is 3.4 % more queueing (1 / (1 - load)).
//
// Prints one line per step (its time in ms) and a summary: steps, mean, p99, transfers done.
#include "ns3/core-module.h"
#include "ns3/network-module.h"
#include "ns3/internet-module.h"
#include "ns3/point-to-point-module.h"
#include <algorithm>
#include <random>
#include <vector>
using namespace ns3;

static int D = 2, N = 1, W;
static const uint64_t B = 31666944, PAY = 8192;
static int steps = 200, mode = 0;
static double load = 0, xfer = 1e6;
static bool expsizes = false, scale = true;
static uint32_t seed = 1;
static std::vector<Ipv4Address> addr, sinkaddr;
struct Rnd { int phase; uint64_t bytes; int nin; };	// nin: flows in
static std::vector<Rnd> prog;
static std::vector<std::vector<Ptr<Socket>>> sock;	// [w][round]
static std::vector<std::vector<uint64_t>> got;		// [w][round]
static std::vector<int> cur;
static std::vector<bool> waiting;
static int at_barrier = 0, step = 0;
static double t_start = 0, compute;
static std::vector<double> step_ms;
static std::vector<Ptr<Socket>> bgsock;
static std::vector<std::mt19937_64> bgrng;
static uint64_t bg_started = 0, bg_bytes_in = 0;
static bool stopping = false;

static int dc(int w) { return w / N; }
static int pos(int w) { return w % N; }

static void Begin(int w, int r);

static void
StartStep()
{
	for (int w = 0; w < W; w++) {
		std::fill(got[w].begin(), got[w].end(), 0);
		waiting[w] = false;
		Begin(w, 0);
	}
}

static void
Done(int w)
{
	int r = cur[w];
	if (r + 1 == (int)prog.size() || prog[r + 1].phase != prog[r].phase) {
		waiting[w] = true;
		if (++at_barrier == W) {
			at_barrier = 0;
			if (r + 1 == (int)prog.size()) {
				double now = Simulator::Now().GetSeconds();
				step_ms.push_back((now - t_start) * 1e3);
				t_start = now;
				if (++step == steps) {
					stopping = true;
					Simulator::Stop();
					return;
				}
				for (int v = 0; v < W; v++)
					cur[v] = -1;
				Simulator::Schedule(Seconds(compute), &StartStep);
				return;
			}
			for (int v = 0; v < W; v++) {
				waiting[v] = false;
				Begin(v, r + 1);
			}
		}
		return;
	}
	Begin(w, r + 1);
}

static void
Check(int w)
{
	int r = cur[w];
	if (r >= 0 && !waiting[w] && got[w][r] >= prog[r].bytes * prog[r].nin)
		Done(w);
}

static void
Begin(int w, int r)
{
	cur[w] = r;
	const Rnd &x = prog[r];
	uint64_t k = (x.bytes + PAY - 1) / PAY;
	std::vector<int> dst;
	if (x.phase != 1)
		dst.push_back(dc(w) * N + (pos(w) + 1) % N);
	else if (mode == 0)
		for (int j = 1; j < D; j++)
			dst.push_back(((dc(w) + j) % D) * N + pos(w));
	else
		dst.push_back(((dc(w) + r - (N - 1) + 1) % D) * N + pos(w));
	for (uint64_t j = 0; j < k; j++) {
		uint32_t len = j + 1 == k ? (uint32_t)(x.bytes - (k - 1) * PAY) : (uint32_t)PAY;
		for (int v : dst)
			sock[w][r]->SendTo(Create<Packet>(len), 0,
					   InetSocketAddress(addr[v], (uint16_t)(1000 + r)));
	}
	Check(w);
}

static void
Recv(int w, int r, Ptr<Socket> s)
{
	Ptr<Packet> p;
	Address from;
	while ((p = s->RecvFrom(from)))
		got[w][r] += p->GetSize();
	if (cur[w] == r)
		Check(w);
}

static void
SinkRecv(Ptr<Socket> s)
{
	Ptr<Packet> p;
	Address from;
	while ((p = s->RecvFrom(from)))
		bg_bytes_in += p->GetSize();
}

// A transfer of DC d arrives: its datagrams queue on the host's link; the next one is drawn.
static void
Arrival(int d)
{
	if (stopping)
		return;
	std::exponential_distribution<double> gap(load * 12.5e9 / xfer);
	double bytes = xfer;
	if (expsizes)
		bytes = std::exponential_distribution<double>(1.0 / xfer)(bgrng[d]);
	uint64_t n = bytes < 1 ? 1 : (uint64_t)llround(bytes);
	for (uint64_t left = n; left > 0;) {
		uint32_t len = left < PAY ? (uint32_t)left : (uint32_t)PAY;
		bgsock[d]->SendTo(Create<Packet>(len), 0, InetSocketAddress(sinkaddr[(d + 1) % D], 9));
		left -= len;
	}
	bg_started++;
	Simulator::Schedule(Seconds(gap(bgrng[d])), &Arrival, d);
}

int
main(int argc, char **argv)
{
	CommandLine cmd;
	cmd.AddValue("dcs", "data centres", D);
	cmd.AddValue("workers", "workers per data centre", N);
	cmd.AddValue("steps", "steps", steps);
	cmd.AddValue("mode", "the exchange: 0 concurrent, 1 rounds", mode);
	cmd.AddValue("load", "background load on the WAN (0 to 1)", load);
	cmd.AddValue("size", "background transfer size, bytes", xfer);
	cmd.AddValue("exp", "exponential sizes (1) instead of fixed (0)", expsizes);
	cmd.AddValue("seed", "seed of the background's generators", seed);
	cmd.AddValue("scale", "link rates x 8222 / 8192 (1) or nominal (0)", scale);
	cmd.Parse(argc, argv);
	if (D < 2 || N < 1 || steps < 1 || load < 0 || load >= 1 || xfer < 1 || mode < 0 ||
	    mode > 1) {
		fprintf(stderr, "ns3_load: bad arguments\n");
		return 2;
	}
	W = D * N;
	Config::SetDefault("ns3::DropTailQueue<Packet>::MaxSize", StringValue("4000000p"));
	Config::SetDefault("ns3::UdpSocket::RcvBufSize", UintegerValue(1u << 30));
	Config::SetDefault("ns3::PfifoFastQueueDisc::MaxSize", StringValue("4000000p"));

	NodeContainer sw, hs, bg, sink;
	sw.Create(D);
	hs.Create(W);
	bg.Create(D);
	sink.Create(D);
	InternetStackHelper inet;
	inet.Install(sw);
	inet.Install(hs);
	inet.Install(bg);
	inet.Install(sink);
	PointToPointHelper intra, wan;
	double k = scale ? 8222.0 / 8192.0 : 1.0;
	intra.SetDeviceAttribute("DataRate", DataRateValue(DataRate((uint64_t)llround(400e9 * k))));
	intra.SetChannelAttribute("Delay", StringValue("5us"));
	intra.SetDeviceAttribute("Mtu", UintegerValue(9000));
	wan.SetDeviceAttribute("DataRate", DataRateValue(DataRate((uint64_t)llround(100e9 * k))));
	wan.SetChannelAttribute("Delay", StringValue("10us"));
	wan.SetDeviceAttribute("Mtu", UintegerValue(9000));
	Ipv4AddressHelper ip;
	addr.resize(W);
	sinkaddr.resize(D);
	char net[32];
	for (int w = 0; w < W; w++) {
		NetDeviceContainer d = intra.Install(hs.Get(w), sw.Get(dc(w)));
		snprintf(net, sizeof(net), "10.%d.%d.0", 1 + w / 250, w % 250);
		ip.SetBase(net, "255.255.255.0");
		addr[w] = ip.Assign(d).GetAddress(0);
	}
	std::vector<Ipv4Address> bgaddr(D);
	for (int d = 0; d < D; d++) {
		NetDeviceContainer a = intra.Install(bg.Get(d), sw.Get(d));
		snprintf(net, sizeof(net), "10.210.%d.0", d);
		ip.SetBase(net, "255.255.255.0");
		bgaddr[d] = ip.Assign(a).GetAddress(0);
		NetDeviceContainer b = intra.Install(sink.Get(d), sw.Get(d));
		snprintf(net, sizeof(net), "10.220.%d.0", d);
		ip.SetBase(net, "255.255.255.0");
		sinkaddr[d] = ip.Assign(b).GetAddress(0);
	}
	int l = 0;
	for (int a = 0; a < D; a++)
		for (int b = a + 1; b < D; b++, l++) {
			NetDeviceContainer d = wan.Install(sw.Get(a), sw.Get(b));
			snprintf(net, sizeof(net), "10.200.%d.0", l);
			ip.SetBase(net, "255.255.255.0");
			ip.Assign(d);
		}
	Ipv4GlobalRoutingHelper::PopulateRoutingTables();

	for (int r = 0; r < N - 1; r++)
		prog.push_back({0, B / N, 1});
	if (mode == 0)
		prog.push_back({1, B / N, D - 1});
	else
		for (int k = 0; k < D - 1; k++)
			prog.push_back({1, B / N, 1});
	for (int r = 0; r < N - 1; r++)
		prog.push_back({2, B / N, 1});
	sock.assign(W, {});
	got.assign(W, std::vector<uint64_t>(prog.size(), 0));
	cur.assign(W, -1);
	waiting.assign(W, false);
	for (int w = 0; w < W; w++)
		for (size_t r = 0; r < prog.size(); r++) {
			Ptr<Socket> s = Socket::CreateSocket(hs.Get(w), UdpSocketFactory::GetTypeId());
			s->Bind(InetSocketAddress(Ipv4Address::GetAny(), (uint16_t)(1000 + r)));
			s->SetRecvCallback(MakeBoundCallback(&Recv, w, (int)r));
			sock[w].push_back(s);
		}
	for (int d = 0; d < D; d++) {
		Ptr<Socket> s = Socket::CreateSocket(bg.Get(d), UdpSocketFactory::GetTypeId());
		s->Bind();
		bgsock.push_back(s);
		Ptr<Socket> k = Socket::CreateSocket(sink.Get(d), UdpSocketFactory::GetTypeId());
		k->Bind(InetSocketAddress(Ipv4Address::GetAny(), 9));
		k->SetRecvCallback(MakeCallback(&SinkRecv));
		bgrng.emplace_back((uint64_t)seed * 1000003u + (uint64_t)d);
		if (load > 0) {
			std::exponential_distribution<double> gap(load * 12.5e9 / xfer);
			Simulator::Schedule(Seconds(gap(bgrng[d])), &Arrival, d);
		}
	}
	compute = 6.0 * 15833472.0 * 2048.0 / (0.40 * 989e12);
	Simulator::Schedule(Seconds(compute), &StartStep);
	Simulator::Run();
	for (size_t s = 0; s < step_ms.size(); s++)
		printf("step %zu %.6f\n", s, step_ms[s]);
	std::vector<double> v = step_ms;
	double sum = 0;
	for (double x : v)
		sum += x;
	std::sort(v.begin(), v.end());
	double p99 = v.empty() ? 0 : v[std::min(v.size() - 1, (size_t)(0.99 * v.size()))];
	printf("summary: steps %zu mean %.6f ms p99 %.6f ms transfers %llu background bytes in %llu\n",
	       v.size(), v.empty() ? 0 : sum / v.size(), p99, (unsigned long long)bg_started,
	       (unsigned long long)bg_bytes_in);
	Simulator::Destroy();
	return 0;
}
