// 802.11b MANET reference: N nodes moving under ns-3's steady-state random waypoint model in a
// width x height rectangle, AODV routing with ns-3's defaults, bulk TCP NewReno flows between
// given node pairs. The radio, TCP, ARP and AODV set-up is the grid's (wifi_grid.cc); only the
// placement differs. Prints one JSON line. bench/wifi/README.md ("MANET") has the configuration.
//
// Usage: wifi_manet --pairs=SRC-DST,SRC-DST,... [--nodes=50] [--width=1500] [--height=300]
//                   [--min-speed=1] [--max-speed=20] [--min-pause=0] [--max-pause=0]
//                   [--duration=100] [--start=1] [--stagger=0.1] [--seed=1] [--rtscts=0|1]
//                   [--recovery=classic|prr] [--qdisc=none|default]
//                   [--arp=permanent|static|dynamic] [--params=0|1] [--trajectory=FILE]
//
// Flow i runs from pair i's source to its destination, starting at start + i * stagger and
// stopping at duration. Every node moves in [0, width] x [0, height] (MinX = MinY = 0) with
// speeds drawn from [min-speed, max-speed] m/s and pauses from [min-pause, max-pause] s; the
// model starts each node in the steady state of the random waypoint process (mid-trip, or
// paused when pauses are not zero), not at a waypoint.
//
// --trajectory=FILE writes every node's motion, as the model's CourseChange trace reports it,
// in ns-2 `setdest` form: `$node_(i) set X_ x`, `set Y_ y`, `set Z_ 0` for the position at
// t = 0, then in time order one `$ns_ at T "$node_(i) setdest X Y SPEED"` per leg: T is the
// time the leg starts, (X, Y) where the node is when the next course change comes (its
// waypoint), SPEED the leg's speed. Pauses are the gaps between a node's arrival and its next
// setdest. The leg still under way at the end of the run stops, in the file, where the node is
// at `duration` (its waypoint lies beyond the run). Node i is airtcp's node n{i}.

#include "ns3/aodv-module.h"

#include "wifi_common.h"

#include <algorithm>
#include <cstdio>
#include <fstream>

using namespace ns3;
using namespace wifibench;

