//! Deciding from Slack: the Approve and Reject buttons of a notice's
//! message, pressed in Slack, come back as a signed request. Airlock takes
//! it only when Slack's signature and timestamp check out, finds the
//! person by the address Slack has for the presser (in the app's own
//! workspace), and decides as that person, with every check a card makes;
//! Reject first asks for a reason in a dialog (`slack_app/reason.rs`). The
//! message is then replaced with the outcome, or the presser alone is told
//! why nothing happened. Nobody else is ever taken for a person.

mod payload;
mod reason;
mod signature;
#[cfg(test)]
mod tests;
mod web_api;

pub use payload::Malformed;
pub use signature::Unsigned;

use serde_json::{json, Value};
use tokio::sync::OnceCell;

use crate::core::Core;
use crate::decisions;
use crate::domain::person::plain_email;
use crate::domain::ToolCallId;
use crate::domain::{CallStatus, Channel, DecisionKind, Person, Reviewer, ToolCall, Verdict};
use crate::error::EngineError;
use crate::reviews::notices::slack::settled;
use payload::{Interaction, Press, Reasoned};
use web_api::Home;

/// The Slack app whose buttons decide: its signing secret, its bot token,
/// and where Slack's Web API is.
pub struct SlackApp {
    secret: Vec<u8>,
    bot_token: String,
    api_url: String,
    client: reqwest::Client,
    /// Where the app is installed, asked of Slack once.
    home: OnceCell<Home>,
}

// The secret and the token never reach a log line.
impl std::fmt::Debug for SlackApp {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SlackApp")
            .field("api_url", &self.api_url)
            .finish_non_exhaustive()
    }
}

impl SlackApp {
    /// The app signing with `signing_secret` and asking with `bot_token`
    /// at `api_url` (`https://slack.com/api`).
    pub fn new(signing_secret: &str, bot_token: &str, api_url: &str) -> Self {
        Self {
            secret: signing_secret.as_bytes().to_vec(),
            bot_token: bot_token.to_owned(),
            api_url: api_url.trim_end_matches('/').to_owned(),
            client: reqwest::Client::new(),
            home: OnceCell::new(),
        }
    }
}

/// A request Slack sent, as it came.
#[derive(Debug, Clone, Copy)]
pub struct SlackRequest<'a> {
    /// `X-Slack-Request-Timestamp`.
    pub timestamp: Option<&'a str>,
    /// `X-Slack-Signature`.
    pub signature: Option<&'a str>,
    /// The body, byte for byte: the signature covers it.
    pub body: &'a [u8],
}

