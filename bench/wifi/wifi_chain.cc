// 802.11b/802.11a chain reference: nodes n0..nN on a line 200 m apart, range model 250 m (only
// adjacent nodes hear each other), static routes along the line, one bulk TCP flow n0 -> nN
// (NewReno unless --cc says otherwise). Prints one JSON line. bench/wifi/README.md has the full
// configuration.
//
// Usage: wifi_chain --hops=N [--duration=100] [--start=1] [--seed=1] [--rtscts=0|1]
//                   [--recovery=classic|prr] [--qdisc=none|default] [--spacing=200]
//                   [--range=250] [--standard=11b|11a] [--rate=MBPS] [--params=0|1]
//                   [--cc=newreno|cubic|bbr] [--hystart=0|1] [--trace=PATH]
//                   [--print-attributes]
//
// --standard=11b (the default) sends data at 2 Mbps (DsssRate2Mbps) and RTS at 1 Mbps;
// --standard=11a at 54 Mbps (OfdmRate54Mbps) and RTS at 6 Mbps. --rate sets the data rate.
// --cc, --hystart, --trace and --print-attributes are p2p_tcp's (bench/ns3/tcp_trace.h): TcpCubic
// or TcpBbr (paced) instead of TcpNewReno, the sender's cwnd/RTT trace as CSV, the TCP attribute
// record. With the default NewReno the output is what it was before --cc existed.

#include "wifi_common.h"

#include "../ns3/tcp_trace.h"

using namespace ns3;
using namespace wifibench;

namespace
{

uint64_t g_recoveries = 0;
uint64_t g_rtos = 0;
tcpbench::SenderTrace g_trace;

void
OnCongState(TcpSocketState::TcpCongState_t, TcpSocketState::TcpCongState_t now)
{
    if (now == TcpSocketState::CA_RECOVERY)
    {
        ++g_recoveries;
    }
    else if (now == TcpSocketState::CA_LOSS)
    {
        ++g_rtos;
    }
}

void
HookSenderSocket()
{
    // The sender's socket exists only once BulkSendApplication has started.
    bool ok = Config::ConnectWithoutContextFailSafe(
        "/NodeList/0/$ns3::TcpL4Protocol/SocketList/*/CongState",
        MakeCallback(&OnCongState));
    NS_ABORT_MSG_IF(!ok, "sender socket not found");
    if (g_trace.IsOpen())
    {
        g_trace.Hook();
    }
}

} // namespace

