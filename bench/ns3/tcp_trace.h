// TCP pieces shared by bench/ns3/p2p_tcp.cc and bench/wifi/wifi_chain.cc: the socket type of a
// `--cc` value with the settings it needs (pacing for BBR, HyStart for Cubic), the sender's
// congestion-window and RTT trace (`--trace=PATH`), and the record of the TCP attribute values
// ns-3 runs with (`--print-attributes`). bench/README.md, "Linux TCP pieces against ns-3", says
// how the benchmark uses them.

#ifndef AIRTCP_BENCH_TCP_TRACE_H
#define AIRTCP_BENCH_TCP_TRACE_H

#include "ns3/core-module.h"
#include "ns3/internet-module.h"

#include <cstdint>
#include <fstream>
#include <iomanip>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

namespace tcpbench
{

using namespace ns3;

// ------------------------------------------------------------------------------------------
// Congestion control

/// The ns-3 socket type of a `--cc` value; aborts on an unknown one.
inline TypeId
CcTypeId(const std::string& cc)
{
    if (cc == "newreno")
    {
        return TcpNewReno::GetTypeId();
    }
    if (cc == "linuxreno")
    {
        return TcpLinuxReno::GetTypeId();
    }
    if (cc == "vegas")
    {
        return TcpVegas::GetTypeId();
    }
    if (cc == "cubic")
    {
        return TcpCubic::GetTypeId();
    }
    if (cc == "bbr")
    {
        return TcpBbr::GetTypeId();
    }
    NS_FATAL_ERROR("unknown --cc " << cc << " (newreno|linuxreno|vegas|cubic|bbr)");
}

/**
 * Defaults that go with the congestion control, applied after the command line was parsed:
 *
 * - `bbr`: `TcpSocketState::EnablePacing` true. TcpBbr sets the pacing rate itself on every ACK
 *   (its CongControl replaces the socket's own pacing-rate update) and only works paced; with
 *   pacing off it switches it on by itself at its first rate initialisation (a logged warning,
 *   no assert), so setting it here changes no result but makes the setting explicit and
 *   visible in `--print-attributes`. `PaceInitialWindow` stays at ns-3's default (false: the
 *   initial window leaves unpaced, as in ns-3's own BBR example), `MaxPacingRate` at its default
 *   (4 Gbps, far above the links here).
 * - `hystart` "0" or "1" sets `TcpCubic::HyStart`; empty leaves the attribute as it is (ns-3's
 *   default, on, or whatever `--ns3::TcpCubic::HyStart=...` set on the command line).
 */
inline void
ConfigureCc(const std::string& cc, const std::string& hystart)
{
    if (cc == "bbr")
    {
        Config::SetDefault("ns3::TcpSocketState::EnablePacing", BooleanValue(true));
    }
    if (!hystart.empty())
    {
        NS_ABORT_MSG_IF(hystart != "0" && hystart != "1", "--hystart is 0 or 1");
        NS_ABORT_MSG_IF(cc != "cubic", "--hystart applies to --cc=cubic only");
        Config::SetDefault("ns3::TcpCubic::HyStart", BooleanValue(hystart == "1"));
    }
}

/// The configured default of attribute `name` of type `type` (what new objects are built with).
inline std::string
AttributeDefault(const std::string& type, const std::string& name)
{
    TypeId::AttributeInformation info;
    NS_ABORT_MSG_IF(!TypeId::LookupByName(type).LookupAttributeByName(name, &info),
                    "no attribute " << type << "::" << name);
    return info.initialValue->SerializeToString(info.checker);
}

// ------------------------------------------------------------------------------------------
// JSON text

inline std::string
JsonString(const std::string& s)
{
    std::ostringstream os;
    os << '"';
    for (char c : s)
    {
        if (c == '"' || c == '\\')
        {
            os << '\\' << c;
        }
        else if (static_cast<unsigned char>(c) < 0x20)
        {
            os << "\\u" << std::hex << std::setw(4) << std::setfill('0') << int(c) << std::dec;
        }
        else
        {
            os << c;
        }
    }
    os << '"';
    return os.str();
}

// ------------------------------------------------------------------------------------------
// The sender's trace (`--trace=PATH`)

/**
 * CSV `t_s,kind,value` of the sender's socket (node `node`, its only TCP socket), one row per
 * event, written only when asked for (the trace sources are not even connected otherwise):
 *
 * - `cwnd`, `ssthresh`: segments (bytes / segment size), on every change (`CongestionWindow`,
 *   `SlowStartThreshold`); the first row of each is the value at the first change after the
 *   hook, which goes in 1 ms after the application started, before the handshake completes;
 * - `rtt`: the RTT of the last (S)ACKed segment, seconds (`LastRTT`, one sample per ACK that
 *   yields one; ns-3's traced value reports a sample only when it differs from the previous);
 * - `srtt`: the smoothed RTT, seconds (`RTT`);
 * - `pacing_bps`: the pacing rate, bit/s (`PacingRate`), and `pacing_gain`, `cwnd_gain`
 *   (TcpBbr's `PacingGain`, `CwndGain`, which tell its state), with `--cc=bbr` only.
 */
class SenderTrace
{
  public:
    void Open(const std::string& path, uint32_t segmentSize, uint32_t node, bool bbr)
    {
        m_out.open(path);
        NS_ABORT_MSG_IF(!m_out, "cannot write --trace " << path);
        m_out << "t_s,kind,value\n" << std::setprecision(10);
        m_segment = segmentSize;
        m_node = node;
        m_bbr = bbr;
    }

