//! A notice as a Slack message: Block Kit, posted to an incoming webhook.
//! One message per call, short enough to read in a notification: the tool
//! and its source, why it waits, when it lapses, its arguments summarised,
//! and a button that opens the call's review page. With the Slack app set
//! up, Approve and Reject buttons too (see `reviews/slack_app.rs`).

use std::time::Duration;

use serde_json::{json, Value};

use super::{Listed, Words};
use crate::domain::ToolCall;

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
    let mut review = json!({
        "type": "button",
        "action_id": "airlock_review",
        "text": { "type": "plain_text", "text": "Review" },
        "url": link,
    });
    let buttons = match decide_here && !call.is_question() {
        true => deciding_buttons(call, &listed, review),
        false => {
            review["style"] = json!("primary");
            vec![review]
        }
    };
    if decide_here && listed.is_cut() && !call.is_question() {
        // Nobody approves what they could not read: long arguments are
        // approved on the review page, where they show whole.
        let note = "Its arguments are too long to show here: open Review to approve it.";
        blocks.push(json!({ "type": "context", "elements": [{ "type": "mrkdwn", "text": note }] }));
    }
    blocks.push(json!({ "type": "actions", "elements": buttons }));
    json!({ "text": what, "blocks": blocks })
}

/// Approve (with a confirmation, and only when every argument shows whole),
/// Reject, and Review; Approve and Reject carry the call's id.
fn deciding_buttons(call: &ToolCall, listed: &Listed, review: Value) -> Vec<Value> {
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
    match listed.is_cut() {
        true => vec![reject, review],
        false => vec![approve, reject, review],
    }
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
mod tests {
    use chrono::TimeZone;

    use super::*;

    #[test]
    fn a_message_says_what_waits_why_until_when_and_links_its_review() {
        let mut call = super::super::waiting_call();
        call.policy_reason = "write_file <needs> a person & a reason".into();
        call.expires_at = Some(
            chrono::Utc
                .with_ymd_and_hms(2026, 11, 26, 10, 32, 0)
                .unwrap(),
        );
        let long = "x".repeat(500);
        call.arguments =
            json!({ "a": "/srv/<plan>.txt", "b": long, "c": 1, "d": 2, "e": 3, "f": 4, "g": 5 });
        let m = message(
            &call,
            "https://airlock.example.com/review/r1?token=t",
            Words::of("waiting"),
            false,
        );
        assert_eq!(m["text"], "write_file from files waits for approval");
        let blocks = m["blocks"].as_array().unwrap();
        assert_eq!(
            blocks[0]["text"]["text"],
            "*write_file* from *files* waits for approval"
        );
        let facts = blocks[1]["fields"].as_array().unwrap();
        assert_eq!(
            facts[0]["text"],
            "*Why*\nwrite_file &lt;needs&gt; a person &amp; a reason"
        );
        assert_eq!(
            facts[1]["text"],
            "*Expires*\n<!date^1795689120^{date_short_pretty} {time}|2026-11-26 10:32 UTC>"
        );
        let args = blocks[2]["text"]["text"].as_str().unwrap();
        assert!(args.contains("`a`: /srv/&lt;plan&gt;.txt"), "{args}");
        assert!(
            args.contains(&format!("`b`: {}…", "x".repeat(120))),
            "{args}"
        );
        assert!(args.ends_with("_and 1 more_"), "{args}");
        let button = &blocks[3]["elements"][0];
        assert_eq!(
            button["url"],
            "https://airlock.example.com/review/r1?token=t"
        );
        assert_eq!(button["text"]["text"], "Review");
        assert_eq!(button["style"], "primary");
        assert_eq!(blocks[3]["elements"].as_array().unwrap().len(), 1);
    }

    /// The buttons of `call`'s message when the Slack app is set up, by
    /// `action_id`, and whether a note says to approve on the review page.
    fn buttons(call: &ToolCall) -> (Vec<String>, bool) {
        let m = message(
            call,
            "https://a.example/review/r1?token=t",
            Words::of("waiting"),
            true,
        );
        let blocks = m["blocks"].as_array().unwrap();
        let actions = blocks.last().unwrap()["elements"].as_array().unwrap();
        for button in actions
            .iter()
            .filter(|b| b["action_id"] != "airlock_review")
        {
            assert_eq!(button["value"], call.id.as_str());
        }
        let ids = actions
            .iter()
            .map(|b| b["action_id"].as_str().unwrap().to_owned())
            .collect();
        (ids, blocks.iter().any(|b| b["type"] == "context"))
    }

    #[test]
    fn with_the_app_a_message_approves_only_what_it_shows_whole() {
        let mut call = super::super::waiting_call();
        let all = vec![
            APPROVE.to_owned(),
            REJECT.to_owned(),
            "airlock_review".into(),
        ];
        assert_eq!(buttons(&call), (all, false));
        let rest = vec![REJECT.to_owned(), "airlock_review".to_owned()];
        call.arguments = json!({ "text": "x".repeat(121) });
        assert_eq!(buttons(&call), (rest.clone(), true));
        call.arguments = json!({ "text": "two\nlines" });
        assert_eq!(buttons(&call), (rest.clone(), true));
        call.arguments = json!({ "a": 1, "b": 2, "c": 3, "d": 4, "e": 5, "f": 6, "g": 7 });
        assert_eq!(buttons(&call), (rest, true));
        call.source = crate::domain::AGENT_SOURCE.into();
        call.tool = crate::domain::QUESTION_TOOL.into();
        call.arguments = json!({ "question": "Which one?" });
        assert_eq!(buttons(&call), (vec!["airlock_review".to_owned()], false));
    }

    #[test]
    fn a_settled_message_says_who_decided_and_has_no_buttons() {
        let call = super::super::waiting_call();
        let m = settled(&call, "Approved by Ana <Lima>");
        assert_eq!(m["replace_original"], true);
        assert_eq!(m["text"], "write_file from files: Approved by Ana <Lima>");
        let blocks = m["blocks"].as_array().unwrap();
        assert_eq!(
            blocks[0]["text"]["text"],
            "*write_file* from *files*: Approved by Ana &lt;Lima&gt;"
        );
        assert!(blocks.iter().all(|b| b["type"] != "actions"));
    }
}