int
main(int argc, char* argv[])
{
    uint32_t hops = 1;
    double duration = 100.0;
    double start = 1.0;
    uint32_t seed = 1;
    bool rtsCts = false;
    std::string recovery = "classic";
    std::string qdisc = "none";
    double spacing = 200.0;
    double range = 250.0;
    bool params = false;
    std::string standard = "11b";
    double rate = 0.0;
    std::string cc = "newreno";
    std::string hystart;
    std::string trace;
    bool printAttributes = false;

    CommandLine cmd(__FILE__);
    cmd.AddValue("hops", "number of hops N (N+1 nodes)", hops);
    cmd.AddValue("duration", "simulated seconds (flow and simulation stop)", duration);
    cmd.AddValue("start", "flow start (s)", start);
    cmd.AddValue("seed", "run number for the ns-3 RNG (RngSeedManager::SetRun)", seed);
    cmd.AddValue("rtscts", "protect every data frame with RTS/CTS", rtsCts);
    cmd.AddValue("recovery", "classic or prr (ns-3's default)", recovery);
    cmd.AddValue("qdisc", "none (WifiMacQueue only) or default (ns-3's FqCoDel)", qdisc);
    cmd.AddValue("spacing", "distance between neighbours (m)", spacing);
    cmd.AddValue("range", "RangePropagationLossModel MaxRange (m)", range);
    cmd.AddValue("params", "add the attribute dump of n0's device to the output", params);
    cmd.AddValue("standard", "11b (DSSS, 2.4 GHz) or 11a (OFDM, 5 GHz)", standard);
    cmd.AddValue("rate", "data rate in Mbps (default 2 for 11b, 54 for 11a)", rate);
    cmd.AddValue("cc", "newreno (default), cubic or bbr", cc);
    cmd.AddValue("hystart", "Cubic's HyStart: 0 or 1 (default: the TcpCubic::HyStart attribute)",
                 hystart);
    cmd.AddValue("trace", "write the sender's cwnd/RTT trace to this CSV file", trace);
    cmd.AddValue("print-attributes",
                 "print the TCP attribute values of this configuration and exit",
                 printAttributes);
    cmd.Parse(argc, argv);
    CheckStandard(standard);
    NS_ABORT_MSG_IF(hops < 1, "--hops must be at least 1");
    NS_ABORT_MSG_IF(qdisc != "none" && qdisc != "default", "--qdisc is none or default");
    NS_ABORT_MSG_IF(cc != "newreno" && cc != "cubic" && cc != "bbr",
                    "--cc is newreno, cubic or bbr");

    RngSeedManager::SetSeed(1);
    RngSeedManager::SetRun(seed);
    ConfigureTcp(recovery, 1 << 20);
    if (cc != "newreno")
    {
        Config::SetDefault("ns3::TcpL4Protocol::SocketType",
                           TypeIdValue(tcpbench::CcTypeId(cc)));
    }
    tcpbench::ConfigureCc(cc, hystart);
    if (printAttributes)
    {
        std::cout << tcpbench::TcpAttributesJson() << std::endl;
        return 0;
    }
    if (!trace.empty())
    {
        // Segment size 1000 (ConfigureTcp); node 0 is the sender.
        g_trace.Open(trace, 1000, 0, cc == "bbr");
    }

    const uint32_t n = hops + 1;
    NodeContainer nodes;
    nodes.Create(n);
    std::vector<Vector> positions;
    for (uint32_t i = 0; i < n; ++i)
    {
        positions.emplace_back(spacing * i, 0.0, 0.0);
    }
    PlaceNodes(nodes, positions);

    WifiOptions wopt;
    wopt.standard = standard;
    wopt.dataMode = DataModeFor(standard, rate > 0 ? rate : (standard == "11a" ? 54.0 : 2.0));
    wopt.controlMode = ControlModeFor(standard);
    wopt.rtsCts = rtsCts;
    wopt.rangeM = range;
    NetDeviceContainer devices = InstallWifi(nodes, wopt);

    // Static routing only: ns-3's global routing would treat the shared channel as one broadcast
    // network and route every pair directly.
    InternetStackHelper stack;
    Ipv4StaticRoutingHelper staticRouting;
    stack.SetRoutingHelper(staticRouting);
    stack.Install(nodes);
    Ipv4AddressHelper address;
    address.SetBase("10.0.0.0", "255.255.255.0");
    Ipv4InterfaceContainer ifaces = address.Assign(devices);
    if (qdisc == "none")
    {
        RemoveQueueDiscs(devices);
    }

    // Host routes along the line: towards higher indices via i+1, lower via i-1. They are /32,
    // so they win over the connected /24 route that would send every packet directly.
    for (uint32_t i = 0; i < n; ++i)
    {
        Ptr<Ipv4StaticRouting> rt =
            staticRouting.GetStaticRouting(nodes.Get(i)->GetObject<Ipv4>());
        for (uint32_t j = 0; j < n; ++j)
        {
            if (j == i)
            {
                continue;
            }
            uint32_t next = j > i ? i + 1 : i - 1;
            rt->AddHostRouteTo(ifaces.GetAddress(j), ifaces.GetAddress(next), 1);
        }
    }

    // Permanent ARP entries for every address on the channel: no ARP exchange ever happens.
    NeighborCacheHelper neighbors;
    neighbors.PopulateNeighborCache();

    const uint16_t port = 50000;
    BulkSendHelper source("ns3::TcpSocketFactory",
                          InetSocketAddress(ifaces.GetAddress(hops), port));
    source.SetAttribute("MaxBytes", UintegerValue(0));
    source.SetAttribute("SendSize", UintegerValue(1000));
    ApplicationContainer sourceApp = source.Install(nodes.Get(0));
    sourceApp.Start(Seconds(start));
    sourceApp.Stop(Seconds(duration));
    PacketSinkHelper sinkHelper("ns3::TcpSocketFactory",
                                InetSocketAddress(Ipv4Address::GetAny(), port));
    ApplicationContainer sinkApp = sinkHelper.Install(nodes.Get(hops));
    sinkApp.Start(Seconds(0.0));
    sinkApp.Stop(Seconds(duration));

    HookWifiCounters(devices);
    Simulator::Schedule(Seconds(start) + MilliSeconds(1), &HookSenderSocket);

    Simulator::Stop(Seconds(duration));
    double simWall = TimedRun();
    g_trace.Close();

    uint64_t rxBytes = DynamicCast<PacketSink>(sinkApp.Get(0))->GetTotalRx();
    Json out;
    out.Str("simulator", "ns-3.44").Str("case", "chain");
    if (standard != "11b")
    {
        // 802.11b runs print exactly the fields they always did.
        out.Str("standard", standard)
            .Str("data_mode", wopt.dataMode)
            .Str("control_mode", wopt.controlMode);
    }
    if (cc != "newreno")
    {
        // NewReno runs print exactly the fields they always did.
        out.Str("cc", cc)
            .Bool("pacing", tcpbench::AttributeDefault("ns3::TcpSocketState", "EnablePacing") ==
                                "true");
        if (cc == "cubic")
        {
            out.Bool("hystart", tcpbench::AttributeDefault("ns3::TcpCubic", "HyStart") == "true");
        }
    }
    out.Int("hops", hops)
        .Int("seed", seed)
        .Bool("rtscts", rtsCts)
        .Str("recovery", recovery)
        .Str("qdisc", qdisc)
        .Num("spacing_m", spacing)
        .Num("range_m", range)
        .Num("start_s", start)
        .Num("duration_s", duration)
        .Num("goodput_bps", rxBytes * 8.0 / (duration - start))
        .Int("rx_bytes", rxBytes)
        .Int("tcp_recoveries", g_recoveries)
        .Int("tcp_rtos", g_rtos)
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
