//! A key receipts are signed with, as the store keeps it: its id and public
//! half (the private half is derived, never stored; see `receipts/keys.rs`).

use chrono::{DateTime, Utc};

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReceiptKey {
    pub id: String,
    /// The Ed25519 public key, base64url.
    pub public_key: String,
    pub created_at: DateTime<Utc>,
    /// When a newer key took over; it still verifies what it signed.
    pub retired_at: Option<DateTime<Utc>>,
}
