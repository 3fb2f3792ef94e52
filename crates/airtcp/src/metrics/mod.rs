//! Measurements: goodput meters, fairness, the results record and the Parquet files of its tables.
pub mod goodput;
pub mod parquet;
pub mod pcap;
pub mod results;
