//! The durable store: one trait per concern (conversations, calls,
//! decisions, runs, reviews, people, …), each implemented once for both
//! backends in the `sql/` file of the same name, by a SQLite store (the
//! embedded default) and a PostgreSQL one, chosen by the database URL. Both
//! run the same conformance suite (`store/conformance.rs`). [`Store`] is
//! every concern at once: what the engine holds.

mod api_tokens;
mod audit;
mod backlog;
mod call_reads;
mod calls;
mod conversations;
mod decisions;
mod drafts;
mod error;
mod events;
mod gateway;
mod grants;
mod leases;
mod migrate;
mod notices;
mod open;
mod passkeys;
mod people;
pub mod postgres;
mod queue;
mod quorum;
mod receipt_keys;
mod remote;
mod reviews;
mod runs;
pub mod sql;
pub mod sqlite;
mod time;
mod values;

#[cfg(test)]
pub(crate) mod conformance;

pub use api_tokens::{ApiTokenStore, TokenHolder};
pub use audit::AuditStore;
pub use backlog::BacklogStore;
pub use call_reads::CallReads;
pub use calls::CallStore;
pub use conversations::ConversationStore;
pub use decisions::DecisionStore;
pub use drafts::DraftStore;
pub use error::StoreError;
pub use events::EventStore;
pub use gateway::GatewayStore;
pub use grants::{GrantAudit, GrantStore};
pub use leases::LeaseStore;
pub use notices::NoticeStore;
pub use open::{connect, sqlite_path};
pub use passkeys::{PasskeyStore, PasskeyUse};
pub use people::{Credentials, PeopleStore, SignedIn};
pub use queue::QueueStore;
pub use quorum::{ApprovalAdded, NewApproval, QuorumStore};
pub use receipt_keys::ReceiptKeyStore;
pub use remote::RemoteStore;
pub use reviews::ReviewStore;
pub use runs::RunStore;
pub(crate) use time::{from_millis, to_millis};
pub use values::{
    Announcement, Applied, Concluded, Decided, DecisionChange, FeedBatch, HeldCall, NewMessage,
};

/// Durable storage for everything Airlock knows: every concern's store.
///
/// Every method that changes state appends the matching events in the same
/// transaction and returns them; the caller publishes them after commit.
pub trait Store:
    ConversationStore
    + QueueStore
    + CallStore
    + CallReads
    + DecisionStore
    + RunStore
    + LeaseStore
    + EventStore
    + ReviewStore
    + GatewayStore
    + PeopleStore
    + ApiTokenStore
    + BacklogStore
    + DraftStore
    + GrantStore
    + AuditStore
    + QuorumStore
    + NoticeStore
    + ReceiptKeyStore
    + PasskeyStore
    + RemoteStore
    + Send
    + Sync
    + std::fmt::Debug
{
    /// Which backend this is, for logs and `/healthz`.
    fn backend(&self) -> &'static str;
}
