// The differential matrix's ns-3 program: any placement of nodes, flows pinned to given paths by
// static host routes, 802.11a or 802.11b, range / log-distance / two-ray ground / Friis
// propagation, bulk TCP NewReno or saturating UDP. Prints one JSON line with every flow's
// goodput and the wifi counters; with --trace=FILE also writes a per-frame trace (transmission
// starts, backoff draws, receptions and drops by reason, PHY state changes) in the format
// airtcp's frame trace uses, so that the two can be compared line by line.
// bench/wifi/README.md ("The differential matrix") describes the cases.
//
// Usage: wifi_matrix --positions="x,y;x,y;..." --paths="0-1;2-1-3" [--standard=11a|11b]
//                    [--rate=MBPS] [--rtscts=0|1] [--propagation=range|logdistance|tworay|friis]
//                    [--range=M] [--exponent=N] [--refloss=DB] [--frequency=HZ] [--height=M]
//                    [--txpower=DBM] [--traffic=tcp|udp] [--segment=BYTES] [--udp-rate=MBPS]
//                    [--duration=S] [--start=S] [--stagger=S] [--seed=N] [--trace=FILE]
//
// Each path is a flow from its first node to its last; the nodes between relay it. Host routes
// (/32) along the path in both directions pin the flow's packets and its TCP ACKs to it.

#include "wifi_common.h"

#include <fstream>

using namespace ns3;
using namespace wifibench;

