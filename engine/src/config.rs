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
//!     tool_blacklist: ["*_delete*"]
//!     auto_approved_tools: ["read_*", "list_*"]
//! ```

mod auth;
mod gateway;
mod model_context;

use auth::check_groups;
pub use auth::{AuthSettings, OidcSettings};
pub use gateway::{ApiKey, GatewaySettings};
pub use model_context::{estimate_tokens, ModelContext, DEFAULT_CONTEXT_TOKENS};

use std::collections::BTreeMap;
use std::time::Duration;

use serde::Deserialize;

use crate::policy::{Policy, PolicyConfig, PolicyError};

pub use crate::domain::ExpiryAction;

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
    /// Tool sources by name.
    pub sources: BTreeMap<String, SourceConfig>,
    /// How people sign in; `None` when nobody signs in (one local person).
    pub auth: Option<AuthSettings>,
    /// The name decisions are recorded under when nobody signs in: the one
    /// local person's. The server names them after the OS user.
    pub local_person: String,
    /// How much of a conversation the model can read; `None` when it has
    /// no limit worth minding (the demo model).
    pub model_context: Option<ModelContext>,
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
            sources: BTreeMap::new(),
            auth: None,
            local_person: LOCAL_PERSON.to_owned(),
            model_context: None,
        }
    }
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawConfig {
    #[serde(default)]
    approvals: Option<RawApprovals>,
    #[serde(default)]
    default_policy: Option<serde_yaml::Value>,
    #[serde(default)]
    gateway: Option<serde_yaml::Value>,
    #[serde(default)]
    sources: BTreeMap<String, serde_yaml::Mapping>,
    #[serde(default)]
    auth: Option<AuthSettings>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawApprovals {
    #[serde(default)]
    expires_after: Option<String>,
    #[serde(default)]
    default_action: ExpiryAction,
}

#[derive(Deserialize, Default)]
#[serde(deny_unknown_fields)]
struct RawConnection {
    #[serde(default)]
    command: Option<String>,
    #[serde(default)]
    args: Vec<String>,
    #[serde(default)]
    env: BTreeMap<String, String>,
    #[serde(default)]
    url: Option<String>,
    #[serde(default)]
    path: Option<String>,
    #[serde(default)]
    transport_type: Option<String>,
    #[serde(default)]
    ca_cert: Option<String>,
}

/// Keys of a source block that describe the connection; the rest are policy.
const CONNECTION_KEYS: &[&str] = &[
    "command",
    "args",
    "env",
    "url",
    "path",
    "transport_type",
    "ca_cert",
];

impl Config {
    /// Parses and compiles a configuration; `file` names it in errors, and
    /// relative paths in it (`ca_cert`) are read from `file`'s directory.
    pub fn parse(file: &str, text: &str) -> Result<Self, PolicyError> {
        let err = |key: &str, problem: String| PolicyError::new(file, key, problem);
        let raw: RawConfig =
            serde_yaml::from_str(text).map_err(|e| err("(document)", e.to_string()))?;
        let approvals = match raw.approvals {
            None => ApprovalSettings::default(),
            Some(a) => ApprovalSettings {
                expires_after: match a.expires_after.as_deref() {
                    None => ApprovalSettings::default().expires_after,
                    Some(text) => {
                        parse_expiry(text).map_err(|p| err("approvals.expires_after", p))?
                    }
                },
                default_action: a.default_action,
            },
        };
        let default_policy: PolicyConfig = match raw.default_policy {
            None => PolicyConfig::default(),
            Some(v) => {
                serde_yaml::from_value(v).map_err(|e| err("default_policy", e.to_string()))?
            }
        };
        let auth = raw.auth.map(|a| a.checked(err)).transpose()?;
        check_groups(file, "default_policy", &default_policy, auth.as_ref())?;
        let default_policy = default_policy.compile(file, "default_policy")?;
        let gateway: GatewaySettings = match raw.gateway {
            None => GatewaySettings::default(),
            Some(v) => serde_yaml::from_value(v).map_err(|e| err("gateway", e.to_string()))?,
        };
        gateway.check(err)?;
        let mut sources = BTreeMap::new();
        for (name, block) in raw.sources {
            let key = format!("sources.{name}");
            let (mut connection, mut policy) =
                (serde_yaml::Mapping::new(), serde_yaml::Mapping::new());
            for (k, v) in block {
                let is_connection = k.as_str().is_some_and(|k| CONNECTION_KEYS.contains(&k));
                if is_connection {
                    connection.insert(k, v)
                } else {
                    policy.insert(k, v)
                };
            }
            let connection: RawConnection =
                serde_yaml::from_value(connection.into()).map_err(|e| err(&key, e.to_string()))?;
            let policy_config: PolicyConfig =
                serde_yaml::from_value(policy.into()).map_err(|e| err(&key, e.to_string()))?;
            check_groups(file, &key, &policy_config, auth.as_ref())?;
            let policy = policy_config.compile(file, &key)?;
            if let Some(t) = connection.transport_type.as_deref() {
                let fits = match t {
                    "http" | "streamable-http" | "streamable_http" => connection.url.is_some(),
                    "stdio" => connection.command.is_some(),
                    _ => false,
                };
                if !fits {
                    return Err(err(
                        &format!("{key}.transport_type"),
                        format!("`{t}` does not fit this source: use http with url, or stdio with command"),
                    ));
                }
            }
            if connection.ca_cert.is_some() && connection.url.is_none() {
                return Err(err(
                    &format!("{key}.ca_cert"),
                    "ca_cert is for a server reached by url".into(),
                ));
            }
            let connection = match (connection.command, connection.url) {
                (Some(_), Some(_)) => {
                    return Err(err(&key, "give either command or url, not both".into()))
                }
                (Some(command), None) => Connection::Stdio {
                    command,
                    args: connection.args,
                    env: connection.env,
                },
                (None, Some(url)) => {
                    let url = match connection.path {
                        Some(path) => format!(
                            "{}/{}",
                            url.trim_end_matches('/'),
                            path.trim_start_matches('/')
                        ),
                        None => url,
                    };
                    // Next to the configuration, when relative (`join` keeps an
                    // absolute path as it is).
                    let beside = std::path::Path::new(file).parent();
                    let ca_cert = connection.ca_cert.map(|path| match beside {
                        Some(dir) => dir.join(path),
                        None => path.into(),
                    });
                    Connection::Http { url, ca_cert }
                }
                (None, None) => Connection::BuiltIn,
            };
            sources.insert(
                name,
                SourceConfig {
                    connection,
                    timeouts: SourceTimeouts::default(),
                    policy_config,
                    policy,
                },
            );
        }
        Ok(Self {
            approvals,
            gateway,
            default_policy,
            sources,
            auth,
            local_person: LOCAL_PERSON.to_owned(),
            model_context: None,
        })
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

/// The longest expiry: a year. Anything longer means never, which `none` says.
const MAX_EXPIRY_SECONDS: u64 = 365 * 86_400;

/// Reads `24h`, `30m`, `90s`, `2d` or `none`, at most a year.
pub fn parse_expiry(text: &str) -> Result<Option<Duration>, String> {
    let text = text.trim();
    if text.eq_ignore_ascii_case("none") {
        return Ok(None);
    }
    let split = text
        .find(|c: char| !c.is_ascii_digit())
        .unwrap_or(text.len());
    let (number, unit) = text.split_at(split);
    let n: u64 = number
        .parse()
        .map_err(|_| format!("`{text}` is not a duration like 24h, 30m or none"))?;
    let per_unit: u64 = match unit {
        "s" => 1,
        "m" => 60,
        "h" => 3600,
        "d" => 86_400,
        _ => return Err(format!("`{text}` is not a duration like 24h, 30m or none")),
    };
    if n == 0 {
        return Err("an expiry must be longer than zero; use none to disable it".into());
    }
    // Checked: a huge number must be refused, not wrap around to a short one.
    let seconds = n
        .checked_mul(per_unit)
        .filter(|s| *s <= MAX_EXPIRY_SECONDS)
        .ok_or_else(|| {
            format!("`{text}` is too long: an expiry is at most 365d; use none to disable it")
        })?;
    Ok(Some(Duration::from_secs(seconds)))
}