    bool IsOpen() const
    {
        return m_out.is_open();
    }

    /// Connects the trace sources; called once the sender's socket exists.
    void Hook()
    {
        std::string base = "/NodeList/" + std::to_string(m_node) +
                           "/$ns3::TcpL4Protocol/SocketList/*/";
        // A misspelt trace source fails silently, so every connection is checked.
        bool ok = Config::ConnectWithoutContextFailSafe(
            base + "CongestionWindow",
            MakeCallback(&SenderTrace::OnCwnd, this));
        ok &= Config::ConnectWithoutContextFailSafe(base + "SlowStartThreshold",
                                                    MakeCallback(&SenderTrace::OnSsThresh, this));
        ok &= Config::ConnectWithoutContextFailSafe(base + "LastRTT",
                                                    MakeCallback(&SenderTrace::OnRtt, this));
        ok &= Config::ConnectWithoutContextFailSafe(base + "RTT",
                                                    MakeCallback(&SenderTrace::OnSrtt, this));
        if (m_bbr)
        {
            ok &= Config::ConnectWithoutContextFailSafe(
                base + "PacingRate",
                MakeCallback(&SenderTrace::OnPacingRate, this));
            ok &= Config::ConnectWithoutContextFailSafe(
                base + "CongestionOps/$ns3::TcpBbr/PacingGain",
                MakeCallback(&SenderTrace::OnPacingGain, this));
            ok &= Config::ConnectWithoutContextFailSafe(
                base + "CongestionOps/$ns3::TcpBbr/CwndGain",
                MakeCallback(&SenderTrace::OnCwndGain, this));
        }
        NS_ABORT_MSG_IF(!ok, "a trace source of the sender's socket could not be connected");
    }

    void Close()
    {
        if (m_out.is_open())
        {
            m_out.close();
        }
    }

  private:
    void Row(const char* kind, double value)
    {
        m_out << Simulator::Now().GetSeconds() << ',' << kind << ',' << value << '\n';
    }

    void OnCwnd(uint32_t, uint32_t now)
    {
        Row("cwnd", static_cast<double>(now) / m_segment);
    }

    void OnSsThresh(uint32_t, uint32_t now)
    {
        Row("ssthresh", static_cast<double>(now) / m_segment);
    }

    void OnRtt(Time, Time now)
    {
        Row("rtt", now.GetSeconds());
    }

    void OnSrtt(Time, Time now)
    {
        Row("srtt", now.GetSeconds());
    }

