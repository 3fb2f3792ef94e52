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
//! - [`gf8191`]: GF(8191), the prime field of TCP-RLC (Ryu, Bhadra & Shakkottai, Allerton 2009,
//!   §IV), with Mersenne reduction and a compile-time inverse table.
//! - [`field`]: the [`field::Field`] trait over both fields, and the coefficient vector a 64-bit
//!   seed stands for.
//! - [`exact_decoder`]: online Gauss-Jordan decoding of one block in either field, coefficients
//!   only or with payloads.
//! - [`counting_decoder`]: the same ranks in distribution by counting (a coded packet is
//!   non-innovative with probability q^-m), the fast mode for long runs.
//! - [`rank_tally`]: the size, rank and innovation counts both decoders keep.
//! - [`block_quota`]: the transmissions a coded block needs over an erasure channel, with a
//!   margin (the priority pairs' and TCP-RLC's per-flow quotas).
//! - [`xor`]: the XOR codec of inter-session coding (COPE, paper 001): natives zero-padded to the
//!   longest, each next hop XORing out the others.
//! - [`cope_rule`]: COPE's coding decision at a transmit opportunity (virtual queues, the
//!   decodability threshold G over what each next hop is known or guessed to hold).
//! - [`cope_fifo`]: COPE's drop-tail output FIFO of natives with per-neighbour virtual queues.
//! - [`cope_state`]: what a COPE node knows: its packet pool with expiry, its neighbours'
//!   reception reports, the guess from link delivery, the COPE header's size.
//! - [`cope_ack`]: COPE's hop-by-hop ACK blocks and the coder's retransmission of natives sent
//!   coded.
//! - [`bfly_rule`]: BFLY's two-hop pairing from the topology and the packets' source routes.
//!
//! These are pure data structures: no clock, no event loop. Randomness comes from the caller's
//! [`crate::sim::Rng`] stream so runs stay bit-for-bit reproducible. The NC layer that maps
//! innovative packets to TCP ACKs and handles repair requests is built on top (see
//! `docs/nc_layer.md`).

pub mod bfly_rule;
pub mod block_quota;
pub mod cope_ack;
pub mod cope_fifo;
pub mod cope_rule;
pub mod cope_state;
pub mod counting_decoder;
pub mod exact_decoder;
pub mod field;
pub mod gf256;
pub mod gf8191;
pub mod rank_tally;
pub mod rlnc;
pub mod xor;
