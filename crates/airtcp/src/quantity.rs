//! What the scenario format's JSON Schema says about a field that holds a quantity.
//!
//! The core receives every quantity as a plain number in its base unit (durations in integer
//! nanoseconds, rates in bits per second, sizes in bytes, distances in metres, frequencies in
//! hertz, powers in dBm, ratios in dB). A scenario file may write the same value as text with a
//! unit (`20ms`, `2Mbps`, `1KiB`, `250m`, `2.4GHz`, `-82dBm`, `10dB`, `1%`), which the front end
//! reads. A config field says which quantity it holds with `#[schemars(transform = ...)]` and one
//! of the functions below: the schema then names the quantity (`x-unit`, the front end's reader of
//! that name) and takes text with a unit, and a bare number only where the reader does (bytes and
//! probabilities; 0 for durations, distances and frequencies), so an editor checking a file
//! against the schema takes `delay: 20ms` and flags `delay: 20`. Ranges stay on the field
//! (`range(min = 1)`), in base units.
//!
//! A field holding node names says so too (`transform = crate::quantity::node_name`): a name is
//! never empty, in a list, a list of lists or as a mapping's key.
//!
//! Kept at the bottom of the crate: config types of every layer use it, and it knows no layer.

use schemars::Schema;

/// How a file may write a quantity besides text with a unit.
#[derive(Clone, Copy)]
enum Bare {
    /// Only as text: a bare number would leave the unit to guess (`delay: 20`).
    Never,
    /// Also as a bare number of base units (bytes, a probability).
    Number,
    /// Also as the number 0 (zero in any unit: a duration, a distance, a frequency).
    Zero,
}

/// Marks `schema` (a number's, perhaps optional) as holding the quantity `unit` in base units,
/// written in a file as text with a unit (and as a number where `bare` says so). Ranges stay in
/// base units: they bound the value the text stands for.
fn quantity(schema: &mut Schema, unit: &str, bare: Bare) {
    let (number, optional) = match schema.get("type") {
        Some(serde_json::Value::String(kind)) => (kind.clone(), false),
        Some(serde_json::Value::Array(kinds)) => (
            kinds
                .first()
                .and_then(|k| k.as_str())
                .unwrap_or("number")
                .to_owned(),
            kinds.iter().any(|k| k == "null"),
        ),
        _ => ("number".to_owned(), false),
    };
    let mut kinds = vec![serde_json::Value::from("string")];
    match bare {
        Bare::Never => {}
        Bare::Number => kinds.push(number.into()),
        Bare::Zero => kinds.push("integer".into()),
    }
    if optional {
        kinds.push("null".into());
    }
    let kinds = match kinds.len() {
        1 => kinds.remove(0),
        _ => serde_json::Value::Array(kinds),
    };
    schema.insert("type".into(), kinds);
    if let Bare::Zero = bare {
        // The one number a file may write without a unit.
        schema.insert("if".into(), serde_json::json!({"type": "integer"}));
        schema.insert("then".into(), serde_json::json!({"const": 0}));
    }
    schema.insert("x-unit".into(), unit.into());
}

/// Nanoseconds (`20ms`, `1.5s`; also `0`).
pub fn duration(schema: &mut Schema) {
    quantity(schema, "duration", Bare::Zero);
}

/// Bits per second (`2Mbps`).
pub fn rate(schema: &mut Schema) {
    quantity(schema, "rate", Bare::Never);
}

/// Bytes (`1500`, `1500B`, `64KiB`).
pub fn size(schema: &mut Schema) {
    quantity(schema, "size", Bare::Number);
}

/// Metres (`250m`, `1.2km`; also `0`).
pub fn distance(schema: &mut Schema) {
    quantity(schema, "distance", Bare::Zero);
}

/// Hertz (`2.4GHz`; also `0`).
pub fn frequency(schema: &mut Schema) {
    quantity(schema, "frequency", Bare::Zero);
}

/// dBm (`-82dBm`, `10mW`).
pub fn power(schema: &mut Schema) {
    quantity(schema, "power", Bare::Never);
}

/// dB (`10dB`).
pub fn ratio(schema: &mut Schema) {
    quantity(schema, "ratio", Bare::Never);
}

/// A probability in [0, 1] (`0.01`, `1%`).
pub fn probability(schema: &mut Schema) {
    quantity(schema, "probability", Bare::Number);
    // A field may narrow the interval (`extend("exclusiveMaximum" = 1)`), before or after this.
    if schema.get("exclusiveMinimum").is_none() {
        schema.insert("minimum".into(), 0.into());
    }
    if schema.get("exclusiveMaximum").is_none() {
        schema.insert("maximum".into(), 1.into());
    }
}