namespace
{

std::vector<std::pair<uint32_t, uint32_t>>
ParsePairs(const std::string& text, uint32_t nodes)
{
    std::vector<std::pair<uint32_t, uint32_t>> pairs;
    std::stringstream ss(text);
    std::string item;
    while (std::getline(ss, item, ','))
    {
        auto dash = item.find('-');
        NS_ABORT_MSG_IF(dash == std::string::npos, "a pair is SRC-DST, not " << item);
        uint32_t src = std::stoul(item.substr(0, dash));
        uint32_t dst = std::stoul(item.substr(dash + 1));
        NS_ABORT_MSG_IF(src >= nodes || dst >= nodes || src == dst, "bad pair " << item);
        pairs.emplace_back(src, dst);
    }
    return pairs;
}

// ------------------------------------------------------------------------------------------
// Motion: every course change of every node, as the mobility model reports it

struct CourseChange
{
    int64_t tNs;
    Vector position;
    Vector velocity;
};

std::vector<std::vector<CourseChange>> g_courses; // per node, in time order

void
OnCourseChange(uint32_t node, Ptr<const MobilityModel> model)
{
    // The model updated its position at this very instant, so reading it changes nothing.
    g_courses[node].push_back(
        {Simulator::Now().GetNanoSeconds(), model->GetPosition(), model->GetVelocity()});
}

double
Norm(const Vector& v)
{
    return std::sqrt(v.x * v.x + v.y * v.y + v.z * v.z);
}

/// One leg of the trajectory file: from tNs at `speed` towards `to`.
struct Leg
{
    int64_t tNs;
    uint32_t node;
    Vector to;
    double speed;
    Vector velocity; // as the model had it, to check the file against
    int64_t endNs;   // when the model's next course change came (or the end of the run)
};

std::vector<Leg>
Legs(int64_t endNs)
{
    std::vector<Leg> legs;
    for (uint32_t i = 0; i < g_courses.size(); ++i)
    {
        const auto& c = g_courses[i];
        for (size_t k = 0; k < c.size(); ++k)
        {
            double speed = Norm(c[k].velocity);
            if (speed == 0.0)
            {
                continue;
            }
            Leg leg{c[k].tNs, i, {}, speed, c[k].velocity, endNs};
            if (k + 1 < c.size())
            {
                leg.to = c[k + 1].position;
                leg.endNs = c[k + 1].tNs;
            }
            else
            {
                double dt = (endNs - c[k].tNs) * 1e-9;
                leg.to = Vector(c[k].position.x + c[k].velocity.x * dt,
                                c[k].position.y + c[k].velocity.y * dt,
                                c[k].position.z + c[k].velocity.z * dt);
            }
            legs.push_back(leg);
        }
    }
    std::stable_sort(legs.begin(), legs.end(), [](const Leg& a, const Leg& b) {
        return a.tNs < b.tNs || (a.tNs == b.tNs && a.node < b.node);
    });
    return legs;
}

std::string
Fixed(double v, int digits)
{
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.*f", digits, v == 0.0 ? 0.0 : v); // no "-0.000000"
    return buf;
}

/**
 * Writes the ns-2 movement file and returns how closely it reproduces the model: the largest
 * distance, over all legs, between where the file's leg ends (from its start at its speed) and
 * where the model's leg ended, and between the leg's direction in the file and the model's
 * velocity.
 */
std::pair<double, double>
WriteTrajectory(const std::string& path, int64_t endNs)
{
    std::ofstream out(path);
    NS_ABORT_MSG_IF(!out, "cannot write " << path);
    for (uint32_t i = 0; i < g_courses.size(); ++i)
    {
        NS_ABORT_MSG_IF(g_courses[i].empty() || g_courses[i].front().tNs != 0,
                        "node " << i << " reported no position at t = 0");
        const Vector& p = g_courses[i].front().position;
        out << "$node_(" << i << ") set X_ " << Fixed(p.x, 6) << "\n";
        out << "$node_(" << i << ") set Y_ " << Fixed(p.y, 6) << "\n";
        out << "$node_(" << i << ") set Z_ " << Fixed(p.z, 6) << "\n";
    }
    std::vector<Vector> at(g_courses.size());
    for (uint32_t i = 0; i < g_courses.size(); ++i)
    {
        at[i] = g_courses[i].front().position;
    }
    double maxEndError = 0.0;
    double maxVelocityError = 0.0;
    for (const Leg& leg : Legs(endNs))
    {
        out << "$ns_ at " << Fixed(leg.tNs * 1e-9, 9) << " \"$node_(" << leg.node << ") setdest "
            << Fixed(leg.to.x, 6) << " " << Fixed(leg.to.y, 6) << " " << Fixed(leg.speed, 9)
            << "\"\n";
        // Replay as ns-2 would: from where the node is, straight to `to` at `speed`.
        Vector from = at[leg.node];
        Vector d(leg.to.x - from.x, leg.to.y - from.y, leg.to.z - from.z);
        double dist = Norm(d);
        double arrivalNs = leg.tNs + dist / leg.speed * 1e9;
        maxEndError = std::max(maxEndError, std::abs(arrivalNs - leg.endNs) * 1e-9 * leg.speed);
        if (dist > 0)
        {
            Vector v(d.x / dist * leg.speed, d.y / dist * leg.speed, d.z / dist * leg.speed);
            maxVelocityError = std::max(
                maxVelocityError,
                Norm(Vector(v.x - leg.velocity.x, v.y - leg.velocity.y, v.z - leg.velocity.z)));
        }
        at[leg.node] = leg.to;
    }
    return {maxEndError, maxVelocityError};
}

// ------------------------------------------------------------------------------------------
// Routing counters

struct RouteCounters
{
    // AODV messages sent, every transmission (originated or rebroadcast/forwarded): HELLOs are
    // RREPs sent to a broadcast address.
    std::map<std::string, uint64_t> aodvTx;
    // Ipv4L3Protocol drops by reason (DROP_ROUTE_ERROR: AODV found no route, e.g. a packet it
    // had queued while discovering a route that was never found).
    std::map<std::string, uint64_t> ipDrops;
};

RouteCounters g_route;

void
OnIpTx(Ptr<const Packet> packet, Ptr<Ipv4>, uint32_t)
{
    Ipv4Header ip;
    packet->PeekHeader(ip);
    if (ip.GetProtocol() != UdpL4Protocol::PROT_NUMBER)
    {
        return;
    }
    Ptr<Packet> copy = packet->Copy();
    copy->RemoveHeader(ip);
    UdpHeader udp;
    copy->RemoveHeader(udp);
    if (udp.GetDestinationPort() != aodv::RoutingProtocol::AODV_PORT)
    {
        return;
    }
    aodv::TypeHeader type;
    copy->RemoveHeader(type);
    const bool broadcast =
        ip.GetDestination().IsBroadcast() ||
        ip.GetDestination().IsSubnetDirectedBroadcast(Ipv4Mask("255.255.0.0"));
    switch (type.Get())
    {
    case aodv::AODVTYPE_RREQ:
        ++g_route.aodvTx["rreq"];
        break;
    case aodv::AODVTYPE_RREP:
        ++g_route.aodvTx[broadcast ? "hello" : "rrep"];
        break;
    case aodv::AODVTYPE_RERR:
        ++g_route.aodvTx["rerr"];
        break;
    case aodv::AODVTYPE_RREP_ACK:
        ++g_route.aodvTx["rrep_ack"];
        break;
    default:
        ++g_route.aodvTx["other"];
    }
}

void
OnIpDrop(const Ipv4Header&, Ptr<const Packet>, Ipv4L3Protocol::DropReason reason, Ptr<Ipv4>, uint32_t)
{
    static const std::map<Ipv4L3Protocol::DropReason, std::string> names = {
        {Ipv4L3Protocol::DROP_TTL_EXPIRED, "ttl_expired"},
        {Ipv4L3Protocol::DROP_NO_ROUTE, "no_route"},
        {Ipv4L3Protocol::DROP_BAD_CHECKSUM, "bad_checksum"},
        {Ipv4L3Protocol::DROP_INTERFACE_DOWN, "interface_down"},
        {Ipv4L3Protocol::DROP_ROUTE_ERROR, "route_error"},
        {Ipv4L3Protocol::DROP_FRAGMENT_TIMEOUT, "fragment_timeout"},
        {Ipv4L3Protocol::DROP_DUPLICATE, "duplicate"},
    };
    auto it = names.find(reason);
    ++g_route.ipDrops[it != names.end() ? it->second : "other"];
}

// ------------------------------------------------------------------------------------------
// Per-flow events: when the connection opened, when data arrived

struct FlowEvents
{
    double establishedS = -1.0; // first SYN_SENT -> ESTABLISHED of the sender
    double firstRxS = -1.0;     // first bytes at the sink
    double lastRxS = -1.0;
    double gaveUpS = -1.0;      // the sender dropped the connection (socket error close)
    uint64_t synTx = 0;         // SYNs the sender sent (first one and retries)
    uint64_t retransmissions = 0;
    double rtoS = -1.0;           // the sender's retransmission timeout when the run ended
    double maxRtoS = -1.0;        // and the largest it reached
    std::string state = "CLOSED"; // sender's TCP state when the run ended
};

std::vector<FlowEvents> g_flows;

void
OnSenderState(size_t flow, TcpSocket::TcpStates_t, TcpSocket::TcpStates_t now)
{
    FlowEvents& f = g_flows[flow];
    f.state = TcpSocket::TcpStateName[now];
    if (now == TcpSocket::ESTABLISHED && f.establishedS < 0)
    {
        f.establishedS = Simulator::Now().GetSeconds();
    }
}

void
OnSenderTx(size_t flow, Ptr<const Packet>, const TcpHeader& header, Ptr<const TcpSocketBase>)
{
    if (header.GetFlags() & TcpHeader::SYN)
    {
        ++g_flows[flow].synTx;
    }
}

void
OnSenderRto(size_t flow, Time, Time now)
{
    FlowEvents& f = g_flows[flow];
    f.rtoS = now.GetSeconds();
    f.maxRtoS = std::max(f.maxRtoS, f.rtoS);
}

void
OnSenderRetransmission(size_t flow,
                       Ptr<const Packet>,
                       const TcpHeader&,
                       const Address&,
                       const Address&,
                       Ptr<const TcpSocketBase>)
{
    ++g_flows[flow].retransmissions;
}

void
OnSenderErrorClose(size_t flow, Ptr<Socket>)
{
    // ns-3's TcpSocketBase gives a connection up when a retransmission timeout finds its
    // DataRetries (6) retransmissions of the same data spent: NotifyErrorClose, and the
    // endpoint is freed; BulkSendApplication never opens another one.
    g_flows[flow].gaveUpS = Simulator::Now().GetSeconds();
}

void
OnSinkRx(size_t flow, Ptr<const Packet>, const Address&)
{
    FlowEvents& f = g_flows[flow];
    double now = Simulator::Now().GetSeconds();
    if (f.firstRxS < 0)
    {
        f.firstRxS = now;
    }
    f.lastRxS = now;
}

double
OrNull(double s)
{
    return s < 0 ? std::nan("") : s; // Json::Num writes NaN as null
}

} // namespace

