//! What the scenario's `coding:` block (inter-session coding at the relays, paper 001;
//! docs/cope.md) needs of the rest of the scenario: radios, one per node, static routes, no wired
//! links, downlink or routers. The block itself, its own checks and the layer it builds live with
//! the layer (`net::forwarding`'s coding layer, its `config` module).

use super::config::{RoutingConfig, ScenarioConfig};
use crate::error::ConfigError;

fn err(path: impl Into<String>, message: impl Into<String>) -> ConfigError {
    ConfigError::new(path, message)
}

/// The checks of the `coding:` block (none without one): its own parameters, then what coding
/// needs of the scenario (radios, one per node; static routes; no wired links, downlink or
/// routers). Flows' paths are allowed: under static routing the routing service follows them.
pub fn check(cfg: &ScenarioConfig) -> Result<(), ConfigError> {
    let Some(coding) = &cfg.coding else {
        return Ok(());
    };
    coding.check()?;
    let Some(radio) = &cfg.radio else {
        return Err(err(
            "coding",
            "coding runs over radios; this scenario has none",
        ));
    };
    if !matches!(cfg.routing, RoutingConfig::Static { .. }) {
        return Err(err(
            "routing.kind",
            "coding forwards over static routes (use static)",
        ));
    }
    if !cfg.links.is_empty() || cfg.downlink.is_some() || !cfg.routers.is_empty() {
        return Err(err(
            "coding",
            "coding runs over radios only; this scenario has wired links, a downlink or routers",
        ));
    }
    if !radio.node_channels.is_empty() {
        return Err(err(
            "radio.node_channels",
            "coding runs on one radio per node",
        ));
    }
    Ok(())
}

/// The output queue's capacity of every coding node: the radio's `queue.packets` (`None` without
/// radios, which the checks refuse).
pub fn capacity(cfg: &ScenarioConfig) -> Option<usize> {
    Some(cfg.radio.as_ref()?.queue.capacity())
}

