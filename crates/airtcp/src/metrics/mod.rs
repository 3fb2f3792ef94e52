//! Measurements: goodput meters, fairness, the results record.
pub mod goodput;
pub mod results;
