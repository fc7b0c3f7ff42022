//! The `notify:` block: named channels that announce the calls that wait
//! for a person, which a policy block or rule names in its own `notify:`.

use std::collections::BTreeMap;

use serde::Deserialize;

use crate::policy::{PolicyConfig, PolicyError};

/// One channel, by what it sends to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum NotifyChannel {
    /// A JSON POST, signed as the gateway's callbacks are.
    Webhook { url: String },
}

/// A channel as written.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct RawChannel {
    #[serde(default)]
    webhook: Option<String>,
}

/// The channels by name, each checked.
pub(super) fn channels(
    file: &str,
    raw: BTreeMap<String, RawChannel>,
) -> Result<BTreeMap<String, NotifyChannel>, PolicyError> {
    let mut channels = BTreeMap::new();
    for (name, channel) in raw {
        let key = format!("notify.{name}");
        let Some(url) = channel.webhook else {
            let problem = "a channel says where it sends: `webhook: https://…`";
            return Err(PolicyError::new(file, key, problem));
        };
        let plain = !url.chars().any(|c| c.is_whitespace() || c.is_control());
        if !(url.starts_with("https://") || url.starts_with("http://")) || !plain {
            let problem = format!("`{url}` is not an http(s) URL");
            return Err(PolicyError::new(file, format!("{key}.webhook"), problem));
        }
        channels.insert(name, NotifyChannel::Webhook { url });
    }
    Ok(channels)
}

/// Refuses channel names in `policy` (the block at `prefix`) that the
/// `notify:` block does not define: a typo would leave calls unannounced.
pub(super) fn check(
    file: &str,
    prefix: &str,
    policy: &PolicyConfig,
    channels: &BTreeMap<String, NotifyChannel>,
) -> Result<(), PolicyError> {
    let named = policy
        .notify
        .iter()
        .enumerate()
        .map(|(i, c)| (format!("notify[{i}]"), c));
    let in_rules = policy.rules.iter().enumerate().flat_map(|(r, rule)| {
        let names = rule.notify.iter().flatten().enumerate();
        names.map(move |(i, c)| (format!("rules[{r}].notify[{i}]"), c))
    });
    for (key, name) in named.chain(in_rules) {
        if !channels.contains_key(name) {
            let problem = format!("no channel `{name}` in the `notify:` block");
            return Err(PolicyError::new(file, format!("{prefix}.{key}"), problem));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use crate::config::{Config, NotifyChannel};

    #[test]
    fn channels_are_named_and_checked_where_policies_name_them() {
        let config = Config::parse(
            "c.yaml",
            "notify:\n  ops-hook:\n    webhook: https://hooks.example/airlock\ndefault_policy:\n  notify: [ops-hook]\n  rules:\n    - {tool: rm, action: require_approval, notify: []}\n",
        )
        .unwrap();
        assert_eq!(
            config.notify["ops-hook"],
            NotifyChannel::Webhook {
                url: "https://hooks.example/airlock".into()
            }
        );
        let refused = |yaml: &str| Config::parse("c.yaml", yaml).unwrap_err();
        let e = refused("sources:\n  fs:\n    policy_only: true\n    notify: [ops]\n");
        assert_eq!(e.key, "sources.fs.notify[0]");
        assert!(e.problem.contains("no channel `ops`"), "{e}");
        let e = refused("notify:\n  a: {webhook: https://x}\ndefault_policy:\n  rules:\n    - {tool: rm, action: deny, notify: [b]}\n");
        assert_eq!(e.key, "default_policy.rules[0].notify[0]");
        let e = refused("notify:\n  a: {}\n");
        assert_eq!(e.key, "notify.a");
        let e = refused("notify:\n  a: {webhook: ftp://x}\n");
        assert_eq!(e.key, "notify.a.webhook");
        let e = refused("notify:\n  a: {slack: https://x}\n");
        assert!(e.key.starts_with("notify.a"), "{e}");
    }
}
