//! The congestion controllers a scenario can name (`transport: {kind: tcp, cc: ...}`), one entry
//! each, so that what a controller needs from the rest of the crate is said in one place.
//!
//! From the entries the macro below makes:
//!
//! - [`CcKind`], the `cc` field's enum (each entry's doc comment is the variant's description in
//!   the scenario schema, its string its name in scenario files and results);
//! - [`CcParams`], the optional parameter blocks, which [`TcpConfig`] flattens into the TCP
//!   block (`cubic: {...}` beside `cc: cubic`), each with the entry's doc comment;
//! - [`CcParams::check`]: a block only beside its own `cc`, then the block's own `check`;
//! - [`CcKind::build`], the algorithm with its block (or the block's defaults when absent);
//! - [`CcKind::traces_delay_state`], whether the cwnd trace records the algorithm's
//!   `CongestionControl::delay_state` (so the memory budget counts its columns).
//!
//! To add a controller:
//!
//! 1. write it in a file of its own in this folder (`cc/<name>.rs`, declared in `cc/mod.rs`): the
//!    algorithm implementing `CongestionControl` and, if it takes parameters, a block deriving
//!    `Serialize`, `Deserialize`, `JsonSchema`, `Clone`, `Copy` and `Default`, with
//!    `check(&self, path)` for the values serde cannot check;
//! 2. add its entry below: doc comment, variant = scenario name, optionally the block
//!    (`params <field>: <Type>`, the field named as the controller, with its doc comment), the
//!    constructor (a closure from the block, or from `()` without one), and whether it traces
//!    delay state;
//! 3. run `make schema` to regenerate the shipped schema, the Python models and
//!    docs/scenario-fields.md (a test compares the shipped schema with the generated one); the
//!    front end finds the block there by its name (`cc_parameter_blocks` in
//!    `python/airtcp/scenario/consistency.py`: a TCP field named as a `cc` value).
//!
//! [`TcpConfig`]: crate::transport::tcp::config::TcpConfig

use serde::{Deserialize, Serialize};

use super::bbr::v3::{Bbr3, Bbr3Params};
use super::bbr::{Bbr, BbrParams};
use super::compound::{Compound, CompoundParams};
use super::cubic::{Cubic, CubicParams};
use super::fast::{Fast, FastParams};
use super::linux_reno::LinuxReno;
use super::quic_tcp::{QuicTcp, QuicTcpParams};
use super::reno::Reno;
use super::vegas::{Vegas, VegasParams};
use super::CongestionControl;
use crate::error::ConfigError;

