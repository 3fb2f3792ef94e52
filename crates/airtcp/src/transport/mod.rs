//! Transport protocols: TCP (sender, receiver, loss recovery, pluggable congestion control) and UDP.
pub mod tcp;
pub mod udp;
pub mod utility_control;
