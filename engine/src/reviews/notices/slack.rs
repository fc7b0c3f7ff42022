//! A notice as a Slack message: Block Kit, posted to an incoming webhook.
//! One message per call, short enough to read in a notification: the tool
//! and its source, why it waits, when it lapses, its arguments summarised,
//! and a button that opens the call's review page. With the Slack app set
//! up, Approve and Reject buttons too (see `reviews/slack_app.rs`).

use std::time::Duration;

use serde_json::{json, Value};

use super::{Listed, Words};
use crate::domain::{LineTag, Preview, ToolCall};

/// The `action_id`s of the buttons that decide.
pub const APPROVE: &str = "airlock_approve";
pub const REJECT: &str = "airlock_reject";

/// The message announcing `call`, which waits, with its review `link`;
/// with Approve and Reject when `decide_here` (the Slack app is set up).
pub fn message(call: &ToolCall, link: &str, words: Words, decide_here: bool) -> Value {
    let Words { opening, waits } = words;
    let what = format!("{opening}{} from {} {waits}", call.tool, call.source);
    let headline = format!(
        "{opening}*{}* from *{}* {waits}",
        escape(&call.tool),
        escape(&call.source)
    );
    let mut facts = vec![
        json!({ "type": "mrkdwn", "text": format!("*Why*\n{}", escape(&call.policy_reason)) }),
    ];
    if let Some(at) = call.expires_at {
        // Slack shows the time in each reader's own time zone.
        let fallback = at.format("%Y-%m-%d %H:%M UTC");
        let when = format!(
            "<!date^{}^{{date_short_pretty}} {{time}}|{fallback}>",
            at.timestamp()
        );
        facts.push(json!({ "type": "mrkdwn", "text": format!("*Expires*\n{when}") }));
    }
    let listed = Listed::of(&call.arguments);
    let mut blocks = vec![
        json!({ "type": "section", "text": { "type": "mrkdwn", "text": headline } }),
        json!({ "type": "section", "fields": facts }),
        json!({ "type": "section", "text": { "type": "mrkdwn", "text": arguments(&listed) } }),
    ];
    let previewed = call.preview.as_ref().map(preview);
    if let Some(Previewed { text, .. }) = &previewed {
        blocks.push(json!({ "type": "section", "text": { "type": "mrkdwn", "text": text } }));
    }
    // A call that needs a passkey is approved in Airlock, with one.
    let whole = !call.step_up && !listed.is_cut() && previewed.as_ref().is_none_or(|p| p.whole);
    let mut review = json!({
        "type": "button",
        "action_id": "airlock_review",
        "text": { "type": "plain_text", "text": "Review" },
        "url": link,
    });
    let buttons = match decide_here && !call.is_question() {
        true => deciding_buttons(call, whole, review),
        false => {
            review["style"] = json!("primary");
            vec![review]
        }
    };
    if decide_here && !whole && !call.is_question() {
        // Nobody approves what they could not read: long arguments and
        // long diffs are approved on the review page, where they show whole.
        let note = match (call.step_up, listed.is_cut()) {
            (true, _) => "Approving it needs your passkey: open Review to approve it.",
            (false, true) => "Its arguments are too long to show here: open Review to approve it.",
            (false, false) => "Its preview is too long to show here: open Review to approve it.",
        };
        blocks.push(json!({ "type": "context", "elements": [{ "type": "mrkdwn", "text": note }] }));
    }
    blocks.push(json!({ "type": "actions", "elements": buttons }));
    json!({ "text": what, "blocks": blocks })
}

/// Approve (with a confirmation, and only when every argument shows whole),
/// Reject, and Review; Approve and Reject carry the call's id.
fn deciding_buttons(call: &ToolCall, whole: bool, review: Value) -> Vec<Value> {
    let approve = json!({
        "type": "button",
        "action_id": APPROVE,
        "text": { "type": "plain_text", "text": "Approve" },
        "style": "primary",
        "value": call.id.to_string(),
        "confirm": {
            "title": { "type": "plain_text", "text": "Approve this call?" },
            "text": { "type": "plain_text", "text": format!("{} runs at once, with the arguments shown.", cut(&call.tool, 200)) },
            "confirm": { "type": "plain_text", "text": "Approve" },
            "deny": { "type": "plain_text", "text": "Cancel" },
        },
    });
    let reject = json!({
        "type": "button",
        "action_id": REJECT,
        "text": { "type": "plain_text", "text": "Reject" },
        "style": "danger",
        "value": call.id.to_string(),
    });
    match whole {
        false => vec![reject, review],
        true => vec![approve, reject, review],
    }
}

