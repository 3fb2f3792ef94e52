//! Python bindings of airtcp: thin wrappers only; all logic lives in the `airtcp` crate.

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

/// The version of the simulator core.
#[pyfunction]
fn core_version() -> &'static str {
    env!("CARGO_PKG_VERSION")
}

/// The compiled core of airtcp.
#[pymodule]
fn _core(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(simulate_json, m)?)?;
    m.add_function(wrap_pyfunction!(core_version, m)?)?;
    Ok(())
}
