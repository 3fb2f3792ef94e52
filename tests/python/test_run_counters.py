"""Counters of the NC layer and of backpressure forwarding in a run's results: the `nc_*` columns
of the flows table (null for flows without the layer) and the per-node `backpressure` table, in
the DataFrames, the Parquet files and a sweep's flows table."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq

import airtcp
from airtcp.results import NC_COLUMNS, Results
from airtcp.experiments.sweep import run_sweep
from support import fake_core_output

# The flows table's columns before the NC counters were added: unchanged, and first.
PLAIN_FLOW_COLUMNS = [
    "id", "src", "dst", "transport", "cc", "sack", "start_s", "stop_s", "bytes_delivered", "goodput_bps",
    "completion_s", "packets_sent", "retransmissions", "recoveries", "timeouts", "mean_rtt_s",
]


def lossy_chain(*, nc: bool = True) -> dict[str, Any]:
    """A - R - B (wired, 2 Mb/s, 5 ms), 20 % loss on R -> B; a 300 KB transfer over the NC layer
    (if `nc`) beside a plain TCP one."""
    coded = {"kind": "tcp", "rwnd": 10_000, **({"nc": {"block": "cwnd"}} if nc else {})}
    return {
        "name": "lossy-chain", "duration": "20s", "seed": 1, "nodes": ["A", "R", "B"],
        "links": [
            {"from": "A", "to": "R", "rate": "2Mbps", "delay": "5ms"},
            {"from": "R", "to": "B", "rate": "2Mbps", "delay": "5ms",
             "loss": {"kind": "bernoulli", "per": 0.2, "direction": "forward"}},
        ],
        "flows": [
            {"id": "coded", "src": "A", "dst": "B", "app": {"kind": "bulk", "bytes": "300KB"}, "transport": coded},
            {"id": "plain", "src": "A", "dst": "B", "app": {"kind": "bulk", "bytes": "300KB"},
             "transport": {"kind": "tcp", "rwnd": 10_000}},
        ],
    }


def test_nc_flows_have_their_counters_and_plain_flows_nulls(tmp_path: Path) -> None:
    results = airtcp.run(lossy_chain())
    flows = results.flows.set_index("id")
    assert list(results.flows.columns) == PLAIN_FLOW_COLUMNS + list(NC_COLUMNS)
    coded, plain = flows.loc["coded"], flows.loc["plain"]
    assert plain[list(NC_COLUMNS)].isna().all()
    assert coded[list(NC_COLUMNS)].notna().all()
    # The counters add up (docs/nc_layer.md, "Counters in the results").
    assert coded["nc_coded_received"] == coded["nc_innovative"] + coded["nc_non_innovative"] + coded["nc_late"]
    sent_by_tcp = coded["nc_coded_sent"] + coded["nc_repairs_retransmitted"] + coded["nc_absorbed"]
    assert sent_by_tcp == coded["packets_sent"]
    assert coded["nc_coded_sent"] == coded["nc_segments_delivered"] == 300  # 300 KB, MSS 1000
    assert coded["nc_blocks_decoded"] == coded["nc_blocks"] > 0
    assert coded["nc_requests_sent"] > 0 and coded["nc_repairs_requested"] > 0  # the lossy hop
    # The JSON summary keeps the core's nested object, only for the coded flow.
    summary_flows = {flow["id"]: flow for flow in results.summary["flows"]}
    assert "nc" not in summary_flows["plain"]
    assert summary_flows["coded"]["nc"]["sink"]["innovative"] == coded["nc_innovative"]
    # Parquet: typed columns, nulls for the plain flow.
    table = pq.read_table(results.write(tmp_path / "run") / "flows.parquet")
    assert table.schema.field("nc_innovative").type == pa.uint64()
    assert table.column("nc_innovative").to_pylist()[1] is None


def test_nc_columns_are_typed_when_no_flow_uses_the_layer(tmp_path: Path) -> None:
    results = airtcp.run(lossy_chain(nc=False))
    assert results.flows[list(NC_COLUMNS)].isna().all().all()
    table = pq.read_table(results.write(tmp_path / "run") / "flows.parquet")
    assert all(table.schema.field(name).type == pa.uint64() for name in NC_COLUMNS)
    assert table.schema.names[: len(PLAIN_FLOW_COLUMNS)] == PLAIN_FLOW_COLUMNS


def test_counters_unknown_to_this_version_pass_through_with_the_prefix() -> None:
    raw = fake_core_output()
    raw["flows"][0]["nc"] = {"source": {"coded_sent": 3, "new_counter": 1}, "sink": {"late": 2}}
    row = Results(raw).flows.iloc[0]
    assert (row["nc_coded_sent"], row["nc_late"], row["nc_new_counter"]) == (3, 2, 1)
    assert pd.isna(row["nc_innovative"])


def flooded_chain(src: str, dst: str, routing: str = "backpressure") -> dict[str, Any]:
    """A 3-hop 802.11b chain whose nodes hold 5 packets, flooded by 2 Mb/s of UDP."""
    return {
        "name": "flooded", "duration": "5s", "seed": 2,
        "radio": {"standard": "802.11b", "data_rate": "2Mbps", "basic_rate": "1Mbps",
                  "propagation": {"kind": "two_ray_ground"}, "queue": {"kind": "droptail", "packets": 5}},
        "topology": {"kind": "chain", "hops": 3, "spacing": "200m"},
        "routing": {"kind": routing},
        "flows": [{"id": "f", "src": src, "dst": dst, "app": {"kind": "cbr", "rate": "2Mbps", "packet_size": 1000},
                   "transport": {"kind": "udp"}}],
    }


def test_backpressure_overflow_drops_are_reported_at_the_overflowing_node(tmp_path: Path) -> None:
    for src, dst in (("n0", "n3"), ("n3", "n0")):
        results = airtcp.run(flooded_chain(src, dst))
        table = results.backpressure
        assert list(table.columns) == ["node", "overflow_drops", "control_sent"]
        assert list(table["node"]) == ["n0", "n1", "n2", "n3"]
        drops = table.set_index("node")["overflow_drops"]
        assert drops.idxmax() == src and drops[src] > 100, drops
        assert drops[dst] == 0
        queue_full = results.drops[results.drops["reason"] == "queue_full"].set_index("queue")["packets"]
        assert queue_full[f"radio {src}"] == drops[src]  # the same drops, seen as the radio's
    written = pq.read_table(results.write(tmp_path / "run") / "backpressure.parquet")
    assert written.num_rows == 4 and written.schema.field("overflow_drops").type == pa.uint64()


def test_without_backpressure_the_table_is_empty_but_typed() -> None:
    results = airtcp.run(flooded_chain("n0", "n3", routing="static"))
    assert results.backpressure.empty
    assert results.table("backpressure").schema.field("control_sent").type == pa.uint64()


def test_a_sweeps_flows_table_has_the_nc_columns(tmp_path: Path) -> None:
    spec = {"name": "nc", "base": lossy_chain(), "grid": {"duration": ["5s"]}, "seeds": [1]}
    run_sweep(spec, tmp_path / "sweep", workers=1, quiet=True)
    flows = pd.read_parquet(tmp_path / "sweep" / "flows.parquet").set_index("id")
    assert set(NC_COLUMNS) <= set(flows.columns)
    assert flows.loc["coded", "nc_coded_sent"] > 0 and pd.isna(flows.loc["plain", "nc_coded_sent"])
    assert "nc" not in flows.columns
