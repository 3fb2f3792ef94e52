// Rate-control reference: ns-3 3.44's 802.11 rate managers (ArfWifiManager, AarfWifiManager,
// IdealWifiManager, MinstrelWifiManager for non-HT rates, and ConstantRateWifiManager at 54 Mbps as
// the control) on one link or a chain of 802.11a ad-hoc nodes, with log-distance path loss and,
// optionally, Rayleigh fading drawn independently for every frame at every receiver. One bulk TCP
// NewReno flow from the first node to the last; static host routes along the line. Prints one JSON
// line. bench/wifi/README.md ("Rate control (ns-3 side)") describes the configuration and cases.
//
// Usage: wifi_rate [--manager=arf|aarf|ideal|minstrel|constant] [--topology=link|chain]
//                  [--distance=M] [--hops=N] [--duration=S] [--start=S] [--seed=N]
//                  [--fading=rayleigh|none] [--constant-rate=MBPS] [--exponent=N]
//                  [--refloss=DB] [--txpower=DBM] [--segment=BYTES] [--params=0|1]
//                  [--minstrel-stats=0|1]
//
// What is modelled, and from where:
// - PHY/MAC: the differential matrix's 802.11a set-up (wifi_matrix.cc): NistErrorRateModel,
//   -82 dBm preamble detection, -62 dBm energy detection, -101 dBm sensitivity, 7 dB noise figure,
//   16.0206 dBm, the default 500-packet / 500-ms WifiMacQueue, no queue disc, no RTS/CTS.
// - Path loss: LogDistancePropagationLossModel (exponent 3, 46.6777 dB at 1 m). With
//   --fading=rayleigh a NakagamiPropagationLossModel with m0 = m1 = m2 = 1 follows it in the
//   channel's chain: m = 1 makes the received power an exponential draw around the log-distance
//   mean (Rayleigh amplitude), and YansWifiChannel evaluates the chain once per transmission and
//   receiver, so every frame (data, ACK, TCP ACK) at every receiver gets its own draw.
// - Rate control: the manager's TypeId with every attribute at its ns-3 3.44 default (recorded in
//   the output under "manager_attributes"). ACKs go at the rate ns-3 picks itself: the highest
//   basic rate (6, 12, 24 Mbps) not above the data frame's. Ad-hoc stations give every peer all
//   eight OFDM rates (AdhocWifiMac), so the managers choose among 6..54 Mbps.
// - TCP: as the matrix: NewReno, SACK, timestamps, delayed ACK every 2 segments, IW 10, 1 MiB
//   buffers, 1460-byte segments, TcpClassicRecovery.
//
// The per-link counts ("links", keyed "FROM->TO", one entry per sender and next hop that sent a
// unicast data frame; data frames are 802.11 Data frames, i.e. TCP segments and TCP ACKs, never
// the 802.11 ACKs), per data rate in Mbit/s ("rates"):
// - attempts: transmissions the sender's PHY began (PhyTxPsduBegin) of unicast data frames to
//   that next hop at that rate, every attempt counted, retransmissions included.
// - decoded: those of them the addressee's PHY received without error (WifiPhyStateHelper
//   RxOutcome with a successful MPDU at the addressee, frame from that sender), whether or not the
//   802.11 ACK then reached the sender.
// - payload_errors: those whose preamble and header the addressee decoded but whose payload failed
//   (RxOutcome without success).
// - rx_drops: those the addressee's PHY dropped before the payload, by ns-3's reason
//   (PhyRxPpduDrop: PREAMBLE_DETECT_FAILURE, L_SIG_FAILURE, TXING, RXING, ...). The remainder,
//   attempts - decoded - payload_errors - sum(rx_drops), never reached the addressee's PHY (below
//   its -101 dBm sensitivity) or was still on the air when the simulation stopped.
// - acked: attempts the sender saw acknowledged (WifiMac AckedMpdu), each credited to the rate of
//   that sender's latest data frame to the same next hop (one MPDU is in flight at a time).
// - failed: attempts whose ACK timed out (the station manager's MacTxDataFailed), credited alike.
//   acked + failed = attempts, except for a frame in flight at the end.
// - decoded_snr_db: the mean, in dB, of the SINR ns-3 reported for the decoded ones (the value
//   the addressee returns to IdealWifiManager in the ACK's SnrTag).
// Per link also: retry_drops (MPDUs the MAC gave up, DroppedMpdu REACHED_RETRY_LIMIT: 7 attempts
// for every manager but Minstrel, which ends its own retry chain, see the README), expired_drops
// (MaxDelay lifetime), and attempts_per_mpdu, a histogram of how many attempts each MPDU got
// (consecutive attempts with the same sequence number; the last MPDU of each link included).

