use super::*;
use proptest::prelude::*;
// proptest's prelude also exports a `Rng` trait; the simulator's stream is meant here.
use crate::sim::Rng;

/// Source packets of distinct lengths and contents.
fn sources(count: usize, seed: u64) -> Vec<Vec<u8>> {
    let mut rng = Rng::stream(seed, "test/sources");
    (0..count)
        .map(|_| {
            let len = (rng.next_u64() % 120) as usize;
            (0..len).map(|_| rng.next_u64() as u8).collect()
        })
        .collect()
}

/// Encodes a whole block incrementally: the `H` coded packets in emission order.
fn encode_block(
    encoder: &mut BlockEncoder,
    payloads: &[Vec<u8>],
    rng: &mut Rng,
) -> Vec<CodedPacket> {
    payloads
        .iter()
        .map(|payload| {
            let mut packet = CodedPacket::default();
            encoder.push_source(payload, rng, &mut packet).unwrap();
            packet
        })
        .collect()
}

fn feed(decoder: &mut BlockDecoder, packet: &CodedPacket) -> Reception {
    let reception = decoder.receive(&packet.header, &packet.payload).unwrap();
    decoder.assert_reduced_row_echelon();
    reception
}

#[test]
fn incremental_packet_k_is_innovative_after_the_first_k_minus_1() {
    // In-order trace: a_1, a_2, ... each raise the rank by one, for many coefficient draws.
    for seed in 0..200 {
        let h = 16;
        let payloads = sources(h, seed);
        let mut rng = Rng::stream(seed, "test/encoder");
        let mut encoder = BlockEncoder::new(PayloadMode::Bytes, 3, h);
        let coded = encode_block(&mut encoder, &payloads, &mut rng);
        let mut decoder = BlockDecoder::new(PayloadMode::Bytes, 3, h);
        for (k, packet) in coded.iter().enumerate() {
            assert_eq!(packet.header.packet_id as usize, k + 1);
            assert_eq!(packet.header.coefficients.len(), k + 1);
            assert_ne!(
                packet.header.coefficients[k], 0,
                "alpha_kk must be non-zero"
            );
            assert!(!packet.header.is_repair());
            assert_eq!(
                feed(&mut decoder, packet),
                Reception::Innovative { rank: k + 1 }
            );
            // Receiving a_1..a_k in order decodes eta_1..eta_k at once: no coding delay.
            assert_eq!(decoder.decoded_prefix(), k + 1);
            assert_eq!(decoder.decoded_source(k).unwrap(), &payloads[k][..]);
        }
        assert_eq!(decoder.decode().unwrap(), payloads);
    }
}

#[test]
fn repair_packet_fills_a_lost_degree_of_freedom() {
    // a_1 .. a_8 sent, a_3 lost; the receiver reports (block 9, missing 1); one repair packet.
    let h = 8;
    let payloads = sources(h, 11);
    let mut rng = Rng::stream(11, "test/encoder");
    let mut encoder = BlockEncoder::new(PayloadMode::Bytes, 9, h);
    let coded = encode_block(&mut encoder, &payloads, &mut rng);
    let mut decoder = BlockDecoder::new(PayloadMode::Bytes, 9, h);
    for packet in coded.iter().filter(|p| p.header.packet_id != 3) {
        assert!(feed(&mut decoder, packet).is_innovative());
    }
    // Sources 1 and 2 are already decodable; 3 onwards wait for the missing dimension.
    assert_eq!(decoder.decoded_prefix(), 2);
    assert_eq!(
        decoder.decode(),
        Err(DecodeError::Incomplete { missing: 1 })
    );
    let request = decoder.repair_request().unwrap();
    assert_eq!(
        request,
        RepairRequest {
            block_id: 9,
            missing: 1
        }
    );

    let mut repair = CodedPacket::default();
    encoder.repair(&mut rng, &mut repair).unwrap();
    assert_eq!(repair.header.packet_id, 9, "first repair is numbered H + 1");
    assert!(repair.header.is_repair());
    assert_eq!(repair.header.coefficients.len(), h);
    // With this seed the repair is innovative; in general it is with probability 255/256 (see
    // `repair_is_non_innovative_about_once_in_256`).
    assert_eq!(
        feed(&mut decoder, &repair),
        Reception::Innovative { rank: h }
    );
    assert!(decoder.is_complete());
    assert_eq!(decoder.repair_request(), None);
    assert_eq!(decoder.decode().unwrap(), payloads);
}

