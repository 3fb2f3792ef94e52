//! How long exact decoding takes per received packet: blocks of B packets (default 150) that
//! arrive all coded (every row dense, the worst case), coefficients regenerated from each
//! packet's seed as TCP-RLC's receiver does, in GF(8191) and GF(2^8), coefficients only.
//!
//! `cargo run --release -p airtcp --example exact_decoder_speed [B] [blocks]`

use std::time::Instant;

use airtcp::coding::exact_decoder::ExactDecoder;
use airtcp::coding::field::{coefficients_from_seed, Field, Gf256, Gf8191};
use airtcp::sim::Rng;

fn per_packet<F: Field>(size: usize, blocks: usize) -> f64 {
    let mut rng = Rng::stream(1, "speed");
    let mut decoder = ExactDecoder::<F>::new(size, 0);
    let mut row = vec![F::ZERO; size];
    let mut packets = 0u64;
    let start = Instant::now();
    for _ in 0..blocks {
        decoder.reset(size, 0);
        while !decoder.tally().is_complete() {
            coefficients_from_seed::<F>(rng.next_u64(), &mut row);
            decoder.receive_coded(&row, &[]);
            packets += 1;
        }
    }
    start.elapsed().as_secs_f64() / packets as f64 * 1e6
}

fn main() {
    let mut args = std::env::args().skip(1);
    let size: usize = args.next().and_then(|a| a.parse().ok()).unwrap_or(150);
    let blocks: usize = args.next().and_then(|a| a.parse().ok()).unwrap_or(200);
    println!(
        "B = {size}: GF(8191) {:.2} us/packet, GF(2^8) {:.2} us/packet",
        per_packet::<Gf8191>(size, blocks),
        per_packet::<Gf256>(size, blocks)
    );
}
