//! The Slack app whose Approve and Reject buttons decide
//! (`AIRLOCK_SLACK_SIGNING_SECRET` and `AIRLOCK_SLACK_BOT_TOKEN`): both or
//! neither, never in the configuration file.

use super::{Secret, SettingsError};

/// Where Slack's Web API is, unless `AIRLOCK_SLACK_API_URL` says.
const SLACK_API: &str = "https://slack.com/api";

/// The Slack app's settings, when it is set up.
#[derive(Debug, Clone)]
pub struct SlackSettings {
    /// What Slack signs its requests with.
    pub signing_secret: Secret,
    /// The bot token (`xoxb-…`) that asks Slack who pressed a button.
    pub bot_token: Secret,
    /// Slack's Web API (`AIRLOCK_SLACK_API_URL`; a proxy in between, or a
    /// stand-in in tests).
    pub api_url: String,
}

impl SlackSettings {
    /// Reads them through `lookup`; none when neither is set.
    pub fn from_lookup(
        lookup: &impl Fn(&str) -> Option<String>,
    ) -> Result<Option<Self>, SettingsError> {
        let secret = lookup("AIRLOCK_SLACK_SIGNING_SECRET");
        let token = lookup("AIRLOCK_SLACK_BOT_TOKEN");
        let (signing_secret, bot_token) =
            match (secret, token) {
                (None, None) => return Ok(None),
                (Some(secret), Some(token)) => (secret, token),
                (Some(_), None) => return Err(SettingsError {
                    name: "AIRLOCK_SLACK_BOT_TOKEN",
                    problem:
                        "the Slack app needs its bot token (xoxb-…) to know who pressed a button"
                            .into(),
                }),
                (None, Some(_)) => return Err(SettingsError {
                    name: "AIRLOCK_SLACK_SIGNING_SECRET",
                    problem:
                        "the Slack app needs its signing secret to check that Slack sent a press"
                            .into(),
                }),
            };
        let api_url = lookup("AIRLOCK_SLACK_API_URL").unwrap_or_else(|| SLACK_API.to_owned());
        if !api_url.starts_with("https://") && !api_url.starts_with("http://127.0.0.1") {
            return Err(SettingsError {
                name: "AIRLOCK_SLACK_API_URL",
                problem: format!("`{api_url}` is not an https address like {SLACK_API}"),
            });
        }
        Ok(Some(Self {
            signing_secret: Secret(signing_secret),
            bot_token: Secret(bot_token),
            api_url,
        }))
    }
}

/// The Slack app `slack` describes, built as Airlock starts; startup stops
/// when there is no `auth:` block, as a press must be matched to a person.
pub fn slack_app(
    slack: Option<&SlackSettings>,
    config: &engine::config::Config,
) -> anyhow::Result<Option<engine::reviews::slack_app::SlackApp>> {
    let Some(slack) = slack else {
        return Ok(None);
    };
    if config.auth.is_none() {
        anyhow::bail!(
            "AIRLOCK_SLACK_SIGNING_SECRET is set, but deciding from Slack needs people: add an `auth:` block, and give people their e-mail addresses"
        );
    }
    Ok(Some(engine::reviews::slack_app::SlackApp::new(
        &slack.signing_secret.0,
        &slack.bot_token.0,
        &slack.api_url,
    )))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(pairs: &[(&str, &str)]) -> Result<Option<SlackSettings>, SettingsError> {
        SlackSettings::from_lookup(&|name: &str| {
            pairs
                .iter()
                .find(|(k, _)| *k == name)
                .map(|(_, v)| v.to_string())
        })
    }

    #[test]
    fn the_secret_and_the_token_come_together() {
        assert!(read(&[]).unwrap().is_none());
        let both = [
            ("AIRLOCK_SLACK_SIGNING_SECRET", "s"),
            ("AIRLOCK_SLACK_BOT_TOKEN", "xoxb-1"),
        ];
        let slack = read(&both).unwrap().unwrap();
        assert_eq!(slack.api_url, "https://slack.com/api");
        assert!(!format!("{slack:?}").contains("xoxb-1"));
        let name = |pairs: &[(&str, &str)]| read(pairs).unwrap_err().name;
        assert_eq!(name(&both[..1]), "AIRLOCK_SLACK_BOT_TOKEN");
        assert_eq!(name(&both[1..]), "AIRLOCK_SLACK_SIGNING_SECRET");
        let plain = [
            both[0],
            both[1],
            ("AIRLOCK_SLACK_API_URL", "http://slack.example"),
        ];
        assert_eq!(name(&plain), "AIRLOCK_SLACK_API_URL");
    }
}
