//! Airlock's configuration file (YAML): approval timing, the default policy,
//! and the tool sources, each with its connection and its policy block.
//!
//! ```yaml
//! approvals:
//!   expires_after: 24h        # or 30m, 90s, 2d, none
//!   default_action: reject    # applied when an approval expires
//! default_policy:             # for sources that are not configured (e.g. gateway calls)
//!   default: require_approval
//! gateway:                   # external agents calling POST /api/v1/tool-calls
//!   api_keys:
//!     - name: builder         # recorded with each case; only its own cases are visible to it
//!       sha256: 9f86d08…      # SHA-256 (hex) of the key: printf %s "$KEY" | sha256sum
//! sources:
//!   filesystem:
//!     command: npx            # connection keys: command/args/env, or url/path/transport_type/ca_cert
//!     args: ["-y", "@modelcontextprotocol/server-filesystem", "/data"]
//!     connect_timeout: 2m     # also call_timeout; both only with a connection
//!     tool_blacklist: ["*_delete*"]
//!     auto_approved_tools: ["read_*", "list_*"]
//!   external:                 # the policy of calls arriving through the gateway
//!     policy_only: true
//!     require_approval: [deploy]
//! ```
//!
//! A mistake names the file, the line and column, the key path and the
//! problem: `airlock.yaml:12:9: sources.fs.rules[0].action: unknown variant …`.

mod agent;
mod auth;
mod code;
#[cfg(test)]
mod code_tests;
#[cfg(test)]
mod docs_tests;
mod gateway;
pub mod kagent;
mod locate;
#[cfg(test)]
mod mistakes_tests;
mod model_context;
mod notify;
pub mod policy_cases;
mod raw;
mod read;
pub mod replay;
mod shadow;
mod source;
mod suggest;

use auth::check_groups;
pub use auth::{AuthSettings, OidcSettings};
pub use gateway::{ApiKey, GatewaySettings};
pub use model_context::{estimate_tokens, ModelContext, DEFAULT_CONTEXT_TOKENS};
pub use notify::NotifyChannel;
pub use source::BUILT_IN_SOURCES;

use std::collections::BTreeMap;
use std::time::Duration;

use crate::domain::notice::{DECIDED, WAITING};
use crate::policy::{Policy, PolicyConfig, PolicyError};

use crate::domain::ExpiryAction;

/// When approvals expire and what then happens.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ApprovalSettings {
    /// How long an approval waits; `None` waits forever.
    pub expires_after: Option<Duration>,
    /// What expiry does.
    pub default_action: ExpiryAction,
}

impl Default for ApprovalSettings {
    fn default() -> Self {
        Self {
            expires_after: Some(Duration::from_secs(24 * 3600)),
            default_action: ExpiryAction::Reject,
        }
    }
}

/// How Airlock reaches a tool source.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Connection {
    /// A toolset built into Airlock.
    BuiltIn,
    /// No connection: the block is the policy for calls that arrive another
    /// way (external agents through the gateway). `policy_only: true`.
    PolicyOnly,
    /// An MCP server started as a child process, spoken to over stdio.
    Stdio {
        /// The program.
        command: String,
        /// Its arguments.
        args: Vec<String>,
        /// Extra environment variables.
        env: BTreeMap<String, String>,
    },
    /// An MCP server reached over streamable HTTP.
    Http {
        /// The server's URL, with `path` appended when given.
        url: String,
        /// A PEM file of certificate authorities that an HTTPS server's
        /// certificate may also chain to (a private CA), besides those the
        /// system trusts.
        ca_cert: Option<std::path::PathBuf>,
    },
    /// A remote agent spoken to over A2A (`a2a:`): people converse with it
    /// in the chat, and the calls it asks approval for are this block's.
    Agent {
        /// Its agent card's URL, or its base URL.
        card: String,
        /// Headers sent with every request (`headers:`), `${VAR}`s
        /// already read from the environment.
        headers: BTreeMap<String, String>,
    },
}

/// How long a source may take, per source (`connect_timeout`, `call_timeout`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SourceTimeouts {
    /// To start or reach the server, finish the handshake and list its tools.
    pub connect: Duration,
    /// For one call to answer.
    pub call: Duration,
}

