//! What Slack posts, from its form (`payload=` and JSON): a press of one of
//! Airlock's buttons (`block_actions`): who pressed which, for which call,
//! and where the answer goes; or the reason given in Reject's dialog
//! (`view_submission`).

use serde::Deserialize;

use crate::domain::ToolCallId;
use crate::reviews::notices::slack::{APPROVE, REJECT};

/// Why a signed request says nothing Airlock can act on.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("the request is not a Slack interaction: {0}")]
pub struct Malformed(pub String);

/// A press of Approve or Reject.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Press {
    /// Slack's id of who pressed it (`U…`).
    pub user: String,
    pub call: ToolCallId,
    pub approve: bool,
    /// Where the message is replaced, or the presser answered (30 minutes,
    /// five times).
    pub response_url: String,
    /// What opens a dialog for the presser, for three seconds.
    pub trigger_id: Option<String>,
}

/// Reject's dialog, submitted: the press it came from, and the reason.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Reasoned {
    pub user: String,
    pub call: ToolCallId,
    pub response_url: String,
    /// What was typed, if anything.
    pub reason: Option<String>,
}

/// What Slack sent that Airlock acts on.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Interaction {
    Press(Press),
    Reasoned(Reasoned),
}

/// The `callback_id` of Reject's dialog.
pub const REASON_VIEW: &str = "airlock_reject";

/// What Reject's dialog carries back unchanged (`private_metadata`).
#[derive(Debug, serde::Serialize, Deserialize)]
pub struct Carried {
    pub call: String,
    pub response_url: String,
}

#[derive(Deserialize)]
struct Payload {
    #[serde(rename = "type")]
    kind: String,
    user: Option<User>,
    #[serde(default)]
    actions: Vec<Action>,
    response_url: Option<String>,
    trigger_id: Option<String>,
    view: Option<View>,
}

#[derive(Deserialize)]
struct View {
    callback_id: String,
    #[serde(default)]
    private_metadata: String,
    #[serde(default)]
    state: serde_json::Value,
}

#[derive(Deserialize)]
struct User {
    id: String,
}

#[derive(Deserialize)]
struct Action {
    action_id: String,
    value: Option<String>,
}

/// What `body` reports: `None` for anything else Slack sends (the Review
/// button, which only opens its link, or another kind of interaction),
/// which needs no answer but 200.
pub fn interaction(body: &[u8]) -> Result<Option<Interaction>, Malformed> {
    let payload = form_urlencoded::parse(body)
        .find(|(name, _)| name == "payload")
        .map(|(_, value)| value.into_owned())
        .ok_or_else(|| Malformed("it has no `payload` field".into()))?;
    let payload: Payload =
        serde_json::from_str(&payload).map_err(|e| Malformed(format!("its payload: {e}")))?;
    match payload.kind.as_str() {
        "block_actions" => Ok(press(payload)?.map(Interaction::Press)),
        "view_submission" => Ok(reasoned(payload)?.map(Interaction::Reasoned)),
        _ => Ok(None),
    }
}

/// Reject's dialog, submitted; `None` for another dialog.
fn reasoned(payload: Payload) -> Result<Option<Reasoned>, Malformed> {
    let Some(view) = payload.view.filter(|v| v.callback_id == REASON_VIEW) else {
        return Ok(None);
    };
    let carried: Carried = serde_json::from_str(&view.private_metadata)
        .map_err(|e| Malformed(format!("the dialog's metadata: {e}")))?;
    let call = ToolCallId::parse(&carried.call)
        .map_err(|_| Malformed("the dialog names no call".into()))?;
    let user = payload
        .user
        .ok_or_else(|| Malformed("the dialog has no user".into()))?;
    let reason = view.state["values"]["reason"]["reason"]["value"]
        .as_str()
        .map(str::trim)
        .filter(|r| !r.is_empty())
        .map(str::to_owned);
    Ok(Some(Reasoned {
        user: user.id,
        call,
        response_url: carried.response_url,
        reason,
    }))
}

