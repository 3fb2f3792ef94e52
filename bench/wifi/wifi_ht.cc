// 802.11n (HT) reference program: nodes on a line at 5 GHz in a 20 MHz channel, one spatial
// stream, HT MCS 0-7 at a constant rate, with or without A-MPDU aggregation (and so with or
// without a Block Ack agreement), carrying either one saturated UDP flow over one hop or one bulk
// TCP flow along the line. Prints one JSON line: the flow's throughput, per link the PPDUs and
// MPDUs sent (MPDUs per PPDU, retransmissions, Block Ack outcomes), the control frames, the
// Block Ack agreements and the HT figures ns-3 runs with. --manager=minstrelht replaces the
// constant MCS with ns-3's MinstrelHtWifiManager at its defaults (the output then gives each
// link's MPDUs per data rate, "mpdus_by_rate_mbps"). With --trace=FILE it also writes every
// PPDU of a time window: the MPDUs it carries (sequence numbers, Retry bit), each Block Ack's
// starting sequence number and bitmap, each BlockAckReq, each ADDBA frame. --amsdu=N sets
// BE_MaxAmsduSize (0, ns-3's default: no A-MSDUs): each MPDU ns-3 builds first becomes an A-MSDU
// of as many MSDUs as fit (MsduAggregator::GetNextAmsdu); each link then also counts the MPDUs
// carrying an A-MSDU and their MSDUs ("amsdus", "amsdu_msdus").
// bench/wifi/README.md ("802.11n (ns-3 side)") describes the cases.
//
// Usage: wifi_ht [--mcs=0..7] [--manager=constant|minstrelht] [--sgi=0|1] [--agg=0|1]
//                [--amsdu=BYTES] [--traffic=udp|tcp] [--hops=N]
//                [--distance=M] [--payload=1472] [--offered=2] [--warmup=1] [--duration=S]
//                [--start=1] [--recovery=prr|classic] [--segment=BYTES] [--seed=N]
//                [--trace=FILE --trace-from=S --trace-to=S] [--params=1]
//
// UDP (--hops=1): node 0 sends to node 1 from t = 0; throughput = UDP payload received in
// [warmup, warmup + duration) x 8 / duration. TCP: node 0 sends to node N from --start to
// --duration along static host routes 0-1-...-N; goodput = bytes received x 8 / (duration -
// start). Counters cover [warmup, warmup + duration) for UDP and the whole run for TCP.

#include "wifi_common.h"

#include <fstream>

using namespace ns3;
using namespace wifibench;

