// Reference side of the airtcp benchmark: one bulk NewReno flow over a 2 Mbps / 20 ms
// point-to-point link with a packet error rate on the data direction, in ns-3 3.44.
//
// Every setting below mirrors bench/p2p_bench.yaml; bench/README.md has the parameter-by-parameter
// mapping and the known differences. Prints exactly one JSON line on stdout.
//
// Usage: p2p_tcp --per=0.01 --duration=200 --seed=1 [--recovery=classic|prr] [--buf=1048576]
//                [--ssthresh=pipe|flightsize] [--cc=newreno|linuxreno|vegas|cubic|bbr]
//                [--hystart=0|1] [--trace=PATH] [--print-attributes]
//
// `--cc` picks the congestion control (ns-3's TcpNewReno, TcpLinuxReno, TcpVegas, TcpCubic,
// TcpBbr; BBR runs paced, see tcpbench::ConfigureCc); their parameters are ns-3 attributes, set
// from the command line like any other, e.g. `--ns3::TcpVegas::Alpha=1` (bench/README.md,
// "Congestion-control variants"). `--hystart=0|1` switches Cubic's HyStart (ns-3's default is
// on; `--ns3::TcpCubic::HyStart=false` does the same as `--hystart=0`). `--trace=PATH` writes
// the sender's cwnd, ssthresh and RTT samples (and BBR's pacing rate and gains) as CSV
// (tcpbench::SenderTrace). `--print-attributes` prints the TCP attribute values this
// configuration runs with as one JSON line instead of running (tcpbench::TcpAttributesJson).

#include "ns3/applications-module.h"
#include "ns3/core-module.h"
#include "ns3/internet-module.h"
#include "ns3/network-module.h"
#include "ns3/point-to-point-module.h"
#include "ns3/traffic-control-module.h"

#include "tcp_trace.h"

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <iomanip>
#include <iostream>
#include <string>

using namespace ns3;

