// SPDX-License-Identifier: BSD-3-Clause
//
// The direct all-reduce on a mesh WAN in ns-3, to hold syncemu's against (tools/bench/ns3-direct).
//
// 8 DC x 8 workers as syncemu's defaults put them: each worker a host on a point-to-point link
// of 400 Gbit/s and 5 us to its DC's router (syncemu: NIC and down link, intra latency 10 us),
// each pair of DC routers joined by a point-to-point link of 100 Gbit/s and 10 us (the WAN's 20
// us less the intra latency), drop-tail queues too long to drop, static global routing.  AdamW's
// 31,666,944-byte all-reduce as syncemu's job.collective = direct runs it: compute (6PT / (MFU x
// peak) = 0.491814 ms), 7 ring rounds of B / 8 in the DC, the exchange of each worker's B / 8
// with its peers in the 7 other DCs, 7 ring rounds of B / 8 in the DC; a barrier after each phase
// (run.sync = phase).  --mode=0: concurrent, a frame to each peer in turn; --mode=1: rounds, round
// k to the peer k + 1 DCs on.  UDP datagrams of 8192 payload bytes (a link charges 8222: IPv4,
// UDP, PPP); a round ends when its bytes are in and its frames queued.  Prints the step.
#include "ns3/core-module.h"
#include "ns3/network-module.h"
#include "ns3/internet-module.h"
#include "ns3/point-to-point-module.h"
#include <vector>
using namespace ns3;

static const int D = 8, N = 8, W = D * N;
static const uint64_t B = 31666944, PAY = 8192;
static int mode = 0;
static std::vector<Ipv4Address> addr;
struct Rnd { int phase; uint64_t bytes; int nin; };	// nin: flows in
static std::vector<Rnd> prog;
static std::vector<std::vector<Ptr<Socket>>> sock;	// [w][round]
static std::vector<std::vector<uint64_t>> got;		// [w][round]
static std::vector<int> cur;				// worker's round
static std::vector<bool> waiting;			// at the phase barrier
static int at_barrier = 0;
static double t_end = 0;

static int dc(int w) { return w / N; }
static int pos(int w) { return w % N; }

static void Begin(int w, int r);

static void
Done(int w)
{
	int r = cur[w];
	if (r + 1 == (int)prog.size() || prog[r + 1].phase != prog[r].phase) {
		waiting[w] = true;
		if (++at_barrier == W) {
			at_barrier = 0;
			t_end = Simulator::Now().GetSeconds();
			if (r + 1 == (int)prog.size())
				return;
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
		for (int k = 1; k < D; k++)
			dst.push_back(((dc(w) + k) % D) * N + pos(w));
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

int
main(int argc, char **argv)
{
	CommandLine cmd;
	cmd.AddValue("mode", "0 concurrent, 1 rounds", mode);
	cmd.Parse(argc, argv);
	Config::SetDefault("ns3::DropTailQueue<Packet>::MaxSize", StringValue("1000000p"));
	Config::SetDefault("ns3::UdpSocket::RcvBufSize", UintegerValue(1u << 30));
	Config::SetDefault("ns3::PfifoFastQueueDisc::MaxSize", StringValue("1000000p"));

	NodeContainer sw, hs;
	sw.Create(D);
	hs.Create(W);
	InternetStackHelper inet;
	inet.Install(sw);
	inet.Install(hs);
	PointToPointHelper intra, wan;
	intra.SetDeviceAttribute("DataRate", StringValue("400Gbps"));
	intra.SetChannelAttribute("Delay", StringValue("5us"));
	intra.SetDeviceAttribute("Mtu", UintegerValue(9000));
	wan.SetDeviceAttribute("DataRate", StringValue("100Gbps"));
	wan.SetChannelAttribute("Delay", StringValue("10us"));
	wan.SetDeviceAttribute("Mtu", UintegerValue(9000));
	Ipv4AddressHelper ip;
	addr.resize(W);
	char net[32];
	for (int w = 0; w < W; w++) {
		NetDeviceContainer d = intra.Install(hs.Get(w), sw.Get(dc(w)));
		snprintf(net, sizeof(net), "10.%d.%d.0", 1 + w / 250, w % 250);
		ip.SetBase(net, "255.255.255.0");
		addr[w] = ip.Assign(d).GetAddress(0);
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

	// the program: N - 1 rounds in the DC, the exchange, N - 1 rounds in the DC
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
	double compute = 6.0 * 15833472.0 * 2048.0 / (0.40 * 989e12);
	Simulator::Schedule(Seconds(compute), [] {
		for (int w = 0; w < W; w++)
			Begin(w, 0);
	});
	Simulator::Run();
	printf("mode %s: step %.6f ms (compute %.6f ms)\n", mode == 0 ? "concurrent" : "rounds",
	       t_end * 1e3, 6.0 * 15833472.0 * 2048.0 / (0.40 * 989e12) * 1e3);
	Simulator::Destroy();
	return 0;
}
