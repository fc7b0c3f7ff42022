//! Asking a person anything (`POST /api/v1/reviews`): an agent's question of
//! any review type becomes a question in its session's conversation, with a
//! case and a link, and waits for an answer checked against what it asks.
//! It never runs anything: a question is answered, not approved.

use chrono::Duration;
use serde_json::{json, Value};

use super::gateway::{check_requester, insert_waiting, session_conversation, MAX_TIMEOUT};
use super::Submission;
use super::{
    case_for, rounds, CaseId, CaseType, LinkedCase, NewCase, Requester, ReviewCase, ReviewToken,
};
use crate::core::Core;
use crate::decisions;
use crate::domain::{
    BatchId, ExpiryAction, FieldProblem, ProposedCall, ReviewShape, Reviewer, ToolCall,
    AGENT_SOURCE, MAX_PROMPT_CHARS, QUESTION_TOOL,
};
use crate::error::EngineError;
use crate::policy::{Outcome, PolicyVerdict};

/// How long a question stays open when the agent does not say (§6).
pub const DEFAULT_TIMEOUT: Duration = Duration::hours(24);

/// Largest context an agent may send, in bytes of JSON.
pub const MAX_CONTEXT_BYTES: usize = 64 * 1024;

/// An agent's question for a person.
#[derive(Debug, Clone, PartialEq)]
pub struct AskRequest {
    pub case_type: CaseType,
    /// What the person must decide, at most 500 characters.
    pub prompt: String,
    /// What the page shows, and what the type asks (`options`, `form`, …).
    pub context: Value,
    /// How long it stays open; 24 hours when not given, at most 7 days.
    pub timeout: Option<Duration>,
    /// What the agent will do when nobody answers in time.
    pub default_action: ExpiryAction,
    pub requester: Requester,
    /// The case this one is the next round of.
    pub previous_case_id: Option<CaseId>,
    /// The actions an agent may relay from a chat app's buttons (inline
    /// submit); a submit token is handed out when there are any.
    pub inline_actions: Vec<String>,
}

/// A question as asked: its call, its case and the link's token.
#[derive(Debug, Clone)]
pub struct Asked {
    pub call: ToolCall,
    pub case: ReviewCase,
    /// The review link's token; stored only as a hash.
    pub token: ReviewToken,
    /// The submit token, when the question takes actions inline; stored
    /// only as a hash, apart from the link's.
    pub submit_token: Option<ReviewToken>,
}

impl AskRequest {
    /// Everything wrong with the request, each named by its field; nothing
    /// is recorded for a request with problems.
    pub fn problems(&self) -> Vec<FieldProblem> {
        let mut problems = Vec::new();
        let prompt = self.prompt.trim();
        if prompt.is_empty() || prompt.chars().count() > MAX_PROMPT_CHARS {
            problems.push(FieldProblem::new(
                "prompt",
                format!("a prompt is 1 to {MAX_PROMPT_CHARS} characters"),
            ));
        }
        if self.prompt.chars().any(|c| c.is_control() && c != '\n') {
            problems.push(FieldProblem::new(
                "prompt",
                "a prompt has no control characters but line breaks",
            ));
        }
        if self.context.to_string().len() > MAX_CONTEXT_BYTES {
            problems.push(FieldProblem::new(
                "context",
                format!(
                    "context is at most {} KiB of JSON",
                    MAX_CONTEXT_BYTES / 1024
                ),
            ));
        } else {
            match ReviewShape::parse(&self.case_type, &self.context) {
                Err(found) => problems.extend(found),
                Ok(shape) => problems.extend(self.inline_problems(&shape)),
            }
        }
        if let Some(timeout) = self.timeout {
            if timeout <= Duration::zero() || timeout > MAX_TIMEOUT {
                problems.push(FieldProblem::new(
                    "timeout",
                    "a timeout is more than 0 and at most 7 days",
                ));
            }
        }
        problems
    }
}

impl AskRequest {
    /// Inline actions must be the type's own, each once.
    fn inline_problems(&self, shape: &ReviewShape) -> Option<FieldProblem> {
        let mut seen: Vec<&str> = Vec::new();
        for action in &self.inline_actions {
            if !shape.actions().contains(&action.as_str()) || seen.contains(&action.as_str()) {
                return Some(FieldProblem::new(
                    "inline_actions",
                    format!(
                        "`{action}` is not an action of this review, or is named twice: use {}",
                        shape.actions().join(", ")
                    ),
                ));
            }
            seen.push(action);
        }
        None
    }
}