/// A node's name (or a list of them, or a mapping keyed by them): text that is not empty.
pub fn node_name(schema: &mut Schema) {
    if let Some(items) = schema.get_mut("items") {
        if let Ok(items) = <&mut Schema>::try_from(items) {
            node_name(items);
        }
        return;
    }
    if schema.get("additionalProperties").is_some() {
        schema.insert("propertyNames".into(), serde_json::json!({"minLength": 1}));
        return;
    }
    schema.insert("minLength".into(), 1.into());
}

/// A set of nodes a block applies to (a capture's, a mobility model's): every node, written
/// `all`, or the named ones. (Not a `kind`-tagged choice: a keyword or a list.)
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub enum NodeSet {
    /// Every node.
    #[default]
    All,
    /// These nodes, by name.
    Nodes(Vec<String>),
}

impl NodeSet {
    /// The names listed (`None` for `all`).
    pub fn names(&self) -> Option<&[String]> {
        match self {
            NodeSet::All => None,
            NodeSet::Nodes(names) => Some(names),
        }
    }
}

impl serde::Serialize for NodeSet {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            NodeSet::All => s.serialize_str("all"),
            NodeSet::Nodes(names) => serde::Serialize::serialize(names, s),
        }
    }
}

impl<'de> serde::Deserialize<'de> for NodeSet {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct Visitor;
        impl<'de> serde::de::Visitor<'de> for Visitor {
            type Value = NodeSet;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("`all` or a list of node names")
            }
            fn visit_str<E: serde::de::Error>(self, v: &str) -> Result<NodeSet, E> {
                match v {
                    "all" => Ok(NodeSet::All),
                    _ => Err(E::invalid_value(serde::de::Unexpected::Str(v), &self)),
                }
            }
            fn visit_seq<A: serde::de::SeqAccess<'de>>(
                self,
                mut seq: A,
            ) -> Result<NodeSet, A::Error> {
                let mut names = Vec::new();
                while let Some(name) = seq.next_element::<String>()? {
                    names.push(name);
                }
                Ok(NodeSet::Nodes(names))
            }
        }
        d.deserialize_any(Visitor)
    }
}

impl schemars::JsonSchema for NodeSet {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "NodeSet".into()
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
    use serde_json::json;

    #[test]
    fn a_quantity_accepts_text_and_names_its_unit() {
        let mut schema: Schema = json!({"type": "integer", "format": "uint64", "minimum": 1})
            .try_into()
            .unwrap();
        duration(&mut schema);
        assert_eq!(
            schema.as_value(),
            &json!({"type": ["string", "integer"], "format": "uint64", "minimum": 1,
                "if": {"type": "integer"}, "then": {"const": 0}, "x-unit": "duration"})
        );
        let mut optional: Schema = json!({"type": ["number", "null"]}).try_into().unwrap();
        power(&mut optional);
        assert_eq!(optional.get("type"), Some(&json!(["string", "null"])));
        let mut bytes: Schema = json!({"type": "integer"}).try_into().unwrap();
        size(&mut bytes);
        assert_eq!(bytes.get("type"), Some(&json!(["string", "integer"])));
    }

    #[test]
    fn a_probability_lies_in_the_unit_interval() {
        let mut schema: Schema = json!({"type": "number"}).try_into().unwrap();
        probability(&mut schema);
        assert_eq!(schema.get("minimum"), Some(&json!(0)));
        assert_eq!(schema.get("maximum"), Some(&json!(1)));
        assert_eq!(schema.get("x-unit"), Some(&json!("probability")));
    }

    #[test]
    fn a_node_name_is_not_empty_wherever_it_sits() {
        let mut one: Schema = json!({"type": "string"}).try_into().unwrap();
        node_name(&mut one);
        assert_eq!(one.get("minLength"), Some(&json!(1)));
        let mut lists: Schema =
            json!({"type": "array", "items": {"type": "array", "items": {"type": "string"}}})
                .try_into()
                .unwrap();
        node_name(&mut lists);
        assert_eq!(lists.as_value()["items"]["items"]["minLength"], json!(1));
        let mut keyed: Schema =
            json!({"type": "object", "additionalProperties": {"type": "array"}})
                .try_into()
                .unwrap();
        node_name(&mut keyed);
        assert_eq!(keyed.get("propertyNames"), Some(&json!({"minLength": 1})));
    }
}