    void OnPacingRate(DataRate, DataRate now)
    {
        Row("pacing_bps", static_cast<double>(now.GetBitRate()));
    }

    void OnPacingGain(double, double now)
    {
        Row("pacing_gain", now);
    }

    void OnCwndGain(double, double now)
    {
        Row("cwnd_gain", now);
    }

    std::ofstream m_out;
    uint32_t m_segment = 1;
    uint32_t m_node = 0;
    bool m_bbr = false;
};

// ------------------------------------------------------------------------------------------
// The attribute record (`--print-attributes`)

/**
 * Every attribute of `type` and its parents as new objects would get it (the configured
 * default, after Config::SetDefault and the command line), with ns-3's own default beside any
 * value that differs from it; and the names of its trace sources.
 */
inline std::string
TypeRecordJson(const std::string& type)
{
    std::ostringstream attrs;
    std::ostringstream changed;
    std::ostringstream traces;
    bool firstAttr = true;
    bool firstChanged = true;
    bool firstTrace = true;
    for (TypeId tid = TypeId::LookupByName(type);; tid = tid.GetParent())
    {
        for (std::size_t i = 0; i < tid.GetAttributeN(); ++i)
        {
            TypeId::AttributeInformation info = tid.GetAttribute(i);
            if (info.supportLevel == TypeId::SupportLevel::OBSOLETE ||
                info.checker->GetValueTypeName() == "ns3::PointerValue" ||
                info.checker->GetValueTypeName() == "ns3::ObjectPtrContainerValue" ||
                info.checker->GetValueTypeName() == "ns3::CallbackValue")
            {
                continue;
            }
            std::string value = info.initialValue->SerializeToString(info.checker);
            std::string original = info.originalInitialValue->SerializeToString(info.checker);
            attrs << (firstAttr ? "" : ", ") << JsonString(info.name) << ": "
                  << JsonString(value);
            firstAttr = false;
            if (value != original)
            {
                changed << (firstChanged ? "" : ", ") << JsonString(info.name) << ": "
                        << JsonString(original);
                firstChanged = false;
            }
        }
        for (std::size_t i = 0; i < tid.GetTraceSourceN(); ++i)
        {
            TypeId::TraceSourceInformation info = tid.GetTraceSource(i);
            traces << (firstTrace ? "" : ", ") << JsonString(info.name);
            firstTrace = false;
        }
        if (tid == Object::GetTypeId() || tid.GetParent() == tid)
        {
            break;
        }
    }
    return "{\"attributes\": {" + attrs.str() + "}, \"ns3_defaults_of_changed\": {" +
           changed.str() + "}, \"trace_sources\": [" + traces.str() + "]}";
}

/**
 * The record of the TCP types these programs use, as one JSON object: per type its attributes
 * (TypeRecordJson), and TcpBbr's gain cycle, a constant of the class rather than an attribute.
 */
inline std::string
TcpAttributesJson()
{
    const std::vector<std::string> types = {"ns3::TcpL4Protocol",
                                            "ns3::TcpSocket",
                                            "ns3::TcpSocketBase",
                                            "ns3::TcpSocketState",
                                            "ns3::RttMeanDeviation",
                                            "ns3::TcpNewReno",
                                            "ns3::TcpCubic",
                                            "ns3::TcpBbr",
                                            "ns3::TcpClassicRecovery",
                                            "ns3::TcpPrrRecovery"};
    std::ostringstream os;
    os << std::setprecision(12) << "{";
    for (std::size_t i = 0; i < types.size(); ++i)
    {
        os << (i ? ", " : "") << JsonString(types[i]) << ": " << TypeRecordJson(types[i]);
    }
    os << ", \"TcpBbr::PACING_GAIN_CYCLE\": [";
    for (uint8_t i = 0; i < TcpBbr::GAIN_CYCLE_LENGTH; ++i)
    {
        os << (i ? ", " : "") << TcpBbr::PACING_GAIN_CYCLE[i];
    }
    os << "]}";
    return os.str();
}

} // namespace tcpbench

#endif