/// The shim the `coding:` block puts on a TCP flow: COPE's ordering agent at its destination
/// (`transport::ordering`), unless `ordering: false` or there is no block. The one place a
/// transport shim of the coding block is registered.
pub fn transport_shim(cfg: &ScenarioConfig) -> Option<Box<dyn crate::transport::shim::Shim>> {
    let coding = cfg.coding.as_ref().filter(|c| c.ordering)?;
    Some(Box::new(crate::transport::ordering::OrderingAgent::new(
        coding.ordering_hold,
    )))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::net::forwarding::cope::{
        ControlTiming, CopeParams, KnowledgeModel, QueueKind, Recovery, Scheme,
    };
    use crate::scenario::config::CodingConfig;

    fn params(cfg: &ScenarioConfig) -> Option<CopeParams> {
        Some(cfg.coding.as_ref()?.params(capacity(cfg)?))
    }
    use serde_json::{json, Value};

    /// A chain of four radios 200 m apart, one flow end to end, with `coding` and `changes`.
    fn chain(coding: Value, changes: Value) -> ScenarioConfig {
        let mut scenario = json!({
            "name": "coding", "duration": 1_000_000_000u64, "seed": 1,
            "topology": {"kind": "chain", "hops": 3, "spacing": 200.0},
            "radio": {"standard": "802.11b", "data_rate": 2_000_000, "basic_rate": 1_000_000,
                      "propagation": {"kind": "range", "range": 250.0}},
            "coding": coding,
            "flows": [{"id": "f", "src": "n0", "dst": "n3", "app": {"kind": "bulk"},
                       "transport": {"kind": "tcp"}}]
        });
        let Value::Object(changes) = changes else {
            panic!("changes are a mapping")
        };
        for (key, value) in changes {
            scenario[key] = value;
        }
        serde_json::from_value(scenario).expect("valid scenario")
    }

    fn refusal(coding: Value, changes: Value) -> (String, String) {
        let e = check(&chain(coding, changes)).expect_err("refused");
        (e.path, e.message)
    }

    fn path_of(coding: Value, changes: Value) -> String {
        refusal(coding, changes).0
    }

    #[test]
    fn defaults_are_cope_params_defaults() {
        let cfg = chain(json!({}), json!({}));
        assert_eq!(cfg.coding, Some(CodingConfig::default()));
        check(&cfg).expect("valid");
        let radio_packets = cfg.radio.as_ref().unwrap().queue.capacity();
        let expected = CopeParams {
            capacity: radio_packets,
            ..CopeParams::default()
        };
        assert_eq!(params(&cfg), Some(expected));
        // With a 10-packet radio queue, exactly CopeParams::default().
        let ten = chain(
            json!({}),
            json!({"radio": {"standard": "802.11b", "data_rate": 2_000_000,
                             "basic_rate": 1_000_000, "queue": {"kind": "droptail", "packets": 10},
                             "propagation": {"kind": "range", "range": 250.0}}}),
        );
        assert_eq!(params(&ten), Some(CopeParams::default()));
    }

    #[test]
    fn no_block_no_params_no_checks() {
        let cfg = chain(Value::Null, json!({"routing": {"kind": "aodv"}}));
        assert_eq!(cfg.coding, None);
        check(&cfg).expect("nothing to check");
        assert_eq!(params(&cfg), None);
    }

    #[test]
    fn every_field_maps() {
        let cfg = chain(
            json!({"scheme": "bfly", "recovery": "none", "queue": "fifo", "knowledge": "oracle",
                   "threshold": 1.0,
                   "pool_lifetime": 1, "ack_timeout": 4,
                   "control": {"kind": "idle_timer", "report_idle": 2, "ack_delay": 3},
                   "retry_limit": 0, "code_acks": false, "max_report": 1}),
            json!({}),
        );
        check(&cfg).expect("valid");
        let p = params(&cfg).expect("a block");
        assert_eq!(
            p,
            CopeParams {
                scheme: Scheme::Bfly,
                recovery: Recovery::None,
                queue: QueueKind::Fifo,
                capacity: 50,
                knowledge: KnowledgeModel::Oracle,
                threshold: 1.0,
                pool_lifetime: 1,
                control: ControlTiming::IdleTimer {
                    report_idle: 2,
                    ack_delay: 3
                },
                ack_timeout: 4,
                retry_limit: 0,
                code_acks: false,
                max_report: 1,
            }
        );
        // Periodic control: the period given, or half of Ta.
        for (control, ack_timeout, period) in [
            (json!({"kind": "periodic", "period": 7}), 100, 7),
            (json!({"kind": "periodic"}), 100, 50),
            (json!({}), 100, 50),
            (json!({}), 1, 1),
        ] {
            let mut block = json!({ "ack_timeout": ack_timeout });
            if control != json!({}) {
                block["control"] = control.clone();
            }
            let cfg = chain(block, json!({}));
            assert_eq!(
                params(&cfg).unwrap().control,
                ControlTiming::Periodic { period },
                "{control} with Ta {ack_timeout}"
            );
        }
        // The idle timers keep their old defaults.
        let cfg = chain(json!({"control": {"kind": "idle_timer"}}), json!({}));
        assert_eq!(
            params(&cfg).unwrap().control,
            ControlTiming::IdleTimer {
                report_idle: 10_000_000,
                ack_delay: 10_000_000
            }
        );
        for (name, model) in [
            ("reports_and_guessing", KnowledgeModel::ReportsAndGuessing),
            ("reports", KnowledgeModel::Reports),
            ("guessing", KnowledgeModel::Guessing),
        ] {
            let cfg = chain(json!({ "knowledge": name }), json!({}));
            assert_eq!(params(&cfg).unwrap().knowledge, model, "{name}");
        }
    }

    #[test]
    fn unknown_fields_and_values_are_refused_by_serde() {
        for coding in [
            json!({"thresold": 0.5}),
            json!({"scheme": "xor"}),
            json!({"queue": "lifo"}),
            json!({"knowledge": "all"}),
            json!({"report_idle": 10}),
            json!({"control": {"kind": "idle"}}),
            json!({"control": {"kind": "periodic", "report_idle": 10}}),
            json!({"control": {"kind": "idle_timer", "period": 10}}),
        ] {
            let mut scenario = serde_json::to_value(chain(json!({}), json!({}))).unwrap();
            scenario["coding"] = coding.clone();
            assert!(
                serde_json::from_value::<ScenarioConfig>(scenario).is_err(),
                "{coding}"
            );
        }
    }

    #[test]
    fn bad_parameters_name_their_field() {
        for threshold in [0.0, -0.5, 1.5, f64::NAN] {
            let mut cfg = chain(json!({}), json!({}));
            cfg.coding.as_mut().unwrap().threshold = threshold;
            let e = check(&cfg).expect_err("refused");
            assert_eq!(e.path, "coding.threshold", "{threshold}");
        }
        assert_eq!(
            refusal(json!({"threshold": 1.5}), json!({})),
            (
                "coding.threshold".into(),
                "must be within (0, 1], got 1.5".into()
            )
        );
        for field in ["pool_lifetime", "ack_timeout"] {
            assert_eq!(
                refusal(json!({ field: 0 }), json!({})),
                (
                    format!("coding.{field}"),
                    "must be greater than 0, got 0".into()
                )
            );
        }
        for (kind, field) in [
            ("periodic", "period"),
            ("idle_timer", "report_idle"),
            ("idle_timer", "ack_delay"),
        ] {
            assert_eq!(
                refusal(json!({"control": {"kind": kind, field: 0}}), json!({})),
                (
                    format!("coding.control.{field}"),
                    "must be greater than 0, got 0".into()
                )
            );
        }
        assert_eq!(
            refusal(json!({"max_report": 0}), json!({})),
            (
                "coding.max_report".into(),
                "must be at least 1, got 0".into()
            )
        );
        check(&chain(json!({"retry_limit": 0}), json!({}))).expect("no retries is allowed");
        assert_eq!(
            path_of(json!({"recovery": "coder_ack"}), json!({})),
            "coding.recovery",
            "recovery is BFLY's"
        );
        check(&chain(
            json!({"scheme": "bfly", "recovery": "coder_ack"}),
            json!({}),
        ))
        .expect("BFLY with its recovery");
    }

    #[test]
    fn scenarios_coding_cannot_run_in_are_refused() {
        let wired = json!({"topology": null, "radio": null, "nodes": ["A", "B"],
                           "links": [{"from": "A", "to": "B", "rate": 1_000_000, "delay": 0}],
                           "flows": []});
        assert_eq!(
            refusal(json!({}), wired),
            (
                "coding".into(),
                "coding runs over radios; this scenario has none".into()
            )
        );
        // (Every other kind alike; tests/python/test_coding_config.py tries each.)
        assert_eq!(
            refusal(json!({}), json!({"routing": {"kind": "aodv"}})),
            (
                "routing.kind".into(),
                "coding forwards over static routes (use static)".into()
            )
        );
        check(&chain(
            json!({}),
            json!({"routing": {"kind": "static", "metric": "etx"}}),
        ))
        .expect("static etx routes are fine");
        let mixed = json!({"nodes": ["srv"],
                           "links": [{"from": "srv", "to": "n0", "rate": 1_000_000, "delay": 0}]});
        assert_eq!(
            refusal(json!({}), mixed),
            (
                "coding".into(),
                "coding runs over radios only; this scenario has wired links, a downlink or routers"
                    .into()
            )
        );
        let downlink = json!({"nodes": ["bs", "u"],
                              "downlink": {"base_station": "bs",
                                           "users": [{"node": "u", "mean_snr": 10.0}]}});
        assert_eq!(path_of(json!({}), downlink), "coding");
        let routers = json!({"nodes": ["r", "u"],
                             "routers": [{"node": "r", "rate": 1_000_000, "users": [{"node": "u"}]}]});
        assert_eq!(path_of(json!({}), routers), "coding");
        let multi = json!({"radio": {"standard": "802.11b", "data_rate": 2_000_000,
                                     "basic_rate": 1_000_000,
                                     "propagation": {"kind": "range", "range": 250.0},
                                     "node_channels": {"n1": [1, 6]}}});
        assert_eq!(
            refusal(json!({}), multi),
            (
                "radio.node_channels".into(),
                "coding runs on one radio per node".into()
            )
        );
    }

    #[test]
    fn flow_paths_are_allowed() {
        let flows = json!({"flows": [{"id": "f", "src": "n0", "dst": "n3",
                                      "app": {"kind": "bulk"}, "transport": {"kind": "tcp"},
                                      "paths": {"kind": "disjoint", "k": 1}}]});
        check(&chain(json!({}), flows)).expect("paths are followed under static routing");
    }

    #[test]
    fn the_world_builder_runs_the_checks() {
        let cfg = chain(json!({"threshold": 2.0}), json!({}));
        let e = crate::scenario::build::build(&cfg).err().expect("refused");
        assert_eq!(e.path, "coding.threshold");
        let cfg = chain(json!({}), json!({"routing": {"kind": "aodv"}}));
        let e = crate::scenario::build::build(&cfg).err().expect("refused");
        assert_eq!(
            e.to_string(),
            "routing.kind: coding forwards over static routes (use static)"
        );
    }
}
