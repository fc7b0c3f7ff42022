//! Asking a running Airlock about one call, as any agent does through the
//! HITL gateway: `POST /api/v1/tool-calls`, and when a person must decide,
//! following the case's event stream until it ends, then reading its
//! outcome from the status endpoint. Only this file speaks HTTP.

use std::time::Duration;

use futures::StreamExt;
use serde::Deserialize;
use serde_json::{json, Value};
use tokio::time::{timeout_at, Instant};

use super::claude_code::{HookInput, Verdict};

/// How an asked call ended, before the hook's settings say what an
/// unanswered one becomes.
#[derive(Debug, PartialEq)]
pub enum Answer {
    /// Airlock's policy or a person decided.
    Decided(Verdict),
    /// Nobody decided before the hook had to answer; the case stays open.
    Unanswered { review_url: String },
    /// Airlock could not be asked at all.
    Unreachable(String),
}

/// A running Airlock and the gateway key the hook asks with.
#[derive(Debug, Clone)]
pub struct Airlock {
    pub base: String,
    pub key: String,
    /// The policy block the calls are decided by (`claude-code`).
    pub source: String,
    pub http: reqwest::Client,
}

/// The parts of the gateway's answers the hook reads.
#[derive(Debug, Deserialize)]
struct Reply {
    #[serde(default)]
    message: String,
    hitl: Option<Case>,
}

#[derive(Debug, Deserialize)]
struct Case {
    review_url: String,
    poll_url: String,
    events_url: String,
}

#[derive(Debug, Deserialize)]
struct Polled {
    status: String,
    result: Option<Outcome>,
    responded_by: Option<Respondent>,
    default_action: Option<String>,
    reason: Option<String>,
}

#[derive(Debug, Deserialize)]
struct Outcome {
    action: String,
    #[serde(default)]
    data: Value,
}

#[derive(Debug, Deserialize)]
struct Respondent {
    name: String,
}

/// A pause before asking again after the connection dropped mid-wait.
const AGAIN: Duration = Duration::from_secs(1);

impl Airlock {
    /// Asks about `input`'s call, waiting for a person until `deadline`.
    pub async fn ask(&self, input: &HookInput, deadline: Instant) -> Answer {
        let request = json!({
            "tool": input.tool_name,
            "arguments": input.tool_input,
            "source": self.source,
            "agent_id": "claude-code",
            "session_id": input.session_id,
        });
        let sent = self
            .http
            .post(format!("{}/api/v1/tool-calls", self.base))
            .bearer_auth(&self.key)
            .json(&request)
            .send();
        let response = match timeout_at(deadline, sent).await {
            Ok(Ok(response)) => response,
            Ok(Err(e)) => {
                return Answer::Unreachable(format!(
                    "cannot reach Airlock at {}: {}",
                    self.base,
                    causes(&e)
                ))
            }
            Err(_) => {
                return Answer::Unreachable(format!(
                    "Airlock at {} did not answer in time",
                    self.base
                ))
            }
        };
        let status = response.status();
        if status.is_server_error() {
            return Answer::Unreachable(format!("Airlock at {} answered {status}", self.base));
        }
        let reply: Reply = match response.json().await {
            Ok(reply) => reply,
            Err(e) => {
                return Answer::Unreachable(format!("Airlock's answer could not be read: {e}"))
            }
        };
        match (status.as_u16(), reply.hitl) {
            (200, _) => Answer::Decided(Verdict::Allow {
                reason: format!("Airlock allows it: {}", reply.message),
                arguments: None,
            }),
            (202, Some(case)) => {
                eprintln!("airlock hook: waiting for a decision: {}", case.review_url);
                self.wait(case, deadline).await
            }
            (401, _) => Answer::Decided(Verdict::Deny {
                reason: format!(
                    "Airlock refused the hook's API key (AIRLOCK_API_KEY): {}",
                    reply.message
                ),
            }),
            (_, _) => Answer::Decided(Verdict::Deny {
                reason: format!("Airlock refuses it: {}", reply.message),
            }),
        }
    }

    /// Follows the case until it ends or `deadline` passes. A dropped
    /// connection is tried again: Airlock may be restarting.
    async fn wait(&self, case: Case, deadline: Instant) -> Answer {
        let mut last_event: Option<String> = None;
        loop {
            if let Ok(Some(verdict)) = self.outcome(&case).await {
                return Answer::Decided(verdict);
            }
            let followed = timeout_at(deadline, self.until_it_ends(&case, &mut last_event)).await;
            match followed {
                Err(_) => {
                    return Answer::Unanswered {
                        review_url: case.review_url,
                    }
                }
                Ok(true) => {}
                Ok(false) => {
                    if timeout_at(deadline, tokio::time::sleep(AGAIN))
                        .await
                        .is_err()
                    {
                        return Answer::Unanswered {
                            review_url: case.review_url,
                        };
                    }
                }
            }
        }
    }

