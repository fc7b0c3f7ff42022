//! Reviewing through a link: opening the page, starting to fill it in,
//! responding once; and what agents read back (status and events).
//!
//! A response is an ordinary decision on the case's call, so the chat, the
//! inbox and the agent see it exactly as if it had been taken in the chat.

use super::holder::{holder, link_reviewer};
use super::link::{current, open_case, still_open, verified_case};
use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::{CaseEvent, CaseId, CaseStatus, CaseType, ReviewCase, ReviewToken};
use crate::core::Core;
use crate::decisions::{self, CallKind};
use crate::domain::{Actor, Channel, PasskeyProof, Reviewer, Role, ToolCall, ToolCallId, Verdict};
use crate::error::EngineError;

/// How many recent messages are searched for the context of a call.
const CONTEXT_WINDOW: i64 = 200;

/// A response to a case, as the protocol's `ReviewSubmission` carries it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Submission {
    /// `approve`, `edit` or `reject` for approvals; `submit` for input.
    pub action: String,
    /// `feedback` (a rejection's reason), `edits` (new arguments), `answer`.
    #[serde(default)]
    pub data: Value,
    /// Who responds, if they said.
    #[serde(default)]
    pub responded_by: Option<String>,
}

/// What a submission asks for, once read.
#[derive(Debug, Clone, PartialEq)]
pub enum Response {
    /// A decision on an approval.
    Decide(Verdict),
    /// An answer to the agent's question.
    Answer(String),
}

impl Submission {
    /// Reads the submission for a case of `case_type`, or says what is wrong
    /// with it. Pure: nothing is looked up or recorded.
    pub fn response(&self, case_type: &CaseType) -> Result<Response, EngineError> {
        let data = &self.data;
        if !(data.is_object() || data.is_null()) {
            return Err(EngineError::invalid("data", "data must be a JSON object"));
        }
        Ok(match (case_type, self.action.as_str()) {
            (CaseType::Approval, "approve") => Response::Decide(Verdict::Approve),
            (CaseType::Approval, "reject") => Response::Decide(Verdict::Reject {
                reason: text_field(data, "feedback"),
            }),
            (CaseType::Approval, "edit") => {
                let Some(arguments) = data.get("edits").filter(|e| e.is_object()) else {
                    return Err(EngineError::invalid(
                        "data.edits",
                        "an edit needs data.edits: the new arguments as a JSON object",
                    ));
                };
                Response::Decide(Verdict::Edit {
                    arguments: arguments.clone(),
                })
            }
            (CaseType::Input, "submit") => match text_field(data, "answer") {
                Some(answer) => Response::Answer(answer),
                None => {
                    return Err(EngineError::invalid(
                        "data.answer",
                        "a submission needs data.answer",
                    ))
                }
            },
            (CaseType::Approval, other) => {
                return Err(EngineError::invalid(
                    "action",
                    format!(
                        "`{other}` is not an action of an approval: use approve, edit or reject"
                    ),
                ))
            }
            (_, other) => {
                return Err(EngineError::invalid(
                    "action",
                    format!("`{other}` is not an action of an input case: use submit"),
                ))
            }
        })
    }
}

/// What led to the call: the person's last message and the agent's text.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct ReviewContext {
    /// The last message a person wrote before the call.
    pub user_message: Option<String>,
    /// What the agent wrote with the call.
    pub assistant_text: Option<String>,
}

/// Everything the review page shows.
#[derive(Debug, Clone, PartialEq)]
pub struct ReviewView {
    pub case: ReviewCase,
    /// Its call.
    pub call: ToolCall,
    /// What led to it.
    pub context: ReviewContext,
    /// The rounds before it, oldest first, when it is a next round.
    pub earlier: Vec<super::rounds::EarlierRound>,
    /// What was entered so far in its form of several steps.
    pub draft: Option<crate::domain::FormDraft>,
    /// Whether this answers a response that came after someone else had
    /// decided the case: the page as the first decision left it.
    pub decided_first: bool,
}

fn text_field(data: &Value, key: &str) -> Option<String> {
    data.get(key)
        .and_then(Value::as_str)
        .map(str::to_owned)
        .filter(|s| !s.trim().is_empty())
}

