//! Inline submit (HITL Protocol v0.8, §7.5): an agent relays a person's
//! press of a button in a chat app, with the case's submit token. The token
//! is the case's own, kept apart from its review links' tokens: neither is
//! taken where the other belongs. Only the actions the call's policy lists
//! (`inline_submit:`), or the agent's question named when asked, are taken;
//! the decision names who the agent says pressed, and that it was relayed.

use serde_json::Value;

use super::link::open_case;
use super::respond::{closed_case, Response, Submission};
use super::{token, CaseId, CaseType, ReviewCase};
use crate::core::Core;
use crate::decisions::{self, CallKind};
use crate::domain::{Channel, Reviewer, SubmissionContext, SubmittedBy};
use crate::error::EngineError;

/// Longest `submitted_via`, platform, user id or display name, in characters.
const MAX_FIELD_CHARS: usize = 100;

/// Who pressed the button, as the agent says their platform knows them.
#[derive(Debug, Clone, PartialEq)]
pub struct PlatformUser {
    /// `telegram`, `slack`, … or an `x-` name.
    pub platform: String,
    /// Their id there.
    pub user_id: String,
    /// Their name there, if the agent gave it.
    pub display_name: Option<String>,
}

/// A relayed press.
#[derive(Debug, Clone, PartialEq)]
pub struct InlineSubmission {
    /// `approve` or `reject`.
    pub action: String,
    /// `feedback` for a rejection's reason.
    pub data: Value,
    /// The button's kind: `slack_block_action`, `telegram_inline_button`, …
    pub via: String,
    pub by: PlatformUser,
    /// Whether the agent relayed verification evidence with the press.
    pub evidence: bool,
}

fn checked(field: &'static str, text: &str) -> Result<String, EngineError> {
    let text = text.trim();
    if text.is_empty() || text.chars().count() > MAX_FIELD_CHARS || text.contains(char::is_control)
    {
        return Err(EngineError::invalid(
            field,
            format!("{field} is 1 to {MAX_FIELD_CHARS} characters, without control characters"),
        ));
    }
    Ok(text.to_owned())
}

/// The `submitted_via` values HITL v0.8 lists; others start with `x-`.
const KNOWN_VIA: &[&str] = &[
    "telegram_inline_button",
    "slack_block_action",
    "discord_component",
    "whatsapp_reply_button",
    "teams_adaptive_card",
];

/// The `submitted_by.platform` values HITL v0.8 lists; others start with `x-`.
const KNOWN_PLATFORMS: &[&str] = &["telegram", "slack", "discord", "whatsapp", "teams"];

/// `text` when the protocol lists it or it is an extension (`x-…`).
fn listed(field: &'static str, text: String, known: &[&str]) -> Result<String, EngineError> {
    if known.contains(&text.as_str()) || text.starts_with("x-") {
        return Ok(text);
    }
    Err(EngineError::invalid(
        field,
        format!("{field} is one of {}, or starts with x-", known.join(", ")),
    ))
}

impl InlineSubmission {
    /// Who pressed, and the button's kind, checked and trimmed.
    fn checked(&self) -> Result<(SubmittedBy, String), EngineError> {
        let platform = checked("submitted_by.platform", &self.by.platform)?;
        let platform = listed("submitted_by.platform", platform, KNOWN_PLATFORMS)?;
        let platform_user_id = checked("submitted_by.platform_user_id", &self.by.user_id)?;
        let via = checked("submitted_via", &self.via)?;
        let via = listed("submitted_via", via, KNOWN_VIA)?;
        let display_name = match self.by.display_name.as_deref().map(str::trim) {
            Some(name) if !name.is_empty() => Some(checked("submitted_by.display_name", name)?),
            _ => None,
        };
        let by = SubmittedBy {
            platform,
            platform_user_id,
            display_name,
        };
        Ok((by, via))
    }
}

/// The name a relayed decision is recorded under: who pressed, where, and
/// that `agent` relayed it ("Alex (telegram 42) via telegram_inline_button,
/// relayed by builder").
fn byline(by: &SubmittedBy, via: &str, agent: &str) -> String {
    let (platform, user) = (&by.platform, &by.platform_user_id);
    let shown = by.display_name.as_deref().unwrap_or(user);
    let agent: String = agent.chars().take(MAX_FIELD_CHARS).collect();
    let line = format!("{shown} ({platform} {user}) via {via}, relayed by {agent}");
    // A decision's name is at most 200 characters.
    line.chars().take(200).collect()
}

