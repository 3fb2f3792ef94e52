//! Medium access control: IEEE 802.11 DCF for the wireless meshes. (The slotted base-station
//! downlink and the ideal conflict-graph scheduler will live beside it.)

pub mod dcf;
pub mod frame;
pub mod timing;