pub(crate) async fn ask(core: &Core, request: AskRequest) -> Result<Asked, EngineError> {
    let problems = request.problems();
    if !problems.is_empty() {
        return Err(EngineError::InvalidFields(problems));
    }
    check_requester(&request.requester)?;
    let r = &request.requester;
    if let Some(previous) = &request.previous_case_id {
        rounds::check_previous(core, previous, r.client.as_deref()).await?;
    }
    let now = core.clock.now();
    let conversation = session_conversation(core, r).await?;
    let proposal = ProposedCall {
        source: AGENT_SOURCE.to_owned(),
        tool: QUESTION_TOOL.to_owned(),
        arguments: json!({
            "question": request.prompt.trim(),
            "type": request.case_type.as_str(),
            "context": request.context,
        }),
        read_only_hint: false,
    };
    let verdict = PolicyVerdict::new(Outcome::RequireApproval, "an agent asks a person");
    let announce = core.config.notices(&verdict, now);
    let mut call = decisions::new_call(
        core,
        &conversation,
        None,
        &BatchId::new(),
        0,
        proposal,
        verdict,
        now,
    );
    call.expires_at = Some(now + request.timeout.unwrap_or(DEFAULT_TIMEOUT));
    // Unanswered, the question expires; what the agent does then is the
    // case's `default_action`, never the policy's approve.
    call.default_action = ExpiryAction::Reject;
    let case = ReviewCase {
        inline_actions: request.inline_actions.clone(),
        default_action: request.default_action,
        previous_case_id: request.previous_case_id.clone(),
        ..case_for(&call, request.requester.clone())
    };
    let LinkedCase {
        new,
        token,
        submit: submit_token,
    } = NewCase::linked(case, announce);
    let case = new.case.clone();
    insert_waiting(core, &call, new).await?;
    Ok(Asked {
        call,
        case,
        token,
        submit_token,
    })
}

/// Answers a typed question's case with `submission`, checked against what
/// it asks; `None` for the agent's plain question, answered in words.
pub(super) async fn answer(
    core: &Core,
    case: &ReviewCase,
    submission: &Submission,
    reviewer: &Reviewer,
) -> Result<Option<Option<ReviewCase>>, EngineError> {
    let call = core.call(&case.tool_call_id).await?;
    let data = |_: &ReviewShape| submission.data.clone();
    let answered = decisions::answer_typed(core, call, &submission.action, data, reviewer).await?;
    Ok(answered.map(|(_call, closed)| closed))
}

/// Reads a protocol duration: shorthand (`90s`, `30m`, `24h`, `7d`) or
/// ISO 8601 (`PT24H`, `P7D`, `P1DT12H`, `P1W`). `None` when it is neither.
pub fn parse_duration(text: &str) -> Option<Duration> {
    let text = text.trim();
    let unit_seconds = |unit: char| match unit {
        'S' | 's' => Some(1),
        'M' | 'm' => Some(60),
        'H' | 'h' => Some(3_600),
        'D' | 'd' => Some(86_400),
        'W' => Some(7 * 86_400),
        _ => None,
    };
    let Some(iso) = text.strip_prefix('P') else {
        let unit = text.chars().last()?;
        let number: i64 = text[..text.len() - unit.len_utf8()].parse().ok()?;
        return Some(Duration::seconds(number.checked_mul(unit_seconds(unit)?)?));
    };
    let (days, time) = iso.split_once('T').unwrap_or((iso, ""));
    let mut total: i64 = 0;
    for (part, allowed) in [(days, "DW"), (time, "HMS")] {
        let mut number = String::new();
        for c in part.chars() {
            if c.is_ascii_digit() {
                number.push(c);
            } else if allowed.contains(c) && !number.is_empty() {
                // Minutes in the date part would be months: not a duration here.
                let n: i64 = std::mem::take(&mut number).parse().ok()?;
                total = total.checked_add(n.checked_mul(unit_seconds(c)?)?)?;
            } else {
                return None;
            }
        }
        if !number.is_empty() {
            return None;
        }
    }
    (iso != "T" && !iso.is_empty()).then(|| Duration::seconds(total))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn durations_read_in_shorthand_and_iso_8601() {
        let hours = |h: i64| Some(Duration::hours(h));
        assert_eq!(parse_duration("24h"), hours(24));
        assert_eq!(parse_duration("PT24H"), hours(24));
        assert_eq!(parse_duration("P7D"), hours(168));
        assert_eq!(parse_duration("P1DT12H"), hours(36));
        assert_eq!(parse_duration("P1W"), hours(168));
        assert_eq!(parse_duration("PT90M"), Some(Duration::minutes(90)));
        for bad in ["", "P", "PT", "24", "h", "P1M", "PT1D", "1y", "P1.5D"] {
            assert_eq!(parse_duration(bad), None, "{bad}");
        }
    }
}