/// Most changed lines a message shows of a preview's diff; a longer one
/// is approved on the review page.
const PREVIEW_LINES: usize = 8;

/// A preview as a message shows it, and whether that is all of it.
struct Previewed {
    text: String,
    whole: bool,
}

/// The preview's summary, with the changed lines of a short diff.
fn preview(preview: &Preview) -> Previewed {
    let mut text = format!("*Preview*\n{}", escape(&preview.summary()));
    let Some(diff) = preview.diff() else {
        return Previewed { text, whole: true };
    };
    let changed: Vec<String> = diff
        .hunks
        .iter()
        .flat_map(|h| &h.lines)
        .filter_map(|l| match l.tag {
            LineTag::Added => Some(format!("+ {}", cut(&l.text, 120))),
            LineTag::Removed => Some(format!("- {}", cut(&l.text, 120))),
            LineTag::Context => None,
        })
        .collect();
    let whole = diff.omitted == 0 && changed.len() <= PREVIEW_LINES;
    if whole && !changed.is_empty() {
        text.push_str(&format!("\n```{}```", escape(&changed.join("\n"))));
    }
    Previewed { text, whole }
}

/// What replaces a message once its call is decided: what it was, and who
/// decided it how (`outcome`: "Approved by Ana Lima"). No buttons are left.
pub fn settled(call: &ToolCall, outcome: &str) -> Value {
    let what = format!("{} from {}: {outcome}", call.tool, call.source);
    let headline = format!(
        "*{}* from *{}*: {}",
        escape(&call.tool),
        escape(&call.source),
        escape(outcome)
    );
    let listed = Listed::of(&call.arguments);
    json!({
        "replace_original": true,
        "text": what,
        "blocks": [
            { "type": "section", "text": { "type": "mrkdwn", "text": headline } },
            { "type": "section", "text": { "type": "mrkdwn", "text": arguments(&listed) } },
        ],
    })
}

/// `text`, at most `chars` characters.
fn cut(text: &str, chars: usize) -> String {
    text.chars().take(chars).collect()
}

/// The arguments, one line each (`path`: /srv/plan.txt), long values cut.
fn arguments(listed: &Listed) -> String {
    if listed.shown.is_empty() {
        return "_No arguments_".to_owned();
    }
    let mut lines: Vec<String> = listed
        .shown
        .iter()
        .map(|a| format!("`{}`: {}", escape(&a.name), escape(&a.value)))
        .collect();
    if listed.more > 0 {
        lines.push(format!("_and {} more_", listed.more));
    }
    lines.join("\n")
}

/// `text` as Slack's mrkdwn takes it: `&`, `<` and `>` escaped, so nothing
/// an agent wrote becomes a link or a mention.
pub(crate) fn escape(text: &str) -> String {
    text.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
}

/// Posts `message` to the incoming webhook `url`; why it was not
/// delivered, when it was not (Slack says why in its answer's body).
pub async fn post(
    client: &reqwest::Client,
    url: &str,
    message: &Value,
    timeout: Duration,
) -> Result<(), String> {
    let sent = client.post(url).timeout(timeout).json(message).send().await;
    match sent {
        Ok(answer) if answer.status().is_success() => Ok(()),
        Ok(answer) => {
            let status = answer.status();
            let why = answer.text().await.unwrap_or_default();
            let why: String = why.chars().take(200).collect();
            Err(format!("Slack answered {status}: {}", why.trim()))
        }
        Err(e) => Err(format!("could not deliver: {e}")),
    }
}

#[cfg(test)]
mod tests;