namespace
{

std::vector<std::string>
Split(const std::string& text, char sep)
{
    std::vector<std::string> out;
    std::string part;
    std::istringstream is(text);
    while (std::getline(is, part, sep))
    {
        if (!part.empty())
        {
            out.push_back(part);
        }
    }
    return out;
}

std::vector<Vector>
ParsePositions(const std::string& text)
{
    std::vector<Vector> out;
    for (const auto& item : Split(text, ';'))
    {
        auto xy = Split(item, ',');
        NS_ABORT_MSG_IF(xy.size() != 2, "--positions: '" << item << "' is not x,y");
        out.emplace_back(std::stod(xy[0]), std::stod(xy[1]), 0.0);
    }
    NS_ABORT_MSG_IF(out.size() < 2, "--positions: at least two nodes");
    return out;
}

std::vector<std::vector<uint32_t>>
ParsePaths(const std::string& text, uint32_t nodes)
{
    std::vector<std::vector<uint32_t>> out;
    for (const auto& item : Split(text, ';'))
    {
        std::vector<uint32_t> path;
        for (const auto& n : Split(item, '-'))
        {
            uint32_t v = std::stoul(n);
            NS_ABORT_MSG_IF(v >= nodes, "--paths: node " << v << " does not exist");
            path.push_back(v);
        }
        NS_ABORT_MSG_IF(path.size() < 2, "--paths: '" << item << "' needs two nodes");
        out.push_back(path);
    }
    NS_ABORT_MSG_IF(out.empty(), "--paths: at least one flow");
    return out;
}

// ------------------------------------------------------------------------------------------
// The per-frame trace: one line per event, "t_ns node event fields...".

std::ofstream g_trace;
std::map<Mac48Address, uint32_t> g_nodeOf;

std::string
FrameKindName(const WifiMacHeader& hdr)
{
    if (hdr.IsAck())
    {
        return "ack";
    }
    if (hdr.IsRts())
    {
        return "rts";
    }
    if (hdr.IsCts())
    {
        return "cts";
    }
    if (hdr.IsData())
    {
        return "data";
    }
    return "other";
}

int64_t
NodeOf(Mac48Address a)
{
    auto it = g_nodeOf.find(a);
    return it == g_nodeOf.end() ? -1 : int64_t(it->second);
}

void
TraceTx(uint32_t node, WifiConstPsduMap psdus, WifiTxVector txVector, double)
{
    for (const auto& [staId, psdu] : psdus)
    {
        const WifiMacHeader& hdr = psdu->GetHeader(0);
        Time d = WifiPhy::CalculateTxDuration(psdu->GetSize(), txVector, g_band);
        g_trace << Simulator::Now().GetNanoSeconds() << ' ' << node << " tx "
                << FrameKindName(hdr) << ' ' << psdu->GetSize() << ' '
                << txVector.GetMode().GetDataRate(txVector) << ' ' << d.GetNanoSeconds() << ' '
                << NodeOf(hdr.GetAddr1()) << ' ' << (hdr.IsRetry() ? 1 : 0) << '\n';
    }
}

void
TraceBackoff(uint32_t node, uint32_t slots, uint8_t)
{
    g_trace << Simulator::Now().GetNanoSeconds() << ' ' << node << " backoff " << slots << '\n';
}

void
TraceRxOk(uint32_t node, Ptr<const Packet> p, double, WifiMode, WifiPreamble)
{
    WifiMacHeader hdr;
    p->PeekHeader(hdr);
    g_trace << Simulator::Now().GetNanoSeconds() << ' ' << node << " rx_ok " << FrameKindName(hdr)
            << ' ' << NodeOf(hdr.GetAddr2()) << '\n';
}

void
TraceRxDrop(uint32_t node, Ptr<const Packet>, WifiPhyRxfailureReason reason)
{
    g_trace << Simulator::Now().GetNanoSeconds() << ' ' << node << " rx_drop " << reason << '\n';
}

void
TraceState(uint32_t node, Time start, Time duration, WifiPhyState state)
{
    g_trace << start.GetNanoSeconds() << ' ' << node << " state " << state << ' '
            << duration.GetNanoSeconds() << '\n';
}

void
TraceMacDrop(uint32_t node, WifiMacDropReason reason, Ptr<const WifiMpdu>)
{
    g_trace << Simulator::Now().GetNanoSeconds() << ' ' << node << " mac_drop " << int(reason)
            << '\n';
}

void
HookTrace(const NetDeviceContainer& devices)
{
    bool ok = true;
    for (uint32_t i = 0; i < devices.GetN(); ++i)
    {
        Ptr<WifiNetDevice> dev = DynamicCast<WifiNetDevice>(devices.Get(i));
        g_nodeOf[Mac48Address::ConvertFrom(dev->GetAddress())] = i;
        Ptr<WifiPhy> phy = dev->GetPhy();
        ok &= phy->TraceConnectWithoutContext("PhyTxPsduBegin", MakeBoundCallback(&TraceTx, i));
        ok &= phy->TraceConnectWithoutContext("PhyRxDrop", MakeBoundCallback(&TraceRxDrop, i));
        ok &= phy->GetState()->TraceConnectWithoutContext("RxOk",
                                                          MakeBoundCallback(&TraceRxOk, i));
        ok &= phy->GetState()->TraceConnectWithoutContext("State",
                                                          MakeBoundCallback(&TraceState, i));
        ok &= dev->GetMac()->GetTxop()->TraceConnectWithoutContext(
            "BackoffTrace",
            MakeBoundCallback(&TraceBackoff, i));
        ok &= dev->GetMac()->TraceConnectWithoutContext("DroppedMpdu",
                                                        MakeBoundCallback(&TraceMacDrop, i));
    }
    NS_ABORT_MSG_IF(!ok, "a trace source could not be connected");
}

} // namespace

