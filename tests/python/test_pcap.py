"""Packet captures (`trace:`, docs/pcap.md) read back by real parsers: dpkt (pure Python, the test
extra) reads every file, and tshark (Debian's `tshark` package, which `make tshark` installs;
these tests are skipped, with the reason, where it is missing) dissects them. The files are held
to the run's tables: a link's data frames and ACKs (or RTS and CTS) are the `links` table's
attempts and answers, the segments TCP sent and sent again the `flows` table's counts, a COPE
relay's frames by number of natives its `coding` table's; tshark flags a retransmission exactly
where airtcp counted one and no segment lost to the numbering. Then the command line: traces go
into --out/pcap, and bad values are refused before anything runs."""

from __future__ import annotations

import json
import shutil
import struct
import subprocess
from collections import Counter
from pathlib import Path
from typing import Any, NamedTuple

import pytest
import yaml

import airtcp
from airtcp.api import check
from airtcp.errors import ScenarioError
from support import REPO, run_cli

dpkt = pytest.importorskip("dpkt", reason="dpkt (the test extra) reads the pcap files")

TSHARK = shutil.which("tshark")
needs_tshark = pytest.mark.skipif(
    TSHARK is None,
    reason="tshark is not installed (Debian's `tshark` package; `make tshark` installs it, "
    "AIRTCP_SKIP_TSHARK=1 skips the install)",
)

RADIO = {"standard": "802.11b", "data_rate": "2Mbps", "basic_rate": "1Mbps", "rts_cts": False,
         "propagation": {"kind": "range", "range": "250m"}, "queue": {"kind": "droptail", "packets": 1000}}


def chain_scenario(directory: Path) -> dict[str, Any]:
    """A lossy 3-hop chain, one finite TCP transfer end to end (a queue no segment overflows)."""
    return {
        "name": "pcap-chain", "duration": "30s", "seed": 5,
        "radio": {**RADIO, "frame_error": 0.1},
        "topology": {"kind": "chain", "hops": 3, "spacing": "200m"},
        "routing": {"kind": "static"},
        "flows": [{"id": "f1", "src": "n0", "dst": "n3", "start": "100ms", "app": {"kind": "bulk", "bytes": 600_000},
                   "transport": {"kind": "tcp", "cc": "newreno", "sack": True, "mss": 1000}}],
        "trace": {"pcap": "all", "dir": str(directory)},
    }


def cope_scenario(directory: Path) -> dict[str, Any]:
    """Paper 001's Alice and Bob with COPE at the relay n0, two lossy TCP flows through it
    (without RTS/CTS: every frame the relay's MAC takes goes on the air at once, so the capture
    has each frame the `coding` table counts)."""
    return {
        "name": "pcap-cope", "duration": "20s", "seed": 1,
        "radio": {"mac": "glomosim", "cca_time": "0us", "standard": "802.11b", "data_rate": "1Mbps",
                  "basic_rate": "1Mbps", "rts_cts": False, "frame_error": 0.05,
                  "propagation": {"kind": "two_ray_ground"}, "queue": {"kind": "droptail", "packets": 10}},
        "topology": {"kind": "alice_bob", "spacing": "200m"},
        "routing": {"kind": "static"},
        "coding": {"scheme": "cope", "queue": "fifo"},
        "flows": [
            {"id": "A1-A2", "src": "n1", "dst": "n2", "app": {"kind": "bulk"},
             "transport": {"kind": "tcp", "cc": "newreno", "sack": True, "mss": 460, "initial_cwnd": 2}},
            {"id": "A2-A1", "src": "n2", "dst": "n1", "app": {"kind": "bulk"},
             "transport": {"kind": "tcp", "cc": "newreno", "sack": True, "mss": 460, "initial_cwnd": 2}},
        ],
        "trace": {"pcap": ["n0"], "dir": str(directory)},
    }


# --- Reading the files with dpkt -----------------------------------------------------------------


class Frame(NamedTuple):
    """An 802.11 frame of a radiotap record."""

    number: int  # 1-based, as tshark numbers frames
    subtype: int  # frame control's first byte: 0x08 data, 0xd4 ACK, 0xb4 RTS, 0xc4 CTS
    retry: bool
    ra: int  # radio id (the address's last two bytes)
    ta: int | None  # data and RTS only
    received: bool  # the capturing radio decoded it (the radiotap header has a signal)
    ip: bytes  # a data frame's IPv4 packet (its headers)


