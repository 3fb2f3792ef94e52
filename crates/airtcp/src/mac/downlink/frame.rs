//! The downlink frame: which fraction of the nominal `e x bandwidth x slot` bits of a slot the
//! physical frame leaves for user data (the *frame efficiency*).
//!
//! The AMC table's efficiencies e are information bits per modulation symbol (bits per symbol x
//! code rate). On an OFDMA downlink a modulation symbol rides one data subcarrier of one OFDMA
//! symbol (a "data tone"), so a user at efficiency e receives e x (data tones per second) bits
//! per second. `ideal` takes one tone per second per hertz of bandwidth (efficiency 1, the
//! behaviour before frames were modelled); `ieee802_16e_pusc` counts the tones of an IEEE
//! 802.16e OFDMA TDD frame:
//!
//! - sampling rate `Fs = floor(n x B / 8000) x 8000` (n the sampling factor), subcarrier spacing
//!   `Fs / N_FFT`, useful symbol time `N_FFT / Fs`, symbol time `T_s = (1 + G) N_FFT / Fs`
//!   (IEEE Std 802.16-2009 §8.4.2.3 primitive and §8.4.2.4 derived parameters);
//! - a frame of duration `T_f` holds `floor((T_f - TTG - RTG) / T_s)` symbols, split between the
//!   downlink subframe (`dl_symbols`, preamble included) and the uplink subframe (`ul_symbols`);
//! - the downlink carries data on `dl_symbols - preamble_symbols - map_symbols` symbols (the
//!   FCH, DL-MAP and UL-MAP follow the preamble), each with `data_subcarriers` data tones (DL PUSC:
//!   the pilots and guard subcarriers carry none);
//! - frame efficiency `= data symbols x data subcarriers / (T_f x B)`.
//!
//! Defaults, 10 MHz: n = 28/25 gives Fs = 11.2 MHz, N_FFT = 1024 (10.9375 kHz spacing, 91.43 us
//! useful time), G = 1/8 gives T_s = 102.857 us; a 5 ms frame less TTG 105.714 us and RTG 60 us
//! (the WiMAX Forum profile) holds 47 symbols, split 29:18; 29 - 1 preamble - 4 MAP symbols = 24
//! data symbols of 720 data subcarriers (DL PUSC, 1024 FFT: 30 subchannels x 24) = 17 280 data
//! tones per frame = 3.456 M tones/s = 0.3456 of 10 MHz.

use super::config::FrameConfig;
use crate::sim::Time;

/// The arithmetic of an OFDMA frame (see the module header).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct OfdmaFrame {
    /// Sampling rate Fs, Hz.
    pub sampling_rate: f64,
    /// Subcarrier spacing Fs / N_FFT, Hz.
    pub subcarrier_spacing: f64,
    /// OFDMA symbol time (1 + G) N_FFT / Fs, seconds.
    pub symbol_time: f64,
    /// Whole symbols the frame holds besides its transition gaps.
    pub frame_symbols: u32,
    /// Downlink symbols that carry data.
    pub data_symbols: u32,
    /// Data tones (subcarrier-symbols) the downlink carries per second.
    pub data_tones_per_second: f64,
    /// Data tones per second over the bandwidth, in (0, 1].
    pub efficiency: f64,
}

/// A frame configuration that cannot hold data: the field (relative to the frame) and why.
#[derive(Debug, Clone, PartialEq)]
pub struct FrameError {
    /// The field of the frame configuration at fault, e.g. `dl_symbols`.
    pub field: &'static str,
    /// What is wrong.
    pub message: String,
}

/// The frame efficiency of `cfg` on a channel of `bandwidth_hz`: 1 for `ideal`.
pub fn efficiency(cfg: &FrameConfig, bandwidth_hz: f64) -> Result<f64, FrameError> {
    Ok(ofdma(cfg, bandwidth_hz)?.map_or(1.0, |f| f.efficiency))
}

