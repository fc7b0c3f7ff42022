//! The configuration file as it is written, typed all the way down, so a
//! mistake is caught where it stands: serde knows its key path and the YAML
//! parser its line. Values that need more than their type (durations,
//! transports, `args`, `env`) are checked while they are read, for the same
//! reason. `super::source` then turns each source into a connection and a
//! policy.

use std::collections::BTreeMap;
use std::fmt;
use std::time::Duration;

use serde::de::{self, Deserializer, SeqAccess, Visitor};
use serde::Deserialize;

use super::auth::AuthSettings;
use super::gateway::GatewaySettings;
use crate::domain::ExpiryAction;
use crate::policy::duration::{parse_expiry, parse_timeout};
use crate::policy::{DefaultAction, PolicyConfig, ReviewLink, RuleConfig};

/// The whole file.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct RawConfig {
    #[serde(default)]
    pub approvals: Option<RawApprovals>,
    #[serde(default)]
    pub default_policy: Option<PolicyConfig>,
    #[serde(default)]
    pub gateway: Option<GatewaySettings>,
    #[serde(default)]
    pub sources: BTreeMap<String, RawSource>,
    #[serde(default)]
    pub auth: Option<AuthSettings>,
    #[serde(default)]
    pub notify: BTreeMap<String, super::notify::RawChannel>,
    /// A candidate configuration whose policy is evaluated on every live
    /// call and never enforced (`shadow_policy: candidate.yaml`).
    #[serde(default)]
    pub shadow_policy: Option<String>,
    /// Code policies (Cedar, Rego) every block's calls are also decided by.
    #[serde(default)]
    pub policy: Option<crate::policy::code::CodeConfig>,
}

/// The `approvals:` block.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct RawApprovals {
    #[serde(default = "default_expiry", deserialize_with = "expiry")]
    pub expires_after: Option<Duration>,
    #[serde(default)]
    pub default_action: ExpiryAction,
}

fn default_expiry() -> Option<Duration> {
    super::ApprovalSettings::default().expires_after
}

/// One `sources:` entry: its connection keys and its policy keys side by
/// side. They are written out rather than flattened from [`PolicyConfig`]:
/// serde cannot refuse unknown keys of a flattened struct, and a misspelt
/// key must be refused with the nearest of all of them.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct RawSource {
    // The connection.
    #[serde(default)]
    pub command: Option<String>,
    #[serde(default, deserialize_with = "args")]
    pub args: Option<Vec<String>>,
    #[serde(default)]
    pub env: Option<BTreeMap<String, EnvValue>>,
    #[serde(default)]
    pub url: Option<String>,
    #[serde(default)]
    pub path: Option<String>,
    #[serde(default, deserialize_with = "transport")]
    pub transport_type: Option<Transport>,
    #[serde(default)]
    pub ca_cert: Option<String>,
    #[serde(default)]
    pub policy_only: bool,
    #[serde(default)]
    pub a2a: Option<String>,
    #[serde(default)]
    pub headers: Option<BTreeMap<String, String>>,
    #[serde(default, deserialize_with = "timeout")]
    pub connect_timeout: Option<Duration>,
    #[serde(default, deserialize_with = "timeout")]
    pub call_timeout: Option<Duration>,
    // The policy, as in `PolicyConfig`.
    #[serde(default, alias = "include_tools")]
    pub tools: Option<Vec<String>>,
    #[serde(default, alias = "exclude_tools")]
    pub tool_blacklist: Vec<String>,
    #[serde(default, alias = "auto_approve_tools")]
    pub auto_approved_tools: Vec<String>,
    #[serde(default)]
    pub require_approval: Vec<String>,
    #[serde(default)]
    pub rules: Vec<RuleConfig>,
    #[serde(default)]
    pub default: DefaultAction,
    #[serde(default)]
    pub trust_read_only_hints: bool,
    #[serde(default)]
    pub approvers: Vec<String>,
    #[serde(default)]
    pub separation_of_duties: bool,
    #[serde(default)]
    pub approvals_required: Option<u32>,
    #[serde(default)]
    pub review_link: ReviewLink,
    #[serde(default)]
    pub inline_submit: Vec<String>,
    #[serde(default)]
    pub notify: Vec<String>,
    #[serde(default)]
    pub remind_after: Option<String>,
    #[serde(default)]
    pub escalate_after: Option<String>,
    #[serde(default)]
    pub escalate_to: Vec<String>,
    #[serde(default)]
    pub then: Option<crate::policy::Then>,
    #[serde(default)]
    pub step_up: Option<crate::policy::StepUp>,
    #[serde(default)]
    pub previews: Vec<crate::policy::PreviewConfig>,
    #[serde(default)]
    pub policy: Option<crate::policy::code::CodeConfig>,
}