#[test]
fn duplicates_and_late_packets_are_not_innovative() {
    let h = 4;
    let payloads = sources(h, 5);
    let mut rng = Rng::stream(5, "test/encoder");
    let mut encoder = BlockEncoder::new(PayloadMode::Bytes, 0, h);
    let coded = encode_block(&mut encoder, &payloads, &mut rng);
    let mut decoder = BlockDecoder::new(PayloadMode::Bytes, 0, h);
    assert!(feed(&mut decoder, &coded[1]).is_innovative());
    assert_eq!(feed(&mut decoder, &coded[1]), Reception::NotInnovative);
    for packet in &coded {
        feed(&mut decoder, packet);
    }
    assert!(decoder.is_complete());
    assert_eq!(feed(&mut decoder, &coded[0]), Reception::NotInnovative);
    assert_eq!(decoder.innovative_received(), 4);
    assert_eq!(decoder.non_innovative_received(), 3);
    assert_eq!(decoder.decode().unwrap(), payloads);
}

#[test]
fn reverse_order_decodes() {
    let h = 32;
    let payloads = sources(h, 8);
    let mut rng = Rng::stream(8, "test/encoder");
    let mut encoder = BlockEncoder::new(PayloadMode::Bytes, 1, h);
    let coded = encode_block(&mut encoder, &payloads, &mut rng);
    let mut decoder = BlockDecoder::new(PayloadMode::Bytes, 1, h);
    for packet in coded.iter().rev() {
        assert!(feed(&mut decoder, packet).is_innovative());
        // Nothing is decodable until a_1 arrives (every row involves a later source).
        if !decoder.is_complete() {
            assert_eq!(decoder.decoded_prefix(), 0);
        }
    }
    assert_eq!(decoder.decode().unwrap(), payloads);
}

#[test]
fn empty_and_zero_padded_payloads_are_byte_exact() {
    // Trailing zero bytes and empty packets survive: lengths travel coded in the payload.
    let payloads = vec![
        vec![],
        vec![0, 0, 0],
        vec![7],
        vec![1, 0],
        vec![],
        vec![0; 40],
    ];
    let h = payloads.len();
    let mut rng = Rng::stream(1, "test/encoder");
    let mut encoder = BlockEncoder::new(PayloadMode::Bytes, 2, h);
    let coded = encode_block(&mut encoder, &payloads, &mut rng);
    // Coded payloads are only as long as the longest symbol they combine.
    assert_eq!(coded[0].payload.len(), LENGTH_PREFIX_BYTES);
    assert_eq!(coded[1].payload.len(), LENGTH_PREFIX_BYTES + 3);
    assert_eq!(coded[5].payload.len(), LENGTH_PREFIX_BYTES + 40);
    let mut decoder = BlockDecoder::new(PayloadMode::Bytes, 2, h);
    for packet in coded.iter().rev() {
        feed(&mut decoder, packet);
    }
    assert_eq!(decoder.decode().unwrap(), payloads);
}

#[test]
fn block_of_one_and_block_larger_than_the_field() {
    for h in [1, 255, 256, 300] {
        let payloads = sources(h, h as u64);
        let mut rng = Rng::stream(h as u64, "test/encoder");
        let mut encoder = BlockEncoder::new(PayloadMode::Bytes, 4, h);
        let coded = encode_block(&mut encoder, &payloads, &mut rng);
        let mut decoder = BlockDecoder::new(PayloadMode::Bytes, 4, h);
        // Lose every third packet, then repair until complete.
        for packet in coded.iter().filter(|p| p.header.packet_id % 3 != 0) {
            assert!(decoder
                .receive(&packet.header, &packet.payload)
                .unwrap()
                .is_innovative());
        }
        let mut repair = CodedPacket::default();
        let mut sent = 0;
        while let Some(request) = decoder.repair_request() {
            for _ in 0..request.missing {
                encoder.repair(&mut rng, &mut repair).unwrap();
                decoder.receive(&repair.header, &repair.payload).unwrap();
                sent += 1;
            }
            assert!(sent < h + 50, "repair did not converge");
        }
        assert_eq!(decoder.decode().unwrap(), payloads, "H = {h}");
    }
}

