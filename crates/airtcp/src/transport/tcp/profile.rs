//! TCP profiles: a name for the settings an operating system runs, `transport: {kind: tcp,
//! profile: linux}`, every one of which the block may still override.
//!
//! A profile is expanded on the scenario's document before it is read: the block's own fields
//! win, the profile fills in the rest, and a congestion controller's parameter block the profile
//! brings is dropped when the block names another controller (`profile: linux, cc: bbr` keeps
//! nothing of the profile's `cubic` block). The core does it in `lib.rs` before parsing; the
//! front end does it from the schema's `x-profiles` (written from [`TcpProfile::settings`]), so
//! both read the same table.
//!
//! `linux`: what a Linux 6.x host runs over a 1500-byte MTU with its defaults (sysctls in
//! brackets):
//!
//! | field | value | Linux |
//! |---|---|---|
//! | `cc` | `cubic` with `hystart: linux` | `tcp_congestion_control` cubic, `hystart` 1, `hystart_detect` 3 |
//! | `sack` | true | `tcp_sack` 1 |
//! | `recovery` | `prr` | `tcp_cwnd_reduction` (PRR-SSRB, RFC 9937) |
//! | `rack_tlp` | true | `tcp_recovery` 1 (RACK, RFC 8985), `tcp_early_retrans` 3 (TLP) |
//! | `ssthresh_basis` | `cwnd` | Cubic's ssthresh = cwnd x beta (`cubictcp_recalc_ssthresh`) |
//! | `initial_cwnd` | 10 | `TCP_INIT_CWND` |
//! | `mss` / `header_bytes` | 1448 / 52 | 1500 MTU - 20 IP - 20 TCP - 12 timestamp option |
//! | `delayed_ack` / `delayed_ack_timeout` | 2 / 40 ms | ACK every second full segment, `TCP_DELACK_MIN` |
//! | `min_rto` / `initial_rto` / `max_rto` | 200 ms / 1 s / 120 s | `TCP_RTO_MIN`, `TCP_TIMEOUT_INIT`, `TCP_RTO_MAX` |
//! | `clock_granularity` | 200 ms | Linux's RTO is srtt + max(4 rttvar, `TCP_RTO_MIN`) (`tcp_set_rto`): RFC 6298's srtt + max(G, 4 rttvar) with G = 200 ms |
//! | `rwnd` | 6 MiB | `tcp_rmem` maximum 6291456 |
//!
//! Deviations: Linux's delayed ACK adapts its timeout (`ato`, 40 ms to 200 ms) and acknowledges
//! every segment in quick-ack mode at the start; the profile keeps 40 ms and every second segment.
//! Linux runs HyStart, not HyStart++ (RFC 9406, `hystart: rfc9406`), which is why the profile
//! names `linux`. No pacing: Linux paces Cubic only under the fq qdisc.

use serde::{Deserialize, Serialize};
use serde_json::{json, Map, Value};

use super::cc::registry::CcParams;
use crate::error::ConfigError;

/// A named set of TCP settings.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum TcpProfile {
    /// Linux 6.x's defaults: Cubic with HyStart, PRR, RACK-TLP, SACK, IW10, 1448-byte segments,
    /// delayed ACKs of 40 ms, a 200 ms RTO minimum.
    Linux,
}

impl TcpProfile {
    /// Every profile.
    pub const ALL: &'static [TcpProfile] = &[TcpProfile::Linux];

    /// The name scenario files give it.
    pub fn name(self) -> &'static str {
        match self {
            TcpProfile::Linux => "linux",
        }
    }

    /// The fields the profile sets, as a TCP block spells them (times in ns, sizes in bytes).
    pub fn settings(self) -> Value {
        match self {
            TcpProfile::Linux => json!({
                "cc": "cubic",
                "cubic": {"hystart": "linux"},
                "sack": true,
                "recovery": "prr",
                "rack_tlp": true,
                "ssthresh_basis": "cwnd",
                "initial_cwnd": 10,
                "mss": 1448,
                "header_bytes": 52,
                "delayed_ack": 2,
                "delayed_ack_timeout": 40_000_000u64,
                "min_rto": 200_000_000u64,
                "initial_rto": 1_000_000_000u64,
                "max_rto": 120_000_000_000u64,
                "clock_granularity": 200_000_000u64,
                "rwnd": 6_291_456u64,
            }),
        }
    }
}

