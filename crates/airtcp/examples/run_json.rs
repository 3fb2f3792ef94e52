//! Runs a normalised scenario JSON file and prints the results JSON (a debugging aid).
fn main() {
    let path = std::env::args()
        .nth(1)
        .expect("usage: run_json SCENARIO.json");
    let text = std::fs::read_to_string(&path).expect("readable file");
    match airtcp::simulate_json(&text) {
        Ok(out) => println!("{out}"),
        Err(e) => {
            eprintln!("error: {e}");
            std::process::exit(2);
        }
    }
}