/// Why a request was refused outright.
#[derive(Debug, thiserror::Error)]
pub enum SlackRefusal {
    /// Not signed by Slack, or not lately (401).
    #[error(transparent)]
    Unsigned(#[from] Unsigned),
    /// Signed, and not an interaction (400).
    #[error(transparent)]
    Malformed(#[from] Malformed),
}

/// What a request led to.
#[derive(Debug)]
pub enum Pressed {
    /// Nothing to do: another button, or another kind of interaction.
    Ignored,
    /// The call as it is now: decided by the press, or by someone before.
    Decided(Box<ToolCall>),
    /// Nothing was decided; the presser was told why.
    Refused(String),
    /// Reject's dialog was opened, to ask why.
    Asked,
    /// The reason given in Reject's dialog decided nothing: why, for the
    /// dialog to show.
    NotTaken(String),
}

impl Pressed {
    /// The body Slack is answered with, when it is not empty: the reason a
    /// dialog's submission decided nothing, shown in the dialog.
    pub fn reply(&self) -> Option<Value> {
        match self {
            Pressed::NotTaken(why) => Some(reason::not_taken(why)),
            _ => None,
        }
    }
}

pub(crate) async fn interaction(
    core: &Core,
    app: &SlackApp,
    request: SlackRequest<'_>,
) -> Result<Pressed, SlackRefusal> {
    let SlackRequest {
        timestamp,
        signature,
        body,
    } = request;
    signature::verify(&app.secret, timestamp, signature, body, core.clock.now())?;
    Ok(match payload::interaction(body)? {
        None => Pressed::Ignored,
        Some(Interaction::Press(press)) => pressed(core, app, press).await,
        Some(Interaction::Reasoned(reasoned)) => reasoned_reject(core, app, reasoned).await,
    })
}

/// Approve decides at once. Reject asks why first, in a dialog, once it is
/// clear the presser may reject the call; without a dialog it rejects.
async fn pressed(core: &Core, app: &SlackApp, press: Press) -> Pressed {
    let pressed = match press.trigger_id.as_deref().filter(|_| !press.approve) {
        Some(trigger) => match ask_reason(core, app, &press, trigger).await {
            Pressed::Asked => return Pressed::Asked,
            other => other,
        },
        None => {
            let verdict = match press.approve {
                true => Verdict::Approve,
                false => Verdict::Reject { reason: None },
            };
            settle(decide(core, app, &press.user, &press.call, verdict).await)
        }
    };
    web_api::answer(&app.client, &press.response_url, &answer(&pressed)).await;
    pressed
}

/// Opens Reject's dialog with `trigger` once the presser may reject the
/// call: `Asked`; else what to answer (its outcome, or why not). A dialog
/// Slack does not open leaves a plain rejection.
async fn ask_reason(core: &Core, app: &SlackApp, press: &Press, trigger: &str) -> Pressed {
    let call = match may_reject(core, app, press).await {
        Ok(call) => call,
        Err(stop) => return stop,
    };
    let dialog = reason::dialog(&call, &press.response_url);
    let (api, token) = (app.api_url.as_str(), app.bot_token.as_str());
    match web_api::open_view(&app.client, api, token, trigger, &dialog).await {
        Ok(()) => Pressed::Asked,
        Err(e) => {
            tracing::warn!(error = %e, "Reject's dialog did not open; rejecting");
            let verdict = Verdict::Reject { reason: None };
            settle(decide(core, app, &press.user, &press.call, verdict).await)
        }
    }
}

/// The call `press` would reject, while it waits and the presser may
/// reject it; otherwise what to answer instead (its outcome, or why not).
async fn may_reject(core: &Core, app: &SlackApp, press: &Press) -> Result<ToolCall, Pressed> {
    let person = person_of(core, app, &press.user)
        .await
        .map_err(Pressed::Refused)?;
    let reviewer = Reviewer::person(core.config.actor_of(person), Channel::Slack);
    let call = match core.call_reads().tool_call(&press.call).await {
        Ok(Some(call)) => call,
        Ok(None) => return Err(Pressed::Refused("the call is not in Airlock".into())),
        Err(e) => {
            tracing::warn!(error = %e, "a call could not be read for a Slack press");
            return Err(Pressed::Refused(
                "Airlock could not read the call: try again".into(),
            ));
        }
    };
    if call.status != CallStatus::PendingApproval {
        return Err(Pressed::Decided(Box::new(call)));
    }
    match decisions::check(&reviewer, &call, false) {
        Ok(()) => Ok(call),
        Err(e) => Err(Pressed::Refused(e.to_string())),
    }
}

/// Reject's dialog, submitted: the call rejected with the reason given and
/// the message answered; or, when nothing was decided, why, in the dialog.
async fn reasoned_reject(core: &Core, app: &SlackApp, reasoned: Reasoned) -> Pressed {
    let verdict = Verdict::Reject {
        reason: reasoned.reason,
    };
    match decide(core, app, &reasoned.user, &reasoned.call, verdict).await {
        Ok(call) => {
            let pressed = Pressed::Decided(Box::new(call));
            web_api::answer(&app.client, &reasoned.response_url, &answer(&pressed)).await;
            pressed
        }
        Err(why) => Pressed::NotTaken(why),
    }
}

fn settle(decided: Result<ToolCall, String>) -> Pressed {
    match decided {
        Ok(call) => Pressed::Decided(Box::new(call)),
        Err(why) => Pressed::Refused(why),
    }
}

/// Decides `call` as Slack user `user`; the call as it is now, or why
/// nothing was decided, in words for them.
async fn decide(
    core: &Core,
    app: &SlackApp,
    user: &str,
    call: &ToolCallId,
    verdict: Verdict,
) -> Result<ToolCall, String> {
    let person = person_of(core, app, user).await?;
    let reviewer = Reviewer::person(core.config.actor_of(person), Channel::Slack);
    match decisions::decide(core, call, verdict, &reviewer).await {
        Ok(call) => Ok(call),
        Err(EngineError::AlreadyDecided { .. }) => match core.call_reads().tool_call(call).await {
            Ok(Some(call)) => Ok(call),
            _ => Err("someone else decided it first".into()),
        },
        Err(EngineError::Store(e)) => {
            tracing::warn!(error = %e, "a decision from Slack was not stored");
            Err("Airlock could not store the decision: try again".into())
        }
        Err(e) => Err(e.to_string()),
    }
}

/// The Airlock person behind Slack user `id`: one of the app's workspace,
/// whose confirmed address Slack shares, and who may sign in here.
async fn person_of(core: &Core, app: &SlackApp, id: &str) -> Result<Person, String> {
    if core.config.auth.is_none() {
        return Err("Airlock has no sign-in (`auth:`), so it cannot tell who you are".into());
    }
    let (client, api, token) = (&app.client, app.api_url.as_str(), app.bot_token.as_str());
    let home = app
        .home
        .get_or_try_init(|| web_api::home(client, api, token))
        .await?;
    let user = web_api::user(client, api, token, id).await?;
    if user.deleted || user.is_bot || !user.is_at(home) {
        return Err("only people of the workspace Airlock's Slack app is in may decide".into());
    }
    if user.is_email_confirmed == Some(false) {
        return Err("your e-mail address in Slack is not confirmed yet".into());
    }
    let Some(email) = user.profile.email.as_deref().and_then(plain_email) else {
        return Err(
            "Slack does not share your e-mail address: the app needs the users:read.email scope"
                .into(),
        );
    };
    match core.people().person_by_email(&email).await {
        Ok(Some(person)) if person.disabled_at.is_none() => Ok(person),
        Ok(Some(_)) => Err("you are disabled in Airlock".into()),
        Ok(None) => Err(format!(
            "nobody in Airlock has the address {email}: ask an administrator to add it"
        )),
        Err(e) => {
            tracing::warn!(error = %e, "people could not be read for a Slack press");
            Err("Airlock could not look you up: try again".into())
        }
    }
}

/// What Slack is sent back: the message replaced with the outcome, a line
/// for everyone while more approvals are needed, or a word for the presser.
fn answer(pressed: &Pressed) -> Value {
    match pressed {
        Pressed::Decided(call) if call.status == CallStatus::PendingApproval => {
            let quorum = &call.quorum;
            let missing = quorum
                .required
                .saturating_sub(quorum.approvals.len() as u32);
            let by = quorum
                .approvals
                .last()
                .map(|a| a.by.as_str())
                .unwrap_or("someone");
            json!({
                "response_type": "in_channel",
                "replace_original": false,
                "text": format!("{by} approved {}: it needs {missing} more approval(s)", call.tool),
            })
        }
        Pressed::Decided(call) => settled(call, &outcome(call)),
        Pressed::Refused(why) => json!({
            "response_type": "ephemeral",
            "replace_original": false,
            "text": format!("Nothing was decided: {why}"),
        }),
        Pressed::Ignored | Pressed::Asked | Pressed::NotTaken(_) => Value::Null,
    }
}

/// How a decided call ended, and by whom: "Approved by Ana Lima".
fn outcome(call: &ToolCall) -> String {
    let Some(decision) = &call.decision else {
        return format!("{} by the policy", call.status.as_str());
    };
    let done = match decision.kind {
        DecisionKind::Approve => "Approved",
        DecisionKind::Edit => "Approved with edits",
        DecisionKind::AlwaysAllow => "Always allowed",
        DecisionKind::Reject => "Rejected",
        DecisionKind::Expire => return format!("Expired: {}", call.status.as_str()),
        DecisionKind::Cancel => "Withdrawn",
    };
    format!("{done} by {}", decision.by)
}