def radio_frames(path: Path) -> list[Frame]:
    with path.open("rb") as handle:
        reader = dpkt.pcap.Reader(handle)
        assert reader.datalink() == 127
        frames = []
        for number, (_, buf) in enumerate(reader, start=1):
            length, present = struct.unpack_from("<HI", buf, 2)
            mac = buf[length:]
            ra = int.from_bytes(mac[8:10], "big")
            ta = int.from_bytes(mac[14:16], "big") if mac[0] in (0x08, 0xB4) else None
            frames.append(Frame(number, mac[0], bool(mac[1] & 0x08), ra, ta, bool(present & 0x20),
                                bytes(mac[32:]) if mac[0] == 0x08 else b""))
    return frames


def tcp_segment(ip_bytes: bytes) -> tuple[int, int] | None:
    """(sequence number, payload length) of a TCP data segment in an IPv4 packet's headers."""
    if len(ip_bytes) < 40 or ip_bytes[9] != 6:
        return None
    header = (ip_bytes[0] & 0x0F) * 4
    total = int.from_bytes(ip_bytes[2:4], "big")
    tcp = ip_bytes[header:]
    length = total - header - (tcp[12] >> 4) * 4
    return (int.from_bytes(tcp[4:8], "big"), length) if length > 0 else None


def radio(name: str) -> int:
    """The radio of placed node `n<i>` (one radio each, in node order)."""
    return int(name[1:])


# --- The chain -----------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def chain(tmp_path_factory: pytest.TempPathFactory) -> tuple[Any, Path]:
    directory = tmp_path_factory.mktemp("chain") / "pcap"
    return airtcp.run(chain_scenario(directory)), directory


def test_every_interface_has_its_file_and_the_results_list_them(chain: tuple[Any, Path]) -> None:
    results, directory = chain
    trace = results.trace
    assert trace is not None and trace["error"] is None
    assert [row["file"] for row in trace["files"]] == [f"n{i}-wifi0.pcap" for i in range(4)]
    assert sorted(p.name for p in directory.iterdir()) == [row["file"] for row in trace["files"]]
    for row in trace["files"]:
        assert len(radio_frames(directory / row["file"])) == row["records"] > 0
    assert results.summary["trace"] == trace


def test_frame_counts_are_the_links_table(chain: tuple[Any, Path]) -> None:
    results, directory = chain
    files = {f"n{i}": radio_frames(directory / f"n{i}-wifi0.pcap") for i in range(4)}
    answered = Counter()
    for link in results.links.itertuples():
        answered[link._1] += link.answered  # `from`
    for link in results.links.itertuples():
        sender, receiver = link._1, link.to
        frames = files[sender]
        sent = sum(f.subtype == 0x08 and not f.received and f.ra == radio(receiver) for f in frames)
        assert sent == link.attempts, (sender, receiver)
    for node, frames in files.items():
        acks = sum(f.subtype == 0xD4 and f.received and f.ra == radio(node) for f in frames)
        assert acks == answered[node], node


def source_segments(chain: tuple[Any, Path]) -> tuple[list[int], int]:
    """The frame numbers of the source's first transmissions that TCP sent again (a segment not
    above the highest byte sent before), and how many segments it sent."""
    _, directory = chain
    highest, again, sent = 0, [], 0
    for f in radio_frames(directory / "n0-wifi0.pcap"):
        if f.subtype != 0x08 or f.received or f.retry:
            continue
        segment = tcp_segment(f.ip)
        if segment is None:
            continue
        sent += 1
        seq, length = segment
        if seq + length <= highest:
            again.append(f.number)
        highest = max(highest, seq + length)
    return again, sent


def test_segments_and_retransmissions_are_the_flows_table(chain: tuple[Any, Path]) -> None:
    results, _ = chain
    flow = results.flows.iloc[0]
    again, sent = source_segments(chain)
    assert sent == flow.packets_sent
    assert len(again) == flow.retransmissions > 0


def tshark(path: Path, *args: str) -> list[str]:
    assert TSHARK is not None
    result = subprocess.run([TSHARK, "-r", str(path), *args], capture_output=True, text=True, timeout=120,
                            env={"LC_ALL": "C", "HOME": str(path.parent)})
    assert result.returncode == 0, result.stderr
    return [line for line in result.stdout.splitlines() if line.strip()]


# The source's own first transmissions and the frames addressed to it: TCP's two directions as
# the sender's stack saw them (without MAC retries, and without the frames it overheard of its
# neighbour forwarding the same segments, which a stack would not see either).
SENDER_VIEW = "(wlan.ta == 02:00:00:00:00:00 && wlan.fc.retry == 0) || (wlan.ra == 02:00:00:00:00:00 && wlan.fc.type == 2)"
RETRANSMITTED = "tcp.analysis.retransmission || tcp.analysis.fast_retransmission || tcp.analysis.spurious_retransmission"


