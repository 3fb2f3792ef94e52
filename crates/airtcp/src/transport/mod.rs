//! Transport protocols: TCP (sender, receiver, loss recovery, pluggable congestion control), the
//! NC layer that paper 000 puts between TCP and the network, and UDP.
pub mod nc_layer;
pub mod tcp;
pub mod udp;
pub mod utility_control;
