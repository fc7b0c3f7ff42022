//! What a press of a button on a Slack message says, from the form Slack
//! posts (`payload=` and JSON, of type `block_actions`): who pressed which
//! of Airlock's buttons, for which call, and where the answer goes.

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
}

#[derive(Deserialize)]
struct Payload {
    #[serde(rename = "type")]
    kind: String,
    user: Option<User>,
    #[serde(default)]
    actions: Vec<Action>,
    response_url: Option<String>,
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

/// The press `body` reports: `None` for anything else Slack sends (the
/// Review button, which only opens its link, or another kind of
/// interaction), which needs no answer but 200.
pub fn press(body: &[u8]) -> Result<Option<Press>, Malformed> {
    let payload = form_urlencoded::parse(body)
        .find(|(name, _)| name == "payload")
        .map(|(_, value)| value.into_owned())
        .ok_or_else(|| Malformed("it has no `payload` field".into()))?;
    let payload: Payload =
        serde_json::from_str(&payload).map_err(|e| Malformed(format!("its payload: {e}")))?;
    if payload.kind != "block_actions" {
        return Ok(None);
    }
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
            "actions": [{ "action_id": action_id, "value": value, "type": "button" }],
        })
    }

    #[test]
    fn approve_and_reject_name_the_call_and_who_pressed() {
        let id = ToolCallId::new();
        let press = press(&form(&pressed(APPROVE, id.as_str())))
            .unwrap()
            .unwrap();
        assert_eq!(
            press,
            Press {
                user: "U1".into(),
                call: id.clone(),
                approve: true,
                response_url: "https://hooks.slack.com/actions/T1/1/abc".into(),
            }
        );
        let reject = super::press(&form(&pressed(REJECT, id.as_str()))).unwrap();
        assert!(!reject.unwrap().approve);
    }

    #[test]
    fn other_buttons_and_interactions_are_not_presses() {
        let id = ToolCallId::new();
        assert_eq!(
            press(&form(&pressed("airlock_review", id.as_str()))),
            Ok(None)
        );
        let shortcut = json!({ "type": "shortcut", "user": { "id": "U1" } });
        assert_eq!(press(&form(&shortcut)), Ok(None));
    }

    #[test]
    fn a_press_without_its_parts_is_malformed() {
        assert!(press(b"text=hello").is_err());
        assert!(press(b"payload=%7Bnot%20json").is_err());
        assert!(press(&form(&pressed(APPROVE, "not-a-call"))).is_err());
        let mut nobody = pressed(APPROVE, ToolCallId::new().as_str());
        nobody["user"] = serde_json::Value::Null;
        assert!(press(&form(&nobody)).is_err());
    }
}
