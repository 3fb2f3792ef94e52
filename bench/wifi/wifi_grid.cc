// 802.11b grid reference: rows x cols nodes 200 m apart (range 250 m: four neighbours each, the
// diagonal at 283 m is out of range), AODV routing with ns-3's defaults, bulk TCP NewReno flows
// between given node pairs. Prints one JSON line. bench/wifi/README.md has the configuration.
//
// Usage: wifi_grid --pairs=SRC-DST,SRC-DST,... [--rows=10] [--cols=10] [--duration=100]
//                  [--start=1] [--stagger=0.1] [--seed=1] [--rtscts=0|1]
//                  [--recovery=classic|prr] [--qdisc=none|default] [--params=0|1]
//                  [--arp=permanent|static|dynamic]
//
// Node k sits at (spacing * (k % cols), spacing * (k / cols)). Flow i runs from pair i's source
// to its destination, starting at start + i * stagger and stopping at duration.

#include "ns3/aodv-module.h"

#include "wifi_common.h"

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

} // namespace

int
main(int argc, char* argv[])
{
    uint32_t rows = 10;
    uint32_t cols = 10;
    double spacing = 200.0;
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
    bool params = false;

    CommandLine cmd(__FILE__);
    cmd.AddValue("rows", "grid rows", rows);
    cmd.AddValue("cols", "grid columns", cols);
    cmd.AddValue("spacing", "distance between grid neighbours (m)", spacing);
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
    cmd.AddValue("params", "add the attribute dump of node 0 (with AODV) to the output", params);
    cmd.Parse(argc, argv);
    NS_ABORT_MSG_IF(qdisc != "none" && qdisc != "default", "--qdisc is none or default");
    NS_ABORT_MSG_IF(arp != "permanent" && arp != "static" && arp != "dynamic",
                    "--arp is permanent, static or dynamic");
    const uint32_t n = rows * cols;
    auto pairs = ParsePairs(pairsText, n);
    NS_ABORT_MSG_IF(pairs.empty(), "--pairs is required");

    RngSeedManager::SetSeed(1);
    RngSeedManager::SetRun(seed);
    ConfigureTcp(recovery, 1 << 20);

    NodeContainer nodes;
    nodes.Create(n);
    std::vector<Vector> positions;
    for (uint32_t k = 0; k < n; ++k)
    {
        positions.emplace_back(spacing * (k % cols), spacing * (k / cols), 0.0);
    }
    PlaceNodes(nodes, positions);

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
        // PERMANENT entries, the state AODV's neighbour table accepts (aodv-neighbor.cc
        // LookupMacAddress takes only ALIVE or PERMANENT entries): AODV then learns each
        // neighbour's MAC address and detects link breaks from MAC retry failures (RFC 3561
        // §6.11), and no ARP request is ever sent.
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
        // NeighborCacheHelper's STATIC_AUTOGENERATED entries: AODV's neighbour table never
        // learns a MAC address from them, so MAC retry failures never break a route (only
        // HELLO loss does).
        NeighborCacheHelper neighbors;
        neighbors.PopulateNeighborCache();
    }

    std::vector<Ptr<PacketSink>> sinks;
    std::vector<double> starts;
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
        PacketSinkHelper sinkHelper("ns3::TcpSocketFactory",
                                    InetSocketAddress(Ipv4Address::GetAny(), port));
        ApplicationContainer s = sinkHelper.Install(nodes.Get(dst));
        s.Start(Seconds(0.0));
        s.Stop(Seconds(duration));
        sinks.push_back(DynamicCast<PacketSink>(s.Get(0)));
        starts.push_back(t0);
    }

    HookWifiCounters(devices);
    Simulator::Stop(Seconds(duration));
    double simWall = TimedRun();

    std::vector<std::string> flows;
    uint64_t totalBytes = 0;
    double totalGoodput = 0.0;
    for (size_t i = 0; i < pairs.size(); ++i)
    {
        uint64_t rx = sinks[i]->GetTotalRx();
        double goodput = rx * 8.0 / (duration - starts[i]);
        totalBytes += rx;
        totalGoodput += goodput;
        flows.push_back(Json()
                            .Int("src", pairs[i].first)
                            .Int("dst", pairs[i].second)
                            .Num("start_s", starts[i])
                            .Int("rx_bytes", rx)
                            .Num("goodput_bps", goodput)
                            .Text());
    }

    Json out;
    out.Str("simulator", "ns-3.44")
        .Str("case", "grid")
        .Int("rows", rows)
        .Int("cols", cols)
        .Int("seed", seed)
        .Bool("rtscts", rtsCts)
        .Str("recovery", recovery)
        .Str("qdisc", qdisc)
        .Str("arp", arp)
        .Num("spacing_m", spacing)
        .Num("range_m", range)
        .Num("duration_s", duration)
        .Raw("flows", Array(flows))
        .Int("rx_bytes", totalBytes)
        .Num("goodput_bps", totalGoodput)
        .Num("sim_wall_s", simWall)
        .Int("events", Simulator::GetEventCount())
        .Int("peak_rss_kib", PeakRssKiB())
        .Raw("wifi", WifiCountersJson());
    if (params)
    {
        Json p;
        p.Raw("aodv", AttributesJson(nodes.Get(0)->GetObject<aodv::RoutingProtocol>(), 0));
        out.Raw("params", p.Text());
    }
    std::cout << out.Text() << std::endl;

    Simulator::Destroy();
    return 0;
}
