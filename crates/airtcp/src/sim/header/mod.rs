//! The headers packets carry ([`super::packet::Header`]): each protocol's wire format as data,
//! with the few constants that size it. Nothing here acts on a header; the protocols that write
//! and read them live in their own folders (`transport::tcp`, `transport::tcp_rlc`, `net::aodv`,
//! a shim's or a forwarding layer's own module), so that the packet, and with it the engine,
//! depends on no protocol's code.

pub mod aodv;
pub mod rlc;
pub mod shim;
pub mod tcp;
