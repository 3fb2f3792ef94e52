//! Unknown fields anywhere in a JSON config are an error, including where serde's
//! `deny_unknown_fields` does not reach: beside the `kind` tag of a unit variant of an internally
//! tagged enum (`{"kind": "log", "alpha": 3}` parses as `Log` and drops `alpha` silently), and the
//! TCP block, which flattens its controllers' parameter blocks
//! (`transport::tcp::cc::registry::CcParams`) and so cannot deny unknown fields itself (serde does
//! not support `deny_unknown_fields` beside `flatten`). The check serialises the parsed config back
//! and requires every key of the input to be there at the same place: the configs have no skipped
//! or aliased fields, and the one flattened field writes its keys back into the TCP block where
//! they were read, so the round trip keeps every key serde understood and only those. A config
//! read with serde directly, not through the JSON entry points, keeps an unknown TCP field.

use serde::Serialize;
use serde_json::Value;

use crate::error::ConfigError;

/// `Err` naming the first key of `input` (in document order) that `parsed` does not carry.
pub fn reject_unknown_fields<T: Serialize>(input: &str, parsed: &T) -> Result<(), ConfigError> {
    let Ok(input) = serde_json::from_str::<Value>(input) else {
        return Ok(()); // it parsed as `T`, so it is JSON; nothing to add
    };
    let canonical = serde_json::to_value(parsed).expect("configs serialise");
    let mut path = String::new();
    walk(&input, &canonical, &mut path)
}

fn walk(input: &Value, canonical: &Value, path: &mut String) -> Result<(), ConfigError> {
    match (input, canonical) {
        (Value::Object(given), Value::Object(known)) => {
            for (key, value) in given {
                let len = path.len();
                if !path.is_empty() {
                    path.push('.');
                }
                path.push_str(key);
                match known.get(key) {
                    Some(inner) => walk(value, inner, path)?,
                    None if value.is_null() => {}
                    None => {
                        return Err(ConfigError {
                            path: path.clone(),
                            message: "unknown field".into(),
                        })
                    }
                }
                path.truncate(len);
            }
            Ok(())
        }
        (Value::Array(given), Value::Array(known)) => {
            for (i, (value, inner)) in given.iter().zip(known).enumerate() {
                let len = path.len();
                path.push_str(&format!("[{i}]"));
                walk(value, inner, path)?;
                path.truncate(len);
            }
            Ok(())
        }
        _ => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde::Deserialize;

    #[derive(Debug, Serialize, Deserialize)]
    #[serde(tag = "kind", rename_all = "snake_case", deny_unknown_fields)]
    enum Utility {
        Log,
        AlphaFair { alpha: f64 },
    }

    #[derive(Debug, Serialize, Deserialize)]
    #[serde(deny_unknown_fields)]
    struct Flow {
        utility: Utility,
        #[serde(default)]
        m: Option<f64>,
    }

    fn check(json: &str) -> Result<(), ConfigError> {
        let flows: Vec<Flow> = serde_json::from_str(json).expect("serde accepts it");
        reject_unknown_fields(json, &flows)
    }

    #[test]
    fn a_field_beside_a_unit_variant_tag_is_named() {
        // serde alone accepts this (the reason for the module).
        let err = check(
            r#"[{"utility": {"kind": "alpha_fair", "alpha": 2}},
                            {"utility": {"kind": "log", "alpha": 3}}]"#,
        )
        .unwrap_err();
        assert_eq!(err.path, "[1].utility.alpha");
        assert_eq!(err.message, "unknown field");
    }

    #[test]
    fn known_fields_defaults_and_nulls_pass() {
        check(r#"[{"utility": {"kind": "log"}}, {"utility": {"kind": "alpha_fair", "alpha": 2}, "m": null},
                  {"utility": {"kind": "log"}, "m": 4}]"#)
        .unwrap();
    }
}
