//! Measurements: per-flow and per-queue statistics, time series, the results record.
pub mod results;
