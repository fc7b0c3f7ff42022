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
    /// A Block Kit message to a Slack incoming webhook.
    Slack { webhook: String },
    /// An e-mail to these addresses, through the SMTP server of
    /// `AIRLOCK_SMTP_URL`.
    Email { to: Vec<String> },
    /// An `airlock/call.decided` event to an Inngest event URL
    /// (`…/e/<event key>`), once a call is decided: an agent's durable
    /// function waits for it with `step.waitForEvent`.
    Inngest { url: String },
}

/// A channel as written: one of its keys.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct RawChannel {
    #[serde(default)]
    webhook: Option<String>,
    #[serde(default)]
    slack: Option<String>,
    #[serde(default)]
    email: Option<RawEmail>,
    #[serde(default)]
    inngest: Option<String>,
    /// The approver groups whose calls it announces, besides the calls
    /// whose policy names it.
    #[serde(default)]
    approvers: Vec<String>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawEmail {
    to: Vec<String>,
}

/// The channels, by name and by the approver groups they serve.
pub(super) struct Channels {
    pub by_name: BTreeMap<String, NotifyChannel>,
    pub by_group: BTreeMap<String, Vec<String>>,
}

/// The channels, each checked; a group a channel serves must be one of
/// `auth.groups`.
pub(super) fn channels(
    file: &str,
    raw: BTreeMap<String, RawChannel>,
    auth: Option<&super::AuthSettings>,
) -> Result<Channels, PolicyError> {
    let mut channels = BTreeMap::new();
    let mut by_group: BTreeMap<String, Vec<String>> = BTreeMap::new();
    for (name, channel) in raw {
        for (i, group) in channel.approvers.iter().enumerate() {
            if !auth.is_some_and(|a| a.groups.contains_key(group)) {
                let key = format!("notify.{name}.approvers[{i}]");
                let problem = format!("no group `{group}` in `auth.groups`");
                return Err(PolicyError::new(file, key, problem));
            }
            by_group
                .entry(group.clone())
                .or_default()
                .push(name.clone());
        }
        let key = format!("notify.{name}");
        let refused =
            |at: &str, problem: String| PolicyError::new(file, format!("{key}{at}"), problem);
        let said = (
            channel.webhook,
            channel.slack,
            channel.email,
            channel.inngest,
        );
        let channel = match said {
            (Some(url), None, None, None) => {
                check_url(&url).map_err(|p| refused(".webhook", p))?;
                NotifyChannel::Webhook { url }
            }
            (None, Some(webhook), None, None) => {
                check_url(&webhook).map_err(|p| refused(".slack", p))?;
                NotifyChannel::Slack { webhook }
            }
            (None, None, None, Some(url)) => {
                check_url(&url).map_err(|p| refused(".inngest", p))?;
                NotifyChannel::Inngest { url }
            }
            (None, None, Some(email), None) => {
                if email.to.is_empty() {
                    return Err(refused(".email.to", "name at least one address".into()));
                }
                for (i, address) in email.to.iter().enumerate() {
                    if address.parse::<lettre::message::Mailbox>().is_err() {
                        let problem = format!("`{address}` is not an e-mail address");
                        return Err(refused(&format!(".email.to[{i}]"), problem));
                    }
                }
                NotifyChannel::Email { to: email.to }
            }
            _ => {
                let problem = "a channel says where it sends, in one of `webhook: https://…`, \
                               `slack: https://hooks.slack.com/…`, `email: {to: [...]}` or \
                               `inngest: https://inn.gs/e/<event key>`";
                return Err(refused("", problem.into()));
            }
        };
        channels.insert(name, channel);
    }
    Ok(Channels {
        by_name: channels,
        by_group,
    })
}

