//! The XOR codec of inter-session coding (COPE: Katti et al., "XORs in the air", IEEE/ACM ToN
//! 16(3), 2008, §3; paper 001 builds on it): a coded packet is the bytewise XOR of natives of
//! different flows, each zero-padded to the longest; a next hop that holds all natives but its
//! own XORs them out and keeps the first `len` bytes of what is left, its native's length coming
//! from the COPE header.
//!
//! The simulator carries no payload bytes; this codec is what the pool and header bookkeeping
//! stand for, and its round trip is tested on real bytes.

/// XORs `native` into `acc`, `acc` growing with zeros to the longer of the two.
pub fn xor_into(acc: &mut Vec<u8>, native: &[u8]) {
    if acc.len() < native.len() {
        acc.resize(native.len(), 0);
    }
    for (a, b) in acc.iter_mut().zip(native) {
        *a ^= b;
    }
}

/// The coded payload of `natives`: their XOR, as long as the longest.
pub fn encode<'a>(natives: impl IntoIterator<Item = &'a [u8]>) -> Vec<u8> {
    let mut acc = Vec::new();
    for native in natives {
        xor_into(&mut acc, native);
    }
    acc
}

/// The native of length `len` left in `coded` once the `others` are XORed out; None if `len`
/// exceeds the coded payload (a header that does not match the frame).
pub fn decode<'a>(
    coded: &[u8],
    others: impl IntoIterator<Item = &'a [u8]>,
    len: usize,
) -> Option<Vec<u8>> {
    if len > coded.len() {
        return None;
    }
    let mut acc = coded.to_vec();
    for other in others {
        if other.len() > acc.len() {
            return None;
        }
        xor_into(&mut acc, other);
    }
    acc.truncate(len);
    Some(acc)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sim::Rng;

    fn payload(rng: &mut Rng, len: usize) -> Vec<u8> {
        (0..len).map(|_| (rng.next_u64() % 256) as u8).collect()
    }

    #[test]
    fn each_of_up_to_eight_natives_of_unequal_lengths_decodes_from_the_others() {
        let mut rng = Rng::stream(11, "xor");
        for trial in 0..200 {
            let n = 1 + trial % 8;
            let natives: Vec<Vec<u8>> = (0..n)
                .map(|_| {
                    let len = 40 + (rng.next_u64() % 1461) as usize;
                    payload(&mut rng, len)
                })
                .collect();
            let coded = encode(natives.iter().map(Vec::as_slice));
            let longest = natives.iter().map(Vec::len).max().unwrap_or(0);
            assert_eq!(coded.len(), longest);
            for (i, own) in natives.iter().enumerate() {
                let others = natives
                    .iter()
                    .enumerate()
                    .filter(|&(j, _)| j != i)
                    .map(|(_, o)| o.as_slice());
                assert_eq!(decode(&coded, others, own.len()).as_ref(), Some(own));
            }
        }
    }

    #[test]
    fn a_missing_native_leaves_garbage_and_a_wrong_length_is_refused() {
        let (a, b, c) = (vec![1u8; 50], vec![2u8; 60], vec![3u8; 40]);
        let coded = encode([a.as_slice(), b.as_slice(), c.as_slice()]);
        // Without c, "a" comes out XORed with c's bytes.
        let wrong = decode(&coded, [b.as_slice()], a.len()).expect("lengths fit");
        assert_ne!(wrong, a);
        assert_eq!(decode(&coded, [b.as_slice()], 61), None);
        assert_eq!(decode(&coded[..30], [b.as_slice()], 20), None);
    }
}