int
main(int argc, char* argv[])
{
    uint32_t n = 50;
    double width = 1500.0;
    double height = 300.0;
    double minSpeed = 1.0;
    double maxSpeed = 20.0;
    double minPause = 0.0;
    double maxPause = 0.0;
    double range = 250.0;
    double duration = 100.0;
    double start = 1.0;
    double stagger = 0.1;
    uint32_t seed = 1;
    bool rtsCts = false;
    std::string recovery = "classic";
    std::string qdisc = "none";
    std::string arp = "permanent";
    std::string pairsText;
    std::string trajectory;
    bool params = false;

    CommandLine cmd(__FILE__);
    cmd.AddValue("nodes", "number of nodes", n);
    cmd.AddValue("width", "area width (m): MinX 0, MaxX width", width);
    cmd.AddValue("height", "area height (m): MinY 0, MaxY height", height);
    cmd.AddValue("min-speed", "MinSpeed (m/s, > 0)", minSpeed);
    cmd.AddValue("max-speed", "MaxSpeed (m/s)", maxSpeed);
    cmd.AddValue("min-pause", "MinPause (s)", minPause);
    cmd.AddValue("max-pause", "MaxPause (s)", maxPause);
    cmd.AddValue("range", "RangePropagationLossModel MaxRange (m)", range);
    cmd.AddValue("duration", "simulated seconds (flows and simulation stop)", duration);
    cmd.AddValue("start", "start of flow 0 (s)", start);
    cmd.AddValue("stagger", "start offset between consecutive flows (s)", stagger);
    cmd.AddValue("seed", "run number for the ns-3 RNG (RngSeedManager::SetRun)", seed);
    cmd.AddValue("rtscts", "protect every data frame with RTS/CTS", rtsCts);
    cmd.AddValue("recovery", "classic or prr (ns-3's default)", recovery);
    cmd.AddValue("qdisc", "none (WifiMacQueue only) or default (ns-3's FqCoDel)", qdisc);
    cmd.AddValue("arp",
                 "permanent (hand-made entries), static (NeighborCacheHelper) or dynamic (ARP)",
                 arp);
    cmd.AddValue("pairs", "flows as SRC-DST node indices, comma-separated", pairsText);
    cmd.AddValue("params", "add the attribute dump of node 0's AODV and mobility", params);
    cmd.AddValue("trajectory", "write every node's motion to FILE (ns-2 setdest form)", trajectory);
    cmd.Parse(argc, argv);
    NS_ABORT_MSG_IF(qdisc != "none" && qdisc != "default", "--qdisc is none or default");
    NS_ABORT_MSG_IF(arp != "permanent" && arp != "static" && arp != "dynamic",
                    "--arp is permanent, static or dynamic");
    // The model's own checks are NS_ASSERTs; these say what is wrong in words.
    NS_ABORT_MSG_IF(!(minSpeed >= 1e-6 && minSpeed <= maxSpeed),
                    "need 0 < min-speed <= max-speed (the model asserts MinSpeed >= 1e-6)");
    NS_ABORT_MSG_IF(!(minPause >= 0 && minPause <= maxPause), "need 0 <= min-pause <= max-pause");
    NS_ABORT_MSG_IF(!(width > 0 && height > 0), "width and height must be positive");
    auto pairs = ParsePairs(pairsText, n);
    NS_ABORT_MSG_IF(pairs.empty(), "--pairs is required");

    RngSeedManager::SetSeed(1);
    RngSeedManager::SetRun(seed);
    ConfigureTcp(recovery, 1 << 20);

    NodeContainer nodes;
    nodes.Create(n);
    MobilityHelper mobility;
    // The helper's position allocator places nothing here: this model ignores SetPosition until
    // it has started, and starts (at t = 0) from a position drawn from its steady state.
    mobility.SetMobilityModel("ns3::SteadyStateRandomWaypointMobilityModel",
                              "MinSpeed",
                              DoubleValue(minSpeed),
                              "MaxSpeed",
                              DoubleValue(maxSpeed),
                              "MinPause",
                              DoubleValue(minPause),
                              "MaxPause",
                              DoubleValue(maxPause),
                              "MinX",
                              DoubleValue(0.0),
                              "MaxX",
                              DoubleValue(width),
                              "MinY",
                              DoubleValue(0.0),
                              "MaxY",
                              DoubleValue(height),
                              "Z",
                              DoubleValue(0.0));
    mobility.Install(nodes);
    g_courses.assign(n, {});
    for (uint32_t i = 0; i < n; ++i)
    {
        bool ok = nodes.Get(i)->GetObject<MobilityModel>()->TraceConnectWithoutContext(
            "CourseChange",
            MakeBoundCallback(&OnCourseChange, i));
        NS_ABORT_MSG_IF(!ok, "CourseChange could not be connected");
    }

    WifiOptions wopt;
    wopt.rtsCts = rtsCts;
    wopt.rangeM = range;
    NetDeviceContainer devices = InstallWifi(nodes, wopt);

    AodvHelper aodv; // ns-3's defaults throughout
    InternetStackHelper stack;
    stack.SetRoutingHelper(aodv);
    stack.Install(nodes);
    Ipv4AddressHelper address;
    address.SetBase("10.0.0.0", "255.255.0.0");
    Ipv4InterfaceContainer ifaces = address.Assign(devices);
    if (qdisc == "none")
    {
        RemoveQueueDiscs(devices);
    }
    if (arp == "permanent")
    {
        // As the grid: PERMANENT entries, which AODV's neighbour table accepts, so that AODV
        // learns each neighbour's MAC address and breaks routes on MAC retry failures.
        for (uint32_t i = 0; i < nodes.GetN(); ++i)
        {
            Ptr<ArpCache> cache =
                nodes.Get(i)->GetObject<Ipv4L3Protocol>()->GetInterface(1)->GetArpCache();
            for (uint32_t j = 0; j < nodes.GetN(); ++j)
            {
                if (j != i)
                {
                    ArpCache::Entry* entry = cache->Add(ifaces.GetAddress(j));
                    entry->SetMacAddress(devices.Get(j)->GetAddress());
                    entry->MarkPermanent();
                }
            }
        }
    }
    else if (arp == "static")
    {
        NeighborCacheHelper neighbors;
        neighbors.PopulateNeighborCache();
    }
    for (uint32_t i = 0; i < n; ++i)
    {
        Ptr<Ipv4L3Protocol> ip = nodes.Get(i)->GetObject<Ipv4L3Protocol>();
        bool ok = ip->TraceConnectWithoutContext("Tx", MakeCallback(&OnIpTx));
        ok &= ip->TraceConnectWithoutContext("Drop", MakeCallback(&OnIpDrop));
        NS_ABORT_MSG_IF(!ok, "an Ipv4L3Protocol trace source could not be connected");
    }

    std::vector<Ptr<PacketSink>> sinks;
    std::vector<double> starts;
    g_flows.assign(pairs.size(), {});
    for (size_t i = 0; i < pairs.size(); ++i)
    {
        const auto [src, dst] = pairs[i];
        const uint16_t port = 50000 + i; // several flows may end at the same node
        double t0 = start + i * stagger;
        BulkSendHelper source("ns3::TcpSocketFactory",
                              InetSocketAddress(ifaces.GetAddress(dst), port));
        source.SetAttribute("MaxBytes", UintegerValue(0));
        source.SetAttribute("SendSize", UintegerValue(1000));
        ApplicationContainer a = source.Install(nodes.Get(src));
        a.Start(Seconds(t0));
        a.Stop(Seconds(duration));
        Ptr<BulkSendApplication> app = DynamicCast<BulkSendApplication>(a.Get(0));
        // The socket exists once the application has started; its SYN_SENT -> ESTABLISHED
        // comes later (a reply needs a route both ways).
        Simulator::Schedule(Seconds(t0) + NanoSeconds(1), [app, i]() {
            Ptr<Socket> s = app->GetSocket();
            NS_ABORT_MSG_IF(!s, "flow " << i << " has no socket after its start");
            g_flows[i].state = "SYN_SENT";
            g_flows[i].synTx = 1; // the first SYN left at the start, before this
            bool ok =
                s->TraceConnectWithoutContext("State", MakeBoundCallback(&OnSenderState, i));
            ok &= s->TraceConnectWithoutContext("Tx", MakeBoundCallback(&OnSenderTx, i));
            ok &= s->TraceConnectWithoutContext("RTO", MakeBoundCallback(&OnSenderRto, i));
            ok &= s->TraceConnectWithoutContext("Retransmission",
                                                MakeBoundCallback(&OnSenderRetransmission, i));
            NS_ABORT_MSG_IF(!ok, "a TCP sender trace could not be connected");
            // BulkSendApplication sets no close callbacks of its own.
            s->SetCloseCallbacks(MakeNullCallback<void, Ptr<Socket>>(),
                                 MakeBoundCallback(&OnSenderErrorClose, i));
        });
        PacketSinkHelper sinkHelper("ns3::TcpSocketFactory",
                                    InetSocketAddress(Ipv4Address::GetAny(), port));
        ApplicationContainer s = sinkHelper.Install(nodes.Get(dst));
        s.Start(Seconds(0.0));
        s.Stop(Seconds(duration));
        Ptr<PacketSink> sink = DynamicCast<PacketSink>(s.Get(0));
        sink->TraceConnectWithoutContext("Rx", MakeBoundCallback(&OnSinkRx, i));
        sinks.push_back(sink);
        starts.push_back(t0);
    }

    // The first leg: a node that starts mid-trip reports its position at t = 0 with no velocity
    // (the model schedules the walk itself a moment later, still at t = 0); 1 ns in, every node
    // moves at the velocity of its first leg. Read here (GetVelocity does not move the model)
    // to check the trajectory's first setdest lines against the running model.
    std::vector<Vector> velocityAt1ns(n);
    Simulator::Schedule(NanoSeconds(1), [&nodes, &velocityAt1ns, n]() {
        for (uint32_t i = 0; i < n; ++i)
        {
            velocityAt1ns[i] = nodes.Get(i)->GetObject<MobilityModel>()->GetVelocity();
        }
    });

    HookWifiCounters(devices);
    Simulator::Stop(Seconds(duration));
    double simWall = TimedRun();
    const int64_t endNs = Simulator::Now().GetNanoSeconds();

    std::vector<std::string> flows;
    uint64_t totalBytes = 0;
    double totalGoodput = 0.0;
    for (size_t i = 0; i < pairs.size(); ++i)
    {
        uint64_t rx = sinks[i]->GetTotalRx();
        double goodput = rx * 8.0 / (duration - starts[i]);
        totalBytes += rx;
        totalGoodput += goodput;
        const FlowEvents& f = g_flows[i];
        flows.push_back(Json()
                            .Int("src", pairs[i].first)
                            .Int("dst", pairs[i].second)
                            .Num("start_s", starts[i])
                            .Int("rx_bytes", rx)
                            .Num("goodput_bps", goodput)
                            .Num("established_s", OrNull(f.establishedS))
                            .Num("first_rx_s", OrNull(f.firstRxS))
                            .Num("last_rx_s", OrNull(f.lastRxS))
                            .Num("gave_up_s", OrNull(f.gaveUpS))
                            .Int("syn_tx", f.synTx)
                            .Int("retransmissions", f.retransmissions)
                            .Num("rto_at_end_s", OrNull(f.rtoS))
                            .Num("max_rto_s", OrNull(f.maxRtoS))
                            .Str("sender_state_at_end", f.state)
                            .Text());
    }

    // Motion figures: legs begun, and whether the first leg at t = 0 is the model's.
    uint64_t legs = 0;
    uint64_t firstLegMismatch = 0;
    for (uint32_t i = 0; i < n; ++i)
    {
        const auto& c = g_courses[i];
        Vector first(0, 0, 0);
        bool found = false;
        for (const auto& cc : c)
        {
            if (Norm(cc.velocity) > 0)
            {
                ++legs;
                if (!found && cc.tNs == 0)
                {
                    first = cc.velocity;
                }
                found = true;
            }
        }
        const Vector& v = velocityAt1ns[i];
        if (Norm(Vector(v.x - first.x, v.y - first.y, v.z - first.z)) > 1e-9)
        {
            ++firstLegMismatch;
        }
    }
    Json motion;
    motion.Str("model", "ns3::SteadyStateRandomWaypointMobilityModel")
        .Num("width_m", width)
        .Num("height_m", height)
        .Num("min_speed_mps", minSpeed)
        .Num("max_speed_mps", maxSpeed)
        .Num("min_pause_s", minPause)
        .Num("max_pause_s", maxPause)
        .Int("legs", legs)
        .Int("first_leg_mismatches", firstLegMismatch);
    if (!trajectory.empty())
    {
        auto [endError, velocityError] = WriteTrajectory(trajectory, endNs);
        motion.Str("trajectory", trajectory)
            .Num("trajectory_max_arrival_error_m", endError)
            .Num("trajectory_max_velocity_error_mps", velocityError);
    }

    Json out;
    out.Str("simulator", "ns-3.44")
        .Str("case", "manet")
        .Int("nodes", n)
        .Int("seed", seed)
        .Bool("rtscts", rtsCts)
        .Str("recovery", recovery)
        .Str("qdisc", qdisc)
        .Str("arp", arp)
        .Num("range_m", range)
        .Num("duration_s", duration)
        .Raw("mobility", motion.Text())
        .Raw("flows", Array(flows))
        .Int("rx_bytes", totalBytes)
        .Num("goodput_bps", totalGoodput)
        .Raw("aodv_tx", CountsObject(g_route.aodvTx))
        .Raw("ip_drops", CountsObject(g_route.ipDrops))
        .Num("sim_wall_s", simWall)
        .Int("events", Simulator::GetEventCount())
        .Int("peak_rss_kib", PeakRssKiB())
        .Raw("wifi", WifiCountersJson());
    if (params)
    {
        Json p;
        p.Raw("aodv", AttributesJson(nodes.Get(0)->GetObject<aodv::RoutingProtocol>(), 0));
        p.Raw("mobility", AttributesJson(nodes.Get(0)->GetObject<MobilityModel>(), 0));
        out.Raw("params", p.Text());
    }
    std::cout << out.Text() << std::endl;

    Simulator::Destroy();
    return 0;
}