namespace
{

struct Counters
{
    uint64_t txData = 0;     // frames put on the wire by A (data direction)
    uint64_t txAck = 0;      // frames put on the wire by B (ACK direction)
    uint64_t rxErrors = 0;   // frames discarded by B's receive error model
    uint64_t tcDrops = 0;    // packets refused because the device queue was full
    uint64_t recoveries = 0; // entries into fast recovery
    uint64_t rtos = 0;       // entries into loss state (retransmission timeouts)
    uint32_t queuePeak = 0;  // largest backlog seen in A's device queue (packets)
};

Counters g_counters;
tcpbench::SenderTrace g_trace;

void
OnTxData(Ptr<const Packet>)
{
    ++g_counters.txData;
}

void
OnTxAck(Ptr<const Packet>)
{
    ++g_counters.txAck;
}

void
OnRxError(Ptr<const Packet>)
{
    ++g_counters.rxErrors;
}

void
OnQueueLen(uint32_t, uint32_t now)
{
    g_counters.queuePeak = std::max(g_counters.queuePeak, now);
}

void
OnTcDrop(Ptr<const Packet>)
{
    ++g_counters.tcDrops;
}

void
OnCongState(TcpSocketState::TcpCongState_t, TcpSocketState::TcpCongState_t now)
{
    if (now == TcpSocketState::CA_RECOVERY)
    {
        ++g_counters.recoveries;
    }
    else if (now == TcpSocketState::CA_LOSS)
    {
        ++g_counters.rtos;
    }
}

void
HookSenderSocket()
{
    // The sender's socket only exists once BulkSendApplication has started, hence the deferred
    // connection; node 0 holds just that one socket.
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

namespace ns3
{

/**
 * Diagnostic variant of TcpNewReno (`--ssthresh=flightsize`): on loss, ssthresh is half of
 * FlightSize (highest sequence sent - last cumulative ACK), as RFC 5681 eq. 4 and RFC 6675
 * section 5 state it, instead of half of the pipe that stock ns-3 passes in (outstanding minus
 * SACKed minus lost, which after three duplicate ACKs is at least 4 segments less). Not used by
 * default: the benchmark compares against stock ns-3; this only isolates that one difference.
 */
class TcpNewRenoFlightSize : public TcpNewReno
{
  public:
    static TypeId GetTypeId()
    {
        static TypeId tid = TypeId("ns3::TcpNewRenoFlightSize")
                                .SetParent<TcpNewReno>()
                                .SetGroupName("Internet")
                                .AddConstructor<TcpNewRenoFlightSize>();
        return tid;
    }

    std::string GetName() const override
    {
        return "TcpNewRenoFlightSize";
    }

    uint32_t GetSsThresh(Ptr<const TcpSocketState> tcb, uint32_t bytesInFlight) override
    {
        uint32_t flightSize = tcb->m_highTxMark.Get() - tcb->m_lastAckedSeq;
        return TcpNewReno::GetSsThresh(tcb, std::max(flightSize, bytesInFlight));
    }

    Ptr<TcpCongestionOps> Fork() override
    {
        return CopyObject<TcpNewRenoFlightSize>(this);
    }
};

NS_OBJECT_ENSURE_REGISTERED(TcpNewRenoFlightSize);

} // namespace ns3

int
main(int argc, char* argv[])
{
    double per = 0.0;
    double duration = 200.0;
    uint32_t seed = 1;
    std::string recovery = "classic";
    uint32_t buf = 1 << 20;
    std::string ssthresh = "pipe";
    std::string cc = "newreno";
    std::string hystart;
    std::string trace;
    bool printAttributes = false;

    CommandLine cmd(__FILE__);
    cmd.AddValue("per", "packet error rate on the data direction (A->B)", per);
    cmd.AddValue("duration", "simulated seconds", duration);
    cmd.AddValue("seed", "run number for the ns-3 RNG (RngSeedManager::SetRun)", seed);
    cmd.AddValue("recovery", "classic (RFC 6582/6675 style) or prr (ns-3 default)", recovery);
    cmd.AddValue("buf", "TCP send and receive buffer in bytes (0 keeps ns-3's 131072)", buf);
    cmd.AddValue("ssthresh",
                 "pipe (stock ns-3) or flightsize (diagnostic, see TcpNewRenoFlightSize)",
                 ssthresh);
    cmd.AddValue("cc", "newreno, linuxreno, vegas, cubic or bbr", cc);
    cmd.AddValue("hystart", "Cubic's HyStart: 0 or 1 (default: the TcpCubic::HyStart attribute)",
                 hystart);
    cmd.AddValue("trace", "write the sender's cwnd/RTT trace to this CSV file", trace);
    cmd.AddValue("print-attributes",
                 "print the TCP attribute values of this configuration and exit",
                 printAttributes);
    cmd.Parse(argc, argv);

    // Fixed seed, varying run: the usual ns-3 way to get independent replications.
    RngSeedManager::SetSeed(1);
    RngSeedManager::SetRun(seed);

    if (ssthresh == "pipe")
    {
        Config::SetDefault("ns3::TcpL4Protocol::SocketType",
                           TypeIdValue(TcpNewReno::GetTypeId()));
    }
    else if (ssthresh == "flightsize")
    {
        Config::SetDefault("ns3::TcpL4Protocol::SocketType",
                           TypeIdValue(TcpNewRenoFlightSize::GetTypeId()));
    }
    else
    {
        std::cerr << "unknown --ssthresh " << ssthresh << " (pipe|flightsize)\n";
        return 2;
    }
    if (cc != "newreno")
    {
        if (ssthresh != "pipe")
        {
            std::cerr << "--ssthresh=flightsize is a NewReno variant; use it with --cc=newreno\n";
            return 2;
        }
        if (cc != "linuxreno" && cc != "vegas" && cc != "cubic" && cc != "bbr")
        {
            std::cerr << "unknown --cc " << cc << " (newreno|linuxreno|vegas|cubic|bbr)\n";
            return 2;
        }
        Config::SetDefault("ns3::TcpL4Protocol::SocketType",
                           TypeIdValue(tcpbench::CcTypeId(cc)));
    }
    if (!hystart.empty() && cc != "cubic")
    {
        std::cerr << "--hystart applies to --cc=cubic only\n";
        return 2;
    }
    tcpbench::ConfigureCc(cc, hystart);
    Config::SetDefault("ns3::TcpSocketBase::Sack", BooleanValue(true));
    // ns-3's default is on; airtcp charges its 12 option bytes through header_bytes instead.
    Config::SetDefault("ns3::TcpSocketBase::Timestamp", BooleanValue(true));
    Config::SetDefault("ns3::TcpSocket::DelAckCount", UintegerValue(2));
    Config::SetDefault("ns3::TcpSocket::DelAckTimeout", TimeValue(MilliSeconds(200)));
    Config::SetDefault("ns3::TcpSocket::InitialCwnd", UintegerValue(10));
    Config::SetDefault("ns3::TcpSocket::SegmentSize", UintegerValue(1000));
    if (buf > 0)
    {
        // Large enough that neither buffer ever limits the window: the drop-tail queue
        // (100 packets + ~10 packets of BDP) is what bounds cwnd, as in airtcp with rwnd 1 MiB.
        Config::SetDefault("ns3::TcpSocket::SndBufSize", UintegerValue(buf));
        Config::SetDefault("ns3::TcpSocket::RcvBufSize", UintegerValue(buf));
    }
    if (recovery == "classic")
    {
        // cwnd = ssthresh on entering fast recovery (RFC 6675): airtcp's `recovery: classic`, the
        // benchmarks' --recovery classic.
        Config::SetDefault("ns3::TcpL4Protocol::RecoveryType",
                           TypeIdValue(TcpClassicRecovery::GetTypeId()));
    }
    else if (recovery == "prr")
    {
        // Proportional Rate Reduction, ns-3's default: airtcp's `recovery: prr`, what the
        // benchmarks run by default (airtcp.bench.wired passes --recovery=prr).
        Config::SetDefault("ns3::TcpL4Protocol::RecoveryType",
                           TypeIdValue(TcpPrrRecovery::GetTypeId()));
    }
    else
    {
        std::cerr << "unknown --recovery " << recovery << " (classic|prr)\n";
        return 2;
    }
    if (printAttributes)
    {
        std::cout << tcpbench::TcpAttributesJson() << std::endl;
        return 0;
    }
    if (!trace.empty())
    {
        // Segment size 1000 (TcpSocket::SegmentSize above); node 0 is the sender.
        g_trace.Open(trace, 1000, 0, cc == "bbr");
    }

    NodeContainer nodes;
    nodes.Create(2);

    PointToPointHelper p2p;
    p2p.SetDeviceAttribute("DataRate", StringValue("2Mbps"));
    p2p.SetChannelAttribute("Delay", StringValue("20ms"));
    p2p.SetQueue("ns3::DropTailQueue<Packet>", "MaxSize", StringValue("100p"));
    NetDeviceContainer devices = p2p.Install(nodes);

    InternetStackHelper stack;
    stack.Install(nodes);
    Ipv4AddressHelper address;
    address.SetBase("10.1.1.0", "255.255.255.0");
    Ipv4InterfaceContainer ifaces = address.Assign(devices);

    // Address assignment installs ns-3's default root queue disc (FqCoDel) in front of the
    // device queue; remove it so the only buffer is the 100-packet drop-tail device queue.
    TrafficControlHelper tch;
    tch.Uninstall(devices);
    for (uint32_t i = 0; i < devices.GetN(); ++i)
    {
        Ptr<TrafficControlLayer> tc = nodes.Get(i)->GetObject<TrafficControlLayer>();
        NS_ABORT_MSG_IF(tc && tc->GetRootQueueDiscOnDevice(devices.Get(i)),
                        "a queue disc is still installed");
    }

    // Errors are decided at the receiver of the data direction only, so ACKs are never lost.
    Ptr<RateErrorModel> em = CreateObject<RateErrorModel>();
    em->SetUnit(RateErrorModel::ERROR_UNIT_PACKET);
    em->SetRate(per);
    // Pin the model's stream so other random variables cannot shift its sequence.
    em->AssignStreams(0);
    devices.Get(1)->SetAttribute("ReceiveErrorModel", PointerValue(em));

    const uint16_t port = 50000;
    BulkSendHelper source("ns3::TcpSocketFactory",
                          InetSocketAddress(ifaces.GetAddress(1), port));
    source.SetAttribute("MaxBytes", UintegerValue(0));
    source.SetAttribute("SendSize", UintegerValue(1000));
    ApplicationContainer sourceApp = source.Install(nodes.Get(0));
    sourceApp.Start(Seconds(0.0));
    sourceApp.Stop(Seconds(duration));

    PacketSinkHelper sinkHelper("ns3::TcpSocketFactory",
                                InetSocketAddress(Ipv4Address::GetAny(), port));
    ApplicationContainer sinkApp = sinkHelper.Install(nodes.Get(1));
    sinkApp.Start(Seconds(0.0));
    sinkApp.Stop(Seconds(duration));

    Ptr<PointToPointNetDevice> devA = DynamicCast<PointToPointNetDevice>(devices.Get(0));
    Ptr<PointToPointNetDevice> devB = DynamicCast<PointToPointNetDevice>(devices.Get(1));
    // A misspelt trace source name fails silently, so every connection is checked.
    bool hooked = devA->TraceConnectWithoutContext("PhyTxBegin", MakeCallback(&OnTxData));
    hooked &= devB->TraceConnectWithoutContext("PhyTxBegin", MakeCallback(&OnTxAck));
    hooked &= devB->TraceConnectWithoutContext("PhyRxDrop", MakeCallback(&OnRxError));
    hooked &= devA->GetQueue()->TraceConnectWithoutContext("PacketsInQueue",
                                                           MakeCallback(&OnQueueLen));
    // With no queue disc, a full device queue stops the device's transmit queue and the traffic
    // control layer drops the next packet itself: those are the drop-tail overflow losses.
    for (uint32_t i = 0; i < nodes.GetN(); ++i)
    {
        hooked &= nodes.Get(i)->GetObject<TrafficControlLayer>()->TraceConnectWithoutContext(
            "TcDrop",
            MakeCallback(&OnTcDrop));
    }
    NS_ABORT_MSG_IF(!hooked, "a trace source could not be connected");
    Simulator::Schedule(MilliSeconds(1), &HookSenderSocket);

    Simulator::Stop(Seconds(duration));
    auto t0 = std::chrono::steady_clock::now();
    Simulator::Run();
    auto t1 = std::chrono::steady_clock::now();
    double simWall = std::chrono::duration<double>(t1 - t0).count();
    g_trace.Close();

    Ptr<PacketSink> sink = DynamicCast<PacketSink>(sinkApp.Get(0));
    uint64_t rxBytes = sink->GetTotalRx();
    uint64_t events = Simulator::GetEventCount();
    Ptr<Queue<Packet>> qA = devA->GetQueue();
    Ptr<Queue<Packet>> qB = devB->GetQueue();

    std::cout << std::setprecision(12) << "{\"simulator\": \"ns-3.44\""
              << ", \"recovery\": \"" << recovery << "\""
              << ", \"ssthresh\": \"" << ssthresh << "\""
              << ", \"cc\": \"" << cc << "\""
              << ", \"pacing\": "
              << tcpbench::AttributeDefault("ns3::TcpSocketState", "EnablePacing")
              << ", \"hystart\": "
              << (cc == "cubic" ? tcpbench::AttributeDefault("ns3::TcpCubic", "HyStart")
                                : std::string("null"))
              << ", \"per\": " << per << ", \"duration_s\": " << duration
              << ", \"seed\": " << seed << ", \"buf_bytes\": " << buf
              << ", \"goodput_bps\": " << (static_cast<double>(rxBytes) * 8.0 / duration)
              << ", \"rx_bytes\": " << rxBytes << ", \"sim_wall_s\": " << simWall
              << ", \"events\": " << events
              << ", \"packets\": " << (g_counters.txData + g_counters.txAck)
              << ", \"packets_data\": " << g_counters.txData
              << ", \"packets_ack\": " << g_counters.txAck
              << ", \"queue_max_packets\": " << qA->GetMaxSize().GetValue()
              << ", \"queue_peak_packets\": " << g_counters.queuePeak
              << ", \"queue_drops\": "
              << (qA->GetTotalDroppedPackets() + qB->GetTotalDroppedPackets() +
                  g_counters.tcDrops)
              << ", \"error_drops\": " << g_counters.rxErrors
              << ", \"recoveries\": " << g_counters.recoveries
              << ", \"rtos\": " << g_counters.rtos << "}" << std::endl;

    Simulator::Destroy();
    return 0;
}
