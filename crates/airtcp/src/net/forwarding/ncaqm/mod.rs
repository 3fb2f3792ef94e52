//! NCAQM, paper 001's network-coding-aware queue management (Seferoglu & Markopoulou, IEEE/ACM
//! ToN 22(4), 2014, §V): so far its output queue ([`queue`]: entries already coded, Alg. 1's
//! coding at insertion and re-coding, Alg. 2's drop rule over the estimates alpha, m, the
//! h-queues and Phi), tested alone. The forwarding layer that puts it at every node over COPE's
//! overhearing, reports and pseudo-broadcast comes with the COPE layer (docs/ncaqm.md).

pub mod queue;

#[cfg(test)]
mod tests;
