//! Medium access control: the IEEE 802.11 DCF for the wireless meshes, the slotted base-station
//! downlink, and the idealised slotted conflict-graph model with its max-weight scheduler.

pub mod block_ack;
pub mod config;
pub mod conflict_graph;
pub mod dcf;
pub mod downlink;
pub mod frame;
pub mod rate;
pub mod timing;
