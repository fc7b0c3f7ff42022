//! One `sources:` entry as Airlock uses it: how it is reached, how long it
//! may take, and its policy. A block needs a connection unless it is built
//! in or says `policy_only: true`: a misspelt source name must not pass for
//! a policy of its own.

use std::collections::BTreeMap;
use std::path::Path;

use super::auth::{check_groups, AuthSettings};
use super::raw::{EnvValue, RawSource, Transport};
use super::{Connection, SourceConfig, SourceTimeouts};
use crate::policy::{PolicyConfig, PolicyError};

/// The names of the sources built into Airlock, whose blocks set their
/// policy without a connection. The tools sit above the configuration, so
/// their names are listed here rather than imported (`tools::demo::SOURCE`).
pub const BUILT_IN_SOURCES: &[&str] = &["demo"];

/// Checks the block of source `name` and compiles its policy; `file` names
/// it in errors, and a relative `ca_cert` is read from its directory.
pub(super) fn source(
    file: &str,
    name: &str,
    raw: RawSource,
    auth: Option<&AuthSettings>,
) -> Result<SourceConfig, PolicyError> {
    let key = format!("sources.{name}");
    // Written out whole, so a key added to `RawSource` must be placed here.
    let RawSource {
        command,
        args,
        env,
        url,
        path,
        transport_type,
        ca_cert,
        policy_only,
        a2a,
        headers,
        connect_timeout,
        call_timeout,
        tools,
        tool_blacklist,
        auto_approved_tools,
        require_approval,
        rules,
        default,
        trust_read_only_hints,
        approvers,
        separation_of_duties,
        approvals_required,
        review_link,
        inline_submit,
        notify,
        remind_after,
        escalate_after,
        escalate_to,
        then,
        step_up,
        previews,
        policy,
    } = raw;
    let keys = ConnectionKeys {
        command,
        args,
        env,
        url,
        path,
        transport_type,
        ca_cert,
        policy_only,
    };
    let connection = match a2a {
        Some(card) => super::agent::connection(file, &key, card, headers, &keys.given())?,
        None if headers.is_some() => {
            let problem = "headers are for a remote agent reached by `a2a`";
            return Err(PolicyError::new(file, format!("{key}.headers"), problem));
        }
        None => connection(file, name, keys)?,
    };
    let connected = matches!(
        connection,
        Connection::Stdio { .. } | Connection::Http { .. }
    );
    let unconnected = |below: &str| {
        let problem = format!("{below} is for a source with a connection (`command` or `url`)");
        PolicyError::new(file, format!("{key}.{below}"), problem)
    };
    if !connected && connect_timeout.is_some() {
        return Err(unconnected("connect_timeout"));
    }
    if !connected && call_timeout.is_some() {
        return Err(unconnected("call_timeout"));
    }
    let defaults = SourceTimeouts::default();
    let timeouts = SourceTimeouts {
        connect: connect_timeout.unwrap_or(defaults.connect),
        call: call_timeout.unwrap_or(defaults.call),
    };
    let policy_config = PolicyConfig {
        tools,
        tool_blacklist,
        auto_approved_tools,
        require_approval,
        rules,
        default,
        trust_read_only_hints,
        approvers,
        separation_of_duties,
        approvals_required,
        review_link,
        inline_submit,
        notify,
        remind_after,
        escalate_after,
        escalate_to,
        then,
        step_up,
        previews,
        policy,
    };
    check_groups(file, &key, &policy_config, auth)?;
    let policy = policy_config.compile(file, &key)?;
    Ok(SourceConfig {
        connection,
        timeouts,
        policy_config,
        policy,
        built_in: false,
    })
}

impl ConnectionKeys {
    /// Each key, with whether the block gives it.
    fn given(&self) -> [(&'static str, bool); 8] {
        [
            ("command", self.command.is_some()),
            ("url", self.url.is_some()),
            ("policy_only", self.policy_only),
            ("args", self.args.is_some()),
            ("env", self.env.is_some()),
            ("path", self.path.is_some()),
            ("ca_cert", self.ca_cert.is_some()),
            ("transport_type", self.transport_type.is_some()),
        ]
    }
}

/// A block's keys that say how its source is reached.
struct ConnectionKeys {
    command: Option<String>,
    args: Option<Vec<String>>,
    env: Option<BTreeMap<String, EnvValue>>,
    url: Option<String>,
    path: Option<String>,
    transport_type: Option<Transport>,
    ca_cert: Option<String>,
    policy_only: bool,
}

/// How source `name` is reached, or the key whose word does not fit.
fn connection(file: &str, name: &str, keys: ConnectionKeys) -> Result<Connection, PolicyError> {
    let key = format!("sources.{name}");
    let err =
        |below: &str, problem: &str| Err(PolicyError::new(file, format!("{key}.{below}"), problem));
    if let Some(transport) = keys.transport_type {
        let fits = match transport {
            Transport::Http => keys.url.is_some(),
            Transport::Stdio => keys.command.is_some(),
        };
        if !fits {
            let problem = format!(
                "`{}` does not fit this source: use http with url, or stdio with command",
                transport.name()
            );
            return err("transport_type", &problem);
        }
    }
    if keys.command.is_none() && keys.args.is_some() {
        return err("args", "args are for a server started by `command`");
    }
    if keys.command.is_none() && keys.env.is_some() {
        return err("env", "env is for a server started by `command`");
    }
    if keys.url.is_none() && keys.path.is_some() {
        return err("path", "path is for a server reached by `url`");
    }
    if keys.url.is_none() && keys.ca_cert.is_some() {
        return err("ca_cert", "ca_cert is for a server reached by url");
    }
    if keys.policy_only && (keys.command.is_some() || keys.url.is_some()) {
        let problem = "a policy-only block has no connection: drop `policy_only`, or drop `command` and `url`";
        return err("policy_only", problem);
    }
    Ok(match (keys.command, keys.url) {
        (Some(_), Some(_)) => {
            let problem = "give either command or url, not both";
            return Err(PolicyError::new(file, key, problem));
        }
        (Some(command), None) => Connection::Stdio {
            command,
            args: keys.args.unwrap_or_default(),
            env: keys
                .env
                .unwrap_or_default()
                .into_iter()
                .map(|(name, value)| (name, value.0))
                .collect(),
        },
        (None, Some(url)) => Connection::Http {
            url: match keys.path {
                Some(path) => format!(
                    "{}/{}",
                    url.trim_end_matches('/'),
                    path.trim_start_matches('/')
                ),
                None => url,
            },
            ca_cert: keys.ca_cert.map(|path| beside(file, &path)),
        },
        (None, None) if keys.policy_only => Connection::PolicyOnly,
        (None, None) if BUILT_IN_SOURCES.contains(&name) => Connection::BuiltIn,
        (None, None) => return Err(PolicyError::new(file, key, NO_CONNECTION)),
    })
}

const NO_CONNECTION: &str = "this source has no connection: give `command` (a program spoken to over stdio) or `url` (streamable HTTP), `a2a` (a remote agent's card), or `policy_only: true` for a block that only sets the policy for calls arriving through the gateway";

/// `path` next to the configuration file when relative (`join` keeps an
/// absolute path as it is).
pub(super) fn beside(file: &str, path: &str) -> std::path::PathBuf {
    match Path::new(file).parent() {
        Some(dir) => dir.join(path),
        None => path.into(),
    }
}
