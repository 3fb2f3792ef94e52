//! Python bindings of airtcp: thin wrappers only; all logic lives in the `airtcp` crate.

use std::sync::Arc;

use airtcp::world::RunControl;
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;

/// Runs a scenario given as normalised JSON; returns the results as JSON.
///
/// The GIL is released while the simulation runs, so several runs can proceed in parallel threads.
#[pyfunction]
fn simulate_json(py: Python<'_>, config_json: String) -> PyResult<String> {
    py.detach(|| airtcp::simulate_json(&config_json))
        .map_err(|e| PyValueError::new_err(e.to_string()))
}

/// A handle on a running simulation: another thread reads how far it has got and can stop it.
#[pyclass(frozen)]
struct Progress {
    control: Arc<RunControl>,
}

#[pymethods]
impl Progress {
    #[new]
    fn new() -> Self {
        Progress {
            control: Arc::new(RunControl::default()),
        }
    }

    /// Simulated time reached, in seconds (updated every few thousand events).
    fn simulated_s(&self) -> f64 {
        self.control.now() as f64 * 1e-9
    }

    /// Asks the run to stop soon; `simulate_json_with_progress` then returns None.
    fn request_stop(&self) {
        self.control.request_stop();
    }
}

/// Like `simulate_json`, publishing progress to `progress`; None if a stop was requested.
#[pyfunction]
fn simulate_json_with_progress(
    py: Python<'_>,
    config_json: String,
    progress: &Progress,
) -> PyResult<Option<String>> {
    let control = Arc::clone(&progress.control);
    py.detach(move || airtcp::simulate_json_controlled(&config_json, &control))
        .map_err(|e| PyValueError::new_err(e.to_string()))
}

/// Checks a scenario given as normalised JSON without simulating it (builds the world and drops
/// it); raises ValueError("<path>: <message>") for whatever `simulate_json` would refuse.
#[pyfunction]
fn check_json(py: Python<'_>, config_json: String) -> PyResult<()> {
    py.detach(|| airtcp::check_json(&config_json))
        .map_err(|e| PyValueError::new_err(e.to_string()))
}

/// The layout of a scenario given as normalised JSON (nodes, ranges, links, routes), as JSON.
#[pyfunction]
fn layout_json(py: Python<'_>, config_json: String) -> PyResult<String> {
    py.detach(|| airtcp::layout_json(&config_json))
        .map_err(|e| PyValueError::new_err(e.to_string()))
}

/// Runs the idealised slotted model of paper 000 §2-3 on a `SlottedConfig` given as JSON;
/// returns the `SlottedResults` as JSON. The GIL is released while it runs.
#[pyfunction]
fn slotted_json(py: Python<'_>, config_json: String) -> PyResult<String> {
    py.detach(|| airtcp::slotted_json(&config_json))
        .map_err(|e| PyValueError::new_err(e.to_string()))
}

/// The version of the simulator core.
#[pyfunction]
fn core_version() -> &'static str {
    env!("CARGO_PKG_VERSION")
}

/// The compiled core of airtcp.
#[pymodule]
fn _core(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(simulate_json, m)?)?;
    m.add_function(wrap_pyfunction!(simulate_json_with_progress, m)?)?;
    m.add_function(wrap_pyfunction!(check_json, m)?)?;
    m.add_function(wrap_pyfunction!(layout_json, m)?)?;
    m.add_function(wrap_pyfunction!(slotted_json, m)?)?;
    m.add_function(wrap_pyfunction!(core_version, m)?)?;
    m.add_class::<Progress>()?;
    Ok(())
}
