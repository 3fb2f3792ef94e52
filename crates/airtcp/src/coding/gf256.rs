//! Arithmetic in GF(2^8), the field the random linear network codes of [`super::rlnc`] draw their
//! coefficients from (paper 000 §4.1.3 asks for "a large enough field size").
//!
//! Field: GF(2)\[x\] / (x^8 + x^4 + x^3 + x^2 + 1), i.e. reduction polynomial **0x11D**, with the
//! byte `b7..b0` standing for `b7 x^7 + ... + b0`. Why 0x11D rather than the AES polynomial 0x11B:
//! 0x11D is *primitive*, so `x` (the byte 2) generates the whole multiplicative group and the
//! log/exp tables need no search for a generator (with 0x11B the smallest generator is 3). It is
//! also the polynomial of most erasure-coding and network-coding libraries (Reed-Solomon in
//! RAID-6 and Intel ISA-L, Kodo's `binary8`), so their published test vectors apply. Any
//! irreducible degree-8 polynomial gives an isomorphic field; the choice changes which bytes appear
//! on the wire, never the rank statistics the simulator cares about.
//!
//! Addition and subtraction are XOR. Multiplication uses a 256 x 256 product table (64 KiB), and
//! division/inversion the log/exp tables; all three tables are computed at compile time by
//! `const fn`s, so there is no start-up cost and no lazy initialisation. The slice helpers
//! [`mul_acc`] and [`scale`] look up one 256-byte row of the product table per call and then do one
//! table load per byte, which keeps the inner loop branch-free.

/// The reduction polynomial x^8 + x^4 + x^3 + x^2 + 1 (see the module header for the choice).
pub const POLYNOMIAL: u16 = 0x11D;

/// The generator of the multiplicative group used for the log/exp tables: `x`, the byte 2.
pub const GENERATOR: u8 = 2;

/// `EXP[i] = GENERATOR^i`, stored twice over (510 entries used) so that `EXP[log a + log b]`
/// needs no reduction modulo 255.
static EXP: [u8; 512] = build_exp();

/// `LOG[a]` = the discrete logarithm of `a` to base [`GENERATOR`] for `a != 0`; `LOG[0]` is
/// unused (0).
static LOG: [u8; 256] = build_log();

/// `MUL[a][b] = a * b`.
static MUL: [[u8; 256]; 256] = build_mul();

const fn build_exp() -> [u8; 512] {
    let mut table = [0u8; 512];
    let mut value: u16 = 1;
    let mut i = 0;
    while i < 255 {
        table[i] = value as u8;
        table[i + 255] = value as u8;
        // Multiply by x: shift left and reduce when the x^8 term appears.
        value <<= 1;
        if value & 0x100 != 0 {
            value ^= POLYNOMIAL;
        }
        i += 1;
    }
    // Indices 510 and 511 are never reached by LOG[a] + LOG[b] <= 508 or 255 - LOG[a] + LOG[b];
    // fill them consistently anyway (g^255 = g^0 = 1, g^256 = g).
    table[510] = table[0];
    table[511] = table[1];
    table
}

const fn build_log() -> [u8; 256] {
    let exp = build_exp();
    let mut table = [0u8; 256];
    let mut i = 0;
    while i < 255 {
        table[exp[i] as usize] = i as u8;
        i += 1;
    }
    table
}

const fn build_mul() -> [[u8; 256]; 256] {
    let exp = build_exp();
    let log = build_log();
    let mut table = [[0u8; 256]; 256];
    let mut a = 1;
    while a < 256 {
        let mut b = 1;
        while b < 256 {
            table[a][b] = exp[log[a] as usize + log[b] as usize];
            b += 1;
        }
        a += 1;
    }
    table
}

/// `a + b` (XOR; characteristic 2, so this is also `a - b`).
#[inline]
pub fn add(a: u8, b: u8) -> u8 {
    a ^ b
}

/// `a - b`, identical to [`add`] in characteristic 2; provided so that elimination code can say
/// what it means.
#[inline]
pub fn sub(a: u8, b: u8) -> u8 {
    a ^ b
}

/// `a * b`.
#[inline]
pub fn mul(a: u8, b: u8) -> u8 {
    MUL[a as usize][b as usize]
}

/// The multiplicative inverse of `a`. Panics if `a == 0` (zero has no inverse; callers pick a
/// non-zero pivot before inverting).
#[inline]
pub fn inv(a: u8) -> u8 {
    assert!(a != 0, "gf256: zero has no inverse");
    // a^-1 = g^(255 - log a); LOG[1] = 0 gives EXP[255] = 1.
    EXP[255 - LOG[a as usize] as usize]
}

/// `a / b`. Panics if `b == 0`.
#[inline]
pub fn div(a: u8, b: u8) -> u8 {
    assert!(b != 0, "gf256: division by zero");
    if a == 0 {
        return 0;
    }
    EXP[LOG[a as usize] as usize + 255 - LOG[b as usize] as usize]
}

/// `dst[i] += c * src[i]` for every `i` (the row operation of Gaussian elimination and the
/// inner loop of encoding). `dst` and `src` must have the same length.
#[inline]
pub fn mul_acc(dst: &mut [u8], src: &[u8], c: u8) {
    assert_eq!(dst.len(), src.len(), "gf256::mul_acc: length mismatch");
    match c {
        0 => {}
        // Plain XOR: the compiler vectorises this loop.
        1 => {
            for (d, &s) in dst.iter_mut().zip(src) {
                *d ^= s;
            }
        }
        _ => {
            let row = &MUL[c as usize];
            for (d, &s) in dst.iter_mut().zip(src) {
                *d ^= row[s as usize];
            }
        }
    }
}

