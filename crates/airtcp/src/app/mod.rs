//! Applications. Bulk transfer (unlimited or a byte count) is the TCP sender's data supply
//! (`TcpSender::start`/`stop`); the constant-bit-rate source is [`crate::transport::udp::CbrSource`].
//! Flow arrival processes for the papers' later scenarios will live here.