    /// Reads the case's event stream until a terminal event (`true`) or
    /// until the stream breaks (`false`), noting the last event's id so the
    /// next connection starts after it.
    async fn until_it_ends(&self, case: &Case, last_event: &mut Option<String>) -> bool {
        let mut request = self.http.get(&case.events_url).bearer_auth(&self.key);
        if let Some(id) = last_event.as_deref() {
            request = request.header("last-event-id", id);
        }
        let Ok(response) = request.send().await else {
            return false;
        };
        if !response.status().is_success() {
            return false;
        }
        let mut stream = response.bytes_stream();
        let mut pending = String::new();
        while let Some(Ok(chunk)) = stream.next().await {
            pending.push_str(&String::from_utf8_lossy(&chunk));
            while let Some(end) = pending.find('\n') {
                let line: String = pending.drain(..=end).collect();
                let line = line.trim_end();
                if let Some(id) = line.strip_prefix("id:") {
                    *last_event = Some(id.trim().to_owned());
                }
                if let Some(event) = line.strip_prefix("event:") {
                    let event = event.trim();
                    if matches!(
                        event,
                        "review.completed" | "review.expired" | "review.cancelled"
                    ) {
                        return true;
                    }
                }
            }
        }
        false
    }

    /// The case's outcome, once it has one.
    async fn outcome(&self, case: &Case) -> Result<Option<Verdict>, reqwest::Error> {
        let polled: Polled = self
            .http
            .get(&case.poll_url)
            .bearer_auth(&self.key)
            .send()
            .await?
            .error_for_status()?
            .json()
            .await?;
        Ok(verdict_of(polled))
    }
}

/// An error and what caused it, down to the bottom ("… : Connection refused").
pub(crate) fn causes(error: &dyn std::error::Error) -> String {
    let mut text = error.to_string();
    let mut cause = error.source();
    while let Some(inner) = cause {
        text.push_str(": ");
        text.push_str(&inner.to_string());
        cause = inner.source();
    }
    text
}

/// What a case's status says to do, once it has ended.
fn verdict_of(polled: Polled) -> Option<Verdict> {
    let by = polled
        .responded_by
        .map(|r| r.name)
        .unwrap_or_else(|| "a reviewer".to_owned());
    match polled.status.as_str() {
        "completed" => {
            let outcome = polled.result?;
            Some(match outcome.action.as_str() {
                "approve" => Verdict::Allow {
                    reason: format!("Approved by {by} in Airlock"),
                    arguments: None,
                },
                "edit" => Verdict::Allow {
                    reason: format!("Approved by {by} in Airlock, with arguments they edited"),
                    arguments: outcome.data.get("edits").cloned(),
                },
                _ => Verdict::Deny {
                    reason: match outcome.data.get("feedback").and_then(Value::as_str) {
                        Some(feedback) if !feedback.is_empty() => {
                            format!("Rejected by {by}: {feedback}")
                        }
                        _ => format!("Rejected by {by}"),
                    },
                },
            })
        }
        "expired" if polled.default_action.as_deref() == Some("approve") => Some(Verdict::Allow {
            reason: "Nobody decided in time, and the policy approves such calls then".to_owned(),
            arguments: None,
        }),
        "expired" => Some(Verdict::Deny {
            reason: "Nobody decided in time: the review expired, and the call is refused"
                .to_owned(),
        }),
        "cancelled" => Some(Verdict::Deny {
            reason: match polled.reason {
                Some(reason) if !reason.is_empty() => format!("The review was withdrawn: {reason}"),
                _ => "The review was withdrawn".to_owned(),
            },
        }),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn polled(value: Value) -> Polled {
        serde_json::from_value(value).unwrap()
    }

    #[test]
    fn an_open_case_has_no_verdict_yet() {
        for status in ["pending", "opened", "in_progress"] {
            assert_eq!(verdict_of(polled(json!({"status": status}))), None);
        }
    }

    #[test]
    fn an_edit_runs_the_edited_arguments_and_a_rejection_gives_its_reason() {
        let edited = polled(json!({
            "status": "completed",
            "result": {"action": "edit", "data": {"edits": {"command": "ls"}}},
            "responded_by": {"name": "Rita"}
        }));
        assert_eq!(
            verdict_of(edited),
            Some(Verdict::Allow {
                reason: "Approved by Rita in Airlock, with arguments they edited".into(),
                arguments: Some(json!({"command": "ls"})),
            })
        );
        let rejected = polled(json!({
            "status": "completed",
            "result": {"action": "reject", "data": {"feedback": "not on main"}},
            "responded_by": {"name": "Rita"}
        }));
        assert_eq!(
            verdict_of(rejected),
            Some(Verdict::Deny {
                reason: "Rejected by Rita: not on main".into()
            })
        );
    }

    #[test]
    fn expiry_follows_the_default_action() {
        let approve = polled(json!({"status": "expired", "default_action": "approve"}));
        assert!(matches!(verdict_of(approve), Some(Verdict::Allow { .. })));
        let reject = polled(json!({"status": "expired", "default_action": "reject"}));
        assert!(matches!(verdict_of(reject), Some(Verdict::Deny { .. })));
    }
}