#[test]
fn malformed_and_foreign_packets_are_rejected() {
    let mut decoder = BlockDecoder::new(PayloadMode::Bytes, 5, 4);
    let mut header = CodedHeader {
        block_id: 6,
        packet_id: 1,
        block_size: 4,
        coefficients: vec![1],
    };
    assert_eq!(
        decoder.receive(&header, &[0, 0]),
        Err(ReceiveError::WrongBlock {
            expected: 5,
            got: 6
        })
    );
    header.block_id = 5;
    header.block_size = 3;
    assert!(matches!(
        decoder.receive(&header, &[0, 0]),
        Err(ReceiveError::BlockSizeMismatch { .. })
    ));
    header.block_size = 4;
    header.coefficients = vec![1; 5];
    assert!(matches!(
        decoder.receive(&header, &[0, 0]),
        Err(ReceiveError::TooManyCoefficients { .. })
    ));
    header.coefficients = vec![0, 0];
    assert_eq!(
        decoder.receive(&header, &[]),
        Ok(Reception::NotInnovative),
        "an all-zero combination carries nothing"
    );
    assert_eq!(decoder.rank(), 0);
}

#[test]
fn encoder_limits() {
    let mut rng = Rng::stream(0, "test/encoder");
    let mut out = CodedPacket::default();
    let mut encoder = BlockEncoder::new(PayloadMode::Bytes, 0, 1);
    assert_eq!(
        encoder.repair(&mut rng, &mut out),
        Err(EncodeError::NoSources)
    );
    assert_eq!(
        encoder.push_source(&vec![0; MAX_SOURCE_LEN + 1], &mut rng, &mut out),
        Err(EncodeError::PayloadTooLong {
            len: MAX_SOURCE_LEN + 1
        })
    );
    encoder.push_source(&[1, 2], &mut rng, &mut out).unwrap();
    assert!(encoder.is_full());
    assert_eq!(
        encoder.push_source(&[3], &mut rng, &mut out),
        Err(EncodeError::BlockFull { block_size: 1 })
    );
    // Reset reuses the encoder for the next block.
    encoder.reset(1, 2);
    encoder.push_source(&[3], &mut rng, &mut out).unwrap();
    assert_eq!(out.header.block_id, 1);
    assert_eq!(out.header.packet_id, 1);
    assert_eq!(out.header.wire_len(), HEADER_FIXED_BYTES + 1);
}

#[test]
fn partial_block_is_delivered_through_repairs_over_pushed_sources() {
    // The flow ends after 3 of H = 10 sources; a_2 is lost. Repairs over the 3 pushed
    // sources complete the decodable prefix although rank never reaches H.
    let payloads = sources(3, 21);
    let mut rng = Rng::stream(21, "test/encoder");
    let mut encoder = BlockEncoder::new(PayloadMode::Bytes, 0, 10);
    let coded = encode_block(&mut encoder, &payloads, &mut rng);
    let mut decoder = BlockDecoder::new(PayloadMode::Bytes, 0, 10);
    feed(&mut decoder, &coded[0]);
    feed(&mut decoder, &coded[2]);
    assert_eq!(decoder.decoded_prefix(), 1);
    let mut repair = CodedPacket::default();
    while decoder.decoded_prefix() < 3 {
        encoder.repair(&mut rng, &mut repair).unwrap();
        assert_eq!(repair.header.coefficients.len(), 3);
        feed(&mut decoder, &repair);
    }
    for (index, payload) in payloads.iter().enumerate() {
        assert_eq!(decoder.decoded_source(index).unwrap(), &payload[..]);
    }
    assert_eq!(decoder.missing(), 7);
}

