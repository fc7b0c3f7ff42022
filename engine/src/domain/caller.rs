//! Who asked for a call: the agent, the person it acts for and their
//! groups, and its session. Code policies (Cedar, Rego) decide on it; it is
//! kept with the call so a replay or a re-check decides on the same caller.

use serde::{Deserialize, Serialize};

/// How a call reached Airlock.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum CallerKind {
    /// Airlock's own agent, in a chat a person started.
    Chat,
    /// An agent with an API key (gateway, HITL Protocol, MCP proxy, hooks).
    Key,
    /// A remote A2A agent a person converses with in the chat (a source
    /// with `a2a:`), named by its block.
    Agent,
    /// An agent on a gateway that asks for no key (loopback), or a call
    /// whose caller is not known.
    #[default]
    Local,
}

impl CallerKind {
    /// Its name in policies: `chat`, `key`, `agent`, `local`.
    pub fn as_str(self) -> &'static str {
        match self {
            CallerKind::Chat => "chat",
            CallerKind::Key => "key",
            CallerKind::Agent => "agent",
            CallerKind::Local => "local",
        }
    }
}

/// The agent that asked for a call.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct Caller {
    pub kind: CallerKind,
    /// Its name: the API key's for [`CallerKind::Key`], the source block's
    /// for [`CallerKind::Agent`], `airlock` for the chat's own agent,
    /// `local` otherwise.
    pub name: String,
    /// The person it acts for (their sign-in name), when it acts for one:
    /// the person whose message started the run, or the key's holder.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub person: Option<String>,
    /// That person's approver groups (`auth.groups`) when it asked.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub groups: Vec<String>,
    /// The session it asked in: the agent's own session id, else the
    /// conversation's.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub session: Option<String>,
}

impl Caller {
    /// The chat's own agent, acting for `person` in `groups`.
    pub fn chat(person: Option<String>, groups: Vec<String>, session: String) -> Self {
        Self {
            kind: CallerKind::Chat,
            name: "airlock".to_owned(),
            person,
            groups,
            session: Some(session),
        }
    }

    /// A caller nothing is known of, as older calls and checks without a
    /// caller are decided.
    pub fn local() -> Self {
        Self {
            name: "local".to_owned(),
            ..Self::default()
        }
    }
}
