//! Timestamps as both backends store them.

use chrono::{DateTime, Utc};

use super::StoreError;

/// Milliseconds since the epoch, the form timestamps are stored in on both backends.
pub(crate) fn to_millis(at: DateTime<Utc>) -> i64 {
    at.timestamp_millis()
}

/// Reads a stored timestamp.
pub(crate) fn from_millis(table: &'static str, ms: i64) -> Result<DateTime<Utc>, StoreError> {
    DateTime::from_timestamp_millis(ms).ok_or_else(|| StoreError::Corrupt {
        table,
        detail: format!("timestamp {ms} out of range"),
    })
}
