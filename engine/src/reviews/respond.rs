//! Reviewing through a link: opening the page, starting to fill it in,
//! responding once; and what agents read back (status and events).
//!
//! A response is an ordinary decision on the case's call, so the chat, the
//! inbox and the agent see it exactly as if it had been taken in the chat.

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::{token, CaseEvent, CaseId, CaseStatus, CaseType, ReviewCase, ReviewToken};
use crate::domain::Role;
use crate::domain::ToolCallId;
use crate::domain::{Channel, ToolCall};
use crate::domain::{Reviewer, Verdict};
use crate::engine::{Engine, EngineError};

/// Who responded when the page's `Your name` was left empty.
pub const ANONYMOUS_REVIEWER: &str = "reviewer with the link";

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
    pub fn response(&self, case_type: CaseType) -> Result<Response, EngineError> {
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
            (CaseType::Input, other) => {
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
    /// The case.
    pub case: ReviewCase,
    /// Its call.
    pub call: ToolCall,
    /// What led to it.
    pub context: ReviewContext,
}

/// The reviewer behind a link: the name they gave, or [`ANONYMOUS_REVIEWER`].
fn reviewer_named(name: Option<&str>, channel: Channel) -> Reviewer {
    Reviewer {
        name: name
            .filter(|n| !n.trim().is_empty())
            .unwrap_or(ANONYMOUS_REVIEWER)
            .to_owned(),
        channel,
    }
}

fn text_field(data: &Value, key: &str) -> Option<String> {
    data.get(key)
        .and_then(Value::as_str)
        .map(str::to_owned)
        .filter(|s| !s.trim().is_empty())
}

impl Engine {
    /// The case, if `presented` is one of its link tokens. An unknown case
    /// and a wrong token answer alike, so links cannot be probed.
    async fn verified_case(&self, id: &CaseId, presented: &str) -> Result<ReviewCase, EngineError> {
        match self.inner.store.review_case_with_tokens(id).await? {
            Some((case, hashes)) if token::matches(presented, &hashes) => Ok(case),
            _ => Err(EngineError::Forbidden),
        }
    }

    /// The case as it stands, applying its expiry first if it lapsed and the
    /// expiry pass has not reached it yet.
    async fn current(&self, case: ReviewCase) -> Result<ReviewCase, EngineError> {
        let lapsed = case
            .expires_at
            .is_some_and(|at| at <= self.inner.clock.now());
        if case.status.is_terminal() || !lapsed {
            return Ok(case);
        }
        self.expire_due().await?;
        self.inner
            .store
            .review_case(&case.id)
            .await?
            .ok_or(EngineError::NotFound("review case"))
    }

    async fn advance(&self, case: ReviewCase, to: CaseStatus) -> Result<ReviewCase, EngineError> {
        let now = self.inner.clock.now();
        match self.inner.store.advance_case(&case.id, to, now).await? {
            Some((moved, _event)) => {
                self.inner.events.case_changed(moved.id.as_str());
                Ok(moved)
            }
            None => Ok(case),
        }
    }

    /// Opens a review page: checks the token and marks the case `opened`.
    pub async fn open_review(
        &self,
        id: &CaseId,
        presented: &str,
    ) -> Result<ReviewView, EngineError> {
        let case = self.verified_case(id, presented).await?;
        let mut case = self.current(case).await?;
        if case.status == CaseStatus::Pending {
            case = self.advance(case, CaseStatus::Opened).await?;
        }
        self.view_of(case).await
    }

    /// A review page as it stands now, for keeping an open page current:
    /// checks the token like [`Engine::open_review`] but changes nothing.
    pub async fn review_view(
        &self,
        id: &CaseId,
        presented: &str,
    ) -> Result<ReviewView, EngineError> {
        let case = self.verified_case(id, presented).await?;
        let case = self.current(case).await?;
        self.view_of(case).await
    }

    /// The case with its call and what led to it.
    async fn view_of(&self, case: ReviewCase) -> Result<ReviewView, EngineError> {
        let call = self
            .inner
            .store
            .tool_call(&case.tool_call_id)
            .await?
            .ok_or(EngineError::NotFound("tool call"))?;
        let context = self.context_of(&call).await?;
        Ok(ReviewView {
            case,
            call,
            context,
        })
    }

    /// Marks the case `in_progress`: someone started filling in the page.
    pub async fn touch_review(
        &self,
        id: &CaseId,
        presented: &str,
    ) -> Result<ReviewCase, EngineError> {
        let case = self.verified_case(id, presented).await?;
        let mut case = self.current(case).await?;
        if case.status == CaseStatus::Pending {
            case = self.advance(case, CaseStatus::Opened).await?;
        }
        if case.status == CaseStatus::Opened {
            case = self.advance(case, CaseStatus::InProgress).await?;
        }
        Ok(case)
    }

    /// Responds to a case through its link, once: a second response gets
    /// [`EngineError::AlreadyDecided`], a lapsed case [`EngineError::Expired`].
    pub async fn respond_review(
        &self,
        id: &CaseId,
        presented: &str,
        submission: Submission,
        channel: Channel,
    ) -> Result<ReviewCase, EngineError> {
        let case = self.still_open(id, presented).await?;
        let reviewer = reviewer_named(submission.responded_by.as_deref(), channel);
        let (_call, closed) = match submission.response(case.case_type)? {
            Response::Decide(verdict) => {
                let question = case.case_type == CaseType::Input;
                self.decide_known(&case.tool_call_id, verdict, &reviewer, Some(question))
                    .await?
            }
            Response::Answer(answer) => {
                self.answer_closing(&case.tool_call_id, &answer, &reviewer)
                    .await?
            }
        };
        self.closed_case(closed, &case.id).await
    }

    /// Withdraws a case through its link: the reviewer declines to decide
    /// ("Human clicks cancel"). The call does not run, the case ends
    /// `cancelled` with `reason`, its agent is told as it is of any
    /// response, and the chat's model reads it as a rejection. Once only,
    /// like a response.
    pub async fn cancel_review(
        &self,
        id: &CaseId,
        presented: &str,
        reason: Option<String>,
        responded_by: Option<&str>,
        channel: Channel,
    ) -> Result<ReviewCase, EngineError> {
        let case = self.still_open(id, presented).await?;
        let reviewer = reviewer_named(responded_by, channel);
        let (_call, closed) = self
            .decide_known(
                &case.tool_call_id,
                Verdict::Cancel { reason },
                &reviewer,
                None,
            )
            .await?;
        self.closed_case(closed, &case.id).await
    }

    /// The case behind a link, if it still takes a response.
    async fn still_open(&self, id: &CaseId, presented: &str) -> Result<ReviewCase, EngineError> {
        let case = self.verified_case(id, presented).await?;
        let case = self.current(case).await?;
        match case.status {
            CaseStatus::Expired => Err(EngineError::Expired {
                at: case.expired_at.unwrap_or(case.created_at),
            }),
            CaseStatus::Completed | CaseStatus::Cancelled => {
                let call = self
                    .inner
                    .store
                    .tool_call(&case.tool_call_id)
                    .await?
                    .ok_or(EngineError::NotFound("tool call"))?;
                Err(EngineError::already_decided(call))
            }
            _ => Ok(case),
        }
    }

    /// The case a response closed, as the response's transaction stored it;
    /// read again only if that did not close it.
    async fn closed_case(
        &self,
        closed: Option<ReviewCase>,
        id: &CaseId,
    ) -> Result<ReviewCase, EngineError> {
        match closed {
            Some(case) if case.id == *id => Ok(case),
            _ => self
                .inner
                .store
                .review_case(id)
                .await?
                .ok_or(EngineError::NotFound("review case")),
        }
    }

    /// A case as its agent polls it. A gateway case is visible only to the
    /// API client that created it.
    pub async fn review_status(
        &self,
        id: &CaseId,
        client: Option<&str>,
    ) -> Result<ReviewCase, EngineError> {
        let case = self
            .inner
            .store
            .review_case(id)
            .await?
            .ok_or(EngineError::NotFound("review case"))?;
        if case.requester.client.is_some() && case.requester.client.as_deref() != client {
            return Err(EngineError::NotFound("review case"));
        }
        self.current(case).await
    }

    /// A case's events after position `seq`.
    pub async fn review_events_after(
        &self,
        id: &CaseId,
        seq: i64,
    ) -> Result<Vec<CaseEvent>, EngineError> {
        Ok(self.inner.store.case_events_after(id, seq).await?)
    }

    /// A new review link for a waiting call: its case and a fresh token.
    /// Earlier links stay valid, so a link can be handed to several people.
    pub async fn review_link(
        &self,
        call_id: &ToolCallId,
    ) -> Result<(CaseId, ReviewToken), EngineError> {
        let case = self
            .inner
            .store
            .case_for_call(call_id)
            .await?
            .ok_or(EngineError::NotFound("review case"))?;
        let token = ReviewToken::mint();
        self.inner
            .store
            .add_case_token(&case.id, &token.hash(), self.inner.clock.now())
            .await?;
        Ok((case.id, token))
    }

    /// The person's last message before the call and the agent's text with it.
    async fn context_of(&self, call: &ToolCall) -> Result<ReviewContext, EngineError> {
        let Some(seq) = call.message_seq else {
            return Ok(ReviewContext::default());
        };
        let messages = self
            .inner
            .store
            .recent_messages(&call.conversation_id, CONTEXT_WINDOW)
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
}
