//! A small memo of [`ErrorModel::frame_success`] for the reception path.
//!
//! Every decoded-or-not decision evaluates the error curves (an `exp`, a `pow`, for OFDM a
//! series): about a twentieth of a wireless run's loop. The inputs repeat: under range or
//! deterministic propagation a link's SINR is the same value frame after frame unless another
//! signal overlaps, and frame sizes and rates take a handful of values. The memo keeps the last
//! result for each of [`SLOTS`] hashed keys `(model, SINR bits, rate, bytes)`; a hit returns the
//! value computed earlier for bit-identical inputs, so results do not change at all. A miss costs
//! one hash and one comparison more than the plain call (fading: every SINR differs).

use super::ErrorModel;

/// Entries of the memo (direct-mapped).
pub const SLOTS: usize = 64;

#[derive(Debug, Clone, Copy, PartialEq)]
struct Slot {
    sinr_bits: u64,
    rate_bps: u64,
    bytes: u32,
    model: ErrorModel,
    success: f64,
}

/// The memo: the last result per hashed key.
#[derive(Debug, Clone)]
pub struct SuccessMemo {
    slots: Box<[Option<Slot>; SLOTS]>,
}

impl Default for SuccessMemo {
    fn default() -> Self {
        SuccessMemo {
            slots: Box::new([None; SLOTS]),
        }
    }
}

impl SuccessMemo {
    /// [`ErrorModel::frame_success`], from the memo when the same inputs were seen last in
    /// their slot.
    pub fn frame_success(
        &mut self,
        model: ErrorModel,
        sinr: f64,
        rate_bps: u64,
        bytes: u32,
    ) -> f64 {
        let sinr_bits = sinr.to_bits();
        // Fibonacci hashing of the mixed key; the top bits pick the slot.
        let mixed = sinr_bits ^ rate_bps.rotate_left(17) ^ u64::from(bytes).rotate_left(41);
        let index = (mixed.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 58) as usize;
        let slot = &mut self.slots[index];
        if let Some(s) = slot {
            if s.sinr_bits == sinr_bits
                && s.rate_bps == rate_bps
                && s.bytes == bytes
                && s.model == model
            {
                return s.success;
            }
        }
        let success = model.frame_success(sinr, rate_bps, bytes);
        *slot = Some(Slot {
            sinr_bits,
            rate_bps,
            bytes,
            model,
            success,
        });
        success
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        /// Whatever the order and repetition of the inputs, the memo answers exactly what the
        /// error model does.
        #[test]
        fn memo_is_exactly_the_model(
            calls in proptest::collection::vec(
                (0usize..12, prop::sample::select(vec![1_000_000u64, 2_000_000, 11_000_000, 6_000_000, 54_000_000]),
                 prop::sample::select(vec![14u32, 20, 1076, 1536]), any::<bool>()),
                1..400,
            )
        ) {
            let sinrs = [0.0, 0.5, 1.0, 3.3, 7.0, 10.0, 31.6, 100.0, 1e3, 1e5, f64::INFINITY, 2.2e-3];
            let mut memo = SuccessMemo::default();
            for (i, rate, bytes, ofdm) in calls {
                let model = if ofdm { ErrorModel::OfdmNist } else { ErrorModel::Dsss };
                let want = model.frame_success(sinrs[i], rate, bytes);
                let got = memo.frame_success(model, sinrs[i], rate, bytes);
                prop_assert_eq!(got.to_bits(), want.to_bits());
            }
        }
    }

    #[test]
    fn a_repeated_input_is_served_from_its_slot() {
        let mut memo = SuccessMemo::default();
        let first = memo.frame_success(ErrorModel::Dsss, 5.0, 11_000_000, 1076);
        assert!(memo.slots.iter().flatten().count() == 1);
        let again = memo.frame_success(ErrorModel::Dsss, 5.0, 11_000_000, 1076);
        assert_eq!(first.to_bits(), again.to_bits());
        assert!(memo.slots.iter().flatten().count() == 1);
        // Another model with the same numbers is another key.
        let ofdm = memo.frame_success(ErrorModel::OfdmNist, 5.0, 11_000_000, 1076);
        assert_eq!(
            ofdm,
            ErrorModel::OfdmNist.frame_success(5.0, 11_000_000, 1076)
        );
    }
}
