//! Network coding: finite-field arithmetic and the codecs the coding layers are built from.
//!
//! - [`gf256`]: GF(2^8) arithmetic (polynomial 0x11D) with compile-time tables and the slice
//!   kernels (`mul_acc`, `scale`) every codec's inner loop uses.
//! - [`rlnc`]: generation-based random linear network coding with an incremental encoder, repair
//!   packets and an online Gauss-Jordan decoder: the codec of the NC layer of paper 000
//!   (Seferoglu & Modiano, "TCP-aware backpressure routing and scheduling", IEEE TMC 2016,
//!   §4.1.3), which codes each TCP flow at the edge points of the wireless network in blocks of
//!   `H` = congestion-window packets. Generations follow Chou & Wu, "Network coding for the
//!   internet and wireless networks", IEEE Signal Processing Magazine 2007 (paper 000's \[16\]);
//!   acknowledging every degree of freedom rather than every decoded packet follows Sundararajan
//!   et al., "Network coding meets TCP", IEEE INFOCOM 2009 (paper 000's \[13\]).
//!
//! These are pure data structures: no clock, no event loop. Randomness comes from the caller's
//! [`crate::sim::Rng`] stream so runs stay bit-for-bit reproducible. The NC layer that maps
//! innovative packets to TCP ACKs and handles repair requests is built on top (see
//! `docs/nc_layer.md`).

pub mod gf256;
pub mod rlnc;