@needs_tshark
def test_tshark_flags_a_retransmission_where_airtcp_counted_one(chain: tuple[Any, Path]) -> None:
    results, directory = chain
    path = directory / "n0-wifi0.pcap"
    # Two passes, the read filter in the first: the analysis sees only the sender's view.
    numbered = tshark(path, "-2", "-R", SENDER_VIEW, "-T", "fields", "-e", "frame.number", "-e", "tcp.seq_raw",
                      "-Y", "tcp.len > 0 && wlan.ta == 02:00:00:00:00:00")
    flagged = tshark(path, "-2", "-R", SENDER_VIEW, "-T", "fields", "-e", "frame.number",
                     "-Y", f"({RETRANSMITTED} || tcp.analysis.out_of_order) && wlan.ta == 02:00:00:00:00:00")
    again, sent = source_segments(chain)
    assert len(numbered) == sent
    # tshark renumbers the frames it kept: map its numbers back through the data segments' order.
    ours = [f.number for f in radio_frames(path) if f.subtype == 0x08 and not f.received and not f.retry
            and tcp_segment(f.ip) is not None]
    theirs = [int(line.split()[0]) for line in numbered]
    position = dict(zip(theirs, ours))
    assert sorted(position[int(line)] for line in flagged) == again
    assert len(flagged) == results.flows.iloc[0].retransmissions


@needs_tshark
def test_tshark_finds_no_segment_lost_to_the_numbering(chain: tuple[Any, Path]) -> None:
    _, directory = chain
    path = directory / "n0-wifi0.pcap"
    lost = tshark(path, "-2", "-R", SENDER_VIEW, "-Y",
                  "tcp.analysis.lost_segment || tcp.analysis.ack_lost_segment || tcp.analysis.zero_window")
    assert lost == []
    # The whole file dissects: every frame is 802.11, every data frame IPv4 over LLC/SNAP, every
    # segment's checksum-free headers read (no malformed packets).
    assert tshark(path, "-Y", "_ws.malformed || _ws.expert.severity >= error") == []
    data = tshark(path, "-Y", "wlan.fc.type == 2 && !ip")
    assert data == []


# --- A COPE relay ---------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def cope(tmp_path_factory: pytest.TempPathFactory) -> tuple[Any, Path]:
    directory = tmp_path_factory.mktemp("cope")
    return airtcp.run(cope_scenario(directory)), directory


def encapsulation(ip_bytes: bytes) -> tuple[int, str, list[bytes]]:
    """(kind, scheme, inner packets) of an IPv4 packet of protocol 253 (docs/pcap.md)."""
    assert ip_bytes[9] == 253
    body = ip_bytes[(ip_bytes[0] & 0x0F) * 4:]
    version, kind, name_length, count, length, _flags = struct.unpack_from(">BBBBHH", body)
    assert version == 1
    name = body[8:8 + name_length].decode("ascii")
    at = 8 + name_length + length
    inner = []
    for _ in range(count):
        (size,) = struct.unpack_from(">H", body, at)
        inner.append(body[at + 2:at + 2 + size])
        at += 2 + size
    return kind, name, inner


def test_the_relay_file_holds_its_coded_frames_as_the_coding_table_counts(cope: tuple[Any, Path]) -> None:
    results, directory = cope
    assert [row["file"] for row in results.trace["files"]] == ["n0-wifi0.pcap"]
    frames = radio_frames(directory / "n0-wifi0.pcap")
    by_natives: Counter[int] = Counter()
    for f in frames:
        if f.subtype != 0x08 or f.received or f.retry or f.ip[9] != 253:
            continue
        kind, name, inner = encapsulation(f.ip)
        assert (kind, name) == (2, "cope")
        for packet in inner:
            parsed = dpkt.ip.IP(packet + bytes(int.from_bytes(packet[2:4], "big") - len(packet)))
            assert isinstance(parsed.data, dpkt.tcp.TCP)
            assert {parsed.data.sport, parsed.data.dport} <= {49152, 49153, 5001}
        if inner:
            by_natives[len(inner)] += 1
    row = results.coding.set_index("node").loc["n0"]
    assert by_natives[2] > 0, "the relay coded"
    for k in range(1, 9):
        # A frame the MAC took at the very end may not have gone on the air yet.
        assert 0 <= row[f"frames_{k}"] - by_natives[k] <= 1, k