impl Default for SourceTimeouts {
    fn default() -> Self {
        Self {
            // A first `npx -y` may download the server; nothing waits on it.
            connect: Duration::from_secs(60),
            call: Duration::from_secs(120),
        }
    }
}

/// One tool source: its connection and its compiled policy.
#[derive(Debug, Clone)]
pub struct SourceConfig {
    /// How to reach it.
    pub connection: Connection,
    /// How long it may take.
    pub timeouts: SourceTimeouts,
    /// Its policy as written.
    pub policy_config: PolicyConfig,
    /// Its policy, compiled.
    pub policy: Policy,
    /// Whether the block is Airlock's own default for a built-in source,
    /// not written in the file: a block written there replaces it whole.
    pub built_in: bool,
}

/// The whole configuration.
#[derive(Debug, Clone)]
pub struct Config {
    /// Approval timing.
    pub approvals: ApprovalSettings,
    /// Who may use the gateway.
    pub gateway: GatewaySettings,
    /// The policy for sources with no block of their own.
    pub default_policy: Policy,
    /// That policy as written.
    pub default_policy_config: PolicyConfig,
    /// Tool sources by name.
    pub sources: BTreeMap<String, SourceConfig>,
    /// How people sign in; `None` when nobody signs in (one local person).
    pub auth: Option<AuthSettings>,
    /// The channels that announce waiting calls, by name (`notify:`).
    pub notify: BTreeMap<String, NotifyChannel>,
    /// The channels of approver groups: each group's, by group (a
    /// channel's `approvers:`), announcing every call the group decides.
    pub group_channels: BTreeMap<String, Vec<String>>,
    /// The name decisions are recorded under when nobody signs in: the one
    /// local person's. The server names them after the OS user.
    pub local_person: String,
    /// How much of a conversation the model can read; `None` when it has
    /// no limit worth minding (the demo model).
    pub model_context: Option<ModelContext>,
    /// The file `shadow_policy:` names, beside this one when relative; the
    /// server reads it into [`Config::shadow`].
    pub shadow_file: Option<std::path::PathBuf>,
    /// The candidate configuration whose policy every live call is also
    /// decided by, never enforced (see `config/shadow.rs`).
    pub shadow: Option<std::sync::Arc<Config>>,
    /// The top-level code policy (`policy:`), which every block's policy
    /// also asks, built-in blocks added later included.
    pub code: Option<crate::policy::code::CodePolicy>,
}

/// The local person's name when the server is not told the OS user's.
pub const LOCAL_PERSON: &str = "local user";

impl Default for Config {
    fn default() -> Self {
        Self {
            approvals: ApprovalSettings::default(),
            gateway: GatewaySettings::default(),
            default_policy: PolicyConfig::default()
                .compile("(built-in)", "default_policy")
                .expect("the empty policy compiles"),
            default_policy_config: PolicyConfig::default(),
            sources: BTreeMap::new(),
            auth: None,
            notify: BTreeMap::new(),
            group_channels: BTreeMap::new(),
            local_person: LOCAL_PERSON.to_owned(),
            model_context: None,
            shadow_file: None,
            shadow: None,
            code: None,
        }
    }
}

impl Config {
    /// The source blocks that are remote agents (`a2a:`), by name.
    pub fn remote_agents(&self) -> Vec<String> {
        let agents = self.sources.iter();
        agents
            .filter(|(_, s)| matches!(s.connection, Connection::Agent { .. }))
            .map(|(name, _)| name.clone())
            .collect()
    }

    /// `person` as a decision checks and records them, with the approver
    /// groups `auth.groups` puts them in.
    pub fn actor_of(&self, person: crate::domain::Person) -> crate::domain::Actor {
        let groups = self
            .auth
            .as_ref()
            .map(|auth| auth.groups_of(&person.name))
            .unwrap_or_default();
        crate::domain::Actor {
            id: person.id,
            display_name: person.display_name,
            access: person.access,
            groups,
        }
    }

