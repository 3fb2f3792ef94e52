//! The `trace:` block: which interfaces a run captures to pcap files, and where the files go
//! (docs/pcap.md). Absent: no capture, and a run costs what it did without the block.

use serde::{Deserialize, Serialize};

/// Packet captures written while the run goes on: one pcap file per traced interface.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct TraceConfig {
    /// The nodes whose interfaces are captured: `all`, or a list of node names.
    pub pcap: PcapNodes,
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

/// The nodes a capture covers: every node, written `all`, or the named ones. (Not a
/// `kind`-tagged choice: a keyword or a list.)
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PcapNodes {
    /// Every node.
    All,
    /// These nodes, by name.
    Nodes(Vec<String>),
}

impl Serialize for PcapNodes {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            PcapNodes::All => s.serialize_str("all"),
            PcapNodes::Nodes(names) => names.serialize(s),
        }
    }
}

impl<'de> Deserialize<'de> for PcapNodes {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct Visitor;
        impl<'de> serde::de::Visitor<'de> for Visitor {
            type Value = PcapNodes;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("`all` or a list of node names")
            }
            fn visit_str<E: serde::de::Error>(self, v: &str) -> Result<PcapNodes, E> {
                match v {
                    "all" => Ok(PcapNodes::All),
                    _ => Err(E::invalid_value(serde::de::Unexpected::Str(v), &self)),
                }
            }
            fn visit_seq<A: serde::de::SeqAccess<'de>>(
                self,
                mut seq: A,
            ) -> Result<PcapNodes, A::Error> {
                let mut names = Vec::new();
                while let Some(name) = seq.next_element::<String>()? {
                    names.push(name);
                }
                Ok(PcapNodes::Nodes(names))
            }
        }
        d.deserialize_any(Visitor)
    }
}

impl schemars::JsonSchema for PcapNodes {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "PcapNodes".into()
    }

    fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
        schemars::json_schema!({
            "description": "`all`, or a list of node names.",
            "oneOf": [
                {"type": "string", "const": "all"},
                {"type": "array", "items": {"type": "string", "minLength": 1}, "minItems": 1},
            ],
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nodes_read_as_a_keyword_or_a_list() {
        let all: TraceConfig = serde_json::from_str(r#"{"pcap": "all"}"#).unwrap();
        assert_eq!(all.pcap, PcapNodes::All);
        assert_eq!(all.what, vec![TraceMedium::Wifi, TraceMedium::Wired]);
        assert_eq!(all.dir, None);
        let some: TraceConfig =
            serde_json::from_str(r#"{"pcap": ["a", "b"], "what": ["wired"], "dir": "t"}"#).unwrap();
        assert_eq!(some.pcap, PcapNodes::Nodes(vec!["a".into(), "b".into()]));
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