/// Expands the entries below (defined first, as a `macro_rules!` must be); the module comment
/// says what it makes.
macro_rules! controllers {
    ($(
        $(#[$doc:meta])*
        $variant:ident = $name:literal {
            $(
                $(#[$params_doc:meta])*
                params $field:ident: $params:ty,
            )?
            build: $build:expr,
            traces_delay_state: $traces:literal,
        }
    )*) => {
        /// Congestion control algorithm.
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
        pub enum CcKind {
            $(
                $(#[$doc])*
                #[serde(rename = $name)]
                $variant,
            )*
        }

        impl CcKind {
            /// Every controller, in the order of the entries.
            pub const ALL: &'static [CcKind] = &[$(CcKind::$variant),*];

            /// The name scenario files and results give the algorithm.
            pub fn name(self) -> &'static str {
                match self {
                    $(CcKind::$variant => $name,)*
                }
            }

            /// Whether the algorithm reports delay estimates for the cwnd trace
            /// (`CongestionControl::delay_state`).
            pub fn traces_delay_state(self) -> bool {
                match self {
                    $(CcKind::$variant => $traces,)*
                }
            }

            /// The algorithm, with its parameter block from `params` (the block's defaults if
            /// absent).
            pub fn build(self, params: &CcParams) -> Box<dyn CongestionControl> {
                match self {
                    $(CcKind::$variant => {
                        controllers!(@build params, $build, $($field: $params)?)
                    })*
                }
            }
        }

        /// The controllers' parameter blocks, each allowed only beside its own `cc`; absent, the
        /// controller's defaults apply. Flattened into the TCP block.
        #[derive(Debug, Clone, Default, Serialize, Deserialize, schemars::JsonSchema)]
        pub struct CcParams {
            $($(
                $(#[$params_doc])*
                #[serde(default)]
                pub $field: Option<$params>,
            )?)*
        }

        impl CcParams {
            /// Refuses a block beside another `cc` (`cc` being the one chosen), then checks each
            /// block's values; `p` is the TCP block's path (`flows[0].transport`).
            pub fn check(&self, cc: CcKind, p: &str) -> Result<(), ConfigError> {
                let owners: &[(&str, bool, CcKind)] = &[
                    $($((stringify!($field), self.$field.is_some(), CcKind::$variant),)?)*
                ];
                for &(block, given, owner) in owners {
                    if given && owner != cc {
                        return Err(ConfigError::new(
                            format!("{p}.{block}"),
                            format!("only used with cc: {} (cc is {})", owner.name(), cc.name()),
                        ));
                    }
                }
                $($(
                    if let Some(block) = &self.$field {
                        block.check(&format!("{p}.{}", stringify!($field)))?;
                    }
                )?)*
                Ok(())
            }
        }
    };
    // A constructor's argument: its block (or the defaults) if it has one, else `()`. Typing the
    // closure as a function pointer lets each entry box its own algorithm as the trait object.
    (@build $from:ident, $build:expr, $field:ident: $params:ty) => {{
        let build: fn($params) -> Box<dyn CongestionControl> = $build;
        build($from.$field.unwrap_or_default())
    }};
    (@build $from:ident, $build:expr,) => {{
        let build: fn(()) -> Box<dyn CongestionControl> = $build;
        build(())
    }};
}

controllers! {
    /// RFC 5681 AIMD; without SACK, ns-2 TCP-Reno loss recovery (a partial ACK ends recovery).
    Reno = "reno" {
        build: |()| Box::new(Reno::new("reno")),
        traces_delay_state: false,
    }
    /// RFC 5681 AIMD; without SACK, RFC 6582 NewReno loss recovery.
    Newreno = "newreno" {
        build: |()| Box::new(Reno::new("newreno")),
        traces_delay_state: false,
    }
    /// ns-3's TcpLinuxReno: Reno counting acknowledged segments, not ACKs; NewReno or SACK
    /// recovery.
    LinuxReno = "linux_reno" {
        build: |()| Box::new(LinuxReno::new()),
        traces_delay_state: false,
    }
    /// RFC 9438 Cubic (parameters in `cubic`); NewReno or SACK loss recovery.
    Cubic = "cubic" {
        /// Cubic's parameters (only with `cc: cubic`); RFC 9438's defaults if absent.
        params cubic: CubicParams,
        build: |p| Box::new(Cubic::new(p)),
        traces_delay_state: false,
    }
    /// Compound TCP, Tan et al. 2006 (parameters in `compound`); NewReno or SACK loss recovery.
    Compound = "compound" {
        /// Compound TCP's parameters (only with `cc: compound`); the paper's defaults if absent.
        params compound: CompoundParams,
        build: |p| Box::new(Compound::new(p)),
        traces_delay_state: false,
    }
    /// TCP Vegas (Brakmo & Peterson 1995, as ns-2's Agent/TCP/Vegas); parameters in `vegas`.
    Vegas = "vegas" {
        /// Vegas parameters (only with `cc: vegas`; defaults if absent).
        params vegas: VegasParams,
        build: |p| Box::new(Vegas::new(p)),
        traces_delay_state: false,
    }
    /// FAST TCP (Jin, Wei & Low 2004); parameters in `fast`.
    Fast = "fast" {
        /// FAST parameters (only with `cc: fast`; defaults if absent).
        params fast: FastParams,
        build: |p| Box::new(Fast::new(p)),
        traces_delay_state: true,
    }
    /// BBR v1 (Cardwell et al. 2016, as Linux's tcp_bbr and ns-3's TcpBbr): paced at its
    /// bottleneck-bandwidth estimate, window from the bandwidth-delay product; parameters in
    /// `bbr`. Sets the window itself in loss recovery too.
    Bbr = "bbr" {
        /// BBR's parameters (only with `cc: bbr`); ns-3's and Linux's defaults if absent.
        params bbr: BbrParams,
        build: |p| Box::new(Bbr::new(p)),
        traces_delay_state: false,
    }
    /// BBR v3 (draft-ietf-ccwg-bbr, as Linux's v3 tcp_bbr): BBR's model bounded by loss, a
    /// long-term inflight bound set when a bandwidth probe loses more than 2 % and short-term
    /// bounds cut by losses between probes; parameters in `bbr3`. Sets the window itself in loss
    /// recovery too; its loss responses need SACK.
    Bbr3 = "bbr3" {
        /// BBR v3's parameters (only with `cc: bbr3`); the draft's defaults if absent.
        params bbr3: Bbr3Params,
        build: |p| Box::new(Bbr3::new(p)),
        traces_delay_state: false,
    }
    /// QUIC-TCP, the queueing-control window law of paper 002 (eqs. 8-9; not the IETF QUIC
    /// protocol); parameters in `quic_tcp`.
    QuicTcp = "quic_tcp" {
        /// QUIC-TCP parameters (only with `cc: quic_tcp`; defaults if absent).
        params quic_tcp: QuicTcpParams,
        build: |p| Box::new(QuicTcp::new(p)),
        traces_delay_state: true,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_block_is_named_as_the_controller_it_belongs_to() {
        // The Python front end takes a block's owner to be the `cc` of the same name
        // (`scenario/consistency.py`), so the two layers refuse the same blocks.
        let blocks = serde_json::to_value(CcParams::default()).unwrap();
        for block in blocks.as_object().unwrap().keys() {
            let owner: CcKind = serde_json::from_value(block.as_str().into()).unwrap();
            let given: CcParams = serde_json::from_value(serde_json::json!({ block: {} })).unwrap();
            assert_eq!(given.check(owner, "t"), Ok(()), "{block}");
        }
    }
}