#[test]
fn decoder_reset_reuses_buffers_for_the_next_block() {
    let mut decoder = BlockDecoder::new(PayloadMode::Bytes, 0, 20);
    for (block, h) in [(0u64, 20usize), (1, 5), (2, 40)] {
        decoder.reset(block, h);
        let payloads = sources(h, block);
        let mut rng = Rng::stream(block, "test/encoder");
        let mut encoder = BlockEncoder::new(PayloadMode::Bytes, block, h);
        for packet in encode_block(&mut encoder, &payloads, &mut rng).iter().rev() {
            feed(&mut decoder, packet);
        }
        assert_eq!(decoder.decode().unwrap(), payloads);
    }
}

#[test]
fn same_seed_same_coded_bytes() {
    let payloads = sources(24, 3);
    let run = |seed: u64, mode: PayloadMode| {
        let mut rng = Rng::stream(seed, "rlnc/test");
        let mut encoder = BlockEncoder::new(mode, 17, payloads.len());
        let mut coded = encode_block(&mut encoder, &payloads, &mut rng);
        for _ in 0..5 {
            let mut repair = CodedPacket::default();
            encoder.repair(&mut rng, &mut repair).unwrap();
            coded.push(repair);
        }
        coded
    };
    let first = run(42, PayloadMode::Bytes);
    assert_eq!(first, run(42, PayloadMode::Bytes));
    assert_ne!(first, run(43, PayloadMode::Bytes));
    // Coefficients-only mode draws exactly the same coefficients: payloads consume no
    // randomness, so the two modes can be swapped without changing a run's rank trajectory.
    let headers_only = run(42, PayloadMode::CoefficientsOnly);
    for (full, light) in first.iter().zip(&headers_only) {
        assert_eq!(full.header, light.header);
        assert!(light.payload.is_empty());
    }
}

#[test]
fn repair_is_non_innovative_about_once_in_256() {
    // Rank 3 of H = 4 (one incremental packet lost): a uniform repair is non-innovative with
    // probability (256^3 - 1) / (256^4 - 1) ~ 1/256. Over 20000 trials expect ~78 (sd ~8.8).
    let trials = 20_000;
    let h = 4;
    let mut rng = Rng::stream(99, "test/field-size");
    let mut encoder = BlockEncoder::new(PayloadMode::CoefficientsOnly, 0, h);
    let mut decoder = BlockDecoder::new(PayloadMode::CoefficientsOnly, 0, h);
    let mut packet = CodedPacket::default();
    let mut non_innovative = 0;
    for trial in 0..trials {
        encoder.reset(trial, h);
        decoder.reset(trial, h);
        let lost = (rng.next_u64() % h as u64) as usize + 1;
        for k in 1..=h {
            encoder.push_source(&[], &mut rng, &mut packet).unwrap();
            if k != lost {
                decoder.receive(&packet.header, &[]).unwrap();
            }
        }
        assert_eq!(decoder.missing(), 1);
        encoder.repair(&mut rng, &mut packet).unwrap();
        if !decoder
            .receive(&packet.header, &[])
            .unwrap()
            .is_innovative()
        {
            non_innovative += 1;
            // Asking again fills it.
            while !decoder.is_complete() {
                encoder.repair(&mut rng, &mut packet).unwrap();
                decoder.receive(&packet.header, &[]).unwrap();
            }
        }
    }
    let expected = trials as f64 / 256.0;
    let sd = (expected * (1.0 - 1.0 / 256.0)).sqrt();
    assert!(
        (non_innovative as f64 - expected).abs() < 5.0 * sd,
        "{non_innovative} non-innovative repairs in {trials}, expected ~{expected:.0}"
    );
}