/// The OFDMA frame of `cfg` on a channel of `bandwidth_hz` (> 0), or `None` for `ideal`.
pub fn ofdma(cfg: &FrameConfig, bandwidth_hz: f64) -> Result<Option<OfdmaFrame>, FrameError> {
    let FrameConfig::Ieee80216ePusc {
        sampling_factor,
        fft_size,
        cyclic_prefix,
        duration,
        ttg,
        rtg,
        dl_symbols,
        ul_symbols,
        preamble_symbols,
        map_symbols,
        data_subcarriers,
    } = *cfg
    else {
        return Ok(None);
    };
    let err = |field, message: String| Err(FrameError { field, message });
    if !(sampling_factor > 0.0 && sampling_factor.is_finite()) {
        return err("sampling_factor", "must be > 0".into());
    }
    if fft_size == 0 {
        return err("fft_size", "must be >= 1".into());
    }
    if !(0.0..1.0).contains(&cyclic_prefix) {
        return err("cyclic_prefix", "must be in [0, 1)".into());
    }
    if duration == 0 {
        return err("duration", "must be > 0".into());
    }
    if data_subcarriers == 0 || data_subcarriers > fft_size {
        return err(
            "data_subcarriers",
            format!("must be in 1..={fft_size} (fft_size)"),
        );
    }
    // The tiny relative margin keeps an exact product (28/25 x 10 MHz / 8 kHz = 1400) from
    // flooring to one less through rounding.
    let sampling_rate = (sampling_factor * bandwidth_hz / 8000.0 * (1.0 + 1e-12)).floor() * 8000.0;
    if sampling_rate <= 0.0 {
        return err(
            "sampling_factor",
            format!("sampling factor x bandwidth is below 8 kHz (bandwidth {bandwidth_hz} Hz)"),
        );
    }
    let subcarrier_spacing = sampling_rate / fft_size as f64;
    let symbol_time = (1.0 + cyclic_prefix) / subcarrier_spacing;
    let gaps = ttg as u128 + rtg as u128;
    if gaps >= duration as u128 {
        return err(
            "ttg",
            "ttg + rtg must be shorter than the frame duration".into(),
        );
    }
    let open = (duration as u128 - gaps) as f64 * 1e-9;
    let frame_symbols = (open / symbol_time * (1.0 + 1e-9))
        .floor()
        .min(u32::MAX as f64) as u32;
    let fit = |n: u64| {
        format!(
            "the frame holds {frame_symbols} symbols of {:.3} us ({} less ttg and rtg), not {n}",
            symbol_time * 1e6,
            fmt_ms(duration),
        )
    };
    if dl_symbols as u64 > frame_symbols as u64 {
        return err("dl_symbols", fit(dl_symbols as u64));
    }
    if dl_symbols as u64 + ul_symbols as u64 > frame_symbols as u64 {
        return err(
            "ul_symbols",
            fit(dl_symbols as u64 + ul_symbols as u64) + " (dl_symbols + ul_symbols)",
        );
    }
    let control = preamble_symbols as u64 + map_symbols as u64;
    if control >= dl_symbols as u64 {
        return err(
            "dl_symbols",
            format!(
                "must exceed preamble_symbols + map_symbols ({control}): no downlink symbol \
                 would carry data"
            ),
        );
    }
    let data_symbols = dl_symbols - control as u32;
    let frame_s = duration as f64 * 1e-9;
    let data_tones_per_second = data_symbols as f64 * data_subcarriers as f64 / frame_s;
    let efficiency = data_tones_per_second / bandwidth_hz;
    if efficiency > 1.0 {
        return err(
            "data_subcarriers",
            format!(
                "the frame would carry {data_tones_per_second:.0} data tones per second, more \
                 than the bandwidth's {bandwidth_hz} Hz (efficiency {efficiency:.4} > 1)"
            ),
        );
    }
    Ok(Some(OfdmaFrame {
        sampling_rate,
        subcarrier_spacing,
        symbol_time,
        frame_symbols,
        data_symbols,
        data_tones_per_second,
        efficiency,
    }))
}

