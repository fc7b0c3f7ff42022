//! A notice as a Slack message: Block Kit, posted to an incoming webhook.
//! One message per call, short enough to read in a notification: the tool
//! and its source, why it waits, when it lapses, its arguments summarised,
//! and a button that opens the call's review page.

use std::time::Duration;

use serde_json::{json, Value};

use super::{Listed, Words};
use crate::domain::ToolCall;

/// The message announcing `call`, which waits, with its review `link`.
pub fn message(call: &ToolCall, link: &str, words: Words) -> Value {
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
    json!({
        "text": what,
        "blocks": [
            { "type": "section", "text": { "type": "mrkdwn", "text": headline } },
            { "type": "section", "fields": facts },
            { "type": "section", "text": { "type": "mrkdwn", "text": arguments(&call.arguments) } },
            { "type": "actions", "elements": [{
                "type": "button",
                "action_id": "airlock_review",
                "text": { "type": "plain_text", "text": "Review" },
                "style": "primary",
                "url": link,
            }] },
        ],
    })
}

/// The arguments, one line each (`path`: /srv/plan.txt), long values cut.
fn arguments(arguments: &serde_json::Value) -> String {
    let listed = Listed::of(arguments);
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
fn escape(text: &str) -> String {
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
    }
}
