//! `airlock hook claude-code`: Claude Code's `PreToolUse` hook. Claude Code
//! runs it before each tool call with the call on standard input; it asks
//! a running Airlock through the HITL gateway (source `claude-code`, so a
//! `claude-code:` policy block decides), waits while a person decides, and
//! prints the decision Claude Code reads. See docs/integrations.md.
//!
//! It fails closed: when Airlock cannot be asked, or nobody decides before
//! the hook must answer, the call is refused, unless `--unreachable ask`
//! hands an unreachable Airlock's calls to Claude Code's own prompt.

mod ask;
mod claude_code;

use std::time::Duration;

use serde_json::Value;

pub(crate) use ask::causes;
pub use ask::{Airlock, Answer};
pub use claude_code::{HookInput, Verdict};

/// What the hook does when Airlock cannot be asked.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Unreachable {
    /// Refuse the call (the default).
    Deny,
    /// Let Claude Code ask the person at the terminal.
    Ask,
}

/// The hook's settings, from its flags and environment.
#[derive(Debug, Clone)]
pub struct HookSettings {
    /// Airlock's address (`AIRLOCK_URL`, by default http://127.0.0.1:3000).
    pub url: String,
    /// A gateway API key (`AIRLOCK_API_KEY`).
    pub key: String,
    /// The policy block that decides: `claude-code` unless told.
    pub source: String,
    /// How long a call may wait for a person; keep it under the hook's
    /// `timeout` in Claude Code's settings.
    pub wait: Duration,
    pub unreachable: Unreachable,
}

/// Reads one event from `input` and returns what to print: the decision's
/// JSON, or nothing for an event that is not a `PreToolUse`.
pub async fn run(settings: &HookSettings, input: &str) -> Option<Value> {
    let deadline = tokio::time::Instant::now() + settings.wait;
    let event: HookInput = match serde_json::from_str(input) {
        Ok(event) => event,
        Err(e) => {
            return Some(
                Verdict::Deny {
                    reason: format!("airlock hook: Claude Code's event could not be read ({e})"),
                }
                .output(),
            )
        }
    };
    if event.hook_event_name != "PreToolUse" {
        eprintln!(
            "airlock hook: {} is not a PreToolUse event; nothing decided",
            event.hook_event_name
        );
        return None;
    }
    if settings.key.is_empty() {
        return Some(
            Verdict::Deny {
                reason: "airlock hook: AIRLOCK_API_KEY is not set; give the hook one of the gateway's API keys".to_owned(),
            }
            .output(),
        );
    }
    let airlock = Airlock {
        base: settings.url.trim_end_matches('/').to_owned(),
        key: settings.key.clone(),
        source: settings.source.clone(),
        http: reqwest::Client::new(),
    };
    let verdict = match airlock.ask(&event, deadline).await {
        Answer::Decided(verdict) => verdict,
        Answer::Unanswered { review_url } => Verdict::Deny {
            reason: format!(
                "Nobody decided in Airlock within {}; the review is still open at {review_url}",
                engine::reviews::shorthand(settings.wait)
            ),
        },
        Answer::Unreachable(why) => {
            eprintln!("airlock hook: {why}");
            match settings.unreachable {
                Unreachable::Deny => Verdict::Deny {
                    reason: format!("Airlock could not be asked, so the call is refused: {why}"),
                },
                Unreachable::Ask => Verdict::Ask {
                    reason: format!("Airlock could not be asked: {why}"),
                },
            }
        }
    };
    Some(verdict.output())
}

/// Reads the event from standard input and prints the decision.
pub async fn answer_from_stdin(settings: &HookSettings) -> anyhow::Result<()> {
    let mut input = String::new();
    std::io::Read::read_to_string(&mut std::io::stdin(), &mut input)?;
    if let Some(output) = run(settings, &input).await {
        println!("{output}");
    }
    Ok(())
}
