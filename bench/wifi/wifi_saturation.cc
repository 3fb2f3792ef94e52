// 802.11b/802.11a saturation reference (for a Bianchi-model cross-check): N stations on a
// circle of radius 10 m around a receiver, all within range of each other, each offering UDP far
// above the channel capacity to the receiver. Prints one JSON line with the receiver's payload
// throughput over the measurement window. bench/wifi/README.md has the configuration.
//
// Usage: wifi_saturation --stations=N [--standard=11b|11a] [--rate=MBPS]
//                        [--data-mode=DsssRate2Mbps] [--control-mode=DsssRate1Mbps]
//                        [--rtscts=0|1] [--warmup=1] [--duration=20] [--seed=1]
//                        [--payload=1000] [--offered=MULT] [--params=0|1]
//
// The data rate is --rate if given, else --data-mode if given, else the standard's default
// (DsssRate2Mbps, OfdmRate54Mbps); the control mode is --control-mode if given, else the
// standard's lowest rate (DsssRate1Mbps, OfdmRate6Mbps).

#include "wifi_common.h"

using namespace ns3;
using namespace wifibench;

namespace
{

uint64_t g_windowBytes = 0;
uint64_t g_windowPackets = 0;
bool g_counting = false;

void
OnSinkRx(Ptr<const Packet> p, const Address&)
{
    if (g_counting)
    {
        g_windowBytes += p->GetSize();
        ++g_windowPackets;
    }
}

void
SetCounting(bool on)
{
    g_counting = on;
}

} // namespace

int
main(int argc, char* argv[])
{
    uint32_t stations = 1;
    std::string standard = "11b";
    double rate = 0.0;
    std::string dataMode;
    std::string controlMode;
    bool rtsCts = false;
    double warmup = 1.0;
    double duration = 20.0;
    uint32_t seed = 1;
    uint32_t payload = 1000;
    double offered = 2.0;
    double radius = 10.0;
    bool params = false;

    CommandLine cmd(__FILE__);
    cmd.AddValue("stations", "number of saturated senders N", stations);
    cmd.AddValue("standard", "11b (DSSS, 2.4 GHz) or 11a (OFDM, 5 GHz)", standard);
    cmd.AddValue("rate", "data rate in Mbps (overrides --data-mode)", rate);
    cmd.AddValue("data-mode", "ConstantRateWifiManager DataMode", dataMode);
    cmd.AddValue("control-mode", "ConstantRateWifiManager ControlMode", controlMode);
    cmd.AddValue("rtscts", "protect every data frame with RTS/CTS", rtsCts);
    cmd.AddValue("warmup", "seconds before the measurement window", warmup);
    cmd.AddValue("duration", "length of the measurement window (s)", duration);
    cmd.AddValue("seed", "run number for the ns-3 RNG (RngSeedManager::SetRun)", seed);
    cmd.AddValue("payload", "UDP payload bytes", payload);
    cmd.AddValue("offered",
                 "each sender's offered load as a multiple of the PHY data rate",
                 offered);
    cmd.AddValue("radius", "distance of the senders from the receiver (m)", radius);
    cmd.AddValue("params", "add the attribute dump of the receiver's device to the output", params);
    cmd.Parse(argc, argv);
    NS_ABORT_MSG_IF(stations < 1, "--stations must be at least 1");
    CheckStandard(standard);
    if (rate > 0)
    {
        dataMode = DataModeFor(standard, rate);
    }
    else if (dataMode.empty())
    {
        dataMode = standard == "11a" ? "OfdmRate54Mbps" : "DsssRate2Mbps";
    }
    if (controlMode.empty())
    {
        controlMode = ControlModeFor(standard);
    }

    RngSeedManager::SetSeed(1);
    RngSeedManager::SetRun(seed);

    // Node 0 is the receiver at the centre; senders 1..N are evenly spread on the circle.
    NodeContainer nodes;
    nodes.Create(stations + 1);
    std::vector<Vector> positions{Vector(0.0, 0.0, 0.0)};
    for (uint32_t i = 0; i < stations; ++i)
    {
        double a = 2.0 * M_PI * i / stations;
        positions.emplace_back(radius * std::cos(a), radius * std::sin(a), 0.0);
    }
    PlaceNodes(nodes, positions);

    WifiOptions wopt;
    wopt.standard = standard;
    wopt.dataMode = dataMode;
    wopt.controlMode = controlMode;
    wopt.rtsCts = rtsCts;
    NetDeviceContainer devices = InstallWifi(nodes, wopt);

    InternetStackHelper stack;
    stack.Install(nodes);
    Ipv4AddressHelper address;
    address.SetBase("10.0.0.0", "255.255.255.0");
    Ipv4InterfaceContainer ifaces = address.Assign(devices);
    RemoveQueueDiscs(devices);
    NeighborCacheHelper neighbors;
    neighbors.PopulateNeighborCache();

    const uint16_t port = 9;
    PacketSinkHelper sinkHelper("ns3::UdpSocketFactory",
                                InetSocketAddress(Ipv4Address::GetAny(), port));
    ApplicationContainer sinkApp = sinkHelper.Install(nodes.Get(0));
    sinkApp.Start(Seconds(0.0));
    const double end = warmup + duration;
    sinkApp.Stop(Seconds(end));
    bool ok = sinkApp.Get(0)->TraceConnectWithoutContext("Rx", MakeCallback(&OnSinkRx));
    NS_ABORT_MSG_IF(!ok, "PacketSink Rx trace not found");

    // Constant-bit-rate senders well above what the channel can carry, so every station always
    // has a frame queued: the MAC queue stays full and the excess is dropped before the MAC.
    uint64_t phyRate = WifiMode(dataMode).GetDataRate(ChannelWidthFor(standard));
    OnOffHelper onoff("ns3::UdpSocketFactory", InetSocketAddress(ifaces.GetAddress(0), port));
    onoff.SetConstantRate(DataRate(static_cast<uint64_t>(offered * phyRate)), payload);
    for (uint32_t i = 1; i <= stations; ++i)
    {
        ApplicationContainer a = onoff.Install(nodes.Get(i));
        a.Start(Seconds(0.0));
        a.Stop(Seconds(end));
    }

    HookWifiCounters(devices);
    Simulator::Schedule(Seconds(warmup), &SetCounting, true);
    Simulator::Schedule(Seconds(end), &SetCounting, false);
    Simulator::Stop(Seconds(end));
    double simWall = TimedRun();

    Json out;
    out.Str("simulator", "ns-3.44").Str("case", "saturation");
    if (standard != "11b")
    {
        // 802.11b runs print exactly the fields they always did.
        out.Str("standard", standard);
    }
    out.Int("stations", stations)
        .Str("data_mode", dataMode)
        .Str("control_mode", controlMode)
        .Bool("rtscts", rtsCts)
        .Int("seed", seed)
        .Int("payload_bytes", payload)
        .Num("offered_bps_per_station", offered * phyRate)
        .Num("warmup_s", warmup)
        .Num("window_s", duration)
        .Int("rx_bytes", g_windowBytes)
        .Int("rx_packets", g_windowPackets)
        .Num("throughput_bps", g_windowBytes * 8.0 / duration)
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
