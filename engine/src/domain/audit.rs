//! The audit log's entries, and the chain that makes a change to them
//! evident. Once sealed, an entry holds its place (`seq`), the SHA-256 of
//! the entry before it and its own, taken over its canonical form: the
//! [`AuditLine`] without its hash. An export is these lines as JSON Lines,
//! so a file verifies exactly as the database does.

use chrono::{DateTime, SecondsFormat, Utc};
use serde::{Deserialize, Serialize};
use serde_json::value::RawValue;
use sha2::{Digest, Sha256};

/// What the first entry of the chain follows.
pub const GENESIS: &str = "0000000000000000000000000000000000000000000000000000000000000000";

/// An entry as stored: a sealed one carries its [`Seal`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AuditEntry {
    /// Its id in the store, in the order entries were written.
    pub id: i64,
    pub at: DateTime<Utc>,
    /// `propose`, a decision (`approve`, `reject`, …), `execute`,
    /// `completed`, `failed`, `grant` or `revoke`.
    pub action: String,
    /// Who did it: a person's name, `agent`, or the system's timeout.
    pub actor: String,
    /// Where: `chat`, `review_link`, `api`, `system`, …
    pub channel: String,
    pub call: Option<String>,
    pub conversation: Option<String>,
    pub source: Option<String>,
    pub tool: Option<String>,
    /// JSON: the arguments as decided, the reason, the status, or the grant.
    pub detail: String,
    pub seal: Option<Seal>,
}

/// An entry's place in the chain.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Seal {
    /// From 1, without gaps.
    pub seq: i64,
    /// The hash of the entry before ([`GENESIS`] for the first).
    pub prev: String,
    /// This entry's own hash.
    pub hash: String,
}

/// An entry as exported and as hashed: every field but `hash` is its
/// canonical form, serialised in this order with `detail` kept byte for
/// byte as stored.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct AuditLine {
    pub seq: i64,
    pub id: i64,
    /// RFC 3339 in UTC, to the millisecond.
    pub at: String,
    pub action: String,
    pub actor: String,
    pub channel: String,
    pub call: Option<String>,
    pub conversation: Option<String>,
    pub source: Option<String>,
    pub tool: Option<String>,
    pub detail: Box<RawValue>,
    pub prev: String,
    /// Left out while empty, which is how the canonical form is written.
    #[serde(skip_serializing_if = "String::is_empty")]
    pub hash: String,
}

impl AuditEntry {
    /// The line this entry makes at `seq` after `prev`, with its hash.
    pub fn sealed_as(&self, seq: i64, prev: &str) -> AuditLine {
        let mut line = self.line_with(seq, prev.to_owned(), String::new());
        line.hash = line.computed_hash();
        line
    }

    /// The line of a sealed entry, with the hashes as stored (a verifier
    /// recomputes them); `None` while it is not sealed.
    pub fn line(&self) -> Option<AuditLine> {
        let seal = self.seal.as_ref()?;
        Some(self.line_with(seal.seq, seal.prev.clone(), seal.hash.clone()))
    }

    fn line_with(&self, seq: i64, prev: String, hash: String) -> AuditLine {
        AuditLine {
            seq,
            id: self.id,
            at: self.at.to_rfc3339_opts(SecondsFormat::Millis, true),
            action: self.action.clone(),
            actor: self.actor.clone(),
            channel: self.channel.clone(),
            call: self.call.clone(),
            conversation: self.conversation.clone(),
            source: self.source.clone(),
            tool: self.tool.clone(),
            detail: raw_detail(&self.detail),
            prev,
            hash,
        }
    }
}

/// The stored detail as raw JSON; text that is not JSON (which Airlock
/// never writes) is kept as a JSON string, so it still hashes and exports.
fn raw_detail(detail: &str) -> Box<RawValue> {
    RawValue::from_string(detail.trim().to_owned()).unwrap_or_else(|_| {
        let quoted = serde_json::Value::String(detail.to_owned()).to_string();
        RawValue::from_string(quoted).expect("a JSON string is JSON")
    })
}

impl AuditLine {
    /// The canonical form, as hashed: the line without its hash.
    pub fn canonical(&self) -> String {
        let unhashed = AuditLine {
            hash: String::new(),
            ..self.clone()
        };
        serde_json::to_string(&unhashed).expect("strings and numbers serialise")
    }

    /// The hash its contents make now.
    pub fn computed_hash(&self) -> String {
        hex::encode(Sha256::digest(self.canonical().as_bytes()))
    }
}

/// Why a chain does not verify, at its first broken entry.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ChainBreak {
    #[error("entry {seq} (audit id {id}) was changed: its contents do not match its hash")]
    Changed { seq: i64, id: i64 },
    #[error("entry {seq} (audit id {id}) does not follow entry {after}: the entry before it was changed, or entries were removed or reordered")]
    Unlinked { seq: i64, id: i64, after: i64 },
    #[error(
        "entry {seq} (audit id {id}) comes after entry {after}: entries were removed or reordered"
    )]
    OutOfPlace { seq: i64, id: i64, after: i64 },
    #[error(
        "entry {seq} (audit id {id}) should be the first of the chain, but follows another hash"
    )]
    BadStart { seq: i64, id: i64 },
    #[error(
        "entry {seq} is not the entry whose hash was kept: the chain was rewritten from there"
    )]
    NotKept { seq: i64 },
    #[error("the chain ends at entry {last}, before entry {seq} whose hash was kept: entries were removed from its end")]
    Shortened { seq: i64, last: i64 },
}

