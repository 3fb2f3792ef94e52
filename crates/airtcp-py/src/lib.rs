//! Python bindings of airtcp: thin wrappers only; all logic lives in the `airtcp` crate.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use airtcp::metrics::parquet::{self, Column, Values};
use airtcp::world::RunControl;
use pyo3::exceptions::{PyOSError, PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyFloat, PyInt, PyList, PyString};

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

    /// The set-up's route searches before the first event: (done, total); (0, 0) before they
    /// start or without any.
    fn setup_progress(&self) -> (u64, u64) {
        self.control.setup_progress()
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

/// The layout of a scenario given as normalised JSON (nodes, ranges, DCF timing, links with their
/// rates and delivery, routes), as JSON.
#[pyfunction]
fn layout_json(py: Python<'_>, config_json: String) -> PyResult<String> {
    py.detach(|| airtcp::layout_json(&config_json))
        .map_err(|e| PyValueError::new_err(e.to_string()))
}

/// The scenario format's JSON Schema, generated from the core's config types
/// (`airtcp::scenario::schema`).
#[pyfunction]
fn scenario_schema_json() -> String {
    airtcp::scenario::schema::scenario_schema_text()
}

/// Runs TCP-RLC's RTT-slotted model of paper 004 §II on an `RlcSlottedConfig` given as JSON;
/// returns its results as JSON. The GIL is released while it runs.
#[pyfunction]
fn rlc_slotted_json(py: Python<'_>, config_json: String) -> PyResult<String> {
    use airtcp::transport::tcp_rlc::slotted::run;
    py.detach(|| airtcp::model_json(&config_json, "<rlc_slotted>", run))
        .map_err(|e| PyValueError::new_err(e.to_string()))
}

/// Runs the idealised slotted model of paper 000 §2-3 on a `SlottedConfig` given as JSON;
/// returns the `SlottedResults` as JSON. The GIL is released while it runs.
#[pyfunction]
fn slotted_json(py: Python<'_>, config_json: String) -> PyResult<String> {
    py.detach(|| airtcp::slotted_json(&config_json))
        .map_err(|e| PyValueError::new_err(e.to_string()))
}

/// The rates a scenario's `downlink` section offers before any traffic (frame, AMC bits per slot,
/// each user's mean bits per slot under Rayleigh fading), as JSON.
#[pyfunction]
fn downlink_rates_json(config_json: String) -> PyResult<String> {
    airtcp::downlink_rates_json(&config_json).map_err(|e| PyValueError::new_err(e.to_string()))
}

/// Writes a table as the Parquet file `path` (`airtcp::metrics::parquet`). `columns` are
/// `(name, type, values)`: type one of "string", "bool", "float64", "uint64", "uint32", "int64",
/// values a list of items of that Python type (str, bool, float, int) or None; "text_lists",
/// values lists of lists of str, or None; "null", values None only. Anything else raises
/// TypeError or ValueError before the file is opened; a failed write raises OSError.
#[pyfunction]
fn write_parquet(py: Python<'_>, path: PathBuf, columns: &Bound<'_, PyAny>) -> PyResult<()> {
    let columns: Vec<(String, String, Bound<'_, PyList>)> = columns.extract().map_err(|e| {
        PyTypeError::new_err(format!(
            "columns: expected a list of (name, type, values) tuples, values a list ({e})"
        ))
    })?;
    // The items are held here so that string columns can borrow their UTF-8 text from them
    // rather than copy it; the text of nested lists is copied out, once.
    let items: Vec<Vec<Bound<'_, PyAny>>> = columns
        .iter()
        .map(|(_, _, values)| values.iter().collect())
        .collect();
    let nested: Vec<Option<Vec<TextListsRow>>> = columns
        .iter()
        .zip(&items)
        .map(|((name, kind, _), items)| {
            (kind == "text_lists")
                .then(|| text_lists(name, items))
                .transpose()
        })
        .collect::<PyResult<_>>()?;
    let table = columns
        .iter()
        .zip(&items)
        .zip(&nested)
        .map(|(((name, kind, _), items), nested)| {
            let values = match nested {
                Some(rows) => Values::TextLists(
                    rows.iter()
                        .map(|row| {
                            row.as_ref().map(|lists| {
                                lists
                                    .iter()
                                    .map(|list| list.iter().map(String::as_str).collect())
                                    .collect()
                            })
                        })
                        .collect(),
                ),
                None => column_values(name, kind, items)?,
            };
            Ok(Column { name, values })
        })
        .collect::<PyResult<Vec<_>>>()?;
    let bytes = parquet::encode(&table).map_err(|e| PyValueError::new_err(e.to_string()))?;
    py.detach(|| std::fs::write(&path, bytes))
        .map_err(|error| os_error(py, error, &path))
}

/// The OSError Python's own `open` would raise: `OSError(errno, strerror, filename)` picks the
/// subclass (FileNotFoundError, ...) and reads "[Errno 28] No space left on device: 'PATH'".
fn os_error(py: Python<'_>, error: std::io::Error, path: &Path) -> PyErr {
    let Some(code) = error.raw_os_error() else {
        return error.into();
    };
    match py
        .import("os")
        .and_then(|os| os.call_method1("strerror", (code,)))
    {
        Ok(text) => PyOSError::new_err((code, text.unbind(), path.as_os_str().to_owned())),
        Err(lookup) => lookup,
    }
}

