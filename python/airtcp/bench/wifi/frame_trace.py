"""Reading and comparing per-frame traces of the two simulators (`wifi_matrix --trace=FILE`,
`AIRTCP_FRAME_TRACE=FILE`): one line per event, `t_ns node event fields...`
(`crates/airtcp/src/net/frame_trace.rs` lists the events).

The comparison gives, per simulator: frames started by kind and how many were retries, backoff
draws per node, receptions lost by reason, transmissions that started while another was on the
air (collisions, counted once per overlapping start), and for each node the distribution of its
channel-access gaps: the time from the end of the last frame on the air to the start of its data
or RTS frame, in slots after DIFS (0 = sent DIFS after the medium went idle; `<DIFS` = sent while
another frame was still on the air or within DIFS of it).
"""

from __future__ import annotations

from collections import Counter, defaultdict
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

# (DIFS, slot) in ns per standard.
TIMING_NS = {"11a": (34_000, 9_000), "11b": (50_000, 20_000)}


@dataclass
class TraceStats:
    """What one trace shows."""

    frames: Counter = field(default_factory=Counter)  # kind -> count
    retries: Counter = field(default_factory=Counter)  # kind -> frames with the Retry bit
    backoffs: Counter = field(default_factory=Counter)  # node -> draws
    drops: Counter = field(default_factory=Counter)  # reason -> count
    overlaps: int = 0
    gaps: dict[int, Counter] = field(default_factory=lambda: defaultdict(Counter))


def read_trace(path: str | Path, standard: str = "11a") -> TraceStats:
    difs, slot = TIMING_NS[standard]
    txs: list[tuple[int, int, str, int, int]] = []
    st = TraceStats()
    with open(path, encoding="utf-8") as f:
        for line in f:
            parts = line.split()
            if len(parts) < 3:
                continue
            t, node, event = int(parts[0]), int(parts[1]), parts[2]
            if event == "tx":
                kind, airtime, retry = parts[3], int(parts[6]), parts[8] == "1"
                txs.append((t, node, kind, airtime, int(retry)))
            elif event == "backoff":
                st.backoffs[node] += 1
            elif event == "rx_drop":
                st.drops[parts[3]] += 1
    txs.sort()
    busy_until = txs[0][0] if txs else 0
    for i, (t, node, kind, airtime, retry) in enumerate(txs):
        st.frames[kind] += 1
        st.retries[kind] += retry
        if t < busy_until:
            st.overlaps += 1
        # The first frame has no medium-busy period before it to measure from.
        if kind in ("data", "rts") and i > 0:
            gap = t - busy_until
            if gap < difs - slot // 2:
                key: Any = "<DIFS"
            else:
                k = round((gap - difs) / slot)
                key = k if k < 16 else "16+"
            st.gaps[node][key] += 1
        busy_until = max(busy_until, t + airtime)
    return st


def _gap_line(counter: Counter) -> str:
    total = sum(counter.values())
    keys = [k for k in range(16) if k in counter] + [k for k in ("16+", "<DIFS") if k in counter]
    return f"{total:>6} " + " ".join(f"{k}:{counter[k] / total:.3f}" for k in keys)


def compare_text(ns3_path: str | Path, airtcp_path: str | Path, case: Any) -> str:
    """The two traces side by side, as text."""
    standard = getattr(case, "standard", "11a")
    stats = {"ns-3": read_trace(ns3_path, standard), "airtcp": read_trace(airtcp_path, standard)}
    out = []
    for name, st in stats.items():
        out.append(f"== {name}")
        out.append(
            "  frames: "
            + ", ".join(f"{k} {v} ({st.retries[k]} retries)" for k, v in sorted(st.frames.items()))
        )
        out.append(f"  overlapping starts (collisions): {st.overlaps}")
        out.append("  backoff draws by node: " + ", ".join(f"{n}: {v}" for n, v in sorted(st.backoffs.items())))
        out.append("  receptions lost: " + (", ".join(f"{k} {v}" for k, v in sorted(st.drops.items())) or "none"))
        out.append("  access gaps (slots after DIFS) of data/RTS frames, by node:")
        for node in sorted(st.gaps):
            out.append(f"    node {node}: {_gap_line(st.gaps[node])}")
    return "\n".join(out)