/// The controllers' parameter block names (`cubic`, `bbr`, ...).
fn cc_blocks() -> Vec<String> {
    serde_json::to_value(CcParams::default())
        .ok()
        .and_then(|v| v.as_object().map(|o| o.keys().cloned().collect()))
        .unwrap_or_default()
}

/// Expands a TCP block's `profile` in place (`p` is its path, for errors): the profile's settings
/// under the block's own fields.
pub fn expand(block: &mut Map<String, Value>, p: &str) -> Result<(), ConfigError> {
    let Some(name) = block.get("profile") else {
        return Ok(());
    };
    if name.is_null() {
        return Ok(());
    }
    let profile: TcpProfile = serde_json::from_value(name.clone()).map_err(|_| {
        let known: Vec<&str> = TcpProfile::ALL.iter().map(|p| p.name()).collect();
        ConfigError::new(
            format!("{p}.profile"),
            format!("must be one of {}, got {name}", known.join(", ")),
        )
    })?;
    let Value::Object(settings) = profile.settings() else {
        unreachable!("a profile's settings are an object");
    };
    let own_cc = block.get("cc").cloned();
    let blocks = cc_blocks();
    for (key, value) in settings {
        // A controller's block goes only with that controller.
        let foreign_block = blocks.contains(&key)
            && own_cc
                .as_ref()
                .is_some_and(|cc| cc.as_str() != Some(key.as_str()));
        if !foreign_block && !block.contains_key(&key) {
            block.insert(key, value);
        }
    }
    Ok(())
}

/// Expands the profile of every TCP flow of a scenario document.
pub fn expand_scenario(doc: &mut Value) -> Result<(), ConfigError> {
    let Some(flows) = doc.get_mut("flows").and_then(Value::as_array_mut) else {
        return Ok(());
    };
    for (i, flow) in flows.iter_mut().enumerate() {
        let Some(block) = flow.get_mut("transport").and_then(Value::as_object_mut) else {
            continue;
        };
        if block.get("kind").and_then(Value::as_str) == Some("tcp") {
            expand(block, &format!("flows[{i}].transport"))?;
        }
    }
    Ok(())
}

/// Every profile's settings, by name, for the schema's `x-profiles`.
pub fn profiles_table() -> Value {
    let mut out = Map::new();
    for profile in TcpProfile::ALL {
        out.insert(profile.name().into(), profile.settings());
    }
    Value::Object(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::transport::tcp::config::{CcKind, RecoveryWindow, TcpConfig};

    fn read(block: Value) -> TcpConfig {
        let mut block = block;
        expand(block.as_object_mut().unwrap(), "t").unwrap();
        serde_json::from_value(block).unwrap()
    }

    #[test]
    fn the_linux_profile_fills_in_what_the_block_leaves_out() {
        let t = read(json!({"profile": "linux"}));
        assert_eq!(t.cc, CcKind::Cubic);
        assert_eq!(t.recovery, RecoveryWindow::Prr);
        assert!(t.rack_tlp);
        assert_eq!((t.mss, t.header_bytes, t.min_rto), (1448, 52, 200_000_000));
        assert!(t.cc_params.cubic.is_some());
        // The block's own values win.
        let t = read(json!({"profile": "linux", "mss": 1000, "recovery": "classic"}));
        assert_eq!((t.mss, t.recovery), (1000, RecoveryWindow::Classic));
        // Another controller: the profile's cubic block stays out.
        let t = read(json!({"profile": "linux", "cc": "bbr"}));
        assert_eq!(t.cc, CcKind::Bbr);
        assert!(t.cc_params.cubic.is_none());
        assert!(t.check("t").is_ok());
    }

    #[test]
    fn an_unknown_profile_is_refused_with_its_path() {
        let mut block = json!({"profile": "windows"});
        let err = expand(block.as_object_mut().unwrap(), "flows[0].transport").unwrap_err();
        assert_eq!(err.path, "flows[0].transport.profile");
    }
}
