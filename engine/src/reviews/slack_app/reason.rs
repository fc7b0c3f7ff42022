//! Reject's dialog: a press of Reject in Slack asks for a reason first, as
//! the card does, so the agent hears why. The dialog carries its call and
//! where the message is answered back unchanged (`private_metadata`).

use serde_json::{json, Value};

use super::payload::{Carried, REASON_VIEW};
use crate::decisions::MAX_REASON_CHARS;
use crate::domain::ToolCall;
use crate::reviews::notices::slack::escape;

/// The dialog asking why `call` is rejected, answered at `response_url`.
pub fn dialog(call: &ToolCall, response_url: &str) -> Value {
    let carried = Carried {
        call: call.id.to_string(),
        response_url: response_url.to_owned(),
    };
    let what = format!("*{}* from *{}*", escape(&call.tool), escape(&call.source));
    json!({
        "type": "modal",
        "callback_id": REASON_VIEW,
        "private_metadata": serde_json::to_string(&carried).unwrap_or_default(),
        "title": { "type": "plain_text", "text": "Reject this call" },
        "submit": { "type": "plain_text", "text": "Reject" },
        "close": { "type": "plain_text", "text": "Cancel" },
        "blocks": [
            { "type": "section", "text": { "type": "mrkdwn", "text": what } },
            {
                "type": "input",
                "block_id": "reason",
                "optional": true,
                "label": { "type": "plain_text", "text": "Reason, for the agent" },
                "element": {
                    "type": "plain_text_input",
                    "action_id": "reason",
                    "multiline": true,
                    "max_length": MAX_REASON_CHARS,
                },
            },
        ],
    })
}

/// What Slack is answered when the dialog's reason decided nothing: the
/// reason shown under the field, and the dialog left open.
pub fn not_taken(why: &str) -> Value {
    json!({ "response_action": "errors", "errors": { "reason": why } })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_dialog_names_its_call_and_carries_it_back() {
        let call = ToolCall::waiting("files", "write_<file>", json!({}));
        let view = dialog(&call, "https://hooks.slack.com/actions/T1/1/x");
        assert_eq!(view["callback_id"], REASON_VIEW);
        assert_eq!(
            view["blocks"][0]["text"]["text"],
            "*write_&lt;file&gt;* from *files*"
        );
        let carried: Carried =
            serde_json::from_str(view["private_metadata"].as_str().unwrap()).unwrap();
        assert_eq!(carried.call, call.id.as_str());
        assert_eq!(
            carried.response_url,
            "https://hooks.slack.com/actions/T1/1/x"
        );
        assert_eq!(view["blocks"][1]["element"]["max_length"], 2_000);
    }
}
