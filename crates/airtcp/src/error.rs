//! The one error type of the core: a scenario (or a call with one) that cannot be run, named by
//! the field at fault. Every layer's checks return it, so it sits below all of them.

/// Errors a scenario can produce before the run starts. `path` names the offending field the way
/// the scenario file spells it (e.g. `flows[0].dst`).
#[derive(Debug, Clone, PartialEq)]
pub struct ConfigError {
    /// Field path.
    pub path: String,
    /// What is wrong.
    pub message: String,
}

impl ConfigError {
    /// The error at field `path` with `message`.
    pub fn new(path: impl Into<String>, message: impl Into<String>) -> Self {
        ConfigError {
            path: path.into(),
            message: message.into(),
        }
    }
}

impl std::fmt::Display for ConfigError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}: {}", self.path, self.message)
    }
}

impl std::error::Error for ConfigError {}

/// Refuses a whole number that must be positive (a count, a size, a duration), at `path`.
pub fn positive(path: impl Into<String>, value: u64) -> Result<(), ConfigError> {
    if value == 0 {
        return Err(ConfigError::new(path, "must be greater than zero"));
    }
    Ok(())
}
