//! What a person decides about a pending call, and who decides.

use serde_json::Value;

use super::{Actor, Channel, GrantArgumentChoice, SubmissionContext};

/// What a person decides about one pending call.
#[derive(Debug, Clone, PartialEq)]
pub enum Verdict {
    /// Run it as proposed.
    Approve,
    /// Do not run it, optionally saying why.
    Reject {
        /// The reason, shown to the model.
        reason: Option<String>,
    },
    /// Run it with these arguments instead.
    Edit {
        /// The new arguments (a JSON object).
        arguments: Value,
    },
    /// Run it and allow this tool from now on, here or everywhere, until
    /// it is revoked or for a while.
    AlwaysAllow {
        /// Whether the grant covers every conversation.
        everywhere: bool,
        /// How long the grant lasts; `None` until it is revoked.
        lasts: Option<chrono::Duration>,
        /// Which of the tool's calls it covers, made from this call's
        /// arguments.
        arguments: GrantArgumentChoice,
    },
    /// Withdraw the review without deciding: the call does not run, its
    /// case ends `cancelled`, and the model reads it as a rejection.
    Cancel {
        /// Why, shown to the model and to whoever asked.
        reason: Option<String>,
    },
}

/// Who decides, and through which channel.
#[derive(Debug, Clone)]
pub struct Reviewer {
    /// A name or identity, recorded as `decided_by`.
    pub name: String,
    /// Where the decision is taken.
    pub channel: Channel,
    /// The signed-in person deciding, checked against each call's
    /// approvers; `None` for a review link's holder, the one local person
    /// when nobody signs in, or Airlock itself.
    pub actor: Option<Actor>,
    /// For a press an agent relayed (inline submit): who pressed where,
    /// as the case it closes reports it.
    pub relayed: Option<SubmissionContext>,
    /// The passkey assertion a call that needs one is approved with.
    pub passkey: Option<PasskeyProof>,
}

/// A passkey assertion given with an approval: the challenge it answers,
/// the browser's credential as `PublicKeyCredential.toJSON()` writes it,
/// and the site the browser was on.
#[derive(Debug, Clone, PartialEq)]
pub struct PasskeyProof {
    pub challenge_id: String,
    pub credential: Value,
    /// The site's host (WebAuthn `rp.id`) and origin, as the server that
    /// took the request knows them.
    pub rp_id: String,
    pub origin: String,
}

impl Reviewer {
    /// A reviewer known only by a name: a review link's holder, an API
    /// caller, or the local person.
    pub fn named(name: impl Into<String>, channel: Channel) -> Self {
        Self {
            name: name.into(),
            channel,
            actor: None,
            relayed: None,
            passkey: None,
        }
    }

    /// The signed-in person's id, for the record.
    pub fn person_id(&self) -> Option<super::PersonId> {
        self.actor.as_ref().map(|actor| actor.id.clone())
    }

    /// A signed-in person deciding through `channel`.
    pub fn person(actor: Actor, channel: Channel) -> Self {
        Self {
            name: actor.display_name.clone(),
            channel,
            actor: Some(actor),
            relayed: None,
            passkey: None,
        }
    }

    /// The same reviewer, approving with a passkey assertion.
    pub fn with_passkey(self, proof: PasskeyProof) -> Self {
        Self {
            passkey: Some(proof),
            ..self
        }
    }
}