fn press(payload: Payload) -> Result<Option<Press>, Malformed> {
    let pressed = payload.actions.into_iter().find_map(|action| {
        let approve = match action.action_id.as_str() {
            APPROVE => true,
            REJECT => false,
            _ => return None,
        };
        Some((approve, action.value))
    });
    let Some((approve, value)) = pressed else {
        return Ok(None);
    };
    let missing = |what: &str| Malformed(format!("the press has no {what}"));
    let call = value
        .and_then(|v| ToolCallId::parse(&v).ok())
        .ok_or_else(|| missing("call id"))?;
    Ok(Some(Press {
        user: payload.user.ok_or_else(|| missing("user"))?.id,
        call,
        approve,
        response_url: payload
            .response_url
            .ok_or_else(|| missing("response_url"))?,
        trigger_id: payload.trigger_id,
    }))
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn form(payload: &serde_json::Value) -> Vec<u8> {
        form_urlencoded::Serializer::new(String::new())
            .append_pair("payload", &payload.to_string())
            .finish()
            .into_bytes()
    }

    fn pressed(action_id: &str, value: &str) -> serde_json::Value {
        json!({
            "type": "block_actions",
            "user": { "id": "U1", "username": "ana", "team_id": "T1" },
            "team": { "id": "T1" },
            "response_url": "https://hooks.slack.com/actions/T1/1/abc",
            "trigger_id": "t.1",
            "actions": [{ "action_id": action_id, "value": value, "type": "button" }],
        })
    }

    #[test]
    fn approve_and_reject_name_the_call_and_who_pressed() {
        let id = ToolCallId::new();
        let press = interaction(&form(&pressed(APPROVE, id.as_str()))).unwrap();
        let expected = Press {
            user: "U1".into(),
            call: id.clone(),
            approve: true,
            response_url: "https://hooks.slack.com/actions/T1/1/abc".into(),
            trigger_id: Some("t.1".into()),
        };
        assert_eq!(press, Some(Interaction::Press(expected)));
        let reject = interaction(&form(&pressed(REJECT, id.as_str()))).unwrap();
        assert!(matches!(reject, Some(Interaction::Press(p)) if !p.approve));
    }

    #[test]
    fn rejects_dialog_brings_back_its_call_and_the_reason() {
        let id = ToolCallId::new();
        let carried = json!({ "call": id.as_str(), "response_url": "https://hooks.slack.com/actions/T1/2/x" });
        let submitted = |reason: &str| {
            json!({
                "type": "view_submission",
                "user": { "id": "U1" },
                "view": {
                    "callback_id": REASON_VIEW,
                    "private_metadata": carried.to_string(),
                    "state": { "values": { "reason": { "reason": { "type": "plain_text_input", "value": reason } } } },
                },
            })
        };
        let got = interaction(&form(&submitted(" not on a Friday "))).unwrap();
        let expected = Reasoned {
            user: "U1".into(),
            call: id.clone(),
            response_url: "https://hooks.slack.com/actions/T1/2/x".into(),
            reason: Some("not on a Friday".into()),
        };
        assert_eq!(got, Some(Interaction::Reasoned(expected)));
        let blank = interaction(&form(&submitted("  "))).unwrap();
        assert!(matches!(blank, Some(Interaction::Reasoned(r)) if r.reason.is_none()));
        let mut other = submitted("x");
        other["view"]["callback_id"] = json!("someone_elses");
        assert_eq!(interaction(&form(&other)), Ok(None));
    }

    #[test]
    fn other_buttons_and_interactions_are_not_presses() {
        let id = ToolCallId::new();
        let review = pressed("airlock_review", id.as_str());
        assert_eq!(interaction(&form(&review)), Ok(None));
        let shortcut = json!({ "type": "shortcut", "user": { "id": "U1" } });
        assert_eq!(interaction(&form(&shortcut)), Ok(None));
    }

    #[test]
    fn a_press_without_its_parts_is_malformed() {
        assert!(interaction(b"text=hello").is_err());
        assert!(interaction(b"payload=%7Bnot%20json").is_err());
        assert!(interaction(&form(&pressed(APPROVE, "not-a-call"))).is_err());
        let mut nobody = pressed(APPROVE, ToolCallId::new().as_str());
        nobody["user"] = serde_json::Value::Null;
        assert!(interaction(&form(&nobody)).is_err());
    }
}