/// Why an item cannot go into its column.
enum Invalid {
    /// Another Python type than the one named.
    Type(&'static str),
    /// An int the column's type cannot hold.
    Range,
    /// A str that cannot be encoded as UTF-8 (a lone surrogate).
    Text(PyErr),
}

/// Column `name`'s items as values of its type `kind`.
fn column_values<'a>(
    name: &str,
    kind: &str,
    items: &'a [Bound<'_, PyAny>],
) -> PyResult<Values<'a>> {
    Ok(match kind {
        "string" => Values::String(converted(name, kind, items, |item| {
            let text = item.cast::<PyString>().map_err(|_| Invalid::Type("str"))?;
            text.to_str().map_err(Invalid::Text)
        })?),
        "bool" => Values::Bool(converted(name, kind, items, |item| {
            let flag = item.cast::<PyBool>().map_err(|_| Invalid::Type("bool"))?;
            Ok(flag.is_true())
        })?),
        // Only floats: pyarrow refuses some ints in a float column (those a double cannot hold
        // exactly), so the caller decides about them.
        "float64" => Values::Float64(converted(name, kind, items, |item| {
            let number = item.cast::<PyFloat>().map_err(|_| Invalid::Type("float"))?;
            Ok(number.value())
        })?),
        "uint64" => Values::UInt64(converted(name, kind, items, integer)?),
        "uint32" => Values::UInt32(converted(name, kind, items, integer)?),
        "int64" => Values::Int64(converted(name, kind, items, integer)?),
        "null" => {
            converted(name, kind, items, |_| {
                Err::<(), _>(Invalid::Type("nothing"))
            })?;
            Values::Null(items.len())
        }
        _ => {
            return Err(PyValueError::new_err(format!(
                "column {name:?}: unknown type {kind:?}; expected string, bool, float64, \
                 uint64, uint32, int64, text_lists or null"
            )))
        }
    })
}

/// A row of a "text_lists" column, its text copied out of Python: None or lists of texts.
type TextListsRow = Option<Vec<Vec<String>>>;

/// A "text_lists" column's rows: None, or a list of lists of str (text copied out).
fn text_lists(name: &str, items: &[Bound<'_, PyAny>]) -> PyResult<Vec<TextListsRow>> {
    let rows = converted(name, "text_lists", items, |item| {
        let lists = item.cast::<PyList>().map_err(|_| Invalid::Type("list"))?;
        lists
            .iter()
            .map(|list| {
                let list = list
                    .cast::<PyList>()
                    .map_err(|_| Invalid::Type("list of lists"))?;
                list.iter()
                    .map(|text| {
                        let text = text
                            .cast::<PyString>()
                            .map_err(|_| Invalid::Type("list of lists of str"))?;
                        text.to_str().map(str::to_owned).map_err(Invalid::Text)
                    })
                    .collect()
            })
            .collect()
    })?;
    Ok(rows)
}

/// An int that is not a bool (which Python counts as an int), if it fits in `T`.
fn integer<'py, T: for<'a> FromPyObject<'a, 'py>>(item: &Bound<'py, PyAny>) -> Result<T, Invalid> {
    if item.is_instance_of::<PyBool>() || !item.is_instance_of::<PyInt>() {
        return Err(Invalid::Type("int"));
    }
    item.extract().map_err(|_| Invalid::Range)
}

/// `items` converted one by one by `to`, None staying None; an item `to` refuses raises an error
/// naming the column and the item's position.
fn converted<'a, 'py, T>(
    name: &str,
    kind: &str,
    items: &'a [Bound<'py, PyAny>],
    to: impl Fn(&'a Bound<'py, PyAny>) -> Result<T, Invalid>,
) -> PyResult<Vec<Option<T>>> {
    let at = |i: usize| format!("column {name:?} ({kind}), item {i}");
    items
        .iter()
        .enumerate()
        .map(|(i, item)| {
            if item.is_none() {
                return Ok(None);
            }
            to(item).map(Some).map_err(|invalid| match invalid {
                Invalid::Type(expected) => {
                    let found = item.get_type().name().map_or("?".into(), |n| n.to_string());
                    PyTypeError::new_err(format!(
                        "{}: expected {expected} or None, got {found}",
                        at(i)
                    ))
                }
                Invalid::Range => {
                    PyValueError::new_err(format!("{}: out of range for {kind}", at(i)))
                }
                Invalid::Text(error) => {
                    PyValueError::new_err(format!("{}: not encodable as UTF-8 ({error})", at(i)))
                }
            })
        })
        .collect()
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
    m.add_function(wrap_pyfunction!(scenario_schema_json, m)?)?;
    m.add_function(wrap_pyfunction!(slotted_json, m)?)?;
    m.add_function(wrap_pyfunction!(rlc_slotted_json, m)?)?;
    m.add_function(wrap_pyfunction!(downlink_rates_json, m)?)?;
    m.add_function(wrap_pyfunction!(write_parquet, m)?)?;
    m.add_function(wrap_pyfunction!(core_version, m)?)?;
    m.add_class::<Progress>()?;
    Ok(())
}
