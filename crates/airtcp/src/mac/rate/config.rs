//! `radio.rate_control`: how each link's data rate is chosen, fixed when the scenario is built
//! (`constant`, `ideal`) or adapted frame by frame by a manager (`arf`, `aarf`, `minstrel`,
//! `minstrel_ht`, `snr_threshold`; docs/rate_control.md).

use serde::{Deserialize, Serialize};

use super::aarf::{Aarf, AarfParams};
use super::minstrel::{Minstrel, MinstrelParams};
use super::minstrel_ht::{MinstrelHt, MinstrelHtParams};
use super::snr_threshold::{SnrThreshold, DEFAULT_BER};
use super::RateManager;
use crate::mac::timing::Timing;
use crate::phy::ErrorModel;
use crate::sim::{Rng, Time};

/// How the data rate of each link (sender radio, neighbour radio) is chosen.
#[derive(Debug, Clone, Copy, PartialEq, Default, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(tag = "kind", rename_all = "snake_case", deny_unknown_fields)]
pub enum RateControlConfig {
    /// Every unicast data frame at `radio.data_rate`.
    #[default]
    Constant,
    /// Per neighbour, fixed when the scenario is built: the highest rate, up to
    /// `radio.data_rate`, whose frame error rate for a `frame_bytes` frame at the link's mean SNR
    /// (no interference) is at most `max_per`; the lowest rate if none is.
    Ideal {
        /// Largest acceptable frame error rate.
        #[serde(default = "default_max_per")]
        #[schemars(
            transform = crate::quantity::probability,
            extend("exclusiveMinimum" = 0, "exclusiveMaximum" = 1)
        )]
        max_per: f64,
        /// Size of the reference frame, bytes (MAC header and FCS included).
        #[serde(default = "default_rate_frame_bytes")]
        #[schemars(range(min = 1))]
        frame_bytes: u32,
    },
    /// ARF (ns-3's `ArfWifiManager`): per neighbour, from the lowest rate up to
    /// `radio.data_rate`, one rate up after `success_threshold` acknowledged data frames in a row
    /// or `timer_threshold` attempts at the rate, back at once if the first attempt there fails,
    /// one down after every second failure in a row.
    Arf {
        /// Acknowledged data frames in a row that raise the rate.
        #[serde(default = "default_success_threshold")]
        #[schemars(range(min = 1))]
        success_threshold: u32,
        /// Data attempts at one rate that raise it.
        #[serde(default = "default_timer_threshold")]
        #[schemars(range(min = 1))]
        timer_threshold: u32,
    },
    /// AARF (ns-3's `AarfWifiManager`): ARF whose success and timer thresholds are multiplied
    /// after each failed probe of a higher rate (up to `max_success_threshold`) and reset to
    /// their minimums after an ordinary fallback.
    Aarf {
        /// Success threshold at first and after an ordinary fallback.
        #[serde(default = "default_success_threshold")]
        #[schemars(range(min = 1))]
        min_success_threshold: u32,
        /// Cap of the success threshold.
        #[serde(default = "default_max_success_threshold")]
        #[schemars(range(min = 1))]
        max_success_threshold: u32,
        /// Timer threshold at first and after an ordinary fallback.
        #[serde(default = "default_timer_threshold")]
        #[schemars(range(min = 1))]
        min_timer_threshold: u32,
        /// Factor of the success threshold after a failed probe.
        #[serde(default = "default_k")]
        #[schemars(range(min = 1))]
        success_k: f64,
        /// Factor of the timer threshold after a failed probe.
        #[serde(default = "default_k")]
        #[schemars(range(min = 1))]
        timer_k: f64,
    },
    /// Minstrel, non-HT (ns-3's `MinstrelWifiManager`, after Linux's minstrel): rates ranked by
    /// measured throughput every `update_interval`, a retry chain of the best, second best and
    /// most reliable rates and the lowest (which, not the MAC's retry limit, ends a packet's
    /// attempts), `lookaround` per cent of packets sampling other rates.
    Minstrel {
        /// Interval between statistics updates, ns.
        #[serde(default = "default_update_interval")]
        #[schemars(transform = crate::quantity::duration, range(min = 1))]
        update_interval: Time,
        /// Percentage of packets that sample other rates.
        #[serde(default = "default_lookaround")]
        #[schemars(range(max = 100))]
        lookaround: u32,
        /// Weight of the old success probability in its moving average, per cent.
        #[serde(default = "default_ewma")]
        #[schemars(range(max = 100))]
        ewma: u32,
        /// Columns of the random sample table.
        #[serde(default = "default_sample_columns")]
        #[schemars(range(min = 1, max = 100))]
        sample_columns: u32,
        /// Frame size the throughput ranking assumes, bytes.
        #[serde(default = "default_packet_bytes")]
        #[schemars(range(min = 1))]
        packet_bytes: u32,
    },
    /// Minstrel-HT, 802.11n only (ns-3's `MinstrelHtWifiManager`, after Linux's minstrel_ht):
    /// the radio's MCSs ranked by measured throughput every `update_interval`, counting an
    /// A-MPDU's MPDUs sent and acknowledged; a retry chain of the best, second best and most
    /// reliable MCSs (one step per PPDU that gets nothing through); now and then a faster MCS
    /// sampled.
    MinstrelHt {
        /// Interval between statistics updates, ns.
        #[serde(default = "default_ht_update_interval")]
        #[schemars(transform = crate::quantity::duration, range(min = 1))]
        update_interval: Time,
        /// Weight of the old success probability (and A-MPDU length) in its moving average, per
        /// cent.
        #[serde(default = "default_ht_ewma")]
        #[schemars(range(max = 100))]
        ewma: u32,
        /// Columns of the random sample table.
        #[serde(default = "default_ht_sample_columns")]
        #[schemars(range(min = 1, max = 100))]
        sample_columns: u32,
        /// MPDU size the throughput ranking and the retry counts assume, bytes.
        #[serde(default = "default_ht_packet_bytes")]
        #[schemars(range(min = 1))]
        packet_bytes: u32,
    },
    /// Per frame, the highest rate up to `radio.data_rate` whose SNR threshold (where a bit
    /// fails with probability `ber`) is below the SNR the neighbour reported of the latest
    /// acknowledged frame (ns-3's `IdealWifiManager`); under fading it follows the channel.
    SnrThreshold {
        /// Bit error rate that sets each rate's SNR threshold.
        #[serde(default = "default_ber")]
        #[schemars(
            transform = crate::quantity::probability,
            extend("exclusiveMinimum" = 0, "exclusiveMaximum" = 0.5)
        )]
        ber: f64,
    },
}

