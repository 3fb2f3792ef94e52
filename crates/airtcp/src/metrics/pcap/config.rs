//! The `trace:` block: which interfaces a run captures to pcap files, and where the files go
//! (docs/pcap.md). Absent: no capture, and a run costs what it did without the block.

use serde::{Deserialize, Serialize};

pub use crate::quantity::NodeSet;

/// Packet captures written while the run goes on: one pcap file per traced interface.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct TraceConfig {
    /// The nodes whose interfaces are captured: `all`, or a list of node names.
    pub pcap: NodeSet,
    /// Which interfaces of those nodes: `wifi` (their radios: 802.11 frames after a radiotap
    /// header) and `wired` (their ends of wired links: raw IPv4).
    #[serde(default = "default_media")]
    #[schemars(extend("minItems" = 1))]
    pub what: Vec<TraceMedium>,
    /// The folder the files go to (created if missing), one file per interface:
    /// `<node>-wifi<k>.pcap` for the node's k-th radio, `<node>-link<i>.pcap` for its end of
    /// `links[i]`. Absent: `airtcp run` writes them into the run's output folder
    /// (`<out>/pcap`); the Python API needs one.
    #[serde(default)]
    pub dir: Option<String>,
}

/// A kind of interface a capture covers.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize, schemars::JsonSchema,
)]
#[serde(rename_all = "snake_case")]
pub enum TraceMedium {
    /// Radios: every frame a radio transmits (data with its retries, ACK, RTS, CTS) and every
    /// frame it decodes, overheard ones included.
    Wifi,
    /// Ends of wired links: every packet the node starts sending on the link and every packet
    /// that arrives over it.
    Wired,
}

fn default_media() -> Vec<TraceMedium> {
    vec![TraceMedium::Wifi, TraceMedium::Wired]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nodes_read_as_a_keyword_or_a_list() {
        let all: TraceConfig = serde_json::from_str(r#"{"pcap": "all"}"#).unwrap();
        assert_eq!(all.pcap, NodeSet::All);
        assert_eq!(all.what, vec![TraceMedium::Wifi, TraceMedium::Wired]);
        assert_eq!(all.dir, None);
        let some: TraceConfig =
            serde_json::from_str(r#"{"pcap": ["a", "b"], "what": ["wired"], "dir": "t"}"#).unwrap();
        assert_eq!(some.pcap, NodeSet::Nodes(vec!["a".into(), "b".into()]));
        assert_eq!(some.what, vec![TraceMedium::Wired]);
        assert_eq!(
            serde_json::to_value(&some.pcap).unwrap(),
            serde_json::json!(["a", "b"])
        );
        assert_eq!(serde_json::to_value(&all.pcap).unwrap(), "all");
        assert!(serde_json::from_str::<TraceConfig>(r#"{"pcap": "none"}"#).is_err());
        assert!(serde_json::from_str::<TraceConfig>(r#"{"pcap": 3}"#).is_err());
        assert!(serde_json::from_str::<TraceConfig>(r#"{"pcap": "all", "x": 1}"#).is_err());
    }
}
