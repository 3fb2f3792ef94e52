//! Transport protocols: TCP (sender, receiver, loss recovery, pluggable congestion control), the
//! shim seam between a flow's transport and the network and the systems on it (the NC layer that
//! paper 000 puts between TCP and the network), UDP, and the transport seam (`seam`) that the
//! transports beside them plug into (TCP-RLC, paper 004).
pub mod horizon;
pub mod nc_layer;
pub mod ordering;
pub mod seam;
pub mod shim;
pub mod tcp;
pub mod tcp_rlc;
pub mod udp;
pub mod utility_control;