impl RateControlConfig {
    /// Whether a manager adapts the rate frame by frame (else the rate table is fixed at build).
    pub fn is_adaptive(&self) -> bool {
        !matches!(
            self,
            RateControlConfig::Constant | RateControlConfig::Ideal { .. }
        )
    }

    /// The manager of one radio with `neighbours` neighbours over `ladder` (bit/s, lowest
    /// first), its `timing`, whether it sends A-MPDUs (`aggregating`) and its own random stream
    /// `rng`; `None` for the static choices.
    pub fn manager(
        &self,
        ladder: &[u64],
        model: ErrorModel,
        timing: &Timing,
        aggregating: bool,
        neighbours: usize,
        rng: impl FnOnce() -> Rng,
    ) -> Option<Box<dyn RateManager>> {
        let aarf = |p| Box::new(Aarf::new(p, ladder.len(), neighbours)) as Box<dyn RateManager>;
        Some(match *self {
            RateControlConfig::Constant | RateControlConfig::Ideal { .. } => return None,
            RateControlConfig::Arf {
                success_threshold,
                timer_threshold,
            } => aarf(AarfParams {
                min_success_threshold: success_threshold,
                max_success_threshold: success_threshold,
                min_timer_threshold: timer_threshold,
                ..AarfParams::ARF
            }),
            RateControlConfig::Aarf {
                min_success_threshold,
                max_success_threshold,
                min_timer_threshold,
                success_k,
                timer_k,
            } => aarf(AarfParams {
                min_success_threshold,
                max_success_threshold,
                min_timer_threshold,
                success_k,
                timer_k,
                adaptive: true,
            }),
            RateControlConfig::SnrThreshold { ber } => {
                Box::new(SnrThreshold::new(ladder, model, ber, neighbours))
            }
            RateControlConfig::Minstrel {
                update_interval,
                lookaround,
                ewma,
                sample_columns,
                packet_bytes,
            } => Box::new(Minstrel::new(
                MinstrelParams {
                    update_interval,
                    lookaround,
                    ewma,
                    sample_columns: sample_columns as usize,
                    packet_bytes,
                },
                ladder,
                timing,
                neighbours,
                rng(),
            )),
            RateControlConfig::MinstrelHt {
                update_interval,
                ewma,
                sample_columns,
                packet_bytes,
            } => Box::new(MinstrelHt::new(
                MinstrelHtParams {
                    update_interval,
                    ewma,
                    sample_columns: sample_columns as usize,
                    packet_bytes,
                },
                ladder,
                timing,
                aggregating,
                neighbours,
                rng(),
            )),
        })
    }

    /// The memory an adaptive manager and its bookkeeping take per neighbour over `rates`
    /// rates (0 for the static choices), for the memory budget.
    pub fn bytes_per_neighbour(&self, rates: usize) -> u64 {
        let manager = match *self {
            RateControlConfig::Constant | RateControlConfig::Ideal { .. } => return 0,
            RateControlConfig::Arf { .. } | RateControlConfig::Aarf { .. } => {
                super::aarf::BYTES_PER_NEIGHBOUR
            }
            RateControlConfig::SnrThreshold { .. } => size_of::<f64>() as u64,
            RateControlConfig::Minstrel { sample_columns, .. } => {
                super::minstrel::bytes_per_neighbour(rates, sample_columns as usize)
            }
            RateControlConfig::MinstrelHt { sample_columns, .. } => {
                super::minstrel_ht::bytes_per_neighbour(rates, sample_columns as usize)
            }
        };
        manager + super::RateControl::bytes_per_neighbour(rates)
    }