namespace
{

// ------------------------------------------------------------------------------------------
// Per-link counters of data PPDUs (QoS data PSDUs: one MPDU, or an A-MPDU of several)

struct LinkCounters
{
    uint64_t ppdus = 0;              // data PPDUs started
    uint64_t mpdus = 0;              // MPDUs in them
    uint64_t mpdusRetry = 0;         // of which with the Retry bit set (retransmissions)
    uint64_t ampdus = 0;             // PPDUs carrying an A-MPDU of two or more MPDUs
    uint64_t airtimeNs = 0;          // airtime of the data PPDUs
    std::map<uint32_t, uint64_t> mpdusPerPpdu; // histogram: MPDUs in a data PPDU -> PPDUs
    std::map<uint64_t, uint64_t> mpdusByRate;  // data rate (bit/s) -> MPDUs sent at it
    uint64_t acked = 0;              // AckedMpdu (by Ack or Block Ack)
    uint64_t nacked = 0;             // NAckedMpdu (missing in a Block Ack's bitmap)
    uint64_t payloadBytesMpdu = 0;   // bytes of the MPDUs (header, body, FCS), no delimiters
    uint64_t amsdus = 0;             // MPDUs sent that carry an A-MSDU (--amsdu)
    uint64_t amsduMsdus = 0;         // MSDUs in them
};

std::map<Mac48Address, uint32_t> g_nodeOf;
std::map<std::pair<uint32_t, uint32_t>, LinkCounters> g_links;
std::map<std::string, uint64_t> g_ctrl;        // control and management frames by kind
std::map<std::string, uint64_t> g_timeouts;    // PSDU response timeouts by kind of PSDU
std::vector<std::string> g_agreements;         // Block Ack agreements established (JSON)
bool g_counting = false;
bool g_rateMix = false; // output each link's MPDUs per data rate (under a rate manager)
uint64_t g_windowBytes = 0;
uint64_t g_windowPackets = 0;

int64_t
NodeOf(Mac48Address a)
{
    auto it = g_nodeOf.find(a);
    return it == g_nodeOf.end() ? -1 : int64_t(it->second);
}

/// "ADDBA_REQ", "ADDBA_RESP", "DELBA" or "ACTION" for an action frame.
std::string
ActionName(Ptr<const WifiMpdu> mpdu)
{
    Ptr<Packet> p = mpdu->GetPacket()->Copy();
    WifiActionHeader action;
    p->RemoveHeader(action);
    if (action.GetCategory() == WifiActionHeader::BLOCK_ACK)
    {
        switch (action.GetAction().blockAck)
        {
        case WifiActionHeader::BLOCK_ACK_ADDBA_REQUEST:
            return "ADDBA_REQ";
        case WifiActionHeader::BLOCK_ACK_ADDBA_RESPONSE:
            return "ADDBA_RESP";
        case WifiActionHeader::BLOCK_ACK_DELBA:
            return "DELBA";
        default:
            break;
        }
    }
    return "ACTION";
}

/// The kind of a non-data PSDU: ACK, BA, BAR, ADDBA_REQ, ... (with its size and mode).
std::string
ControlKind(Ptr<const WifiPsdu> psdu, const WifiTxVector& txVector)
{
    const WifiMacHeader& hdr = psdu->GetHeader(0);
    std::string kind;
    if (hdr.IsAck())
    {
        kind = "ACK";
    }
    else if (hdr.IsBlockAck())
    {
        kind = "BA";
    }
    else if (hdr.IsBlockAckReq())
    {
        kind = "BAR";
    }
    else if (hdr.IsAction())
    {
        kind = ActionName(*psdu->begin());
    }
    else
    {
        kind = hdr.GetTypeString();
    }
    std::ostringstream os;
    os << kind << ' ' << psdu->GetSize() << ' ' << txVector.GetMode().GetUniqueName();
    return os.str();
}

// ------------------------------------------------------------------------------------------
// The trace of one time window

std::ofstream g_trace;
double g_traceFrom = 0.0;
double g_traceTo = 0.0;

bool
Tracing()
{
    const double now = Simulator::Now().GetSeconds();
    return g_trace.is_open() && now >= g_traceFrom && now < g_traceTo;
}

/// MSDUs in an MPDU carrying an A-MSDU; 0 for an MPDU of one MSDU.
uint32_t
AmsduMsdus(Ptr<const WifiMpdu> mpdu)
{
    return mpdu->GetHeader().IsQosData() && mpdu->GetHeader().IsQosAmsdu()
               ? static_cast<uint32_t>(std::distance(mpdu->begin(), mpdu->end()))
               : 0;
}

/// Sequence numbers carried by a data PSDU, "s" or "sR" (Retry bit set), comma-separated; an
/// MPDU carrying an A-MSDU of K MSDUs adds "xK" ("12x5", "12Rx5").
std::string
SeqList(Ptr<const WifiPsdu> psdu)
{
    std::ostringstream os;
    bool first = true;
    for (auto it = psdu->begin(); it != psdu->end(); ++it)
    {
        const WifiMacHeader& h = (*it)->GetHeader();
        os << (first ? "" : ",") << h.GetSequenceNumber() << (h.IsRetry() ? "R" : "");
        if (const uint32_t k = AmsduMsdus(*it); k > 0)
        {
            os << 'x' << k;
        }
        first = false;
    }
    return os.str();
}

/// A Block Ack's bitmap as the sequence numbers it acknowledges, from its starting one.
std::string
BlockAckText(Ptr<const WifiPsdu> psdu)
{
    CtrlBAckResponseHeader ba;
    psdu->GetPayload(0)->PeekHeader(ba);
    const uint16_t ssn = ba.GetStartingSequence();
    const uint16_t window = ba.GetBitmap().size() * 8;
    std::ostringstream os;
    os << "ssn=" << ssn << " window=" << window << " acked=";
    bool first = true;
    uint32_t runStart = 0;
    bool inRun = false;
    auto flush = [&](uint32_t end) {
        // a run of acknowledged offsets [runStart, end) written as sequence numbers
        os << (first ? "" : ",") << (ssn + runStart) % 4096;
        if (end - runStart > 1)
        {
            os << "-" << (ssn + end - 1) % 4096;
        }
        first = false;
    };
    for (uint32_t i = 0; i < window; ++i)
    {
        const bool got = ba.IsPacketReceived((ssn + i) % 4096);
        if (got && !inRun)
        {
            runStart = i;
            inRun = true;
        }
        else if (!got && inRun)
        {
            flush(i);
            inRun = false;
        }
    }
    if (inRun)
    {
        flush(window);
    }
    if (first)
    {
        os << "none";
    }
    return os.str();
}

std::string
BarText(Ptr<const WifiPsdu> psdu)
{
    CtrlBAckRequestHeader bar;
    psdu->GetPayload(0)->PeekHeader(bar);
    std::ostringstream os;
    os << "ssn=" << bar.GetStartingSequence();
    return os.str();
}

// ------------------------------------------------------------------------------------------
// Trace sinks

void
OnPpdu(uint32_t node, WifiConstPsduMap psdus, WifiTxVector txVector, double)
{
    for (const auto& [staId, psdu] : psdus)
    {
        const WifiMacHeader& hdr = psdu->GetHeader(0);
        const Time d = WifiPhy::CalculateTxDuration(psdu, txVector, g_band);
        const int64_t to = NodeOf(hdr.GetAddr1());
        const bool data = hdr.IsQosData() || hdr.IsData();
        if (data && g_counting)
        {
            LinkCounters& link = g_links[{node, static_cast<uint32_t>(to)}];
            const uint32_t n = psdu->GetNMpdus();
            ++link.ppdus;
            link.mpdus += n;
            link.airtimeNs += d.GetNanoSeconds();
            ++link.mpdusPerPpdu[n];
            link.mpdusByRate[txVector.GetMode().GetDataRate(txVector)] += n;
            if (n > 1)
            {
                ++link.ampdus;
            }
            for (auto it = psdu->begin(); it != psdu->end(); ++it)
            {
                link.mpdusRetry += (*it)->GetHeader().IsRetry() ? 1 : 0;
                link.payloadBytesMpdu += (*it)->GetSize();
                if (const uint32_t k = AmsduMsdus(*it); k > 0)
                {
                    ++link.amsdus;
                    link.amsduMsdus += k;
                }
            }
        }
        else if (!data)
        {
            ++g_ctrl[ControlKind(psdu, txVector)];
        }
        if (!Tracing())
        {
            continue;
        }
        g_trace << Simulator::Now().GetNanoSeconds() << ' ' << node << " tx ";
        if (data)
        {
            g_trace << (psdu->GetNMpdus() > 1 ? "AMPDU" : "MPDU") << " to=" << to
                    << " dur_ns=" << d.GetNanoSeconds() << " bytes=" << psdu->GetSize()
                    << " n=" << psdu->GetNMpdus() << " ack="
                    << (hdr.IsQosData() ? int(psdu->GetAckPolicyForTid(hdr.GetQosTid())) : -1)
                    << " seq=" << SeqList(psdu);
        }
        else if (hdr.IsBlockAck())
        {
            g_trace << "BA to=" << to << " dur_ns=" << d.GetNanoSeconds() << ' '
                    << BlockAckText(psdu);
        }
        else if (hdr.IsBlockAckReq())
        {
            g_trace << "BAR to=" << to << " dur_ns=" << d.GetNanoSeconds() << ' ' << BarText(psdu)
                    << (hdr.IsRetry() ? " retry" : "");
        }
        else
        {
            std::string kind = ControlKind(psdu, txVector);
            g_trace << kind.substr(0, kind.find(' ')) << " to=" << to
                    << " dur_ns=" << d.GetNanoSeconds();
        }
        g_trace << " mode=" << txVector.GetMode().GetUniqueName() << '\n';
    }
}

void
OnAcked(uint32_t node, Ptr<const WifiMpdu> mpdu)
{
    if (g_counting && mpdu->GetHeader().IsQosData())
    {
        ++g_links[{node, static_cast<uint32_t>(NodeOf(mpdu->GetHeader().GetAddr1()))}].acked;
    }
}

void
OnNacked(uint32_t node, Ptr<const WifiMpdu> mpdu)
{
    if (g_counting && mpdu->GetHeader().IsQosData())
    {
        ++g_links[{node, static_cast<uint32_t>(NodeOf(mpdu->GetHeader().GetAddr1()))}].nacked;
    }
    if (Tracing())
    {
        g_trace << Simulator::Now().GetNanoSeconds() << ' ' << node << " nacked seq="
                << mpdu->GetHeader().GetSequenceNumber() << '\n';
    }
}

std::string
ReasonName(uint8_t reason)
{
    switch (reason)
    {
    case WifiTxTimer::WAIT_CTS:
        return "no_cts";
    case WifiTxTimer::WAIT_NORMAL_ACK:
        return "no_ack";
    case WifiTxTimer::WAIT_BLOCK_ACK:
        return "no_block_ack";
    default:
        return "reason_" + std::to_string(reason);
    }
}

void
OnPsduTimeout(uint32_t node, uint8_t reason, Ptr<const WifiPsdu> psdu, const WifiTxVector&)
{
    const WifiMacHeader& hdr = psdu->GetHeader(0);
    std::string kind = hdr.IsBlockAckReq() ? "BAR"
                       : hdr.IsQosData()   ? (psdu->GetNMpdus() > 1 ? "AMPDU" : "MPDU")
                                           : hdr.GetTypeString();
    std::ostringstream key;
    key << kind << " " << ReasonName(reason);
    ++g_timeouts[key.str()];
    if (Tracing())
    {
        g_trace << Simulator::Now().GetNanoSeconds() << ' ' << node << " timeout " << kind << ' '
                << ReasonName(reason) << '\n';
    }
}

void
OnMpduTimeout(uint32_t node, uint8_t reason, Ptr<const WifiMpdu> mpdu, const WifiTxVector&)
{
    const WifiMacHeader& hdr = mpdu->GetHeader();
    std::string kind = hdr.IsQosData()  ? "MPDU"
                       : hdr.IsAction() ? ActionName(mpdu)
                                        : hdr.GetTypeString();
    std::ostringstream key;
    key << kind << " " << ReasonName(reason);
    ++g_timeouts[key.str()];
    if (Tracing())
    {
        g_trace << Simulator::Now().GetNanoSeconds() << ' ' << node << " timeout " << kind << ' '
                << ReasonName(reason) << " seq=" << hdr.GetSequenceNumber() << '\n';
    }
}

void
OnBaEstablished(uint32_t node, Mac48Address recipient, uint8_t tid, std::optional<Mac48Address>)
{
    g_agreements.push_back(Json()
                               .Int("originator", node)
                               .Int("recipient", NodeOf(recipient))
                               .Int("tid", tid)
                               .Num("t_s", Simulator::Now().GetSeconds())
                               .Text());
    if (g_trace.is_open())
    {
        g_trace << Simulator::Now().GetNanoSeconds() << ' ' << node
                << " ba_established recipient=" << NodeOf(recipient) << " tid=" << int(tid)
                << '\n';
    }
}

void
OnRxDropTrace(uint32_t node, Ptr<const Packet>, WifiPhyRxfailureReason reason)
{
    if (Tracing())
    {
        g_trace << Simulator::Now().GetNanoSeconds() << ' ' << node << " rx_drop " << reason
                << '\n';
    }
}

void
OnMacDropTrace(uint32_t node, WifiMacDropReason reason, Ptr<const WifiMpdu> mpdu)
{
    if (Tracing())
    {
        g_trace << Simulator::Now().GetNanoSeconds() << ' ' << node << " mac_drop "
                << int(reason) << " seq=" << mpdu->GetHeader().GetSequenceNumber() << '\n';
    }
}

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

void
HookHt(const NetDeviceContainer& devices)
{
    bool ok = true;
    for (uint32_t i = 0; i < devices.GetN(); ++i)
    {
        Ptr<WifiNetDevice> dev = DynamicCast<WifiNetDevice>(devices.Get(i));
        g_nodeOf[Mac48Address::ConvertFrom(dev->GetAddress())] = i;
        Ptr<WifiMac> mac = dev->GetMac();
        ok &= dev->GetPhy()->TraceConnectWithoutContext("PhyTxPsduBegin",
                                                        MakeBoundCallback(&OnPpdu, i));
        ok &= dev->GetPhy()->TraceConnectWithoutContext("PhyRxDrop",
                                                        MakeBoundCallback(&OnRxDropTrace, i));
        ok &= mac->TraceConnectWithoutContext("AckedMpdu", MakeBoundCallback(&OnAcked, i));
        ok &= mac->TraceConnectWithoutContext("NAckedMpdu", MakeBoundCallback(&OnNacked, i));
        ok &= mac->TraceConnectWithoutContext("DroppedMpdu",
                                              MakeBoundCallback(&OnMacDropTrace, i));
        ok &= mac->TraceConnectWithoutContext("PsduResponseTimeout",
                                              MakeBoundCallback(&OnPsduTimeout, i));
        ok &= mac->TraceConnectWithoutContext("MpduResponseTimeout",
                                              MakeBoundCallback(&OnMpduTimeout, i));
        ok &= mac->GetQosTxop(AC_BE)->TraceConnectWithoutContext(
            "BaEstablished",
            MakeBoundCallback(&OnBaEstablished, i));
    }
    NS_ABORT_MSG_IF(!ok, "an HT trace source could not be connected");
}

std::string
LinksJson()
{
    Json links;
    for (const auto& [key, c] : g_links)
    {
        Json hist;
        for (const auto& [n, count] : c.mpdusPerPpdu)
        {
            hist.Int(std::to_string(n), count);
        }
        std::ostringstream name;
        name << key.first << "->" << key.second;
        Json link;
        link.Int("ppdus", c.ppdus)
            .Int("mpdus", c.mpdus)
            .Int("mpdus_retry", c.mpdusRetry)
            .Int("ampdus", c.ampdus)
            .Num("airtime_s", c.airtimeNs * 1e-9)
            .Int("mpdu_bytes", c.payloadBytesMpdu)
            .Int("acked", c.acked)
            .Int("nacked", c.nacked)
            .Raw("mpdus_per_ppdu", hist.Text());
        if (c.amsdus > 0)
        {
            // Only with --amsdu, so that the other cases' output is unchanged.
            link.Int("amsdus", c.amsdus).Int("amsdu_msdus", c.amsduMsdus);
        }
        if (g_rateMix)
        {
            Json mix;
            for (const auto& [rate, n] : c.mpdusByRate)
            {
                std::ostringstream mbps;
                mbps << rate / 1e6;
                mix.Int(mbps.str(), n);
            }
            link.Raw("mpdus_by_rate_mbps", mix.Text());
        }
        links.Raw(name.str(), link.Text());
    }
    return links.Text();
}

// ------------------------------------------------------------------------------------------
// The HT figures ns-3 runs with

WifiTxVector
HtTxVector(uint8_t mcs, bool sgi)
{
    WifiTxVector tv;
    tv.SetMode(HtPhy::GetHtMcs(mcs));
    tv.SetPreambleType(WIFI_PREAMBLE_HT_MF);
    tv.SetChannelWidth(MHz_u{20});
    tv.SetGuardInterval(NanoSeconds(sgi ? 400 : 800));
    tv.SetNss(1);
    return tv;
}

/// Size of an A-MPDU of n MPDUs of `mpdu` bytes: 4-byte delimiter each, each subframe but the
/// last padded to 4 bytes (ns-3's MpduAggregator::GetSizeIfAggregated).
uint32_t
AmpduSize(uint32_t n, uint32_t mpdu)
{
    uint32_t size = 0;
    for (uint32_t i = 0; i < n; ++i)
    {
        size = i == 0 ? 4 + mpdu : MpduAggregator::GetSizeIfAggregated(mpdu, size);
    }
    return size;
}

std::string
HtParamsJson(Ptr<WifiNetDevice> dev, Ptr<WifiNetDevice> peer, uint32_t mpduBytes)
{
    Ptr<WifiMac> mac = dev->GetMac();
    Ptr<WifiPhy> phy = dev->GetPhy();
    Ptr<QosTxop> be = mac->GetQosTxop(AC_BE);
    Ptr<WifiRemoteStationManager> rsm = dev->GetRemoteStationManager();
    const Mac48Address peerAddr = Mac48Address::ConvertFrom(peer->GetAddress());
    Json j;
    j.Int("be_aifsn", be->GetAifsn(SINGLE_LINK_OP_ID))
        .Int("be_cw_min", be->GetMinCw(SINGLE_LINK_OP_ID))
        .Int("be_cw_max", be->GetMaxCw(SINGLE_LINK_OP_ID))
        .Num("be_txop_limit_us", Us(be->GetTxopLimit(SINGLE_LINK_OP_ID)))
        .Num("aifs_us", Us(phy->GetSifs() + be->GetAifsn(SINGLE_LINK_OP_ID) * phy->GetSlot()))
        .Int("be_max_ampdu_size", mac->GetMaxAmpduSize(AC_BE))
        .Int("be_max_amsdu_size", mac->GetMaxAmsduSize(AC_BE))
        .Int("be_block_ack_threshold", be->GetBlockAckThreshold())
        .Int("be_block_ack_inactivity_timeout", be->GetBlockAckInactivityTimeout())
        .Num("addba_response_timeout_ms", be->GetAddBaResponseTimeout().GetNanoSeconds() / 1e6)
        .Num("failed_addba_timeout_ms", be->GetFailedAddBaTimeout().GetNanoSeconds() / 1e6)
        .Bool("use_explicit_bar_after_missed_block_ack", be->UseExplicitBarAfterMissedBlockAck())
        .Int("mpdu_buffer_size", mac->GetMpduBufferSize())
        .Int("max_ba_buffer_size_ht", mac->GetMaxBaBufferSize(peerAddr))
        .Int("frame_retry_limit", mac->GetFrameRetryLimit())
        .Num("ppdu_max_time_us", Us(GetPpduMaxTime(WIFI_PREAMBLE_HT_MF)))
        .Int("ht_max_psdu_size", WifiPhy::GetMaxPsduSize(WIFI_MOD_CLASS_HT))
        .Int("ack_size", GetAckSize())
        .Int("block_ack_size_compressed", GetBlockAckSize(BlockAckType::COMPRESSED))
        .Int("block_ack_req_size_compressed", GetBlockAckRequestSize(BlockAckReqType::COMPRESSED))
        .Int("mpdu_bytes", mpduBytes);
    if (auto htCap = rsm->GetStationHtCapabilities(peerAddr))
    {
        j.Int("peer_ht_max_ampdu_length", htCap->GetMaxAmpduLength());
        j.Int("peer_ht_max_amsdu_length", htCap->GetMaxAmsduLength());
    }
    BooleanValue incr;
    rsm->GetAttribute("IncrementRetryCountUnderBa", incr);
    j.Bool("increment_retry_count_under_ba", incr.Get());
    j.Raw("ack_manager", AttributesJson(mac->GetFrameExchangeManager()->GetAckManager(), 0));
    if (auto agreement = mac->GetBaAgreementEstablishedAsOriginator(peerAddr, 0))
    {
        j.Int("ba_buffer_size", agreement->get().GetBufferSize())
            .Str("ba_type",
                 agreement->get().GetBlockAckType().m_variant == BlockAckType::COMPRESSED
                     ? "COMPRESSED"
                     : "OTHER");
    }

    // Per MCS (long and short GI): data rate, the Ack's and the Block Ack's mode (answering a
    // frame sent to `peer`), their airtime, the Block Ack timeout, the MPDUs an A-MPDU can hold
    // within 65535 bytes and 5.484 ms, and the airtime of such an A-MPDU.
    Json mcsTable;
    for (uint8_t mcs = 0; mcs < 8; ++mcs)
    {
        for (bool sgi : {false, true})
        {
            WifiTxVector tv = HtTxVector(mcs, sgi);
            WifiTxVector ackTv = rsm->GetAckTxVector(peerAddr, tv);
            WifiTxVector baTv = rsm->GetBlockAckTxVector(peerAddr, tv);
            const Time ackTime = WifiPhy::CalculateTxDuration(GetAckSize(), ackTv, g_band);
            const uint32_t baSize = GetBlockAckSize(BlockAckType::COMPRESSED);
            const Time baTime = WifiPhy::CalculateTxDuration(baSize, baTv, g_band);
            uint32_t nMax = 0;
            Time ampduTime;
            for (uint32_t n = 1; n <= 64; ++n)
            {
                const uint32_t size = AmpduSize(n, mpduBytes);
                WifiTxVector atv = tv;
                atv.SetAggregation(n > 1);
                const Time t = WifiPhy::CalculateTxDuration(size, atv, g_band);
                if (size > 65535 || t > GetPpduMaxTime(WIFI_PREAMBLE_HT_MF))
                {
                    break;
                }
                nMax = n;
                ampduTime = t;
            }
            Json row;
            row.Num("data_rate_mbps", tv.GetMode().GetDataRate(tv) / 1e6)
                .Str("ack_mode", ackTv.GetMode().GetUniqueName())
                .Str("block_ack_mode", baTv.GetMode().GetUniqueName())
                .Num("ack_us", Us(ackTime))
                .Num("block_ack_us", Us(baTime))
                .Num("block_ack_timeout_us",
                     Us(phy->GetSifs() + phy->GetSlot() +
                        WifiPhy::CalculatePhyPreambleAndHeaderDuration(baTv)))
                .Num("mpdu_us", Us(WifiPhy::CalculateTxDuration(mpduBytes, tv, g_band)))
                .Num("preamble_and_header_us",
                     Us(WifiPhy::CalculatePhyPreambleAndHeaderDuration(tv)))
                .Int("max_mpdus_per_ampdu", nMax)
                .Int("max_ampdu_bytes", AmpduSize(nMax, mpduBytes))
                .Num("max_ampdu_us", Us(ampduTime));
            mcsTable.Raw(std::string("HtMcs") + std::to_string(mcs) + (sgi ? "_sgi" : ""),
                         row.Text());
        }
    }
    j.Raw("per_mcs", mcsTable.Text());

    // A-MSDUs of k MSDUs of this MPDU's body (LLC/SNAP and packet), k = 1..6: the A-MSDU's
    // bytes (14-byte subframe header each, each subframe but the last padded to 4; ns-3's
    // MsduAggregator::GetSizeIfAggregated) and the MPDU carrying it (QoS header and FCS added).
    WifiMacHeader qos(WIFI_MAC_QOSDATA);
    qos.SetQosTid(0);
    const uint32_t overhead = qos.GetSize() + WIFI_MAC_FCS_LENGTH;
    const uint32_t msdu = mpduBytes - overhead;
    Json amsduBytes;
    Json amsduMpduBytes;
    uint32_t amsduSize = 0;
    for (uint32_t k = 1; k <= 6; ++k)
    {
        amsduSize = MsduAggregator::GetSizeIfAggregated(msdu, amsduSize);
        amsduBytes.Int(std::to_string(k), amsduSize);
        amsduMpduBytes.Int(std::to_string(k), amsduSize + overhead);
    }
    j.Int("msdu_bytes", msdu)
        .Raw("amsdu_bytes_of_k_msdus", amsduBytes.Text())
        .Raw("amsdu_mpdu_bytes_of_k_msdus", amsduMpduBytes.Text());

    // Success probability of one MPDU of `mpduBytes` at a given SINR, per MCS (long GI), from
    // the PHY's error model (TableBasedErrorRateModel).
    PointerValue ihValue;
    phy->GetAttribute("InterferenceHelper", ihValue);
    Ptr<ErrorRateModel> erm = ihValue.Get<InterferenceHelper>()->GetErrorRateModel();
    Json per;
    for (double sinrDb : {5.0, 10.0, 15.0, 20.0, 25.0, 30.0})
    {
        Json row;
        for (uint8_t mcs = 0; mcs < 8; ++mcs)
        {
            WifiTxVector tv = HtTxVector(mcs, false);
            row.Num("HtMcs" + std::to_string(mcs),
                    1.0 - erm->GetChunkSuccessRate(tv.GetMode(),
                                                   tv,
                                                   std::pow(10.0, sinrDb / 10.0),
                                                   8ull * mpduBytes));
        }
        std::ostringstream key;
        key << "sinr_" << sinrDb << "dB";
        per.Raw(key.str(), row.Text());
    }
    j.Raw("mpdu_error_rate_at_sinr", per.Text());
    j.Raw("error_rate_model", AttributesJson(erm, 0));
    return j.Text();
}

} // namespace