fn check_url(url: &str) -> Result<(), String> {
    let plain = !url.chars().any(|c| c.is_whitespace() || c.is_control());
    if (url.starts_with("https://") || url.starts_with("http://")) && plain {
        Ok(())
    } else {
        Err(format!("`{url}` is not an http(s) URL"))
    }
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
    let escalated = policy
        .escalate_to
        .iter()
        .enumerate()
        .map(|(i, c)| (format!("escalate_to[{i}]"), c));
    let in_rules = policy.rules.iter().enumerate().flat_map(|(r, rule)| {
        let names = rule.notify.iter().flatten().enumerate();
        let named = names.map(move |(i, c)| (format!("rules[{r}].notify[{i}]"), c));
        let escalated = rule.escalate_to.iter().flatten().enumerate();
        named.chain(escalated.map(move |(i, c)| (format!("rules[{r}].escalate_to[{i}]"), c)))
    });
    for (key, name) in named.chain(escalated).chain(in_rules) {
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
            "notify:\n  ops-hook:\n    webhook: https://hooks.example/airlock\n  ops-slack:\n    slack: https://hooks.slack.com/services/T1/B2/c3\n  oncall-mail:\n    email:\n      to: [oncall@example.com, Rita Ops <rita@example.com>]\ndefault_policy:\n  notify: [ops-hook]\n  rules:\n    - {tool: rm, action: require_approval, notify: []}\n",
        )
        .unwrap();
        assert_eq!(
            config.notify["ops-hook"],
            NotifyChannel::Webhook {
                url: "https://hooks.example/airlock".into()
            }
        );
        assert_eq!(
            config.notify["ops-slack"],
            NotifyChannel::Slack {
                webhook: "https://hooks.slack.com/services/T1/B2/c3".into()
            }
        );
        assert_eq!(
            config.notify["oncall-mail"],
            NotifyChannel::Email {
                to: vec![
                    "oncall@example.com".into(),
                    "Rita Ops <rita@example.com>".into()
                ]
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
        let e = refused("notify:\n  a: {slack: hooks.slack.com}\n");
        assert_eq!(e.key, "notify.a.slack");
        let e = refused("notify:\n  a: {slack: https://x, webhook: https://y}\n");
        assert_eq!(e.key, "notify.a");
        let e = refused("notify:\n  a: {email: {to: []}}\n");
        assert_eq!(e.key, "notify.a.email.to");
        let e = refused("notify:\n  a: {email: {to: [ops@example.com, on call]}}\n");
        assert_eq!(e.key, "notify.a.email.to[1]");
        let e = refused("notify:\n  a: {inngest: inn.gs/e/key}\n");
        assert_eq!(e.key, "notify.a.inngest");
        let e = refused("notify:\n  a: {pager: x}\n");
        assert!(e.key.starts_with("notify"), "{e}");
    }

    #[test]
    fn an_approver_groups_channel_announces_every_call_the_group_decides() {
        let yaml = "auth:\n  passwords: true\n  groups:\n    ops: [ana]\n    dev: [bo]\nnotify:\n  ops-slack:\n    slack: https://hooks.slack.com/services/T1/B2/c3\n    approvers: [ops]\n  hook: {webhook: https://x}\n";
        let config = Config::parse("c.yaml", yaml).unwrap();
        let mut verdict =
            crate::policy::PolicyVerdict::new(crate::policy::Outcome::RequireApproval, "r");
        verdict.notify = vec!["hook".into()];
        let now = chrono::Utc::now();
        let channels = |verdict: &crate::policy::PolicyVerdict| -> Vec<String> {
            config
                .notices(verdict, now)
                .into_iter()
                .map(|n| n.channel)
                .collect()
        };
        assert_eq!(
            channels(&verdict),
            ["hook"],
            "any approver: no group's channel"
        );
        verdict.approvers = vec!["dev".into(), "ops".into()];
        assert_eq!(channels(&verdict), ["hook", "ops-slack"]);
        verdict.notify = vec!["ops-slack".into()];
        assert_eq!(channels(&verdict), ["ops-slack"], "once");

        let e = Config::parse(
            "c.yaml",
            "notify:\n  a: {webhook: https://x, approvers: [ops]}\n",
        )
        .unwrap_err();
        assert_eq!(e.key, "notify.a.approvers[0]");
    }

    #[test]
    fn an_inngest_channel_hears_once_when_the_call_is_decided() {
        use crate::domain::notice::{DECIDED, REMINDER, WAITING};
        let yaml =
            "notify:\n  agents: {inngest: https://inn.gs/e/key}\n  hook: {webhook: https://x}\n";
        let config = Config::parse("c.yaml", yaml).unwrap();
        assert_eq!(
            config.notify["agents"],
            NotifyChannel::Inngest {
                url: "https://inn.gs/e/key".into()
            }
        );
        let mut verdict =
            crate::policy::PolicyVerdict::new(crate::policy::Outcome::RequireApproval, "r");
        verdict.notify = vec!["agents".into(), "hook".into()];
        verdict.follow_up.remind_after = Some(std::time::Duration::from_secs(900));
        let planned: Vec<(String, &str)> = config
            .notices(&verdict, chrono::Utc::now())
            .into_iter()
            .map(|n| (n.channel, n.kind))
            .collect();
        let expected = [("agents", DECIDED), ("hook", WAITING), ("hook", REMINDER)];
        assert_eq!(planned, expected.map(|(c, k)| (c.to_owned(), k)));
    }
}