#include "wifi_common.h"

#include <cstdio>

using namespace ns3;
using namespace wifibench;

namespace
{

/// Counts of one link (sender -> addressee) at one data rate.
struct RateCounts
{
    uint64_t attempts = 0;
    uint64_t decoded = 0;
    uint64_t payloadErrors = 0;
    uint64_t acked = 0;
    uint64_t failed = 0;
    double snrDbSum = 0.0; // over decoded frames
    std::map<std::string, uint64_t> rxDrops;
};

struct LinkCounts
{
    std::map<uint64_t, RateCounts> rates; // keyed by data rate in bit/s
    uint64_t retryDrops = 0;
    uint64_t expiredDrops = 0;
    uint64_t lastRate = 0; // rate of the sender's latest data frame on this link
    int32_t lastSeq = -1;  // sequence number of that frame
    uint32_t seqAttempts = 0;
    std::map<uint32_t, uint64_t> attemptsPerMpdu;
};

std::map<Mac48Address, uint32_t> g_nodeOf;
std::map<std::pair<uint32_t, uint32_t>, LinkCounts> g_links;

int64_t
NodeOf(Mac48Address a)
{
    auto it = g_nodeOf.find(a);
    return it == g_nodeOf.end() ? -1 : int64_t(it->second);
}

bool
IsUnicastData(const WifiMacHeader& hdr)
{
    return hdr.IsData() && !hdr.GetAddr1().IsGroup();
}

void
OnTx(uint32_t node, WifiConstPsduMap psdus, WifiTxVector txVector, double)
{
    for (const auto& [staId, psdu] : psdus)
    {
        const WifiMacHeader& hdr = psdu->GetHeader(0);
        const int64_t to = NodeOf(hdr.GetAddr1());
        if (!IsUnicastData(hdr) || to < 0)
        {
            continue;
        }
        LinkCounts& link = g_links[{node, uint32_t(to)}];
        const uint64_t rate = txVector.GetMode().GetDataRate(txVector);
        ++link.rates[rate].attempts;
        link.lastRate = rate;
        const int32_t seq = hdr.GetSequenceNumber();
        if (seq == link.lastSeq)
        {
            ++link.seqAttempts;
        }
        else
        {
            if (link.lastSeq >= 0)
            {
                ++link.attemptsPerMpdu[link.seqAttempts];
            }
            link.lastSeq = seq;
            link.seqAttempts = 1;
        }
    }
}

void
OnRxOutcome(uint32_t node,
            Ptr<const WifiPpdu> ppdu,
            RxSignalInfo info,
            const WifiTxVector& txVector,
            const std::vector<bool>& outcomes)
{
    Ptr<const WifiPsdu> psdu = ppdu->GetPsdu();
    if (!psdu)
    {
        return;
    }
    const WifiMacHeader& hdr = psdu->GetHeader(0);
    const int64_t from = NodeOf(hdr.GetAddr2());
    if (!IsUnicastData(hdr) || NodeOf(hdr.GetAddr1()) != int64_t(node) || from < 0)
    {
        return;
    }
    const uint64_t rate = txVector.GetMode().GetDataRate(txVector);
    RateCounts& rc = g_links[{uint32_t(from), node}].rates[rate];
    if (!outcomes.empty() && outcomes.front())
    {
        ++rc.decoded;
        rc.snrDbSum += 10.0 * std::log10(info.snr);
    }
    else
    {
        ++rc.payloadErrors;
    }
}

void
OnRxPpduDrop(uint32_t node, Ptr<const WifiPpdu> ppdu, WifiPhyRxfailureReason reason)
{
    Ptr<const WifiPsdu> psdu = ppdu->GetPsdu();
    if (!psdu)
    {
        return;
    }
    const WifiMacHeader& hdr = psdu->GetHeader(0);
    const int64_t from = NodeOf(hdr.GetAddr2());
    if (!IsUnicastData(hdr) || NodeOf(hdr.GetAddr1()) != int64_t(node) || from < 0)
    {
        return;
    }
    const WifiTxVector& tv = ppdu->GetTxVector();
    std::ostringstream os;
    os << reason;
    ++g_links[{uint32_t(from), node}].rates[tv.GetMode().GetDataRate(tv)].rxDrops[os.str()];
}

void
OnAcked(uint32_t node, Ptr<const WifiMpdu> mpdu)
{
    const WifiMacHeader& hdr = mpdu->GetHeader();
    const int64_t to = NodeOf(hdr.GetAddr1());
    if (!IsUnicastData(hdr) || to < 0)
    {
        return;
    }
    LinkCounts& link = g_links[{node, uint32_t(to)}];
    ++link.rates[link.lastRate].acked;
}

void
OnDataFailed(uint32_t node, Mac48Address to)
{
    const int64_t peer = NodeOf(to);
    if (peer < 0)
    {
        return;
    }
    LinkCounts& link = g_links[{node, uint32_t(peer)}];
    ++link.rates[link.lastRate].failed;
}

void
OnMacDropped(uint32_t node, WifiMacDropReason reason, Ptr<const WifiMpdu> mpdu)
{
    const WifiMacHeader& hdr = mpdu->GetHeader();
    const int64_t to = NodeOf(hdr.GetAddr1());
    if (!IsUnicastData(hdr) || to < 0)
    {
        return;
    }
    LinkCounts& link = g_links[{node, uint32_t(to)}];
    if (reason == WIFI_MAC_DROP_REACHED_RETRY_LIMIT)
    {
        ++link.retryDrops;
    }
    else if (reason == WIFI_MAC_DROP_EXPIRED_LIFETIME)
    {
        ++link.expiredDrops;
    }
}

void
HookLinkCounters(const NetDeviceContainer& devices)
{
    bool ok = true;
    for (uint32_t i = 0; i < devices.GetN(); ++i)
    {
        Ptr<WifiNetDevice> dev = DynamicCast<WifiNetDevice>(devices.Get(i));
        Ptr<WifiPhy> phy = dev->GetPhy();
        ok &= phy->TraceConnectWithoutContext("PhyTxPsduBegin", MakeBoundCallback(&OnTx, i));
        ok &= phy->TraceConnectWithoutContext("PhyRxPpduDrop",
                                              MakeBoundCallback(&OnRxPpduDrop, i));
        ok &= phy->GetState()->TraceConnectWithoutContext("RxOutcome",
                                                          MakeBoundCallback(&OnRxOutcome, i));
        ok &= dev->GetMac()->TraceConnectWithoutContext("AckedMpdu",
                                                        MakeBoundCallback(&OnAcked, i));
        ok &= dev->GetMac()->TraceConnectWithoutContext("DroppedMpdu",
                                                        MakeBoundCallback(&OnMacDropped, i));
        ok &= dev->GetRemoteStationManager()->TraceConnectWithoutContext(
            "MacTxDataFailed",
            MakeBoundCallback(&OnDataFailed, i));
    }
    NS_ABORT_MSG_IF(!ok, "a trace source could not be connected");
}

std::string
MbpsKey(uint64_t bps)
{
    char buf[32];
    std::snprintf(buf, sizeof buf, "%g", bps / 1e6);
    return buf;
}

std::string
LinksJson()
{
    Json links;
    for (auto& [key, link] : g_links)
    {
        if (link.lastSeq >= 0)
        {
            ++link.attemptsPerMpdu[link.seqAttempts]; // the link's last MPDU
            link.lastSeq = -1;
        }
        Json rates;
        for (const auto& [bps, rc] : link.rates)
        {
            Json r;
            r.Int("attempts", rc.attempts)
                .Int("decoded", rc.decoded)
                .Int("payload_errors", rc.payloadErrors)
                .Raw("rx_drops", CountsObject(rc.rxDrops))
                .Int("acked", rc.acked)
                .Int("failed", rc.failed)
                .Num("decoded_snr_db", rc.decoded ? rc.snrDbSum / rc.decoded : std::nan(""));
            rates.Raw(MbpsKey(bps), r.Text());
        }
        Json perMpdu;
        for (const auto& [n, count] : link.attemptsPerMpdu)
        {
            perMpdu.Int(std::to_string(n), count);
        }
        Json j;
        j.Int("from", key.first)
            .Int("to", key.second)
            .Raw("rates", rates.Text())
            .Int("retry_drops", link.retryDrops)
            .Int("expired_drops", link.expiredDrops)
            .Raw("attempts_per_mpdu", perMpdu.Text());
        links.Raw(std::to_string(key.first) + "->" + std::to_string(key.second), j.Text());
    }
    return links.Text();
}

/// The TypeId of each --manager.
std::string
ManagerType(const std::string& manager)
{
    static const std::map<std::string, std::string> types = {
        {"arf", "ns3::ArfWifiManager"},
        {"aarf", "ns3::AarfWifiManager"},
        {"ideal", "ns3::IdealWifiManager"},
        {"minstrel", "ns3::MinstrelWifiManager"},
        {"constant", "ns3::ConstantRateWifiManager"},
    };
    auto it = types.find(manager);
    NS_ABORT_MSG_IF(it == types.end(),
                    "unknown manager " << manager << " (arf|aarf|ideal|minstrel|constant)");
    return it->second;
}

const std::vector<std::string>&
OfdmModes()
{
    static const std::vector<std::string> modes = {"OfdmRate6Mbps",
                                                   "OfdmRate9Mbps",
                                                   "OfdmRate12Mbps",
                                                   "OfdmRate18Mbps",
                                                   "OfdmRate24Mbps",
                                                   "OfdmRate36Mbps",
                                                   "OfdmRate48Mbps",
                                                   "OfdmRate54Mbps"};
    return modes;
}

/**
 * The SNR (dB) at which each 802.11a rate's bit error rate under this PHY's error model equals
 * `ber`: IdealWifiManager builds exactly this table at initialisation (WifiPhy::CalculateSnr,
 * 20 MHz, one stream) and sends at the fastest rate whose threshold lies below the last SNR its
 * peer reported.
 */
std::string
SnrThresholdsJson(Ptr<WifiPhy> phy, double ber)
{
    Json j;
    for (const auto& name : OfdmModes())
    {
        WifiTxVector tv;
        tv.SetMode(WifiMode(name));
        tv.SetNss(1);
        tv.SetChannelWidth(MHz_u{20});
        j.Num(MbpsKey(WifiMode(name).GetDataRate(MHz_u{20})),
              10.0 * std::log10(phy->CalculateSnr(tv, ber)));
    }
    return j.Text();
}

/**
 * Airtime of the frames Minstrel's tables are built from, per rate: its "perfect" transmission
 * time of a PacketLength-byte frame (long preamble), and the ACK ns-3 adds to each attempt in its
 * retry-count rule (WifiPhy::GetAckTxTime: a 14-byte ACK at the lowest rate), with SIFS and slot.
 */
std::string
MinstrelTimesJson(Ptr<WifiPhy> phy, uint32_t packetLength)
{
    Json times;
    for (const auto& name : OfdmModes())
    {
        WifiTxVector tv;
        tv.SetMode(WifiMode(name));
        tv.SetPreambleType(WIFI_PREAMBLE_LONG);
        tv.SetChannelWidth(MHz_u{20});
        times.Num(MbpsKey(WifiMode(name).GetDataRate(MHz_u{20})),
                  Us(WifiPhy::CalculateTxDuration(packetLength, tv, phy->GetPhyBand())));
    }
    Json j;
    j.Int("packet_length", packetLength)
        .Raw("perfect_tx_time_us", times.Text())
        .Num("ack_tx_time_us", Us(phy->GetAckTxTime()))
        .Num("sifs_us", Us(phy->GetSifs()))
        .Num("slot_us", Us(phy->GetSlot()));
    return j.Text();
}

} // namespace