def test_the_relay_file_holds_its_attempts_and_acks_as_the_links_table_counts(cope: tuple[Any, Path]) -> None:
    results, directory = cope
    frames = radio_frames(directory / "n0-wifi0.pcap")
    relay = results.links[results.links["from"] == "n0"]
    assert len(relay) == 2
    for link in relay.itertuples():
        sent = sum(f.subtype == 0x08 and not f.received and f.ra == radio(link.to) for f in frames)
        assert sent == link.attempts, link.to
    acks = sum(f.subtype == 0xD4 and f.received and f.ra == 0 for f in frames)
    assert acks == relay.answered.sum()


DISSECTOR = Path(__file__).resolve().parents[2] / "docs" / "airtcp.lua"


@needs_tshark
def test_tshark_reads_the_relay_file_with_the_documented_dissector(cope: tuple[Any, Path]) -> None:
    _, directory = cope
    path = directory / "n0-wifi0.pcap"
    assert tshark(path, "-Y", "_ws.malformed") == []
    lua = ("-X", f"lua_script:{DISSECTOR}")
    assert tshark(path, *lua, "-Y", "_ws.malformed || _ws.expert.severity >= error") == []
    # The relay's first transmissions of coded frames: as many as dpkt reads, each naming COPE
    # and giving its natives' ports and sequence numbers.
    sent = "wlan.ta == 02:00:00:00:00:00 && wlan.fc.retry == 0 && wlan.fc.type == 2"
    rows = tshark(path, *lua, "-Y", f"{sent} && airtcp.inner_count >= 2", "-T", "fields", "-e", "airtcp.scheme",
                  "-e", "airtcp.inner_count", "-e", "airtcp.inner.srcport", "-e", "airtcp.inner.tcp.seq")
    coded = [f for f in radio_frames(path) if f.subtype == 0x08 and not f.received and not f.retry
             and f.ip[9] == 253 and len(encapsulation(f.ip)[2]) >= 2]
    assert len(rows) == len(coded) > 0
    for row, frame in zip(rows, coded):
        scheme, count, ports, seqs = row.split("\t")
        inner = encapsulation(frame.ip)[2]
        assert (scheme, int(count)) == ("cope", len(inner))
        header = [(p[0] & 0x0F) * 4 for p in inner]
        assert [int(port) for port in ports.split(",")] == [int.from_bytes(p[h:h + 2], "big") for p, h in zip(inner, header)]
        assert [int(seq) for seq in seqs.split(",")] == [int.from_bytes(p[h + 4:h + 8], "big") for p, h in zip(inner, header)]


# --- The command line and the API -----------------------------------------------------------------


def test_airtcp_run_puts_the_traces_into_its_output_folder(tmp_path: Path) -> None:
    scenario = chain_scenario(tmp_path)
    del scenario["trace"]["dir"]
    scenario["duration"] = "2s"
    path = tmp_path / "chain.yaml"
    path.write_text(yaml.safe_dump(scenario), encoding="utf-8")
    out = tmp_path / "out"
    result = run_cli("run", path, "--out", out)
    assert result.returncode == 0, result.stderr
    assert sorted(p.name for p in (out / "pcap").iterdir()) == [f"n{i}-wifi0.pcap" for i in range(4)]
    assert f"pcap traces (4 files) written to {out / 'pcap'}" in result.stdout
    assert not any(p.name.startswith(".out.") for p in tmp_path.iterdir())
    summary = json.loads((out / "summary.json").read_text(encoding="utf-8"))
    assert summary["scenario"]["trace"]["dir"] is None, "the scenario as written"
    assert [row["file"] for row in summary["trace"]["files"]] == [f"n{i}-wifi0.pcap" for i in range(4)]


def test_the_api_needs_a_folder(tmp_path: Path) -> None:
    scenario = chain_scenario(tmp_path)
    del scenario["trace"]["dir"]
    with pytest.raises(ScenarioError, match=r"trace\.dir: required: the folder the pcap files go to"):
        airtcp.run(scenario)
    with pytest.raises(ScenarioError, match=r"trace\.dir: required"):
        check(airtcp.load_scenario(scenario))
    check(airtcp.load_scenario(scenario), trace_dir=tmp_path / "pcap")
    assert list((tmp_path / "pcap").iterdir()) == [], "checked, nothing written"


