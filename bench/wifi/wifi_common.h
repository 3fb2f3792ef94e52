// Shared parts of the 802.11b/802.11a/802.11n reference programs (wifi_chain.cc, wifi_grid.cc,
// wifi_saturation.cc, wifi_matrix.cc, wifi_ht.cc): the PHY/MAC set-up every case uses, counters
// fed by trace sources, a dump of the attribute values ns-3 actually runs with, and a minimal JSON
// writer so that each program prints exactly one JSON line. bench/wifi/README.md describes the
// configuration.

#ifndef AIRTCP_BENCH_WIFI_COMMON_H
#define AIRTCP_BENCH_WIFI_COMMON_H

#include "ns3/applications-module.h"
#include "ns3/core-module.h"
#include "ns3/internet-module.h"
#include "ns3/mobility-module.h"
#include "ns3/network-module.h"
#include "ns3/propagation-module.h"
#include "ns3/traffic-control-module.h"
#include "ns3/wifi-module.h"

#include <sys/resource.h>

#include <chrono>
#include <cmath>
#include <cstdint>
#include <iomanip>
#include <iostream>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

namespace wifibench
{

using namespace ns3;

// ------------------------------------------------------------------------------------------
// JSON output

inline std::string
Quote(const std::string& s)
{
    std::ostringstream os;
    os << '"';
    for (char c : s)
    {
        switch (c)
        {
        case '"':
            os << "\\\"";
            break;
        case '\\':
            os << "\\\\";
            break;
        case '\n':
            os << "\\n";
            break;
        case '\t':
            os << "\\t";
            break;
        default:
            if (static_cast<unsigned char>(c) < 0x20)
            {
                os << "\\u" << std::hex << std::setw(4) << std::setfill('0') << int(c)
                   << std::dec;
            }
            else
            {
                os << c;
            }
        }
    }
    os << '"';
    return os.str();
}

/// Builds one JSON object; values are added in order, nested objects as raw text.
class Json
{
  public:
    Json& Raw(const std::string& key, const std::string& raw)
    {
        m_os << (m_first ? "" : ", ") << Quote(key) << ": " << raw;
        m_first = false;
        return *this;
    }

    Json& Str(const std::string& key, const std::string& v)
    {
        return Raw(key, Quote(v));
    }

    Json& Num(const std::string& key, double v)
    {
        std::ostringstream os;
        if (std::isfinite(v))
        {
            os << std::setprecision(12) << v;
        }
        else
        {
            os << "null";
        }
        return Raw(key, os.str());
    }

    Json& Int(const std::string& key, int64_t v)
    {
        return Raw(key, std::to_string(v));
    }

    Json& Bool(const std::string& key, bool v)
    {
        return Raw(key, v ? "true" : "false");
    }

    std::string Text() const
    {
        return "{" + m_os.str() + "}";
    }

