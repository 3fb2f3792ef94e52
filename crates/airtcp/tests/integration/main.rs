//! The integration tests, one binary: each module is one area (a scenario family, a seam, the fuzzer).
//! One binary links the library once; `cargo test --test integration <module>::` runs one area.

mod common;

mod aggregating_layers;
mod aodv_grid;
mod backpressure;
mod bbr3_fairness;
mod compound_response;
mod cope;
mod cubic_compound;
mod delay_cc;
mod dot11a;
mod downlink_cell;
mod etx_routing;
mod fairness;
mod flow_paths;
mod forwarding_seam;
mod frame_error;
mod fuzz_core;
mod golden_tables;
mod hidden_terminal;
mod horizon;
mod hostile_scenarios;
mod mobility;
mod multi_radio;
mod nc_layer;
mod node_failure_conservation;
mod pcap_trace;
mod random_worlds;
mod rate_control;
mod rlc_allocations;
mod saturation;
mod shim_seam;
mod tcp_p2p;
mod tcp_rlc_router;
mod udp_sources;
mod usable_links;
mod wired_gateway;
mod wireless_chain;