int
main(int argc, char* argv[])
{
    uint32_t mcs = 7;
    std::string manager = "constant";
    bool sgi = false;
    bool agg = true;
    uint32_t amsdu = 0;
    std::string traffic = "udp";
    uint32_t hops = 1;
    double distance = 10.0;
    uint32_t payload = 1472;
    double offered = 2.0;
    double warmup = 1.0;
    double duration = -1.0;
    double start = 1.0;
    std::string recovery = "prr";
    uint32_t segment = 0;
    uint32_t seed = 1;
    std::string trace;
    double traceFrom = 0.0;
    double traceTo = 0.05;
    bool params = false;
    double exponent = 3.0;
    double refLoss = 46.6777;
    double txPower = 16.0206;

    CommandLine cmd(__FILE__);
    cmd.AddValue("mcs", "HT MCS 0..7 (ConstantRateWifiManager DataMode HtMcsK)", mcs);
    cmd.AddValue("manager",
                 "constant (--mcs) or minstrelht (ns3::MinstrelHtWifiManager, its defaults)",
                 manager);
    cmd.AddValue("sgi", "short (400 ns) guard interval", sgi);
    cmd.AddValue("agg", "A-MPDU aggregation (BE_MaxAmpduSize ns-3's default, 65535) or not (0)",
                 agg);
    cmd.AddValue("amsdu",
                 "BE_MaxAmsduSize in bytes on every node (0, ns-3's default: no A-MSDUs; HT caps "
                 "it at 7935)",
                 amsdu);
    cmd.AddValue("traffic", "udp (one saturated hop) or tcp (bulk, along the line)", traffic);
    cmd.AddValue("hops", "hops of the line (TCP flow from node 0 to node N)", hops);
    cmd.AddValue("distance", "spacing of the nodes on the line (m)", distance);
    cmd.AddValue("payload", "UDP payload bytes", payload);
    cmd.AddValue("offered", "UDP offered load as a multiple of the PHY data rate", offered);
    cmd.AddValue("warmup", "UDP: seconds before the measurement window", warmup);
    cmd.AddValue("duration", "UDP: measurement window (default 10 s); TCP: run length (20 s)",
                 duration);
    cmd.AddValue("start", "TCP: the flow's start (s)", start);
    cmd.AddValue("recovery", "TCP loss recovery: prr (ns-3's default) or classic", recovery);
    cmd.AddValue("segment", "TCP segment size (default: wifi_common.h's 1000)", segment);
    cmd.AddValue("seed", "run number for the ns-3 RNG (RngSeedManager::SetRun)", seed);
    cmd.AddValue("trace", "write every PPDU of [trace-from, trace-to) to this file", trace);
    cmd.AddValue("trace-from", "start of the trace window (s)", traceFrom);
    cmd.AddValue("trace-to", "end of the trace window (s)", traceTo);
    cmd.AddValue("params", "add node 0's attribute dump and HT figures to the output", params);
    cmd.AddValue("exponent", "log-distance path-loss exponent", exponent);
    cmd.AddValue("refloss", "log-distance loss at 1 m (dB)", refLoss);
    cmd.AddValue("txpower", "transmit power (dBm)", txPower);
    cmd.Parse(argc, argv);
    NS_ABORT_MSG_IF(mcs > 7, "--mcs: 0..7 (one spatial stream)");
    NS_ABORT_MSG_IF(manager != "constant" && manager != "minstrelht",
                    "--manager is constant or minstrelht");
    g_rateMix = manager == "minstrelht";
    NS_ABORT_MSG_IF(traffic != "udp" && traffic != "tcp", "--traffic is udp or tcp");
    NS_ABORT_MSG_IF(hops < 1, "--hops: at least 1");
    NS_ABORT_MSG_IF(traffic == "udp" && hops != 1, "--traffic=udp runs over one hop");
    if (duration < 0)
    {
        duration = traffic == "udp" ? 10.0 : 20.0;
    }

    RngSeedManager::SetSeed(1);
    RngSeedManager::SetRun(seed);
    ConfigureTcp(recovery, 1 << 20);
    if (segment > 0)
    {
        Config::SetDefault("ns3::TcpSocket::SegmentSize", UintegerValue(segment));
    }
    // The segment size in force (ConfigureTcp's unless --segment), read back from its default.
    TypeId::AttributeInformation segmentInfo;
    TypeId::LookupByName("ns3::TcpSocket").LookupAttributeByName("SegmentSize", &segmentInfo);
    const uint32_t segmentBytes =
        std::stoul(segmentInfo.initialValue->SerializeToString(segmentInfo.checker));

    NodeContainer nodes;
    nodes.Create(hops + 1);
    std::vector<Vector> positions;
    for (uint32_t i = 0; i <= hops; ++i)
    {
        positions.emplace_back(distance * i, 0.0, 0.0);
    }
    PlaceNodes(nodes, positions);

    WifiOptions wopt;
    wopt.standard = "11n";
    wopt.dataMode = "HtMcs" + std::to_string(mcs);
    wopt.controlMode = ControlModeFor("11n");
    wopt.propagation = "logdistance";
    wopt.exponent = exponent;
    wopt.refLossDb = refLoss;
    wopt.txPowerDbm = txPower;
    wopt.shortGi = sgi;
    wopt.beMaxAmpduSize = agg ? -1 : 0;
    wopt.beMaxAmsduSize = amsdu;
    if (manager == "minstrelht")
    {
        wopt.stationManager = "ns3::MinstrelHtWifiManager";
    }
    NetDeviceContainer devices = InstallWifi(nodes, wopt);

    InternetStackHelper stack;
    Ipv4StaticRoutingHelper staticRouting;
    stack.SetRoutingHelper(staticRouting);
    stack.Install(nodes);
    Ipv4AddressHelper address;
    address.SetBase("10.0.0.0", "255.255.255.0");
    Ipv4InterfaceContainer ifaces = address.Assign(devices);
    RemoveQueueDiscs(devices);
    // Host routes along the line both ways: node i reaches j > i via i + 1, j < i via i - 1.
    for (uint32_t i = 0; i <= hops; ++i)
    {
        Ptr<Ipv4StaticRouting> rt =
            staticRouting.GetStaticRouting(nodes.Get(i)->GetObject<Ipv4>());
        for (uint32_t j = 0; j <= hops; ++j)
        {
            if (j > i + 1)
            {
                rt->AddHostRouteTo(ifaces.GetAddress(j), ifaces.GetAddress(i + 1), 1);
            }
            else if (j + 1 < i)
            {
                rt->AddHostRouteTo(ifaces.GetAddress(j), ifaces.GetAddress(i - 1), 1);
            }
        }
    }
    NeighborCacheHelper neighbors;
    neighbors.PopulateNeighborCache();

    const WifiTxVector dataTv = HtTxVector(mcs, sgi);
    const uint64_t phyRate = dataTv.GetMode().GetDataRate(dataTv);
    const uint16_t port = 50000;
    Ptr<PacketSink> sink;
    double end = 0.0;
    double countFrom = 0.0;
    if (traffic == "udp")
    {
        end = warmup + duration;
        countFrom = warmup;
        PacketSinkHelper sinkHelper("ns3::UdpSocketFactory",
                                    InetSocketAddress(Ipv4Address::GetAny(), port));
        ApplicationContainer sinkApp = sinkHelper.Install(nodes.Get(1));
        sinkApp.Start(Seconds(0.0));
        sinkApp.Stop(Seconds(end));
        sink = DynamicCast<PacketSink>(sinkApp.Get(0));
        NS_ABORT_MSG_IF(!sink->TraceConnectWithoutContext("Rx", MakeCallback(&OnSinkRx)),
                        "PacketSink Rx trace not found");
        OnOffHelper onoff("ns3::UdpSocketFactory", InetSocketAddress(ifaces.GetAddress(1), port));
        onoff.SetConstantRate(DataRate(static_cast<uint64_t>(offered * phyRate)), payload);
        ApplicationContainer a = onoff.Install(nodes.Get(0));
        a.Start(Seconds(0.0));
        a.Stop(Seconds(end));
    }
    else
    {
        end = duration;
        countFrom = 0.0;
        BulkSendHelper source("ns3::TcpSocketFactory",
                              InetSocketAddress(ifaces.GetAddress(hops), port));
        source.SetAttribute("MaxBytes", UintegerValue(0));
        source.SetAttribute("SendSize", UintegerValue(segmentBytes));
        ApplicationContainer sourceApp = source.Install(nodes.Get(0));
        sourceApp.Start(Seconds(start));
        sourceApp.Stop(Seconds(end));
        PacketSinkHelper sinkHelper("ns3::TcpSocketFactory",
                                    InetSocketAddress(Ipv4Address::GetAny(), port));
        ApplicationContainer sinkApp = sinkHelper.Install(nodes.Get(hops));
        sinkApp.Start(Seconds(0.0));
        sinkApp.Stop(Seconds(end));
        sink = DynamicCast<PacketSink>(sinkApp.Get(0));
    }

    HookWifiCounters(devices);
    HookHt(devices);
    if (!trace.empty())
    {
        g_trace.open(trace);
        NS_ABORT_MSG_IF(!g_trace, "cannot write " << trace);
        g_traceFrom = traceFrom;
        g_traceTo = traceTo;
    }
    if (countFrom > 0)
    {
        Simulator::Schedule(Seconds(countFrom), &SetCounting, true);
    }
    else
    {
        g_counting = true;
    }
    Simulator::Schedule(Seconds(end), &SetCounting, false);
    Simulator::Stop(Seconds(end));
    const double simWall = TimedRun();

    double throughput = 0.0;
    uint64_t rxBytes = 0;
    if (traffic == "udp")
    {
        rxBytes = g_windowBytes;
        throughput = g_windowBytes * 8.0 / duration;
    }
    else
    {
        rxBytes = sink->GetTotalRx();
        throughput = rxBytes * 8.0 / (end - start);
    }

    Json out;
    out.Str("simulator", "ns-3.44")
        .Str("case", "ht")
        .Str("standard", "11n")
        .Str("data_mode", g_rateMix ? "MinstrelHt" : wopt.dataMode)
        .Bool("sgi", sgi)
        .Bool("agg", agg);
    if (amsdu > 0)
    {
        out.Int("amsdu", amsdu);
    }
    out.Str("traffic", traffic)
        .Int("hops", hops)
        .Num("distance_m", distance)
        .Int("seed", seed)
        .Num("phy_rate_bps", phyRate);
    if (traffic == "udp")
    {
        out.Int("payload_bytes", payload)
            .Num("offered_bps", offered * phyRate)
            .Num("warmup_s", warmup)
            .Num("window_s", duration)
            .Int("rx_packets", g_windowPackets);
    }
    else
    {
        out.Int("segment_bytes", segmentBytes)
            .Str("recovery", recovery)
            .Num("start_s", start)
            .Num("duration_s", end);
    }
    out.Int("rx_bytes", rxBytes)
        .Num("throughput_bps", throughput)
        .Raw("links", LinksJson())
        .Raw("control_frames", CountsObject(g_ctrl))
        .Raw("response_timeouts", CountsObject(g_timeouts))
        .Raw("ba_agreements", Array(g_agreements))
        .Num("sim_wall_s", simWall)
        .Int("events", Simulator::GetEventCount())
        .Int("peak_rss_kib", PeakRssKiB())
        .Raw("wifi", WifiCountersJson());
    if (params)
    {
        auto dev0 = DynamicCast<WifiNetDevice>(devices.Get(0));
        auto dev1 = DynamicCast<WifiNetDevice>(devices.Get(1));
        // MPDU of the UDP payload: 26-byte QoS data header, 8-byte LLC/SNAP, 20-byte IPv4 and
        // 8-byte UDP headers, 4-byte FCS.
        out.Raw("params", ParamsJson(dev0))
            .Raw("ht", HtParamsJson(dev0, dev1, payload + 8 + 20 + 8 + 26 + 4));
    }
    std::cout << out.Text() << std::endl;

    Simulator::Destroy();
    return 0;
}