  private:
    std::ostringstream m_os;
    bool m_first = true;
};

inline std::string
Array(const std::vector<std::string>& items)
{
    std::string out = "[";
    for (size_t i = 0; i < items.size(); ++i)
    {
        out += (i ? ", " : "") + items[i];
    }
    return out + "]";
}

template <typename Map>
std::string
CountsObject(const Map& counts)
{
    Json j;
    for (const auto& [k, v] : counts)
    {
        j.Int(k, static_cast<int64_t>(v));
    }
    return j.Text();
}

// ------------------------------------------------------------------------------------------
// The PHY/MAC every case uses

struct WifiOptions
{
    std::string standard = "11b"; // "11b", "11a" or "11n" (HT, 5 GHz, 20 MHz, one stream)
    std::string dataMode = "DsssRate2Mbps";
    std::string controlMode = "DsssRate1Mbps";
    bool rtsCts = false;
    // Propagation: "range" (RangePropagationLossModel, MaxRange rangeM), "logdistance"
    // (LogDistancePropagationLossModel: exponent, refLossDb at 1 m), "tworay"
    // (TwoRayGroundPropagationLossModel: frequencyHz, antenna heightM above the node) or "friis".
    std::string propagation = "range";
    double rangeM = 250.0;
    double exponent = 3.0;
    double refLossDb = 46.6777;
    double frequencyHz = 5.15e9;
    double heightM = 1.5;
    // Transmit power in dBm; NaN keeps ns-3's default (16.0206 dBm).
    double txPowerDbm = std::nan("");
    // 802.11n only: the short (400 ns) guard interval (HtConfiguration
    // ShortGuardIntervalSupported) and AC_BE's maximum A-MPDU size in bytes (WifiMac
    // BE_MaxAmpduSize; 0 turns A-MPDU aggregation off, negative keeps ns-3's default, 65535).
    bool shortGi = false;
    int64_t beMaxAmpduSize = -1;
    // 802.11n only: AC_BE's maximum A-MSDU size in bytes (WifiMac BE_MaxAmsduSize; 0, ns-3's
    // default, leaves A-MSDU aggregation off and the attribute untouched).
    uint32_t beMaxAmsduSize = 0;
    // A rate manager's TypeId (every attribute at its default) in place of
    // ConstantRateWifiManager's dataMode and controlMode; empty: the constant rate.
    std::string stationManager;
};

/// The band the devices transmit in (set by InstallWifi): 2.4 GHz for 802.11b, 5 GHz for 802.11a
/// and 802.11n.
inline WifiPhyBand g_band = WIFI_PHY_BAND_2_4GHZ;

inline void
CheckStandard(const std::string& standard)
{
    NS_ABORT_MSG_IF(standard != "11b" && standard != "11a" && standard != "11n",
                    "unknown standard " << standard << " (11b|11a|11n)");
}

/// Channel width of the standard's PHY: 22 MHz (DSSS/HR-DSSS) or 20 MHz (OFDM, HT).
inline MHz_u
ChannelWidthFor(const std::string& standard)
{
    return standard == "11b" ? MHz_u{22} : MHz_u{20};
}

/**
 * The WifiMode name of a data rate: DsssRate1Mbps, DsssRate2Mbps, DsssRate5_5Mbps,
 * DsssRate11Mbps (11b); OfdmRate6Mbps ... OfdmRate54Mbps (11a). Aborts on a rate the standard
 * does not have.
 */
inline std::string
DataModeFor(const std::string& standard, double rateMbps)
{
    CheckStandard(standard);
    NS_ABORT_MSG_IF(standard == "11n", "802.11n data modes are HtMcs0..HtMcs7, not rates");
    const std::vector<double> rates = standard == "11a"
                                          ? std::vector<double>{6, 9, 12, 18, 24, 36, 48, 54}
                                          : std::vector<double>{1, 2, 5.5, 11};
    bool known = false;
    for (double r : rates)
    {
        known |= r == rateMbps;
    }
    NS_ABORT_MSG_IF(!known, "802." << standard << " has no " << rateMbps << " Mbps rate");
    std::ostringstream os;
    os << rateMbps;
    std::string text = os.str();
    for (char& c : text)
    {
        c = c == '.' ? '_' : c;
    }
    return (standard == "11a" ? "OfdmRate" : "DsssRate") + text + "Mbps";
}

/// The ControlMode (RTS rate) of the standard: its lowest rate (802.11n at 5 GHz: 6 Mbps OFDM,
/// also ConstantRateWifiManager's default).
inline std::string
ControlModeFor(const std::string& standard)
{
    CheckStandard(standard);
    return standard == "11b" ? "DsssRate1Mbps" : "OfdmRate6Mbps";
}

/**
 * 802.11b or 802.11a ad-hoc devices on one YansWifiChannel. The range model gives every
 * receiver within rangeM the full transmit power and every other one nothing (-1000 dBm), so
 * nodes farther apart neither hear nor interfere with each other. 802.11a uses ns-3's NIST
 * error model (the helper's default would be the table-based one) in ns-3's default 5 GHz
 * channel for the standard. 802.11n keeps the helper's TableBasedErrorRateModel, runs a 20 MHz
 * channel at 5 GHz (ns-3's default channel, 36) with one spatial stream, QoS (the MAC helper
 * turns it on for HT), the guard interval of `shortGi` and the A-MPDU size of `beMaxAmpduSize`.
 */
inline NetDeviceContainer
InstallWifi(const NodeContainer& nodes, const WifiOptions& opt)
{
    CheckStandard(opt.standard);
    YansWifiChannelHelper channel; // empty on purpose: Default() would add a log-distance model
    channel.SetPropagationDelay("ns3::ConstantSpeedPropagationDelayModel");
    if (opt.propagation == "range")
    {
        channel.AddPropagationLoss("ns3::RangePropagationLossModel",
                                   "MaxRange",
                                   DoubleValue(opt.rangeM));
    }
    else if (opt.propagation == "logdistance")
    {
        channel.AddPropagationLoss("ns3::LogDistancePropagationLossModel",
                                   "Exponent",
                                   DoubleValue(opt.exponent),
                                   "ReferenceDistance",
                                   DoubleValue(1.0),
                                   "ReferenceLoss",
                                   DoubleValue(opt.refLossDb));
    }
    else if (opt.propagation == "tworay")
    {
        channel.AddPropagationLoss("ns3::TwoRayGroundPropagationLossModel",
                                   "Frequency",
                                   DoubleValue(opt.frequencyHz),
                                   "HeightAboveZ",
                                   DoubleValue(opt.heightM));
    }
    else if (opt.propagation == "friis")
    {
        channel.AddPropagationLoss("ns3::FriisPropagationLossModel",
                                   "Frequency",
                                   DoubleValue(opt.frequencyHz));
    }
    else
    {
        NS_FATAL_ERROR("unknown propagation " << opt.propagation
                                              << " (range|logdistance|tworay|friis)");
    }
    YansWifiPhyHelper phy;
    phy.SetChannel(channel.Create());
    if (!std::isnan(opt.txPowerDbm))
    {
        phy.Set("TxPowerStart", DoubleValue(opt.txPowerDbm));
        phy.Set("TxPowerEnd", DoubleValue(opt.txPowerDbm));
    }

    WifiHelper wifi;
    if (opt.standard == "11n")
    {
        phy.Set("ChannelSettings", StringValue("{0, 20, BAND_5GHZ, 0}"));
        wifi.SetStandard(WIFI_STANDARD_80211n);
        wifi.ConfigHtOptions("ShortGuardIntervalSupported", BooleanValue(opt.shortGi));
        g_band = WIFI_PHY_BAND_5GHZ;
    }
    else if (opt.standard == "11a")
    {
        phy.SetErrorRateModel("ns3::NistErrorRateModel");
        wifi.SetStandard(WIFI_STANDARD_80211a);
        g_band = WIFI_PHY_BAND_5GHZ;
    }
    else
    {
        wifi.SetStandard(WIFI_STANDARD_80211b);
        g_band = WIFI_PHY_BAND_2_4GHZ;
    }
    if (!opt.stationManager.empty())
    {
        NS_ABORT_MSG_IF(opt.rtsCts, "RTS/CTS with a rate manager is not set up here");
        wifi.SetRemoteStationManager(opt.stationManager);
    }
    else if (opt.rtsCts)
    {
        // Threshold 0: every unicast frame is protected by RTS/CTS.
        wifi.SetRemoteStationManager("ns3::ConstantRateWifiManager",
                                     "DataMode",
                                     StringValue(opt.dataMode),
                                     "ControlMode",
                                     StringValue(opt.controlMode),
                                     "RtsCtsThreshold",
                                     UintegerValue(0));
    }
    else
    {
        // The default threshold is the largest PSDU, so RTS/CTS is never used.
        wifi.SetRemoteStationManager("ns3::ConstantRateWifiManager",
                                     "DataMode",
                                     StringValue(opt.dataMode),
                                     "ControlMode",
                                     StringValue(opt.controlMode));
    }

    WifiMacHelper mac;
    if (opt.standard == "11n" && opt.beMaxAmpduSize >= 0)
    {
        mac.SetType("ns3::AdhocWifiMac",
                    "BE_MaxAmpduSize",
                    UintegerValue(static_cast<uint32_t>(opt.beMaxAmpduSize)));
    }
    else
    {
        mac.SetType("ns3::AdhocWifiMac");
    }
    if (opt.standard == "11n" && opt.beMaxAmsduSize > 0)
    {
        mac.SetType("ns3::AdhocWifiMac", "BE_MaxAmsduSize", UintegerValue(opt.beMaxAmsduSize));
    }
    return wifi.Install(phy, mac, nodes);
}

inline void
PlaceNodes(const NodeContainer& nodes, const std::vector<Vector>& positions)
{
    Ptr<ListPositionAllocator> alloc = CreateObject<ListPositionAllocator>();
    for (const auto& p : positions)
    {
        alloc->Add(p);
    }
    MobilityHelper mobility;
    mobility.SetPositionAllocator(alloc);
    mobility.SetMobilityModel("ns3::ConstantPositionMobilityModel");
    mobility.Install(nodes);
}

/**
 * Removes the root queue disc Ipv4AddressHelper::Assign installs (FqCoDel), so that the
 * WifiMacQueue is the only buffer between IP and the channel. With no queue disc the traffic
 * control layer drops a packet itself (TcDrop) when the device has stopped its queue.
 */
inline void
RemoveQueueDiscs(const NetDeviceContainer& devices)
{
    TrafficControlHelper tch;
    tch.Uninstall(devices);
    for (uint32_t i = 0; i < devices.GetN(); ++i)
    {
        Ptr<TrafficControlLayer> tc =
            devices.Get(i)->GetNode()->GetObject<TrafficControlLayer>();
        NS_ABORT_MSG_IF(tc && tc->GetRootQueueDiscOnDevice(devices.Get(i)),
                        "a queue disc is still installed");
    }
}

/// TCP settings shared with the wired benchmark (bench/ns3/p2p_tcp.cc).
inline void
ConfigureTcp(const std::string& recovery, uint32_t buf)
{
    Config::SetDefault("ns3::TcpL4Protocol::SocketType", TypeIdValue(TcpNewReno::GetTypeId()));
    Config::SetDefault("ns3::TcpSocketBase::Sack", BooleanValue(true));
    Config::SetDefault("ns3::TcpSocketBase::Timestamp", BooleanValue(true));
    Config::SetDefault("ns3::TcpSocket::DelAckCount", UintegerValue(2));
    Config::SetDefault("ns3::TcpSocket::DelAckTimeout", TimeValue(MilliSeconds(200)));
    Config::SetDefault("ns3::TcpSocket::InitialCwnd", UintegerValue(10));
    Config::SetDefault("ns3::TcpSocket::SegmentSize", UintegerValue(1000));
    Config::SetDefault("ns3::TcpSocket::SndBufSize", UintegerValue(buf));
    Config::SetDefault("ns3::TcpSocket::RcvBufSize", UintegerValue(buf));
    if (recovery == "classic")
    {
        Config::SetDefault("ns3::TcpL4Protocol::RecoveryType",
                           TypeIdValue(TcpClassicRecovery::GetTypeId()));
    }
    else if (recovery == "prr")
    {
        Config::SetDefault("ns3::TcpL4Protocol::RecoveryType",
                           TypeIdValue(TcpPrrRecovery::GetTypeId()));
    }
    else
    {
        NS_FATAL_ERROR("unknown recovery " << recovery << " (classic|prr)");
    }
}

/**
 * The channel access function data frames go through: the DCF's Txop of a non-QoS MAC
 * (802.11b/a), AC_BE's QosTxop of a QoS MAC (802.11n: every frame these programs send is TID 0,
 * which maps to AC_BE).
 */
inline Ptr<Txop>
MainTxop(Ptr<WifiMac> mac)
{
    Ptr<Txop> txop = mac->GetTxop();
    return txop ? txop : StaticCast<Txop>(mac->GetQosTxop(AC_BE));
}

// ------------------------------------------------------------------------------------------
// Counters fed by trace sources

struct FrameKind
{
    uint64_t count = 0;
    int64_t durationNs = 0; // airtime of one such frame (PSDU of this size, mode and preamble)
};

struct WifiCounters
{
    // Frames started by a PHY, keyed by "TYPE size mode preamble".
    std::map<std::string, FrameKind> txFrames;
    uint64_t txTotal = 0;
    uint64_t txRetryFlag = 0;   // data/management frames sent with the Retry bit set
    uint64_t txAirtimeNs = 0;   // sum of the airtime of every frame started
    uint64_t rxOk = 0;          // PSDUs received without error (PhyRxEnd), any destination
    std::map<std::string, uint64_t> rxDrops; // PhyRxDrop by reason
    std::map<std::string, uint64_t> macDrops; // WifiMac DroppedMpdu by reason
    uint64_t dataFailed = 0;      // MacTxDataFailed: a data frame was not acknowledged
    uint64_t dataFinalFailed = 0; // MacTxFinalDataFailed: given up after the retry limit
    uint64_t rtsFailed = 0;       // MacTxRtsFailed: no CTS after an RTS
    uint64_t rtsFinalFailed = 0;  // MacTxFinalRtsFailed
    uint64_t tcDrops = 0;         // dropped by the traffic-control layer (device queue stopped)
    uint32_t macQueuePeak = 0;    // largest WifiMacQueue backlog of any node (MPDUs)
};

inline WifiCounters g_wifi;

inline std::string
PreambleName(WifiPreamble p)
{
    std::ostringstream os;
    os << p;
    return os.str();
}

inline void
OnPsduTxBegin(WifiConstPsduMap psdus, WifiTxVector txVector, double /* txPowerW */)
{
    for (const auto& [staId, psdu] : psdus)
    {
        const WifiMacHeader& hdr = psdu->GetHeader(0);
        uint32_t size = psdu->GetSize();
        Time d = WifiPhy::CalculateTxDuration(size, txVector, g_band);
        std::ostringstream key;
        key << hdr.GetTypeString() << ' ' << size << ' ' << txVector.GetMode().GetUniqueName()
            << ' ' << PreambleName(txVector.GetPreambleType());
        FrameKind& kind = g_wifi.txFrames[key.str()];
        ++kind.count;
        kind.durationNs = d.GetNanoSeconds();
        ++g_wifi.txTotal;
        g_wifi.txAirtimeNs += d.GetNanoSeconds();
        if ((hdr.IsData() || hdr.IsMgt()) && hdr.IsRetry())
        {
            ++g_wifi.txRetryFlag;
        }
    }
}

inline void
OnRxEnd(Ptr<const Packet>)
{
    ++g_wifi.rxOk;
}

inline void
OnRxDrop(Ptr<const Packet>, WifiPhyRxfailureReason reason)
{
    std::ostringstream os;
    os << reason;
    ++g_wifi.rxDrops[os.str()];
}

inline void
OnMacDrop(WifiMacDropReason reason, Ptr<const WifiMpdu>)
{
    static const char* names[] = {"failed_enqueue", "expired_lifetime", "reached_retry_limit",
                                  "qos_old_packet"};
    ++g_wifi.macDrops[reason < 4 ? names[reason] : "other"];
}

inline void
OnDataFailed(Mac48Address)
{
    ++g_wifi.dataFailed;
}

inline void
OnDataFinalFailed(Mac48Address)
{
    ++g_wifi.dataFinalFailed;
}

inline void
OnRtsFailed(Mac48Address)
{
    ++g_wifi.rtsFailed;
}

inline void
OnRtsFinalFailed(Mac48Address)
{
    ++g_wifi.rtsFinalFailed;
}

inline void
OnTcDrop(Ptr<const Packet>)
{
    ++g_wifi.tcDrops;
}

inline void
OnMacQueueLen(uint32_t, uint32_t now)
{
    g_wifi.macQueuePeak = std::max(g_wifi.macQueuePeak, now);
}

/// Connects every counter; a misspelt trace source fails silently, so each one is checked.
inline void
HookWifiCounters(const NetDeviceContainer& devices)
{
    bool ok = true;
    for (uint32_t i = 0; i < devices.GetN(); ++i)
    {
        Ptr<WifiNetDevice> dev = DynamicCast<WifiNetDevice>(devices.Get(i));
        Ptr<WifiPhy> phy = dev->GetPhy();
        Ptr<WifiMac> mac = dev->GetMac();
        Ptr<WifiRemoteStationManager> rsm = dev->GetRemoteStationManager();
        ok &= phy->TraceConnectWithoutContext("PhyTxPsduBegin", MakeCallback(&OnPsduTxBegin));
        ok &= phy->TraceConnectWithoutContext("PhyRxEnd", MakeCallback(&OnRxEnd));
        ok &= phy->TraceConnectWithoutContext("PhyRxDrop", MakeCallback(&OnRxDrop));
        ok &= mac->TraceConnectWithoutContext("DroppedMpdu", MakeCallback(&OnMacDrop));
        ok &= rsm->TraceConnectWithoutContext("MacTxDataFailed", MakeCallback(&OnDataFailed));
        ok &= rsm->TraceConnectWithoutContext("MacTxFinalDataFailed",
                                              MakeCallback(&OnDataFinalFailed));
        ok &= rsm->TraceConnectWithoutContext("MacTxRtsFailed", MakeCallback(&OnRtsFailed));
        ok &= rsm->TraceConnectWithoutContext("MacTxFinalRtsFailed",
                                              MakeCallback(&OnRtsFinalFailed));
        ok &= MainTxop(mac)->GetWifiMacQueue()->TraceConnectWithoutContext(
            "PacketsInQueue",
            MakeCallback(&OnMacQueueLen));
        Ptr<TrafficControlLayer> tc = dev->GetNode()->GetObject<TrafficControlLayer>();
        if (tc)
        {
            ok &= tc->TraceConnectWithoutContext("TcDrop", MakeCallback(&OnTcDrop));
        }
    }
    NS_ABORT_MSG_IF(!ok, "a wifi trace source could not be connected");
}

inline std::string
WifiCountersJson()
{
    Json frames;
    for (const auto& [key, kind] : g_wifi.txFrames)
    {
        frames.Raw(key, Json().Int("count", kind.count).Int("airtime_ns", kind.durationNs).Text());
    }
    Json j;
    j.Int("frames_tx", g_wifi.txTotal)
        .Int("frames_tx_retry_flag", g_wifi.txRetryFlag)
        .Num("airtime_tx_s", g_wifi.txAirtimeNs * 1e-9)
        .Int("frames_rx_ok", g_wifi.rxOk)
        .Int("mac_data_failed", g_wifi.dataFailed)
        .Int("mac_data_final_failed", g_wifi.dataFinalFailed)
        .Int("mac_rts_failed", g_wifi.rtsFailed)
        .Int("mac_rts_final_failed", g_wifi.rtsFinalFailed)
        .Raw("mac_drops", CountsObject(g_wifi.macDrops))
        .Raw("phy_rx_drops", CountsObject(g_wifi.rxDrops))
        .Int("tc_drops", g_wifi.tcDrops)
        .Int("mac_queue_peak", g_wifi.macQueuePeak)
        .Raw("frame_kinds", frames.Text());
    return j.Text();
}

// ------------------------------------------------------------------------------------------
// Attribute values ns-3 actually runs with

/**
 * Every readable attribute of `obj` (its class and all parents) as strings. Pointer-valued
 * attributes are followed to `depth` further levels, so the models hanging off the PHY
 * (channel, propagation, preamble detection) appear too. Attributes without a getter are listed
 * under "set_only_defaults" with their TypeId default.
 */
inline std::string
AttributesJson(Ptr<Object> obj, int depth, std::set<const Object*>& seen)
{
    Json j;
    if (!obj)
    {
        return "null";
    }
    j.Str("type", obj->GetInstanceTypeId().GetName());
    if (seen.count(PeekPointer(obj)))
    {
        return j.Text();
    }
    seen.insert(PeekPointer(obj));
    Json setOnly;
    for (TypeId tid = obj->GetInstanceTypeId();; tid = tid.GetParent())
    {
        for (std::size_t i = 0; i < tid.GetAttributeN(); ++i)
        {
            TypeId::AttributeInformation info = tid.GetAttribute(i);
            if (!(info.flags & TypeId::ATTR_GET) ||
                info.supportLevel == TypeId::SupportLevel::OBSOLETE)
            {
                continue;
            }
            std::string valueType = info.checker->GetValueTypeName();
            if (valueType == "ns3::PointerValue")
            {
                PointerValue pv;
                if (obj->GetAttributeFailSafe(info.name, pv))
                {
                    Ptr<Object> target = pv.Get<Object>();
                    j.Raw(info.name,
                          depth > 0 ? AttributesJson(target, depth - 1, seen)
                                    : (target ? Quote(target->GetInstanceTypeId().GetName())
                                              : "null"));
                }
                continue;
            }
            if (valueType == "ns3::ObjectPtrContainerValue" ||
                valueType == "ns3::CallbackValue")
            {
                continue;
            }
            StringValue sv;
            if (obj->GetAttributeFailSafe(info.name, sv))
            {
                j.Str(info.name, sv.Get());
            }
            else if (info.initialValue)
            {
                // Set-only attributes (no getter, e.g. WifiMacQueue::MaxDelay) cannot be read
                // back; their TypeId default is recorded instead, flagged as such.
                setOnly.Str(info.name, info.initialValue->SerializeToString(info.checker));
            }
        }
        if (tid == Object::GetTypeId() || tid.GetParent() == tid)
        {
            break;
        }
    }
    if (setOnly.Text() != "{}")
    {
        j.Raw("set_only_defaults", setOnly.Text());
    }
    return j.Text();
}

inline std::string
AttributesJson(Ptr<Object> obj, int depth = 1)
{
    std::set<const Object*> seen;
    return AttributesJson(obj, depth, seen);
}

inline std::string
BasicModesJson(Ptr<WifiRemoteStationManager> rsm)
{
    std::vector<std::string> names;
    for (uint8_t i = 0; i < rsm->GetNBasicModes(); ++i)
    {
        names.push_back(Quote(rsm->GetBasicMode(i).GetUniqueName()));
    }
    return Array(names);
}

inline double
Us(Time t)
{
    return t.GetNanoSeconds() / 1000.0;
}

/// The frames these cases send, by name and PSDU size.
inline const std::vector<std::pair<std::string, uint32_t>>&
BenchFrames()
{
    static const std::vector<std::pair<std::string, uint32_t>> frames = {
        {"ack_14B", 14},
        {"rts_20B", 20},
        {"cts_14B", 14},
        {"tcp_ack_88B", 88},
        {"udp_1000_1064B", 1064},
        {"tcp_1000_1088B", 1088},
    };
    return frames;
}

/// Airtime of the frames these cases send, per rate of `modes` (long preamble; for OFDM the
/// only preamble there is).
inline std::string
DurationsJson(const std::vector<std::string>& modes, MHz_u width, WifiPhyBand band)
{
    Json durations;
    for (const auto& modeName : modes)
    {
        WifiTxVector tv;
        tv.SetMode(WifiMode(modeName));
        tv.SetPreambleType(WIFI_PREAMBLE_LONG);
        tv.SetChannelWidth(width);
        Json row;
        row.Num("preamble_and_header_us", Us(WifiPhy::CalculatePhyPreambleAndHeaderDuration(tv)));
        for (const auto& [name, size] : BenchFrames())
        {
            row.Num(name + "_us", Us(WifiPhy::CalculateTxDuration(size, tv, band)));
        }
        durations.Raw(modeName, row.Text());
    }
    return durations.Text();
}

/// Error rate of a whole PSDU of each size received at each SINR, per rate of `modes`.
inline std::string
PsduErrorRatesJson(Ptr<ErrorRateModel> erm,
                   const std::vector<std::string>& modes,
                   MHz_u width,
                   const std::vector<double>& sinrsDb)
{
    Json per;
    for (double sinrDb : sinrsDb)
    {
        Json row;
        for (const auto& modeName : modes)
        {
            WifiMode mode(modeName);
            WifiTxVector tv;
            tv.SetMode(mode);
            tv.SetPreambleType(WIFI_PREAMBLE_LONG);
            tv.SetChannelWidth(width);
            double sinr = std::pow(10.0, sinrDb / 10.0);
            Json sizes;
            for (uint32_t bytes : {14u, 88u, 1064u, 1088u})
            {
                sizes.Num(std::to_string(bytes) + "B",
                          1.0 - erm->GetChunkSuccessRate(mode, tv, sinr, 8ull * bytes));
            }
            row.Raw(modeName, sizes.Text());
        }
        std::ostringstream key;
        key << "sinr_" << sinrDb << "dB";
        per.Raw(key.str(), row.Text());
    }
    return per.Text();
}

/**
 * The DCF timing and the frame durations of node `dev` as ns-3 computes them, plus the success
 * rates ns-3's PHY assigns to overlapping frames of equal power (see the README: frames that
 * overlap at the same power are not necessarily lost in ns-3's 802.11b model). For 802.11a the
 * tables cover the eight OFDM rates instead of the four DSSS/HR-DSSS ones, and EIFS and the ACK
 * timeout are added.
 */
inline std::string
DcfJson(Ptr<WifiNetDevice> dev)
{
    Ptr<WifiPhy> phy = dev->GetPhy();
    Ptr<WifiMac> mac = dev->GetMac();
    Ptr<Txop> txop = MainTxop(mac);
    Time sifs = phy->GetSifs();
    Time slot = phy->GetSlot();
    uint32_t aifsn = txop->GetAifsn();
    // 802.11n at 5 GHz answers and manages at OFDM rates, so its tables are 802.11a's (the HT
    // figures are wifi_ht.cc's own).
    const bool ofdm = phy->GetStandard() == WIFI_STANDARD_80211a ||
                      phy->GetStandard() == WIFI_STANDARD_80211n;
    Json j;
    j.Num("sifs_us", Us(sifs))
        .Num("slot_us", Us(slot))
        .Num("pifs_us", Us(phy->GetPifs()))
        .Int("aifsn", aifsn)
        .Num("difs_us", Us(sifs + aifsn * slot))
        .Int("cw_min", txop->GetMinCw())
        .Int("cw_max", txop->GetMaxCw())
        .Num("txop_limit_us", Us(txop->GetTxopLimit()))
        .Int("frame_retry_limit", mac->GetFrameRetryLimit())
        .Num("ack_tx_time_us", Us(phy->GetAckTxTime()))
        .Bool("qos_supported", mac->GetQosSupported())
        .Raw("basic_rate_set", BasicModesJson(dev->GetRemoteStationManager()))
        .Int("mac_queue_max_packets", txop->GetWifiMacQueue()->GetMaxSize().GetValue())
        .Num("mac_queue_max_delay_ms",
             txop->GetWifiMacQueue()->GetMaxDelay().GetNanoSeconds() / 1e6);

    // Error rate of a whole PSDU received at a given SINR, from the error model this PHY uses
    // (802.11b: the helper's default, which for DSSS rates ends in ns-3's DSSS error model;
    // 802.11a: NistErrorRateModel, set explicitly).
    PointerValue ihValue;
    phy->GetAttribute("InterferenceHelper", ihValue);
    Ptr<InterferenceHelper> ih = ihValue.Get<InterferenceHelper>();
    NS_ABORT_MSG_IF(!ih || !ih->GetErrorRateModel(), "the PHY has no error rate model");
    Ptr<ErrorRateModel> erm = ih->GetErrorRateModel();

    if (ofdm)
    {
        // EIFS replaces DIFS after a frame received in error: SIFS + the ACK at the lowest rate
        // (WifiPhy::GetAckTxTime) + DIFS. The ACK timeout runs from the end of the data frame:
        // SIFS + slot + the PHY preamble and header of the ACK.
        WifiTxVector ackTv;
        ackTv.SetMode(WifiMode("OfdmRate6Mbps"));
        ackTv.SetPreambleType(WIFI_PREAMBLE_LONG);
        ackTv.SetChannelWidth(MHz_u{20});
        j.Num("eifs_us", Us(sifs + phy->GetAckTxTime() + sifs + aifsn * slot))
            .Num("ack_timeout_us",
                 Us(sifs + slot + WifiPhy::CalculatePhyPreambleAndHeaderDuration(ackTv)));
        const std::vector<std::string> modes = {"OfdmRate6Mbps",
                                                "OfdmRate9Mbps",
                                                "OfdmRate12Mbps",
                                                "OfdmRate18Mbps",
                                                "OfdmRate24Mbps",
                                                "OfdmRate36Mbps",
                                                "OfdmRate48Mbps",
                                                "OfdmRate54Mbps"};
        j.Raw("durations_ofdm", DurationsJson(modes, MHz_u{20}, WIFI_PHY_BAND_5GHZ));
        j.Raw("error_rate_model", AttributesJson(erm, 1));
        j.Raw("psdu_error_rate_at_sinr",
              PsduErrorRatesJson(erm,
                                 modes,
                                 MHz_u{20},
                                 {0.0, 3.0, 6.0, 10.0, 15.0, 20.0, 25.0}));
        return j.Text();
    }

    // Airtime of the frames these cases send, long preamble, per DSSS rate.
    const std::vector<std::string> modes = {"DsssRate1Mbps",
                                            "DsssRate2Mbps",
                                            "DsssRate5_5Mbps",
                                            "DsssRate11Mbps"};
    j.Raw("durations_long_preamble", DurationsJson(modes, MHz_u{22}, WIFI_PHY_BAND_2_4GHZ));
    j.Raw("error_rate_model", AttributesJson(erm, 1));
    j.Raw("psdu_error_rate_at_sinr",
          PsduErrorRatesJson(erm, modes, MHz_u{22}, {-3.0, 0.0, 3.0, 6.0}));
    return j.Text();
}

/// The whole parameter record of one device: attributes of every object that shapes the DCF.
inline std::string
ParamsJson(Ptr<WifiNetDevice> dev)
{
    Ptr<WifiMac> mac = dev->GetMac();
    Ptr<Node> node = dev->GetNode();
    Json j;
    j.Raw("dcf", DcfJson(dev))
        .Raw("device", AttributesJson(dev, 0))
        .Raw("phy", AttributesJson(dev->GetPhy(), 2))
        .Raw("channel", AttributesJson(dev->GetChannel(), 1))
        .Raw("mac", AttributesJson(mac, 0))
        .Raw("txop", AttributesJson(MainTxop(mac), 0))
        .Raw("mac_queue", AttributesJson(MainTxop(mac)->GetWifiMacQueue(), 0))
        .Raw("mac_queue_scheduler", AttributesJson(mac->GetMacQueueScheduler(), 0))
        .Raw("frame_exchange_manager", AttributesJson(mac->GetFrameExchangeManager(), 0))
        .Raw("channel_access_manager", AttributesJson(mac->GetChannelAccessManager(), 0))
        .Raw("station_manager", AttributesJson(dev->GetRemoteStationManager(), 0));
    Ptr<Ipv4L3Protocol> ip = node->GetObject<Ipv4L3Protocol>();
    if (ip)
    {
        int32_t ifIndex = ip->GetInterfaceForDevice(dev);
        if (ifIndex >= 0)
        {
            j.Raw("arp_cache", AttributesJson(ip->GetInterface(ifIndex)->GetArpCache(), 0));
        }
        j.Raw("arp_l3", AttributesJson(node->GetObject<ArpL3Protocol>(), 0));
        j.Raw("ipv4", AttributesJson(ip, 0));
    }
    return j.Text();
}

// ------------------------------------------------------------------------------------------
// Process figures

inline int64_t
PeakRssKiB()
{
    struct rusage ru{};
    getrusage(RUSAGE_SELF, &ru);
    return ru.ru_maxrss; // kilobytes on Linux
}

/// Runs the simulation; returns the wall time of Simulator::Run() in seconds.
inline double
TimedRun()
{
    auto t0 = std::chrono::steady_clock::now();
    Simulator::Run();
    auto t1 = std::chrono::steady_clock::now();
    return std::chrono::duration<double>(t1 - t0).count();
}

} // namespace wifibench

#endif