/// A chain's head as it was once, kept outside Airlock (`airlock audit
/// head` prints it): the chain must still reach it with the same hash. The
/// chain alone cannot tell that its newest entries were removed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KeptHead {
    pub seq: i64,
    pub hash: String,
}

impl std::str::FromStr for KeptHead {
    type Err = String;

    /// `SEQ:HASH`, as `airlock audit head` prints it.
    fn from_str(text: &str) -> Result<Self, Self::Err> {
        let parsed = text.split_once(':').and_then(|(seq, hash)| {
            let seq = seq.parse::<i64>().ok().filter(|seq| *seq > 0)?;
            let hex = hash.len() == 64 && hash.bytes().all(|b| b.is_ascii_hexdigit());
            hex.then(|| KeptHead {
                seq,
                hash: hash.to_ascii_lowercase(),
            })
        });
        parsed.ok_or_else(|| {
            format!("{text:?} is not a head: give SEQ:HASH as `airlock audit head` prints it")
        })
    }
}

impl std::fmt::Display for KeptHead {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}:{}", self.seq, self.hash)
    }
}

/// Checks a chain an entry at a time, in `seq` order.
#[derive(Debug, Default)]
pub struct ChainCheck {
    last: Option<(i64, String)>,
    /// A head kept from before, which the chain must reach.
    kept: Option<KeptHead>,
    /// How many entries were checked.
    pub checked: u64,
    /// The `seq` of the first entry checked.
    pub first: Option<i64>,
}

impl ChainCheck {
    /// A check from the chain's start: the first entry must be entry 1,
    /// following [`GENESIS`].
    pub fn from_start() -> Self {
        Self {
            last: Some((0, GENESIS.to_owned())),
            ..Self::default()
        }
    }

    /// A check that takes the first entry's place on trust (an export
    /// that starts later in the chain).
    pub fn from_anywhere() -> Self {
        Self::default()
    }

    /// The same check, which [`finish`](Self::finish) fails unless the
    /// chain reaches `kept` with its hash.
    pub fn reaching(self, kept: Option<KeptHead>) -> Self {
        Self { kept, ..self }
    }

    /// Checks the next entry: its own hash, then its link to the one before.
    pub fn check(&mut self, line: &AuditLine) -> Result<(), ChainBreak> {
        let (seq, id) = (line.seq, line.id);
        if line.computed_hash() != line.hash {
            return Err(ChainBreak::Changed { seq, id });
        }
        if self
            .kept
            .as_ref()
            .is_some_and(|k| k.seq == seq && k.hash != line.hash)
        {
            return Err(ChainBreak::NotKept { seq });
        }
        if let Some((after, prev_hash)) = &self.last {
            let after = *after;
            if seq != after + 1 {
                return Err(ChainBreak::OutOfPlace { seq, id, after });
            }
            if line.prev != *prev_hash {
                return Err(if after == 0 {
                    ChainBreak::BadStart { seq, id }
                } else {
                    ChainBreak::Unlinked { seq, id, after }
                });
            }
        }
        self.first.get_or_insert(seq);
        self.last = Some((seq, line.hash.clone()));
        self.checked += 1;
        Ok(())
    }

    /// After the last entry: whether the chain reached the kept head.
    pub fn finish(&self) -> Result<(), ChainBreak> {
        let last = self.last.as_ref().map_or(0, |(seq, _)| *seq);
        match &self.kept {
            Some(kept) if last < kept.seq => Err(ChainBreak::Shortened {
                seq: kept.seq,
                last,
            }),
            _ => Ok(()),
        }
    }

    /// The last entry checked: its `seq` and hash.
    pub fn head(&self) -> Option<(i64, &str)> {
        self.last
            .as_ref()
            .filter(|(seq, _)| *seq > 0)
            .map(|(seq, hash)| (*seq, hash.as_str()))
    }
}

/// Which entries the audit page shows: newest first, before `before` (an
/// entry's id, from the page before), narrowed by the filters given.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct AuditQuery {
    pub before: Option<i64>,
    /// Exactly this actor.
    pub actor: Option<String>,
    /// Exactly this tool.
    pub tool: Option<String>,
    /// Exactly this action.
    pub action: Option<String>,
    /// At or after this time.
    pub since: Option<DateTime<Utc>>,
    /// Before this time.
    pub until: Option<DateTime<Utc>>,
}

/// One page of the audit: its entries, newest first, and the id to ask
/// for the next page before, when there are older ones.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct AuditPage {
    pub entries: Vec<AuditEntry>,
    pub older: Option<i64>,
}

#[cfg(test)]
#[path = "audit_tests.rs"]
mod tests;