/// How a source's server is spoken to (`transport_type`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Transport {
    /// A child process (`command`).
    Stdio,
    /// Streamable HTTP (`url`).
    Http,
}

impl Transport {
    fn parse(text: &str) -> Result<Self, String> {
        match text.trim().to_ascii_lowercase().as_str() {
            "stdio" => Ok(Self::Stdio),
            "http" | "streamable-http" | "streamable_http" => Ok(Self::Http),
            "sse" => Err("the legacy SSE transport is not supported: use streamable HTTP (`url`) or stdio (`command`)".into()),
            _ => Err(format!("unknown transport `{text}`: use `http` (streamable HTTP, with `url`) or `stdio` (with `command`)")),
        }
    }

    /// Its name in the file.
    pub fn name(self) -> &'static str {
        match self {
            Self::Stdio => "stdio",
            Self::Http => "http",
        }
    }
}

/// A string that `parse` checks inside the YAML parser's call, so that
/// its mistake carries the value's line (a check after reading would only
/// know the enclosing block's).
struct Checked<T> {
    expecting: &'static str,
    parse: fn(&str) -> Result<T, String>,
}

impl<T> Visitor<'_> for Checked<T> {
    type Value = T;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str(self.expecting)
    }

    fn visit_str<E: de::Error>(self, text: &str) -> Result<T, E> {
        (self.parse)(text).map_err(E::custom)
    }
}

fn expiry<'de, D: Deserializer<'de>>(d: D) -> Result<Option<Duration>, D::Error> {
    d.deserialize_str(Checked {
        expecting: "a duration like 24h, 30m or none",
        parse: parse_expiry,
    })
}

fn timeout<'de, D: Deserializer<'de>>(d: D) -> Result<Option<Duration>, D::Error> {
    d.deserialize_str(Checked {
        expecting: "a duration like 30s or 2m",
        parse: |text| parse_timeout(text).map(Some),
    })
}

fn transport<'de, D: Deserializer<'de>>(d: D) -> Result<Option<Transport>, D::Error> {
    d.deserialize_str(Checked {
        expecting: "`http` or `stdio`",
        parse: |text| Transport::parse(text).map(Some),
    })
}

/// `args`: a list, and a string written instead gets the list it meant.
struct Args;

impl<'de> Visitor<'de> for Args {
    type Value = Option<Vec<String>>;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a list of strings, e.g. `args: [\"-m\", \"mcp_server_git\"]`")
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
        let mut args = Vec::new();
        while let Some(arg) = seq.next_element::<String>()? {
            args.push(arg);
        }
        Ok(Some(args))
    }

    fn visit_str<E: de::Error>(self, text: &str) -> Result<Self::Value, E> {
        let words: Vec<String> = text.split_whitespace().map(|w| format!("{w:?}")).collect();
        Err(E::custom(format!(
            "expected a list of strings, one per argument, e.g. `args: [{}]`",
            words.join(", ")
        )))
    }
}

fn args<'de, D: Deserializer<'de>>(d: D) -> Result<Option<Vec<String>>, D::Error> {
    d.deserialize_any(Args)
}

/// An `env` value: a string. YAML reads `3000` or `true` as a number or a
/// boolean, and turning them back into text could change them (`1.0`
/// becomes `1`), so they are refused with the fix.
pub(super) struct EnvValue(pub String);

impl<'de> Deserialize<'de> for EnvValue {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_any(EnvVisitor)
    }
}

struct EnvVisitor;

impl EnvVisitor {
    fn refuse<E: de::Error>(fix: String) -> Result<EnvValue, E> {
        Err(E::custom(format!("env values are strings: {fix}")))
    }
}

impl Visitor<'_> for EnvVisitor {
    type Value = EnvValue;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a string (env values are strings)")
    }

    fn visit_str<E: de::Error>(self, text: &str) -> Result<EnvValue, E> {
        Ok(EnvValue(text.to_owned()))
    }

    fn visit_bool<E: de::Error>(self, v: bool) -> Result<EnvValue, E> {
        Self::refuse(format!("quote it, as in \"{v}\""))
    }

    fn visit_i64<E: de::Error>(self, v: i64) -> Result<EnvValue, E> {
        Self::refuse(format!("quote it, as in \"{v}\""))
    }

    fn visit_u64<E: de::Error>(self, v: u64) -> Result<EnvValue, E> {
        Self::refuse(format!("quote it, as in \"{v}\""))
    }

    fn visit_f64<E: de::Error>(self, _: f64) -> Result<EnvValue, E> {
        Self::refuse("put the number in quotes".into())
    }

    fn visit_unit<E: de::Error>(self) -> Result<EnvValue, E> {
        Self::refuse("give one, or \"\" for an empty value".into())
    }
}
