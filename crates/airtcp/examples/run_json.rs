//! Runs one scenario in the core's normalised JSON form (`airtcp validate FILE --json`) and
//! prints the results as JSON: the simulator without Python, for profilers
//! (`perf record`, `valgrind --tool=callgrind`).
//!
//! `cargo run --release --example run_json -- scenario.json`

use std::process::ExitCode;

fn main() -> ExitCode {
    let Some(path) = std::env::args().nth(1) else {
        eprintln!("usage: run_json SCENARIO.json");
        return ExitCode::from(2);
    };
    let text = match std::fs::read_to_string(&path) {
        Ok(text) => text,
        Err(e) => {
            eprintln!("error: {path}: {e}");
            return ExitCode::from(2);
        }
    };
    match airtcp::simulate_json(&text) {
        Ok(results) => {
            println!("{results}");
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::from(2)
        }
    }
}