async fn advance(core: &Core, case: ReviewCase, to: CaseStatus) -> Result<ReviewCase, EngineError> {
    let now = core.clock.now();
    match core.reviews().advance_case(&case.id, to, now).await? {
        Some((moved, _event)) => {
            core.events.case_changed(moved.id.as_str());
            Ok(moved)
        }
        None => Ok(case),
    }
}

pub(crate) async fn open_review(
    core: &Core,
    id: &CaseId,
    presented: &str,
    by: Option<&Actor>,
) -> Result<ReviewView, EngineError> {
    let case = verified_case(core, id, presented).await?;
    holder(core, &case, by).await?;
    let mut case = current(core, case);
    if case.status == CaseStatus::Pending {
        case = advance(core, case, CaseStatus::Opened).await?;
    }
    view_of(core, case).await
}

pub(crate) async fn review_view(
    core: &Core,
    id: &CaseId,
    presented: &str,
    by: Option<&Actor>,
) -> Result<ReviewView, EngineError> {
    let case = verified_case(core, id, presented).await?;
    holder(core, &case, by).await?;
    let case = current(core, case);
    view_of(core, case).await
}

/// The case with its call and what led to it.
pub(super) async fn view_of(core: &Core, case: ReviewCase) -> Result<ReviewView, EngineError> {
    let call = core.call(&case.tool_call_id).await?;
    let context = context_of(core, &call).await?;
    let earlier = super::rounds::earlier_rounds(core, &case).await?;
    let draft = super::drafts::kept_draft(core, &case).await?;
    Ok(ReviewView {
        case,
        call,
        context,
        earlier,
        draft,
        decided_first: false,
    })
}

pub(crate) async fn touch_review(
    core: &Core,
    id: &CaseId,
    presented: &str,
    by: Option<&Actor>,
) -> Result<ReviewCase, EngineError> {
    let case = verified_case(core, id, presented).await?;
    holder(core, &case, by).await?;
    let mut case = current(core, case);
    if case.status == CaseStatus::Pending {
        case = advance(core, case, CaseStatus::Opened).await?;
    }
    if case.status == CaseStatus::Opened {
        case = advance(core, case, CaseStatus::InProgress).await?;
    }
    Ok(case)
}

pub(crate) async fn respond_review(
    core: &Core,
    id: &CaseId,
    presented: &str,
    submission: Submission,
    channel: Channel,
    by: Option<&Actor>,
) -> Result<ReviewCase, EngineError> {
    respond_with_passkey(core, id, presented, submission, channel, by, None).await
}

/// [`respond_review`], approving with a passkey assertion when the call
/// needs one (the review page's Approve with passkey).
pub(crate) async fn respond_with_passkey(
    core: &Core,
    id: &CaseId,
    presented: &str,
    submission: Submission,
    channel: Channel,
    by: Option<&Actor>,
    passkey: Option<PasskeyProof>,
) -> Result<ReviewCase, EngineError> {
    let case = still_open(core, id, presented).await?;
    let holder = holder(core, &case, by).await?;
    let mut reviewer = link_reviewer(holder, submission.responded_by.as_deref(), channel);
    reviewer.passkey = passkey;
    if case.asks {
        if let Some(closed) = super::ask::answer(core, &case, &submission, &reviewer).await? {
            return closed_case(core, closed, &case.id).await;
        }
    }
    let (_call, closed) = match submission.response(&case.case_type)? {
        Response::Decide(verdict) => {
            let kind = match case.case_type {
                CaseType::Input => CallKind::Question,
                _ => CallKind::Action,
            };
            decisions::decide_closing(core, &case.tool_call_id, verdict, &reviewer, kind).await?
        }
        Response::Answer(answer) => {
            decisions::answer_closing(core, &case.tool_call_id, &answer, &reviewer).await?
        }
    };
    closed_case(core, closed, &case.id).await
}

pub(crate) async fn cancel_review(
    core: &Core,
    id: &CaseId,
    presented: &str,
    reason: Option<String>,
    responded_by: Option<&str>,
    channel: Channel,
    by: Option<&Actor>,
) -> Result<ReviewCase, EngineError> {
    let case = still_open(core, id, presented).await?;
    let holder = holder(core, &case, by).await?;
    let reviewer = link_reviewer(holder, responded_by, channel);
    cancel(core, &case, &reviewer, reason).await
}