/// `dst[i] = c * dst[i]` for every `i` (normalising a pivot row).
#[inline]
pub fn scale(dst: &mut [u8], c: u8) {
    match c {
        1 => {}
        0 => dst.fill(0),
        _ => {
            let row = &MUL[c as usize];
            for d in dst.iter_mut() {
                *d = row[*d as usize];
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Reference multiplication: carry-less shift-and-add with reduction by 0x11D, independent of
    /// the tables.
    fn slow_mul(mut a: u8, mut b: u8) -> u8 {
        let mut product = 0u8;
        while b != 0 {
            if b & 1 != 0 {
                product ^= a;
            }
            let carry = a & 0x80 != 0;
            a <<= 1;
            if carry {
                a ^= (POLYNOMIAL & 0xFF) as u8;
            }
            b >>= 1;
        }
        product
    }

    #[test]
    fn generator_has_order_255() {
        // EXP hits every non-zero element exactly once in one period: 0x11D is primitive.
        let mut seen = [false; 256];
        for &e in &EXP[..255] {
            assert!(e != 0);
            assert!(!seen[e as usize], "{e} repeated");
            seen[e as usize] = true;
        }
        assert_eq!(EXP[255], 1);
    }

    #[test]
    fn table_product_matches_reference_on_all_pairs() {
        for a in 0..=255u8 {
            for b in 0..=255u8 {
                assert_eq!(mul(a, b), slow_mul(a, b), "{a} * {b}");
            }
        }
    }

    #[test]
    fn known_values() {
        // x * x^7 = x^8 = x^4 + x^3 + x^2 + 1 = 0x1D under 0x11D.
        assert_eq!(mul(2, 0x80), 0x1D);
        assert_eq!(mul(0x80, 0x80), slow_mul(0x80, 0x80));
        assert_eq!(add(0x53, 0xCA), 0x99);
        assert_eq!(sub(0x53, 0xCA), 0x99);
    }

    #[test]
    fn multiplication_is_commutative_with_identity_and_zero_on_all_pairs() {
        for a in 0..=255u8 {
            assert_eq!(mul(a, 1), a);
            assert_eq!(mul(a, 0), 0);
            assert_eq!(add(a, 0), a);
            assert_eq!(add(a, a), 0, "every element is its own additive inverse");
            for b in 0..=255u8 {
                assert_eq!(mul(a, b), mul(b, a));
                assert_eq!(add(a, b), add(b, a));
            }
        }
    }

    #[test]
    fn multiplication_is_associative_on_all_triples_with_a_fixed_third() {
        // All pairs (a, b) against a handful of c, including 0, 1 and the generator: exhaustive
        // over triples would be 16 M products, which is cheap enough but adds nothing.
        for c in [0u8, 1, 2, 3, 0x1D, 0x80, 0xFF] {
            for a in 0..=255u8 {
                for b in 0..=255u8 {
                    assert_eq!(mul(mul(a, b), c), mul(a, mul(b, c)));
                }
            }
        }
    }

    #[test]
    fn every_nonzero_element_has_an_inverse() {
        for a in 1..=255u8 {
            let a_inv = inv(a);
            assert_eq!(mul(a, a_inv), 1, "inv({a}) = {a_inv}");
            assert_eq!(inv(a_inv), a);
        }
    }

    #[test]
    fn division_undoes_multiplication_on_all_pairs() {
        for a in 0..=255u8 {
            for b in 1..=255u8 {
                assert_eq!(div(mul(a, b), b), a, "({a} * {b}) / {b}");
                assert_eq!(div(a, b), mul(a, inv(b)));
            }
        }
    }

    #[test]
    #[should_panic(expected = "zero has no inverse")]
    fn zero_has_no_inverse() {
        inv(0);
    }

    #[test]
    fn distributivity_spot_checks() {
        // a (b + c) = ab + ac over all (a, b) and a spread of c.
        for c in [0u8, 1, 7, 0x8E, 0xFF] {
            for a in 0..=255u8 {
                for b in 0..=255u8 {
                    assert_eq!(mul(a, add(b, c)), add(mul(a, b), mul(a, c)));
                }
            }
        }
    }

    #[test]
    fn slice_helpers_agree_with_scalar_ops() {
        let src: Vec<u8> = (0..=255u8).collect();
        for c in [0u8, 1, 2, 0x53, 0xFF] {
            let mut dst: Vec<u8> = (0..=255u8).rev().collect();
            let expected: Vec<u8> = dst
                .iter()
                .zip(&src)
                .map(|(&d, &s)| add(d, mul(c, s)))
                .collect();
            mul_acc(&mut dst, &src, c);
            assert_eq!(dst, expected, "mul_acc c = {c}");

            let mut scaled = src.clone();
            scale(&mut scaled, c);
            let expected: Vec<u8> = src.iter().map(|&s| mul(c, s)).collect();
            assert_eq!(scaled, expected, "scale c = {c}");
        }
        // Accumulating c * src twice cancels (x + x = 0).
        let mut dst = vec![0x5Au8; 256];
        mul_acc(&mut dst, &src, 0x77);
        mul_acc(&mut dst, &src, 0x77);
        assert!(dst.iter().all(|&d| d == 0x5A));
    }
}