pub(crate) async fn submit_inline(
    core: &Core,
    id: &CaseId,
    presented: &str,
    submission: InlineSubmission,
) -> Result<ReviewCase, EngineError> {
    let (case, hash) = core
        .reviews()
        .review_case_for_submit(id)
        .await?
        .ok_or(EngineError::Forbidden)?;
    // A case without a submit token refuses every token alike.
    if !token::matches(presented, hash.as_slice()) {
        return Err(EngineError::Forbidden);
    }
    let case = open_case(core, case).await?;
    if !case.inline_actions.contains(&submission.action) {
        return Err(EngineError::ActionNotInline {
            case: case.id,
            action: submission.action,
            allowed: case.inline_actions,
        });
    }
    // The agent is the API key that asked for the call.
    let agent = case.requester.client.as_deref().unwrap_or("the agent");
    let (by, via) = submission.checked()?;
    let mut reviewer = Reviewer::named(byline(&by, &via, agent), Channel::Relayed);
    reviewer.relayed = Some(SubmissionContext::relayed(via, by, submission.evidence));
    let asked = Submission {
        action: submission.action,
        data: submission.data,
        responded_by: None,
    };
    // A typed question's answer is checked against what it asks.
    if case.asks {
        return match super::ask::answer(core, &case, &asked, &reviewer).await? {
            Some(closed) => closed_case(core, closed, &case.id).await,
            None => Err(EngineError::invalid(
                "action",
                "this question is answered in words, on its review page",
            )),
        };
    }
    let Response::Decide(verdict) = asked.response(&CaseType::Approval)? else {
        return Err(EngineError::invalid(
            "action",
            "inline submit decides approvals",
        ));
    };
    let (_call, closed) = decisions::decide_closing(
        core,
        &case.tool_call_id,
        verdict,
        &reviewer,
        CallKind::Action,
    )
    .await?;
    closed_case(core, closed, &case.id).await
}

#[cfg(test)]
mod tests {
    use super::*;

    fn relayed(name: Option<&str>) -> InlineSubmission {
        InlineSubmission {
            action: "approve".into(),
            data: Value::Null,
            via: "telegram_inline_button".into(),
            by: PlatformUser {
                platform: "telegram".into(),
                user_id: "123456789".into(),
                display_name: name.map(str::to_owned),
            },
            evidence: false,
        }
    }

    /// The press as its case reports it.
    fn reported(s: &InlineSubmission) -> SubmissionContext {
        let (by, via) = s.checked().unwrap();
        SubmissionContext::relayed(via, by, s.evidence)
    }

    /// The byline of `s`'s press, relayed by `agent`.
    fn line(s: InlineSubmission, agent: &str) -> String {
        let (by, via) = s.checked().unwrap();
        byline(&by, &via, agent)
    }

    #[test]
    fn a_relayed_decision_names_who_pressed_where_and_who_relayed_it() {
        assert_eq!(
            line(relayed(Some("Alex Mueller")), "builder"),
            "Alex Mueller (telegram 123456789) via telegram_inline_button, relayed by builder"
        );
        assert_eq!(
            line(relayed(None), "builder"),
            "123456789 (telegram 123456789) via telegram_inline_button, relayed by builder"
        );
        let long = "x".repeat(100);
        let line = line(relayed(Some(&long)), &long);
        assert_eq!(line.chars().count(), 200);
    }

    #[test]
    fn the_case_reports_the_press_as_relayed_with_its_fields_trimmed() {
        let mut s = relayed(Some(" Alex Mueller "));
        s.via = " telegram_inline_button ".into();
        s.evidence = true;
        let context = serde_json::to_value(reported(&s)).unwrap();
        assert_eq!(
            context,
            serde_json::json!({
                "mode": "inline_submit",
                "submitted_via": "telegram_inline_button",
                "submitted_by": {
                    "platform": "telegram",
                    "platform_user_id": "123456789",
                    "display_name": "Alex Mueller"
                },
                "verification_result": {
                    "satisfied": true, "verified_evidence": [], "missing_requirements": []
                }
            })
        );
        s.by.display_name = Some("  ".into());
        s.evidence = false;
        let context = reported(&s);
        assert_eq!(context.submitted_by.unwrap().display_name, None);
        assert_eq!(context.verification_result, None);
    }

    #[test]
    fn a_relayed_identity_must_be_short_plain_text() {
        let mut s = relayed(Some("Alex\nAdmin"));
        assert!(matches!(
            s.checked(),
            Err(EngineError::Invalid {
                field: "submitted_by.display_name",
                ..
            })
        ));
        s.by.display_name = None;
        s.by.user_id = " ".into();
        assert!(matches!(
            s.checked(),
            Err(EngineError::Invalid {
                field: "submitted_by.platform_user_id",
                ..
            })
        ));
        s.by.user_id = "1".into();
        s.via = "x-".repeat(51);
        assert!(matches!(
            s.checked(),
            Err(EngineError::Invalid {
                field: "submitted_via",
                ..
            })
        ));
    }

    #[test]
    fn the_channel_and_platform_are_the_protocols_or_extensions() {
        let mut s = relayed(None);
        s.via = "carrier_pigeon".into();
        let refused = s.checked().unwrap_err().to_string();
        assert!(refused.contains("starts with x-"), "{refused}");
        s.via = "x-carrier-pigeon".into();
        s.by.platform = "pigeon".into();
        assert!(matches!(
            s.checked(),
            Err(EngineError::Invalid {
                field: "submitted_by.platform",
                ..
            })
        ));
        s.by.platform = "x-pigeon".into();
        assert!(s.checked().is_ok());
    }
}