/// Channel of the property test: loss with probability `loss`, occasional duplication, and a
/// shuffle (Fisher-Yates) of what survives.
fn channel(packets: Vec<CodedPacket>, loss: f64, rng: &mut Rng) -> Vec<CodedPacket> {
    let mut delivered = Vec::new();
    for packet in packets {
        if rng.bernoulli(loss) {
            continue;
        }
        if rng.bernoulli(0.1) {
            delivered.push(packet.clone());
        }
        delivered.push(packet);
    }
    for i in (1..delivered.len()).rev() {
        let j = (rng.next_u64() % (i as u64 + 1)) as usize;
        delivered.swap(i, j);
    }
    delivered
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    /// Encode a block, lose/duplicate/shuffle, then repair (repairs lost too) until complete.
    /// A coefficients-only encoder/decoder pair runs alongside and must agree on every verdict.
    #[test]
    fn any_loss_pattern_decodes_byte_exact(
        payloads in prop::collection::vec(prop::collection::vec(any::<u8>(), 0..=200), 1..=64),
        loss in 0.0f64..=0.5,
        seed in any::<u64>(),
    ) {
        let h = payloads.len();
        let mut coding_rng = Rng::stream(seed, "test/encoder");
        let mut coding_rng_light = coding_rng.clone();
        let mut channel_rng = Rng::stream(seed, "test/channel");
        let mut encoder = BlockEncoder::new(PayloadMode::Bytes, seed, h);
        let mut encoder_light = BlockEncoder::new(PayloadMode::CoefficientsOnly, seed, h);
        let mut decoder = BlockDecoder::new(PayloadMode::Bytes, seed, h);
        let mut decoder_light = BlockDecoder::new(PayloadMode::CoefficientsOnly, seed, h);

        let mut light = CodedPacket::default();
        let mut sent = Vec::with_capacity(h);
        for payload in &payloads {
            let mut packet = CodedPacket::default();
            encoder.push_source(payload, &mut coding_rng, &mut packet).unwrap();
            encoder_light.push_source(payload, &mut coding_rng_light, &mut light).unwrap();
            prop_assert_eq!(&packet.header, &light.header);
            sent.push(packet);
        }

        let mut innovative = 0;
        let mut delivered = 0u64;
        let mut deliver = |packet: &CodedPacket,
                           decoder: &mut BlockDecoder,
                           decoder_light: &mut BlockDecoder|
         -> Result<(), TestCaseError> {
            let verdict = decoder.receive(&packet.header, &packet.payload).unwrap();
            let verdict_light = decoder_light.receive(&packet.header, &[]).unwrap();
            prop_assert_eq!(verdict, verdict_light);
            decoder.assert_reduced_row_echelon();
            delivered += 1;
            if verdict.is_innovative() {
                innovative += 1;
            }
            Ok(())
        };
        for packet in channel(sent, loss, &mut channel_rng) {
            deliver(&packet, &mut decoder, &mut decoder_light)?;
        }

        // Repair rounds: each asks for `missing` packets, each may be lost or (rarely, with
        // GF(2^8)) non-innovative; the receiver then simply asks again.
        let mut rounds = 0;
        let mut repair = CodedPacket::default();
        while let Some(request) = decoder.repair_request() {
            rounds += 1;
            prop_assert!(rounds <= 200, "no completion after 200 repair rounds");
            prop_assert_eq!(request.block_id, seed);
            prop_assert_eq!(decoder_light.missing(), request.missing);
            for _ in 0..request.missing {
                encoder.repair(&mut coding_rng, &mut repair).unwrap();
                encoder_light.repair(&mut coding_rng_light, &mut light).unwrap();
                prop_assert_eq!(&repair.header, &light.header);
                prop_assert!(repair.header.packet_id as usize > h);
                if channel_rng.bernoulli(loss) {
                    continue;
                }
                deliver(&repair, &mut decoder, &mut decoder_light)?;
            }
        }

        prop_assert_eq!(innovative, h);
        prop_assert_eq!(decoder.innovative_received(), h as u64);
        prop_assert_eq!(
            decoder.innovative_received() + decoder.non_innovative_received(),
            delivered
        );
        prop_assert!(decoder_light.is_complete());
        prop_assert_eq!(decoder.decoded_prefix(), h);
        prop_assert_eq!(decoder.decode().unwrap(), payloads);
    }
}
