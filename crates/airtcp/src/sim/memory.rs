//! The memory budget of a run: what it may allocate, charged as the world is built and checked
//! as it grows (the scenario's charges are in `scenario::budget`, which explains the scheme).
//! Here, below every layer, so that a model that allocates per its input (the conflict graph's
//! schedules) charges the same budget without knowing the scenario.

use crate::error::ConfigError;
use crate::sim::time::to_secs;
use crate::sim::Time;

/// The default memory budget of a run, bytes (4 GiB; `limits.memory`'s default).
pub const DEFAULT_MEMORY_BYTES: u64 = 4 << 30;

/// Bytes per row of a result time series: the row in memory (name, time, value) and the same row
/// in the JSON the results travel as.
pub const SERIES_ROW_BYTES: u64 = 128;

/// Tracks what a run may allocate against its budget.
#[derive(Debug, Clone)]
pub struct MemoryBudget {
    limit: u64,
    fixed: u64,
}

impl MemoryBudget {
    /// A budget of `limit` bytes.
    pub fn new(limit: u64) -> Self {
        MemoryBudget { limit, fixed: 0 }
    }

    /// The budget, bytes.
    pub fn limit(&self) -> u64 {
        self.limit
    }

    /// Bytes charged for fixed allocations so far.
    pub fn fixed(&self) -> u64 {
        self.fixed
    }

    /// Charges `count` items of `each` bytes for `what` (e.g. "nodes"), which the field at
    /// `path` makes numerous; refuses them if the fixed allocations would exceed the budget.
    pub fn charge(
        &mut self,
        path: &str,
        what: &str,
        count: u64,
        each: u64,
    ) -> Result<(), ConfigError> {
        let bytes = count.saturating_mul(each);
        self.fixed = self.fixed.saturating_add(bytes);
        if self.fixed <= self.limit {
            return Ok(());
        }
        Err(ConfigError {
            path: path.into(),
            message: format!(
                "needs about {} for {} {what} before the run starts; with everything else the \
                 scenario allocates that exceeds the memory budget of {} (limits.memory)",
                format_bytes(bytes),
                format_count(count),
                format_bytes(self.limit)
            ),
        })
    }

    /// Checks what the run has grown to (`growth` bytes beyond the fixed allocations; `detail`
    /// says where, asked only when the budget is exceeded) at simulated time `now`.
    pub fn check_growth(
        &self,
        growth: u64,
        now: Time,
        detail: &dyn Fn() -> String,
    ) -> Result<(), ConfigError> {
        if self.fixed.saturating_add(growth) <= self.limit {
            return Ok(());
        }
        Err(ConfigError {
            path: "limits.memory".into(),
            message: format!(
                "the run outgrew the memory budget of {} at {:.6} s simulated ({}); raise \
                 limits.memory, or make queues, windows or traces smaller",
                format_bytes(self.limit),
                to_secs(now),
                detail()
            ),
        })
    }
}

/// `bytes` in binary units, e.g. "4.0 GiB".
pub fn format_bytes(bytes: u64) -> String {
    const UNITS: [&str; 6] = ["B", "KiB", "MiB", "GiB", "TiB", "PiB"];
    let mut v = bytes as f64;
    let mut unit = 0;
    while v >= 1024.0 && unit + 1 < UNITS.len() {
        v /= 1024.0;
        unit += 1;
    }
    if unit == 0 {
        format!("{bytes} B")
    } else {
        format!("{v:.1} {}", UNITS[unit])
    }
}

/// `n` with thousands separators, e.g. "1,000,000,001".
pub fn format_count(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::with_capacity(digits.len() + digits.len() / 3);
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn formats() {
        assert_eq!(format_bytes(DEFAULT_MEMORY_BYTES), "4.0 GiB");
        assert_eq!(format_bytes(512), "512 B");
        assert_eq!(format_count(1_000_000_001), "1,000,000,001");
        assert_eq!(format_count(999), "999");
    }
}