int
main(int argc, char* argv[])
{
    std::string manager = "arf";
    std::string topology = "link";
    double distance = 15.0;
    uint32_t hops = 3;
    double duration = 20.0;
    double start = 1.0;
    uint32_t seed = 1;
    std::string fading = "rayleigh";
    double constantRate = 54.0;
    double exponent = 3.0;
    double refLoss = 46.6777;
    double txPower = 16.0206;
    uint32_t segment = 1460;
    bool params = false;
    bool minstrelStats = false;

    CommandLine cmd(__FILE__);
    cmd.AddValue("manager", "arf, aarf, ideal, minstrel (non-HT) or constant", manager);
    cmd.AddValue("topology", "link (two nodes) or chain (--hops hops on a line)", topology);
    cmd.AddValue("distance", "node spacing (m)", distance);
    cmd.AddValue("hops", "hops of the chain (topology=chain)", hops);
    cmd.AddValue("duration", "simulated seconds", duration);
    cmd.AddValue("start", "the flow's start (s)", start);
    cmd.AddValue("seed", "run number for the ns-3 RNG (RngSeedManager::SetRun)", seed);
    cmd.AddValue("fading", "rayleigh (Nakagami m=1 per frame and receiver) or none", fading);
    cmd.AddValue("constant-rate", "data rate of --manager=constant (Mbps)", constantRate);
    cmd.AddValue("exponent", "log-distance path-loss exponent", exponent);
    cmd.AddValue("refloss", "log-distance loss at 1 m (dB)", refLoss);
    cmd.AddValue("txpower", "transmit power (dBm)", txPower);
    cmd.AddValue("segment", "TCP segment size (bytes)", segment);
    cmd.AddValue("params", "add the attribute dump of node 0's device to the output", params);
    cmd.AddValue("minstrel-stats",
                 "let MinstrelWifiManager write its statistics tables (PrintStats) to the "
                 "current directory",
                 minstrelStats);
    cmd.Parse(argc, argv);
    NS_ABORT_MSG_IF(topology != "link" && topology != "chain", "--topology is link or chain");
    NS_ABORT_MSG_IF(fading != "rayleigh" && fading != "none", "--fading is rayleigh or none");
    NS_ABORT_MSG_IF(topology == "chain" && hops < 1, "--hops: at least 1");
    NS_ABORT_MSG_IF(!(distance > 0), "--distance must be positive");
    const uint32_t nHops = topology == "link" ? 1 : hops;
    const std::string managerType = ManagerType(manager);

    RngSeedManager::SetSeed(1);
    RngSeedManager::SetRun(seed);
    ConfigureTcp("classic", 1 << 20);
    Config::SetDefault("ns3::TcpSocket::SegmentSize", UintegerValue(segment));

    NodeContainer nodes;
    nodes.Create(nHops + 1);
    std::vector<Vector> positions;
    for (uint32_t i = 0; i <= nHops; ++i)
    {
        positions.emplace_back(distance * i, 0.0, 0.0);
    }
    PlaceNodes(nodes, positions);

    // The channel: log-distance mean loss, then (optionally) the Rayleigh draw on top of it.
    YansWifiChannelHelper channel; // empty: Default() would add its own log-distance model
    channel.SetPropagationDelay("ns3::ConstantSpeedPropagationDelayModel");
    channel.AddPropagationLoss("ns3::LogDistancePropagationLossModel",
                               "Exponent",
                               DoubleValue(exponent),
                               "ReferenceDistance",
                               DoubleValue(1.0),
                               "ReferenceLoss",
                               DoubleValue(refLoss));
    if (fading == "rayleigh")
    {
        // m = 1 in all three distance bands, so the band limits (80 and 200 m) do not matter.
        channel.AddPropagationLoss("ns3::NakagamiPropagationLossModel",
                                   "m0",
                                   DoubleValue(1.0),
                                   "m1",
                                   DoubleValue(1.0),
                                   "m2",
                                   DoubleValue(1.0));
    }
    YansWifiPhyHelper phy;
    phy.SetChannel(channel.Create());
    phy.Set("TxPowerStart", DoubleValue(txPower));
    phy.Set("TxPowerEnd", DoubleValue(txPower));
    phy.SetErrorRateModel("ns3::NistErrorRateModel");

    WifiHelper wifi;
    wifi.SetStandard(WIFI_STANDARD_80211a);
    g_band = WIFI_PHY_BAND_5GHZ;
    if (manager == "constant")
    {
        wifi.SetRemoteStationManager(managerType,
                                     "DataMode",
                                     StringValue(DataModeFor("11a", constantRate)),
                                     "ControlMode",
                                     StringValue(ControlModeFor("11a")));
    }
    else if (manager == "minstrel" && minstrelStats)
    {
        wifi.SetRemoteStationManager(managerType, "PrintStats", BooleanValue(true));
    }
    else
    {
        wifi.SetRemoteStationManager(managerType);
    }
    WifiMacHelper mac;
    mac.SetType("ns3::AdhocWifiMac");
    NetDeviceContainer devices = wifi.Install(phy, mac, nodes);

    InternetStackHelper stack;
    Ipv4StaticRoutingHelper staticRouting;
    stack.SetRoutingHelper(staticRouting);
    stack.Install(nodes);
    Ipv4AddressHelper address;
    address.SetBase("10.0.0.0", "255.255.255.0");
    Ipv4InterfaceContainer ifaces = address.Assign(devices);
    RemoveQueueDiscs(devices);

    // Host routes along the line both ways: the segments hop forward, the TCP ACKs back.
    const uint32_t last = nHops;
    for (uint32_t k = 0; k < last; ++k)
    {
        staticRouting.GetStaticRouting(nodes.Get(k)->GetObject<Ipv4>())
            ->AddHostRouteTo(ifaces.GetAddress(last), ifaces.GetAddress(k + 1), 1);
        staticRouting.GetStaticRouting(nodes.Get(k + 1)->GetObject<Ipv4>())
            ->AddHostRouteTo(ifaces.GetAddress(0), ifaces.GetAddress(k), 1);
    }
    NeighborCacheHelper neighbors;
    neighbors.PopulateNeighborCache();

    const uint16_t port = 50000;
    BulkSendHelper source("ns3::TcpSocketFactory",
                          InetSocketAddress(ifaces.GetAddress(last), port));
    source.SetAttribute("MaxBytes", UintegerValue(0));
    source.SetAttribute("SendSize", UintegerValue(segment));
    ApplicationContainer sourceApp = source.Install(nodes.Get(0));
    sourceApp.Start(Seconds(start));
    sourceApp.Stop(Seconds(duration));
    PacketSinkHelper sinkHelper("ns3::TcpSocketFactory",
                                InetSocketAddress(Ipv4Address::GetAny(), port));
    ApplicationContainer sinkApp = sinkHelper.Install(nodes.Get(last));
    sinkApp.Start(Seconds(0.0));
    sinkApp.Stop(Seconds(duration));
    Ptr<PacketSink> sink = DynamicCast<PacketSink>(sinkApp.Get(0));

    for (uint32_t i = 0; i < devices.GetN(); ++i)
    {
        g_nodeOf[Mac48Address::ConvertFrom(devices.Get(i)->GetAddress())] = i;
    }
    HookWifiCounters(devices);
    HookLinkCounters(devices);

    Simulator::Stop(Seconds(duration));
    const double simWall = TimedRun();

    Ptr<WifiNetDevice> dev0 = DynamicCast<WifiNetDevice>(devices.Get(0));
    Ptr<WifiPhy> phy0 = dev0->GetPhy();
    Ptr<WifiRemoteStationManager> rsm = dev0->GetRemoteStationManager();

    // The link budget of one hop and of two (the node two hops away, for the chain): the mean
    // received power (the Rayleigh draw has mean 1 in linear power) and its SNR against the
    // thermal noise of 20 MHz plus the noise figure, as ns-3's InterferenceHelper computes it.
    // RxNoiseFigure has no getter; it is left at its TypeId default here, so that is read.
    TypeId::AttributeInformation nfInfo;
    NS_ABORT_MSG_IF(!WifiPhy::GetTypeId().LookupAttributeByName("RxNoiseFigure", &nfInfo),
                    "WifiPhy has no RxNoiseFigure");
    const double noiseFigureDb = std::stod(nfInfo.initialValue->SerializeToString(nfInfo.checker));
    const double noiseDbm = 10.0 * std::log10(1.3803e-23 * 290.0 * 20e6) + 30.0 + noiseFigureDb;
    auto meanRx = [&](double d) { return txPower - refLoss - 10.0 * exponent * std::log10(d); };
    Json budget;
    budget.Num("noise_dbm", noiseDbm)
        .Num("mean_rx_dbm_one_hop", meanRx(distance))
        .Num("mean_snr_db_one_hop", meanRx(distance) - noiseDbm)
        .Num("mean_rx_dbm_two_hops", meanRx(2 * distance))
        .Num("mean_snr_db_two_hops", meanRx(2 * distance) - noiseDbm);

    double ber = 1e-6;
    if (manager == "ideal")
    {
        DoubleValue v;
        rsm->GetAttribute("BerThreshold", v);
        ber = v.Get();
    }
    std::vector<std::string> basic;
    for (uint8_t i = 0; i < rsm->GetNBasicModes(); ++i)
    {
        basic.push_back(Quote(rsm->GetBasicMode(i).GetUniqueName()));
    }

    const uint64_t rx = sink->GetTotalRx();
    Json out;
    out.Str("simulator", "ns-3.44")
        .Str("case", "rate")
        .Str("manager", manager)
        .Str("manager_type", managerType)
        .Str("topology", topology)
        .Int("hops", nHops)
        .Num("distance_m", distance)
        .Str("fading", fading)
        .Int("segment", segment)
        .Int("seed", seed)
        .Num("duration_s", duration)
        .Num("start_s", start)
        .Int("rx_bytes", rx)
        .Num("goodput_bps", rx * 8.0 / (duration - start))
        .Raw("link_budget", budget.Text())
        .Raw("links", LinksJson())
        .Raw("manager_attributes", AttributesJson(rsm, 0))
        .Raw("basic_modes", Array(basic))
        .Num("snr_threshold_ber", ber)
        .Raw("snr_thresholds_db", SnrThresholdsJson(phy0, ber));
    if (manager == "minstrel")
    {
        UintegerValue len;
        rsm->GetAttribute("PacketLength", len);
        out.Raw("minstrel_times", MinstrelTimesJson(phy0, len.Get()));
    }
    out.Num("sim_wall_s", simWall)
        .Int("events", Simulator::GetEventCount())
        .Int("peak_rss_kib", PeakRssKiB())
        .Raw("wifi", WifiCountersJson());
    if (params)
    {
        out.Raw("params", ParamsJson(dev0));
    }
    std::cout << out.Text() << std::endl;

    Simulator::Destroy();
    return 0;
}