    /// The first field that cannot work, as (field under `radio.rate_control`, message).
    pub fn check(&self) -> Result<(), (&'static str, String)> {
        let positive = |field: &'static str, v: u32| match v {
            0 => Err((field, "must be greater than zero".to_string())),
            _ => Ok(()),
        };
        match *self {
            RateControlConfig::Constant => Ok(()),
            RateControlConfig::Ideal {
                max_per,
                frame_bytes,
            } => {
                if !(max_per > 0.0 && max_per < 1.0) {
                    return Err((
                        "max_per",
                        format!("must be a probability above 0 and below 1, got {max_per}"),
                    ));
                }
                positive("frame_bytes", frame_bytes)
            }
            RateControlConfig::Arf {
                success_threshold,
                timer_threshold,
            } => {
                positive("success_threshold", success_threshold)?;
                positive("timer_threshold", timer_threshold)
            }
            RateControlConfig::Aarf {
                min_success_threshold,
                max_success_threshold,
                min_timer_threshold,
                success_k,
                timer_k,
            } => {
                positive("min_success_threshold", min_success_threshold)?;
                positive("min_timer_threshold", min_timer_threshold)?;
                if max_success_threshold < min_success_threshold {
                    return Err((
                        "max_success_threshold",
                        format!(
                            "must be at least min_success_threshold ({min_success_threshold}), \
                             got {max_success_threshold}"
                        ),
                    ));
                }
                for (field, k) in [("success_k", success_k), ("timer_k", timer_k)] {
                    if !(k.is_finite() && k >= 1.0) {
                        return Err((field, format!("must be a number of at least 1, got {k}")));
                    }
                }
                Ok(())
            }
            RateControlConfig::Minstrel {
                update_interval,
                lookaround,
                ewma,
                sample_columns,
                packet_bytes,
            } => check_minstrel(
                update_interval,
                sample_columns,
                packet_bytes,
                &[("lookaround", lookaround), ("ewma", ewma)],
            ),
            RateControlConfig::MinstrelHt {
                update_interval,
                ewma,
                sample_columns,
                packet_bytes,
            } => check_minstrel(
                update_interval,
                sample_columns,
                packet_bytes,
                &[("ewma", ewma)],
            ),
            RateControlConfig::SnrThreshold { ber } => match ber > 0.0 && ber < 0.5 {
                true => Ok(()),
                false => Err((
                    "ber",
                    format!("must be a probability above 0 and below 0.5, got {ber}"),
                )),
            },
        }
    }
}

fn default_max_per() -> f64 {
    0.1
}
fn default_rate_frame_bytes() -> u32 {
    1555
}
fn default_success_threshold() -> u32 {
    AarfParams::ARF.min_success_threshold
}
fn default_timer_threshold() -> u32 {
    AarfParams::ARF.min_timer_threshold
}
fn default_max_success_threshold() -> u32 {
    AarfParams::AARF.max_success_threshold
}
fn default_k() -> f64 {
    AarfParams::AARF.success_k
}
fn default_ber() -> f64 {
    DEFAULT_BER
}
fn default_update_interval() -> Time {
    MinstrelParams::NS3.update_interval
}
fn default_lookaround() -> u32 {
    MinstrelParams::NS3.lookaround
}
fn default_ewma() -> u32 {
    MinstrelParams::NS3.ewma
}
fn default_sample_columns() -> u32 {
    MinstrelParams::NS3.sample_columns as u32
}
fn default_packet_bytes() -> u32 {
    MinstrelParams::NS3.packet_bytes
}
fn default_ht_update_interval() -> Time {
    MinstrelHtParams::NS3.update_interval
}
fn default_ht_ewma() -> u32 {
    MinstrelHtParams::NS3.ewma
}
fn default_ht_sample_columns() -> u32 {
    MinstrelHtParams::NS3.sample_columns as u32
}
fn default_ht_packet_bytes() -> u32 {
    MinstrelHtParams::NS3.packet_bytes
}

/// The checks Minstrel and Minstrel-HT share: a positive packet size and update interval, 1-100
/// sample columns, and percentages.
fn check_minstrel(
    update_interval: Time,
    sample_columns: u32,
    packet_bytes: u32,
    percentages: &[(&'static str, u32)],
) -> Result<(), (&'static str, String)> {
    if packet_bytes == 0 {
        return Err(("packet_bytes", "must be greater than zero".into()));
    }
    if update_interval == 0 {
        return Err(("update_interval", "must be greater than zero".into()));
    }
    if !(1..=100).contains(&sample_columns) {
        return Err((
            "sample_columns",
            format!("must be 1 to 100, got {sample_columns}"),
        ));
    }
    for &(field, v) in percentages {
        if v > 100 {
            return Err((field, format!("must be a percentage (0-100), got {v}")));
        }
    }
    Ok(())
}