int
main(int argc, char* argv[])
{
    std::string positionsText;
    std::string pathsText;
    std::string standard = "11a";
    double rate = 0.0;
    bool rtsCts = false;
    std::string propagation = "logdistance";
    double range = 250.0;
    double exponent = 3.0;
    double refLoss = 46.6777;
    double frequency = 5.15e9;
    double height = 1.5;
    double txPower = 16.0206;
    std::string traffic = "tcp";
    uint32_t segment = 1460;
    double udpRate = 0.0;
    double duration = 20.0;
    double start = 1.0;
    double stagger = 0.1;
    uint32_t seed = 1;
    std::string trace;
    bool params = false;

    CommandLine cmd(__FILE__);
    cmd.AddValue("positions", "node coordinates, x,y;x,y;... (m)", positionsText);
    cmd.AddValue("paths", "one path per flow, node-node-...;...", pathsText);
    cmd.AddValue("standard", "11a (OFDM, 5 GHz) or 11b (DSSS, 2.4 GHz)", standard);
    cmd.AddValue("rate", "data rate in Mbps (default 54 for 11a, 11 for 11b)", rate);
    cmd.AddValue("rtscts", "protect every data frame with RTS/CTS", rtsCts);
    cmd.AddValue("propagation", "range, logdistance, tworay or friis", propagation);
    cmd.AddValue("range", "RangePropagationLossModel MaxRange (m)", range);
    cmd.AddValue("exponent", "log-distance path-loss exponent", exponent);
    cmd.AddValue("refloss", "log-distance loss at 1 m (dB)", refLoss);
    cmd.AddValue("frequency", "two-ray ground / Friis carrier frequency (Hz)", frequency);
    cmd.AddValue("height", "two-ray ground antenna height (m)", height);
    cmd.AddValue("txpower", "transmit power (dBm)", txPower);
    cmd.AddValue("traffic", "tcp (bulk NewReno) or udp (saturating constant bit rate)", traffic);
    cmd.AddValue("segment", "TCP segment size or UDP payload (bytes)", segment);
    cmd.AddValue("udp-rate", "UDP rate per flow in Mbps (default twice the data rate)", udpRate);
    cmd.AddValue("duration", "simulated seconds", duration);
    cmd.AddValue("start", "first flow's start (s)", start);
    cmd.AddValue("stagger", "each further flow starts this much later (s)", stagger);
    cmd.AddValue("seed", "run number for the ns-3 RNG (RngSeedManager::SetRun)", seed);
    cmd.AddValue("trace", "write the per-frame trace to this file", trace);
    cmd.AddValue("params", "add the attribute dump of node 0's device to the output", params);
    cmd.Parse(argc, argv);
    CheckStandard(standard);
    NS_ABORT_MSG_IF(traffic != "tcp" && traffic != "udp", "--traffic is tcp or udp");

    const std::vector<Vector> positions = ParsePositions(positionsText);
    const uint32_t n = positions.size();
    const auto paths = ParsePaths(pathsText, n);

    RngSeedManager::SetSeed(1);
    RngSeedManager::SetRun(seed);
    ConfigureTcp("classic", 1 << 20);
    Config::SetDefault("ns3::TcpSocket::SegmentSize", UintegerValue(segment));

    NodeContainer nodes;
    nodes.Create(n);
    PlaceNodes(nodes, positions);

    WifiOptions wopt;
    wopt.standard = standard;
    const double dataRate = rate > 0 ? rate : (standard == "11a" ? 54.0 : 11.0);
    wopt.dataMode = DataModeFor(standard, dataRate);
    wopt.controlMode = ControlModeFor(standard);
    wopt.rtsCts = rtsCts;
    wopt.propagation = propagation;
    wopt.rangeM = range;
    wopt.exponent = exponent;
    wopt.refLossDb = refLoss;
    wopt.frequencyHz = frequency;
    wopt.heightM = height;
    wopt.txPowerDbm = txPower;
    NetDeviceContainer devices = InstallWifi(nodes, wopt);

    InternetStackHelper stack;
    Ipv4StaticRoutingHelper staticRouting;
    stack.SetRoutingHelper(staticRouting);
    stack.Install(nodes);
    Ipv4AddressHelper address;
    address.SetBase("10.0.0.0", "255.255.255.0");
    Ipv4InterfaceContainer ifaces = address.Assign(devices);
    RemoveQueueDiscs(devices);

    // Host routes along each path, both ways; a node on two paths towards the same destination
    // keeps the first path's route.
    std::set<std::pair<uint32_t, uint32_t>> routed; // (node, destination)
    for (const auto& path : paths)
    {
        for (int dir = 0; dir < 2; ++dir)
        {
            std::vector<uint32_t> p = path;
            if (dir == 1)
            {
                std::reverse(p.begin(), p.end());
            }
            const uint32_t dst = p.back();
            for (size_t k = 0; k + 1 < p.size(); ++k)
            {
                if (!routed.insert({p[k], dst}).second)
                {
                    continue;
                }
                staticRouting.GetStaticRouting(nodes.Get(p[k])->GetObject<Ipv4>())
                    ->AddHostRouteTo(ifaces.GetAddress(dst), ifaces.GetAddress(p[k + 1]), 1);
            }
        }
    }
    NeighborCacheHelper neighbors;
    neighbors.PopulateNeighborCache();

    std::vector<Ptr<PacketSink>> sinks;
    for (size_t f = 0; f < paths.size(); ++f)
    {
        const uint32_t src = paths[f].front();
        const uint32_t dst = paths[f].back();
        const uint16_t port = 50000 + f;
        const double t0 = start + stagger * f;
        const std::string factory =
            traffic == "tcp" ? "ns3::TcpSocketFactory" : "ns3::UdpSocketFactory";
        ApplicationContainer sourceApp;
        if (traffic == "tcp")
        {
            BulkSendHelper source(factory, InetSocketAddress(ifaces.GetAddress(dst), port));
            source.SetAttribute("MaxBytes", UintegerValue(0));
            source.SetAttribute("SendSize", UintegerValue(segment));
            sourceApp = source.Install(nodes.Get(src));
        }
        else
        {
            OnOffHelper source(factory, InetSocketAddress(ifaces.GetAddress(dst), port));
            const double mbps = udpRate > 0 ? udpRate : 2.0 * dataRate;
            source.SetConstantRate(DataRate(static_cast<uint64_t>(mbps * 1e6)), segment);
            sourceApp = source.Install(nodes.Get(src));
        }
        sourceApp.Start(Seconds(t0));
        sourceApp.Stop(Seconds(duration));
        PacketSinkHelper sinkHelper(factory, InetSocketAddress(Ipv4Address::GetAny(), port));
        ApplicationContainer sinkApp = sinkHelper.Install(nodes.Get(dst));
        sinkApp.Start(Seconds(0.0));
        sinkApp.Stop(Seconds(duration));
        sinks.push_back(DynamicCast<PacketSink>(sinkApp.Get(0)));
    }

    HookWifiCounters(devices);
    if (!trace.empty())
    {
        g_trace.open(trace);
        NS_ABORT_MSG_IF(!g_trace, "cannot write " << trace);
        HookTrace(devices);
    }

    Simulator::Stop(Seconds(duration));
    double simWall = TimedRun();

    std::vector<std::string> flows;
    double total = 0.0;
    for (size_t f = 0; f < paths.size(); ++f)
    {
        const double t0 = start + stagger * f;
        const uint64_t rx = sinks[f]->GetTotalRx();
        const double goodput = rx * 8.0 / (duration - t0);
        total += goodput;
        flows.push_back(Json().Int("src", paths[f].front())
                            .Int("dst", paths[f].back())
                            .Int("rx_bytes", rx)
                            .Num("goodput_bps", goodput)
                            .Text());
    }
    Json out;
    out.Str("simulator", "ns-3.44")
        .Str("case", "matrix")
        .Str("standard", standard)
        .Str("data_mode", wopt.dataMode)
        .Bool("rtscts", rtsCts)
        .Str("propagation", propagation)
        .Str("traffic", traffic)
        .Int("segment", segment)
        .Int("seed", seed)
        .Num("duration_s", duration)
        .Num("goodput_bps", total)
        .Raw("flows", Array(flows))
        .Num("sim_wall_s", simWall)
        .Int("events", Simulator::GetEventCount())
        .Int("peak_rss_kib", PeakRssKiB())
        .Raw("wifi", WifiCountersJson());
    if (params)
    {
        out.Raw("params", ParamsJson(DynamicCast<WifiNetDevice>(devices.Get(0))));
    }
    std::cout << out.Text() << std::endl;

    Simulator::Destroy();
    return 0;
}