/// `5 ms`, `2.5 ms`: a duration for messages.
fn fmt_ms(ns: Time) -> String {
    format!("{} ms", ns as f64 / 1e6)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pusc() -> FrameConfig {
        serde_json::from_str(r#"{"kind": "ieee802_16e_pusc"}"#).unwrap()
    }

    fn with(edit: &str) -> FrameConfig {
        let mut v = serde_json::to_value(pusc()).unwrap();
        let e: serde_json::Value = serde_json::from_str(edit).unwrap();
        for (k, x) in e.as_object().unwrap() {
            v[k] = x.clone();
        }
        serde_json::from_value(v).unwrap()
    }

    #[test]
    fn ten_mhz_pusc_by_hand() {
        let f = ofdma(&pusc(), 10e6).unwrap().unwrap();
        // Fs = floor(28/25 x 10 MHz / 8 kHz) x 8 kHz = 1400 x 8 kHz = 11.2 MHz.
        assert_eq!(f.sampling_rate, 11.2e6);
        // 11.2 MHz / 1024 = 10 937.5 Hz; T_s = 1.125 / 10 937.5 Hz = 102.857 us.
        assert_eq!(f.subcarrier_spacing, 10_937.5);
        assert!((f.symbol_time - 1.125 / 10_937.5).abs() < 1e-15);
        assert!((f.symbol_time * 1e6 - 102.857_142_857).abs() < 1e-6);
        // (5000 - 105.714 - 60) us / 102.857 us = 47.000 003 -> 47 symbols = 29 DL + 18 UL.
        assert_eq!(f.frame_symbols, 47);
        // 29 - 1 preamble - 4 FCH/MAP = 24 data symbols x 720 data subcarriers = 17 280 tones
        // per 5 ms frame = 3 456 000 tones/s = 0.3456 x 10 MHz.
        assert_eq!(f.data_symbols, 24);
        assert!((f.data_tones_per_second - 3_456_000.0).abs() < 1e-6);
        assert!((f.efficiency - 0.3456).abs() < 1e-12);
        assert_eq!(efficiency(&pusc(), 10e6).unwrap(), f.efficiency);
    }

    #[test]
    fn ideal_is_one_and_the_efficiency_scales_with_the_frame() {
        assert_eq!(efficiency(&FrameConfig::Ideal, 10e6), Ok(1.0));
        assert_eq!(ofdma(&FrameConfig::Ideal, 10e6), Ok(None));
        // 35:12 split (34 data symbols after 1 + 4 control): 34 x 720 / 5 ms / 10 MHz.
        let f = ofdma(&with(r#"{"dl_symbols": 35, "ul_symbols": 12}"#), 10e6)
            .unwrap()
            .unwrap();
        assert!((f.efficiency - 30.0 * 720.0 / 0.005 / 10e6).abs() < 1e-12);
        // 5 MHz with its own profile (512 FFT, 360 data subcarriers: 15 subchannels x 24): the
        // same 47 symbols of 102.857 us, half the tones for half the bandwidth.
        let five = ofdma(&with(r#"{"fft_size": 512, "data_subcarriers": 360}"#), 5e6)
            .unwrap()
            .unwrap();
        assert_eq!((five.sampling_rate, five.frame_symbols), (5.6e6, 47));
        assert!((five.efficiency - 0.3456).abs() < 1e-12);
        // 8.75 MHz with n = 8/7: Fs = 10 MHz exactly, T_s = 115.2 us, 41 symbols besides the
        // gaps (4834.3 / 115.2 = 41.96), here split 24:17.
        let wibro = ofdma(
            &with(r#"{"sampling_factor": 1.1428571428571428, "dl_symbols": 24, "ul_symbols": 17}"#),
            8.75e6,
        )
        .unwrap()
        .unwrap();
        assert_eq!(wibro.sampling_rate, 10e6);
        assert!((wibro.symbol_time - 115.2e-6).abs() < 1e-15);
        assert_eq!((wibro.frame_symbols, wibro.data_symbols), (41, 19));
    }

    #[test]
    fn frames_that_cannot_hold_data_name_the_field() {
        let field = |edit: &str, bw: f64| ofdma(&with(edit), bw).unwrap_err().field;
        // 10 MHz with 1024 FFT at 5 MHz: symbols twice as long, 23 per frame.
        assert_eq!(field("{}", 5e6), "dl_symbols");
        assert_eq!(field(r#"{"dl_symbols": 30}"#, 10e6), "ul_symbols");
        assert_eq!(
            field(r#"{"dl_symbols": 48, "ul_symbols": 0}"#, 10e6),
            "dl_symbols"
        );
        assert_eq!(field(r#"{"map_symbols": 28}"#, 10e6), "dl_symbols");
        assert_eq!(
            field(r#"{"data_subcarriers": 1025}"#, 10e6),
            "data_subcarriers"
        );
        assert_eq!(
            field(r#"{"data_subcarriers": 0}"#, 10e6),
            "data_subcarriers"
        );
        assert_eq!(field(r#"{"fft_size": 0}"#, 10e6), "fft_size");
        assert_eq!(field(r#"{"cyclic_prefix": 1.0}"#, 10e6), "cyclic_prefix");
        assert_eq!(
            field(r#"{"sampling_factor": 0.0}"#, 10e6),
            "sampling_factor"
        );
        assert_eq!(field("{}", 1000.0), "sampling_factor");
        assert_eq!(field(r#"{"duration": 0}"#, 10e6), "duration");
        assert_eq!(field(r#"{"ttg": 4000000, "rtg": 1000000}"#, 10e6), "ttg");
        // Every subcarrier a data tone, no cyclic prefix, n = 2: more tones than hertz.
        assert_eq!(
            field(
                r#"{"sampling_factor": 2.0, "cyclic_prefix": 0.0, "data_subcarriers": 1024,
                    "dl_symbols": 90, "ul_symbols": 0, "map_symbols": 0, "preamble_symbols": 0}"#,
                10e6
            ),
            "data_subcarriers"
        );
    }
}
