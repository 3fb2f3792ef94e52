//! NCAQM, paper 001's network-coding-aware queue management (Seferoglu & Markopoulou, IEEE/ACM
//! ToN 22(4), 2014, §V): its output queue ([`queue`]: entries already coded, Alg. 1's coding at
//! insertion and re-coding, Alg. 2's drop rule over the estimates alpha, m, the h-queues and
//! Phi), tested alone here. The COPE layer (`super::cope`, `coding: {queue: ncaqm}`) puts it at
//! every node over COPE's overhearing, reports and pseudo-broadcast (docs/ncaqm.md).

pub mod queue;

#[cfg(test)]
mod tests;
