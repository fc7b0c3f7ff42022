//! What Airlock asks of Slack's Web API with the app's bot token: which
//! workspace the app is in (`auth.test`, asked once), who a user is
//! (`users.info`, which needs the `users:read.email` scope), and a dialog
//! for Reject's reason (`views.open`); and the answer to a press, posted to
//! its `response_url`.

use std::time::Duration;

use serde::Deserialize;
use serde_json::Value;

/// How long a question to Slack may take: Slack wants its request answered
/// within three seconds.
const ASK_TIMEOUT: Duration = Duration::from_millis(2_500);

/// Where the app is installed.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
pub struct Home {
    pub team_id: String,
    /// The Enterprise Grid organization, when the app is installed in one.
    #[serde(default)]
    pub enterprise_id: Option<String>,
}

/// A Slack user as `users.info` describes them.
#[derive(Debug, Clone, Deserialize)]
pub struct SlackUser {
    #[serde(default)]
    pub team_id: Option<String>,
    #[serde(default)]
    pub deleted: bool,
    #[serde(default)]
    pub is_bot: bool,
    /// `false` while the address is not confirmed; absent on older answers.
    #[serde(default)]
    pub is_email_confirmed: Option<bool>,
    #[serde(default)]
    pub enterprise_user: Option<EnterpriseUser>,
    #[serde(default)]
    pub profile: Profile,
}

#[derive(Debug, Clone, Deserialize)]
pub struct EnterpriseUser {
    pub enterprise_id: String,
}

#[derive(Debug, Clone, Default, Deserialize)]
pub struct Profile {
    #[serde(default)]
    pub email: Option<String>,
}

impl SlackUser {
    /// Whether they belong where the app is installed: its organization
    /// on Enterprise Grid, else its workspace. A guest from another
    /// organization in a shared channel is no one here.
    pub fn is_at(&self, home: &Home) -> bool {
        match &home.enterprise_id {
            Some(org) => self
                .enterprise_user
                .as_ref()
                .is_some_and(|u| &u.enterprise_id == org),
            None => self.team_id.as_ref() == Some(&home.team_id),
        }
    }
}

/// Asks `method` of the Web API at `api_url`; its answer when Slack says
/// `ok`, else why not.
async fn ask(
    client: &reqwest::Client,
    api_url: &str,
    token: &str,
    method: &str,
    query: &[(&str, &str)],
) -> Result<Value, String> {
    let answer = client
        .get(format!("{api_url}/{method}"))
        .bearer_auth(token)
        .query(query)
        .timeout(ASK_TIMEOUT)
        .send()
        .await
        .map_err(|e| format!("Slack's {method} did not answer: {e}"))?;
    checked(method, answer).await
}

/// Slack's answer to `method`, when it says `ok`; else why not.
async fn checked(method: &str, answer: reqwest::Response) -> Result<Value, String> {
    let status = answer.status();
    let body: Value = answer
        .json()
        .await
        .map_err(|e| format!("Slack's {method} answered {status} without JSON: {e}"))?;
    if body["ok"] != Value::Bool(true) {
        let why = body["error"].as_str().unwrap_or("no reason given");
        return Err(format!("Slack's {method} refused: {why}"));
    }
    Ok(body)
}

/// Opens `view`, a dialog, for the person whose press gave `trigger_id`.
pub async fn open_view(
    client: &reqwest::Client,
    api_url: &str,
    token: &str,
    trigger_id: &str,
    view: &Value,
) -> Result<(), String> {
    let answer = client
        .post(format!("{api_url}/views.open"))
        .bearer_auth(token)
        .json(&serde_json::json!({ "trigger_id": trigger_id, "view": view }))
        .timeout(ASK_TIMEOUT)
        .send()
        .await
        .map_err(|e| format!("Slack's views.open did not answer: {e}"))?;
    checked("views.open", answer).await.map(drop)
}

/// Where the bot token's app is installed.
pub async fn home(client: &reqwest::Client, api_url: &str, token: &str) -> Result<Home, String> {
    let body = ask(client, api_url, token, "auth.test", &[]).await?;
    serde_json::from_value(body).map_err(|e| format!("Slack's auth.test: {e}"))
}

/// The user Slack knows as `id`.
pub async fn user(
    client: &reqwest::Client,
    api_url: &str,
    token: &str,
    id: &str,
) -> Result<SlackUser, String> {
    let body = ask(client, api_url, token, "users.info", &[("user", id)]).await?;
    serde_json::from_value(body["user"].clone()).map_err(|e| format!("Slack's users.info: {e}"))
}

/// Posts `message` to a press's `response_url`; a failure is only logged:
/// the decision stands whatever Slack shows.
pub async fn answer(client: &reqwest::Client, response_url: &str, message: &Value) {
    let sent = client
        .post(response_url)
        .json(message)
        .timeout(ASK_TIMEOUT)
        .send()
        .await;
    match sent {
        Ok(answer) if answer.status().is_success() => {}
        Ok(answer) => {
            tracing::warn!(status = %answer.status(), "Slack refused the answer to a press")
        }
        Err(e) => tracing::warn!(error = %e, "the answer to a press did not reach Slack"),
    }
}