/// Withdraws a waiting case for the API client that asked it, which no
/// longer waits for the answer. The call does not run, and the case ends
/// `cancelled` with `reason`, recorded as the client's on channel `api`.
/// Another client's case, or one asked in the chat, is not found.
pub(crate) async fn withdraw_review(
    core: &Core,
    id: &CaseId,
    client: &str,
    reason: Option<String>,
) -> Result<ReviewCase, EngineError> {
    let case = core
        .reviews()
        .review_case(id)
        .await?
        .filter(|case| case.requester.client.as_deref() == Some(client))
        .ok_or(EngineError::NotFound("review case"))?;
    let case = open_case(core, case).await?;
    let reviewer = Reviewer::named(client, Channel::Api);
    let reason = reason.or_else(|| Some("withdrawn by the agent that asked".to_owned()));
    cancel(core, &case, &reviewer, reason).await
}

/// Cancels an open case's call as `reviewer`'s, with `reason`; the case
/// as the cancellation closed it.
async fn cancel(
    core: &Core,
    case: &ReviewCase,
    reviewer: &Reviewer,
    reason: Option<String>,
) -> Result<ReviewCase, EngineError> {
    let verdict = Verdict::Cancel { reason };
    let call = &case.tool_call_id;
    let (_call, closed) =
        decisions::decide_closing(core, call, verdict, reviewer, CallKind::Unknown).await?;
    closed_case(core, closed, &case.id).await
}

/// The case a response closed, as the response's transaction stored it;
/// read again only if that did not close it.
pub(super) async fn closed_case(
    core: &Core,
    closed: Option<ReviewCase>,
    id: &CaseId,
) -> Result<ReviewCase, EngineError> {
    match closed {
        Some(case) if case.id == *id => Ok(case),
        _ => core
            .reviews()
            .review_case(id)
            .await?
            .ok_or(EngineError::NotFound("review case")),
    }
}

pub(crate) async fn review_status(
    core: &Core,
    id: &CaseId,
    client: Option<&str>,
) -> Result<ReviewCase, EngineError> {
    let case = core
        .reviews()
        .review_case(id)
        .await?
        .ok_or(EngineError::NotFound("review case"))?;
    if case.requester.client.is_some() && case.requester.client.as_deref() != client {
        return Err(EngineError::NotFound("review case"));
    }
    Ok(current(core, case))
}

pub(crate) async fn review_events_after(
    core: &Core,
    id: &CaseId,
    seq: i64,
) -> Result<Vec<CaseEvent>, EngineError> {
    Ok(core.reviews().case_events_after(id, seq).await?)
}

pub(crate) async fn review_link(
    core: &Core,
    call_id: &ToolCallId,
    by: Option<&Actor>,
) -> Result<(CaseId, ReviewToken), EngineError> {
    // A link approves: only someone who may approve the call hands one out.
    if let Some(actor) = by {
        let reviewer = Reviewer::person(actor.clone(), Channel::Chat);
        let call = decisions::pending_call(core, call_id).await?;
        decisions::check(&reviewer, &call, !call.is_question())?;
    }
    let case = core
        .reviews()
        .case_for_call(call_id)
        .await?
        .ok_or(EngineError::NotFound("review case"))?;
    let token = ReviewToken::mint();
    core.reviews()
        .add_case_token(&case.id, &token.hash(), core.clock.now())
        .await?;
    Ok((case.id, token))
}

/// The person's last message before the call and the agent's text with it.
async fn context_of(core: &Core, call: &ToolCall) -> Result<ReviewContext, EngineError> {
    let Some(seq) = call.message_seq else {
        return Ok(ReviewContext::default());
    };
    let messages = core
        .conversations()
        .recent_messages(&call.conversation_id, None, CONTEXT_WINDOW)
        .await?;
    let assistant_text = messages
        .iter()
        .find(|m| m.seq == seq && m.role == Role::Assistant)
        .map(|m| m.content.clone())
        .filter(|t| !t.trim().is_empty());
    let user_message = messages
        .iter()
        .rev()
        .find(|m| m.seq < seq && m.role == Role::User)
        .map(|m| m.content.clone());
    Ok(ReviewContext {
        user_message,
        assistant_text,
    })
}