@pytest.mark.parametrize(
    ("trace", "expected"),
    [
        ({"pcap": ["n0", "n1", "x"]}, "trace.pcap[2]: no node named 'x'"),
        ({"pcap": ["n0", "n0"]}, "trace.pcap[1]: 'n0' is listed already (trace.pcap[0])"),
        ({"pcap": "some"}, "trace.pcap: must be 'all' or a list"),
        ({"pcap": "all", "what": []}, "trace.what: needs at least 1 entry"),
        ({"pcap": "all", "what": ["radio"]}, "trace.what[0]: "),
        ({"pcap": ["n0"], "what": ["wired"]}, "trace.pcap[0]: 'n0' has no wired link to capture (trace.what)"),
    ],
)
def test_bad_values_are_refused_before_anything_runs(tmp_path: Path, trace: dict[str, Any], expected: str) -> None:
    scenario = chain_scenario(tmp_path / "pcap")
    scenario["trace"] = {**trace, "dir": str(tmp_path / "pcap")}
    path = tmp_path / "chain.yaml"
    path.write_text(yaml.safe_dump(scenario), encoding="utf-8")
    out = tmp_path / "out"
    result = run_cli("run", path, "--out", out)
    assert result.returncode == 2, result.stderr
    assert f"error: {expected}" in result.stderr, result.stderr
    assert not out.exists()
    assert not (tmp_path / "pcap").exists() or not any((tmp_path / "pcap").iterdir())


def test_a_folder_that_cannot_be_written_is_refused_before_the_run(tmp_path: Path) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("x", encoding="utf-8")
    scenario = chain_scenario(blocker / "pcap")
    path = tmp_path / "chain.yaml"
    path.write_text(yaml.safe_dump(scenario), encoding="utf-8")
    out = tmp_path / "out"
    result = run_cli("run", path, "--out", out)
    assert result.returncode == 2, result.stderr
    assert f"error: trace.dir: cannot write '{blocker / 'pcap'}'" in result.stderr, result.stderr
    assert not out.exists()


# --- Every scheme's packets --------------------------------------------------------------------------

SCHEMES = [
    # (scenario, the schemes named in its files' encapsulations, a frame filter that must match);
    # the first flow's ends are captured (every node of TCP-RLC's, whose receivers are a router's
    # users, with no interface a capture covers)
    ("000_tcp_aware_bp/diamond.yaml", {"nc", "backpressure"}, "airtcp.flags.marked == 0"),
    ("003_horizon/fig4.yaml", {"horizon"}, "ip.hdr_len == 28 && tcp"),
    ("004_tcp_rlc/single.yaml", {"tcp_rlc"}, "airtcp.kind == 3"),
    ("examples/grid_aodv.yaml", set(), "aodv"),
]


@needs_tshark
@pytest.mark.parametrize(("scenario", "schemes", "present"), SCHEMES, ids=[case[0].split("/")[0] for case in SCHEMES])
def test_every_schemes_packets_dissect(tmp_path: Path, scenario: str, schemes: set[str], present: str) -> None:
    doc = yaml.safe_load((REPO / "scenarios" / scenario).read_text(encoding="utf-8"))
    flows = airtcp.load_scenario(doc).flows
    # The first flow's ends, 2 s after the last flow may have started.
    ends = "all" if "tcp_rlc" in schemes else sorted({flows[0].src, flows[0].dst})
    doc["trace"] = {"pcap": ends, "dir": str(tmp_path)}
    last = max(flow.start + flow.start_jitter for flow in flows)
    results = airtcp.run(doc, overrides=[f"duration={last + 2_000_000_000}ns"])
    named: set[str] = set()
    matched = 0
    for row in results.trace["files"]:
        path = tmp_path / row["file"]
        lua = ("-X", f"lua_script:{DISSECTOR}")
        assert tshark(path, *lua, "-Y", "_ws.malformed || _ws.expert.severity >= error") == [], row["file"]
        named |= set(tshark(path, *lua, "-Y", "airtcp", "-T", "fields", "-e", "airtcp.scheme"))
        matched += len(tshark(path, *lua, "-Y", present))
    assert named == schemes
    assert matched > 0


def test_validate_accepts_a_block_without_a_folder_and_writes_nothing(tmp_path: Path) -> None:
    scenario = chain_scenario(tmp_path)
    del scenario["trace"]["dir"]
    path = tmp_path / "chain.yaml"
    path.write_text(yaml.safe_dump(scenario), encoding="utf-8")
    result = run_cli("validate", path)
    assert result.returncode == 0, result.stderr
    assert sorted(p.name for p in tmp_path.iterdir()) == ["chain.yaml"]