    /// Parses and compiles a configuration; `file` names it in errors, and
    /// relative paths in it (`ca_cert`) are read from `file`'s directory.
    pub fn parse(file: &str, text: &str) -> Result<Self, PolicyError> {
        let raw = read::read(file, text)?;
        // Mistakes found after reading know their key, not yet its line.
        Self::build(file, raw).map_err(|mut e| {
            if e.file == file {
                e.at = e.at.or_else(|| locate::position(text, &e.key));
            }
            e
        })
    }

    fn build(file: &str, raw: raw::RawConfig) -> Result<Self, PolicyError> {
        let err = |key: &str, problem: String| PolicyError::new(file, key, problem);
        let approvals = match raw.approvals {
            None => ApprovalSettings::default(),
            Some(a) => ApprovalSettings {
                expires_after: a.expires_after,
                default_action: a.default_action,
            },
        };
        let auth = raw.auth.map(|a| a.checked(err)).transpose()?;
        let notify::Channels {
            by_name: notify,
            by_group: group_channels,
        } = notify::channels(file, raw.notify, auth.as_ref())?;
        let default_policy = raw.default_policy.unwrap_or_default();
        check_groups(file, "default_policy", &default_policy, auth.as_ref())?;
        notify::check(file, "default_policy", &default_policy, &notify)?;
        let default_policy_config = default_policy.clone();
        let known = code::Known {
            auth: auth.as_ref(),
            channels: &notify,
        };
        let code = code::load(file, "policy", &raw.policy, &known)?;
        let own = code::load(
            file,
            "default_policy.policy",
            &default_policy.policy,
            &known,
        )?;
        let default_policy = default_policy.compile(file, "default_policy")?;
        let default_policy = default_policy.with_code(own).with_code(code.clone());
        let gateway = raw.gateway.unwrap_or_default();
        gateway.check(err)?;
        let mut sources = BTreeMap::new();
        for (name, block) in raw.sources {
            let mut source = source::source(file, &name, block, auth.as_ref())?;
            let key = format!("sources.{name}.policy");
            let own = code::load(file, &key, &source.policy_config.policy, &known)?;
            source.policy = source.policy.with_code(own).with_code(code.clone());
            let prefix = format!("sources.{name}");
            notify::check(file, &prefix, &source.policy_config, &notify)?;
            sources.insert(name, source);
        }
        Ok(Self {
            approvals,
            gateway,
            default_policy,
            default_policy_config,
            sources,
            auth,
            notify,
            group_channels,
            local_person: LOCAL_PERSON.to_owned(),
            model_context: None,
            shadow_file: raw.shadow_policy.map(|path| source::beside(file, &path)),
            shadow: None,
            code,
        })
    }

    /// Every notice of a call the policy sent to a person with `verdict`,
    /// when it begins to wait at `from`: on its policy's channels and its
    /// approver groups' own, at once and then as its reminder and
    /// escalation fall due.
    pub fn notices(
        &self,
        verdict: &crate::policy::PolicyVerdict,
        from: chrono::DateTime<chrono::Utc>,
    ) -> Vec<crate::domain::PlannedNotice> {
        let mut channels = verdict.notify.clone();
        let of_groups = verdict
            .approvers
            .iter()
            .filter_map(|group| self.group_channels.get(group))
            .flatten();
        for channel in of_groups {
            if !channels.contains(channel) {
                channels.push(channel.clone());
            }
        }
        // An `inngest` channel hears of a call once, when it is decided.
        let planned = verdict.follow_up.plan(&channels, from).into_iter();
        planned
            .filter_map(|notice| match self.notify.get(&notice.channel) {
                Some(NotifyChannel::Inngest { .. }) => {
                    (notice.kind == WAITING).then_some(crate::domain::PlannedNotice {
                        kind: DECIDED,
                        ..notice
                    })
                }
                _ => Some(notice),
            })
            .collect()
    }

    /// Whether any policy opens review links only to signed-in people, so
    /// that responding through a link has a person to check.
    pub fn sign_in_links(&self) -> bool {
        self.default_policy.review_sign_in()
            || self.sources.values().any(|s| s.policy.review_sign_in())
    }

    /// The policy for a source: its own block, else the default policy.
    pub fn policy_for(&self, source: &str) -> &Policy {
        self.sources
            .get(source)
            .map_or(&self.default_policy, |s| &s.policy)
    }
}
