//! Receipts: a decision on a call, signed, so that a service downstream can
//! check on its own that the call was approved, by whom, and with exactly
//! these arguments, without asking Airlock.
//!
//! A receipt is a compact JWS (RFC 7515) signed with Ed25519 (`EdDSA`). Its
//! payload ([`Claims`]) names the call by its source, tool and the SHA-256
//! of its arguments as approved, in RFC 8785's canonical JSON, which
//! Python's `rfc8785` and npm's `canonicalize` write byte for byte the same.
//! It is made from the recorded decision whenever it is asked for, never
//! stored; Ed25519 signs deterministically, so one decision under one key
//! is always the same receipt. The keys are in `keys.rs`; this file is pure.

mod jws;
mod keys;
#[cfg(test)]
mod tests;
#[cfg(test)]
mod vectors;

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use serde_json::Value;
use sha2::{Digest, Sha256};

use crate::domain::{CallStatus, DecisionKind, ToolCall};

pub use jws::{sign, verify};
pub use keys::{Jwk, Jwks, Signer, SignerParts, SigningKey};

/// The JWS header's `typ`: what the token is, so that no other token
/// signed with the same key passes for a receipt.
pub const TOKEN_TYPE: &str = "airlock-receipt+jwt";

/// What a receipt says.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Claims {
    /// Who issued it: Airlock's public URL, or `airlock`.
    pub iss: String,
    /// The call.
    pub call_id: String,
    pub source: String,
    pub tool: String,
    /// The SHA-256, in hex, of the arguments as approved (after any edit),
    /// in canonical JSON ([`arguments_digest`]).
    pub arguments_sha256: String,
    /// Whether the call may run: approved by people or allowed by policy.
    pub approved: bool,
    /// How it was decided: `approve`, `edit`, `always_allow`, `reject`,
    /// `expire`, `cancel`, or `policy` for a call the policy allowed.
    pub decision: String,
    /// Who decided: a person's name, `policy`, or `system:timeout`.
    pub decided_by: String,
    /// The people whose approval the call needed and got (four eyes: each);
    /// none when policy or expiry let it run.
    pub approvers: Vec<String>,
    /// When it was decided (seconds since the epoch).
    pub iat: i64,
    /// When the receipt stops being good (seconds since the epoch).
    pub exp: i64,
}

impl Claims {
    /// The claims for `call` as decided, good for `valid_for` after the
    /// decision; none while nothing has decided it.
    pub fn of(
        call: &ToolCall,
        issuer: &str,
        valid_for: chrono::Duration,
    ) -> Result<Option<Self>, ReceiptError> {
        // Whether it may run is the call's own status: an expiry whose
        // default is to approve lets it run as a person's approval does.
        let approved = matches!(
            call.status,
            CallStatus::Approved
                | CallStatus::Executing
                | CallStatus::Completed
                | CallStatus::Failed
        );
        let (decision, decided_by, at) = match &call.decision {
            Some(d) => (d.kind.as_str(), d.by.clone(), d.at),
            // Nobody decided, yet it may run: the policy allowed it.
            None if approved => ("policy", "policy".to_owned(), call.created_at),
            None => return Ok(None),
        };
        let by_people = call.decision.as_ref().is_some_and(|d| {
            matches!(
                d.kind,
                DecisionKind::Approve | DecisionKind::Edit | DecisionKind::AlwaysAllow
            )
        });
        let approvers = match (by_people, call.quorum.approvals.is_empty()) {
            (false, _) => Vec::new(),
            (true, true) => vec![decided_by.clone()],
            (true, false) => call.quorum.approvals.iter().map(|a| a.by.clone()).collect(),
        };
        Ok(Some(Claims {
            iss: issuer.to_owned(),
            call_id: call.id.to_string(),
            source: call.source.clone(),
            tool: call.tool.clone(),
            arguments_sha256: arguments_digest(&call.arguments)?,
            approved,
            decision: decision.to_owned(),
            decided_by,
            approvers,
            iat: at.timestamp(),
            exp: (at + valid_for).timestamp(),
        }))
    }

    /// When the receipt stops being good.
    pub fn expires_at(&self) -> Option<DateTime<Utc>> {
        DateTime::from_timestamp(self.exp, 0)
    }
}

/// The SHA-256, in hex, of `arguments` in RFC 8785's canonical JSON: keys
/// sorted, no spaces, numbers and strings written one way only.
pub fn arguments_digest(arguments: &Value) -> Result<String, ReceiptError> {
    let canonical = serde_jcs::to_vec(arguments).map_err(|_| ReceiptError::Malformed)?;
    Ok(hex::encode(Sha256::digest(&canonical)))
}

/// Why a receipt is refused, each with a stable code.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ReceiptError {
    #[error(
        "this is not a receipt: it should be three base64url parts with a JSON header and payload"
    )]
    Malformed,
    #[error("the receipt is signed with `{0}`, which receipts are not signed with")]
    Algorithm(String),
    #[error("the receipt names key `{0}`, which is not among the keys given")]
    UnknownKey(String),
    #[error("the receipt's signature does not match its contents")]
    BadSignature,
    #[error("the receipt expired at {0}")]
    Expired(String),
    #[error("the receipt is for other arguments than these")]
    ArgumentsDiffer,
}

impl ReceiptError {
    /// The stable code, for programs.
    pub fn code(&self) -> &'static str {
        match self {
            ReceiptError::Malformed => "receipt_malformed",
            ReceiptError::Algorithm(_) => "receipt_algorithm",
            ReceiptError::UnknownKey(_) => "receipt_unknown_key",
            ReceiptError::BadSignature => "receipt_bad_signature",
            ReceiptError::Expired(_) => "receipt_expired",
            ReceiptError::ArgumentsDiffer => "receipt_arguments_differ",
        }
    }
}
