//! airtcp: a packet-level discrete-event simulator for TCP over wireless networks.
//!
//! The crate is pure Rust; the Python bindings live in `airtcp-py`. Layers follow the stack
//! (`link`/`phy` -> `net` -> `transport` -> `app`); the engine in [`sim`] owns time, events and
//! random streams. Entry point: [`simulate`] (or [`simulate_json`] for the JSON contract).

pub mod app;
pub mod coding;
pub mod error;
pub mod link;
pub mod mac;
pub mod metrics;
pub mod net;
pub mod phy;
pub mod quantity;
pub mod queue;
pub mod scenario;
pub mod sim;
pub mod transport;
pub mod world;

pub use error::ConfigError;
pub use scenario::config::ScenarioConfig;

/// Runs a scenario given as normalised JSON and returns the results as JSON.
pub fn simulate_json(config_json: &str) -> Result<String, ConfigError> {
    let cfg = parse_config(config_json)?;
    let res = simulate(&cfg)?;
    Ok(serde_json::to_string(&res).expect("results serialise"))
}

/// Runs a scenario given as normalised JSON under `control` (progress, stop requests); `Ok(None)`
/// if it was stopped.
pub fn simulate_json_controlled(
    config_json: &str,
    control: &world::RunControl,
) -> Result<Option<String>, ConfigError> {
    let cfg = parse_config(config_json)?;
    let world = match scenario::build::build_controlled(&cfg, control) {
        Ok(world) => world,
        // Stopped during the set-up, whose route searches were cut short: whatever the rest of
        // the set-up then refused (a flow without a route) is moot.
        Err(_) if control.stop_requested() => return Ok(None),
        Err(e) => return Err(e),
    };
    let res = world.run_controlled(control)?;
    Ok(res.map(|r| serde_json::to_string(&r).expect("results serialise")))
}

/// Checks a scenario given as normalised JSON without simulating it: everything [`simulate_json`]
/// refuses before its first event is refused here too, with the same `<path>: <message>`.
pub fn check_json(config_json: &str) -> Result<(), ConfigError> {
    let cfg = parse_config(config_json)?;
    scenario::build::build(&cfg).map(drop)
}

/// The drawing of a scenario given as normalised JSON (see [`scenario::layout`]), as JSON.
pub fn layout_json(config_json: &str) -> Result<String, ConfigError> {
    let cfg = parse_config(config_json)?;
    let layout = scenario::layout::layout(&cfg)?;
    Ok(serde_json::to_string(&layout).expect("layout serialises"))
}

/// Runs the idealised slotted model of paper 000 §2-3 ([`mac::conflict_graph::slotted`]) on a
/// `SlottedConfig` given as JSON and returns its `SlottedResults` as JSON. A document that does
/// not parse is reported with the path `<slotted>`.
pub fn slotted_json(config_json: &str) -> Result<String, ConfigError> {
    use mac::conflict_graph::slotted::run_slotted;
    model_json(config_json, "<slotted>", run_slotted)
}

/// Runs a model of the library that reads a config and returns results without a scenario (a
/// paper's slotted model, e.g. TCP-RLC's in `transport`): `config_json` is parsed strictly as
/// `C` (a document that does not parse is reported with the path `label`), `run` runs it, and
/// its results come back as JSON.
pub fn model_json<C, R>(
    config_json: &str,
    label: &str,
    run: impl FnOnce(&C) -> Result<R, ConfigError>,
) -> Result<String, ConfigError>
where
    C: serde::de::DeserializeOwned + serde::Serialize,
    R: serde::Serialize,
{
    let cfg: C = parse_strict(config_json, label)?;
    let res = run(&cfg)?;
    Ok(serde_json::to_string(&res).expect("a model's results serialise"))
}

/// The rates a scenario's `downlink` section (given alone, as normalised JSON) offers before any
/// traffic: its frame, the AMC table's bits per slot and each user's mean bits per slot under
/// Rayleigh fading ([`mac::downlink::rates`]), as JSON. Errors name the field from `downlink.`
/// on; a document that does not parse is reported with the path `downlink`.
pub fn downlink_rates_json(config_json: &str) -> Result<String, ConfigError> {
    use mac::downlink::{rates, DownlinkConfig};
    let cfg: DownlinkConfig = serde_json::from_str(config_json).map_err(|e| ConfigError {
        path: "downlink".into(),
        message: e.to_string(),
    })?;
    scenario::strict::reject_unknown_fields(config_json, &cfg).map_err(|e| ConfigError {
        path: format!("downlink.{}", e.path),
        message: e.message,
    })?;
    let res = rates(&cfg, "downlink")?;
    Ok(serde_json::to_string(&res).expect("downlink rates serialise"))
}

fn parse_config(config_json: &str) -> Result<ScenarioConfig, ConfigError> {
    // TCP profiles are expanded on the document first: the block's own fields win
    // (`transport::tcp::profile`).
    if config_json.contains("\"profile\"") {
        let mut doc: serde_json::Value =
            serde_json::from_str(config_json).map_err(|e| ConfigError {
                path: "<scenario>".into(),
                message: e.to_string(),
            })?;
        transport::tcp::profile::expand_scenario(&mut doc)?;
        return parse_strict(&doc.to_string(), "<scenario>");
    }
    parse_strict(config_json, "<scenario>")
}

/// A JSON document as `T`, refusing fields `T` does not know; a document that does not parse is
/// reported with the path `label`.
fn parse_strict<T: serde::de::DeserializeOwned + serde::Serialize>(
    config_json: &str,
    label: &str,
) -> Result<T, ConfigError> {
    let cfg = serde_json::from_str(config_json).map_err(|e| ConfigError {
        path: label.into(),
        message: e.to_string(),
    })?;
    scenario::strict::reject_unknown_fields(config_json, &cfg)?;
    Ok(cfg)
}

/// Runs a scenario.
pub fn simulate(cfg: &ScenarioConfig) -> Result<metrics::results::RunResults, ConfigError> {
    scenario::build::build(cfg)?.run()
}
