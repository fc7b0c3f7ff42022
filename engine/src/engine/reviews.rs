//! The façade's methods for review pages and their cases (see
//! `reviews/respond.rs`).

use crate::domain::{
    Actor, CaseEvent, CaseId, Channel, FormProgress, ReviewCase, ReviewToken, ToolCallId,
};
use crate::error::EngineError;
use crate::reviews::slack_app::{interaction, Pressed, SlackApp, SlackRefusal, SlackRequest};
use crate::reviews::{
    answer_page, drafts, page, respond, AnswerPage, PageForm, ReviewView, Submission,
};
use crate::Engine;

impl Engine {
    /// Opens a review page: checks the token and marks the case `opened`.
    /// `by` is the signed-in person holding the link, if any: a call whose
    /// policy says `review_link: sign_in` opens only for one who may
    /// decide it, and a response through such a link is theirs.
    pub async fn open_review(
        &self,
        id: &CaseId,
        presented: &str,
        by: Option<&Actor>,
    ) -> Result<ReviewView, EngineError> {
        respond::open_review(&self.core, id, presented, by).await
    }

    /// A review page as it stands now, for keeping an open page current:
    /// checks the token like [`Engine::open_review`] but changes nothing.
    pub async fn review_view(
        &self,
        id: &CaseId,
        presented: &str,
        by: Option<&Actor>,
    ) -> Result<ReviewView, EngineError> {
        respond::review_view(&self.core, id, presented, by).await
    }

    /// Marks the case `in_progress`: someone started filling in the page.
    pub async fn touch_review(
        &self,
        id: &CaseId,
        presented: &str,
        by: Option<&Actor>,
    ) -> Result<ReviewCase, EngineError> {
        respond::touch_review(&self.core, id, presented, by).await
    }

    /// Responds to a case through its link, once: a second response gets
    /// [`EngineError::AlreadyDecided`], a lapsed case [`EngineError::Expired`].
    pub async fn respond_review(
        &self,
        id: &CaseId,
        presented: &str,
        submission: Submission,
        channel: Channel,
        by: Option<&Actor>,
    ) -> Result<ReviewCase, EngineError> {
        respond::respond_review(&self.core, id, presented, submission, channel, by).await
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
        by: Option<&Actor>,
    ) -> Result<ReviewCase, EngineError> {
        let core = &self.core;
        respond::cancel_review(core, id, presented, reason, responded_by, channel, by).await
    }

    /// Responds to, or withdraws, a case from its review page, once; the
    /// page as it then stands.
    pub async fn respond_on_page(
        &self,
        id: &CaseId,
        presented: &str,
        form: PageForm,
        by: Option<&Actor>,
    ) -> Result<ReviewView, EngineError> {
        page::respond_on_page(&self.core, id, presented, form, by).await
    }

    /// Withdraws a case for the API client that asked it, which no longer
    /// waits for the answer: the call does not run, the case ends
    /// `cancelled` with `reason`. Once only, like a response.
    pub async fn withdraw_review(
        &self,
        id: &CaseId,
        client: &str,
        reason: Option<String>,
    ) -> Result<ReviewCase, EngineError> {
        respond::withdraw_review(&self.core, id, client, reason).await
    }

    /// A case as its agent polls it. A gateway case is visible only to the
    /// API client that created it.
    pub async fn review_status(
        &self,
        id: &CaseId,
        client: Option<&str>,
    ) -> Result<ReviewCase, EngineError> {
        respond::review_status(&self.core, id, client).await
    }

    /// How far a case's form of several steps has come while it is being
    /// filled in, for its poll's `progress`.
    pub async fn review_progress(
        &self,
        case: &ReviewCase,
    ) -> Result<Option<FormProgress>, EngineError> {
        drafts::progress(&self.core, case).await
    }

    /// Takes what a typed question's form on the review page posted (its
    /// inputs by name, in order): the answer, a move between the steps of
    /// a form (what was entered kept with the case), or a withdrawal.
    pub async fn answer_on_page(
        &self,
        id: &CaseId,
        presented: &str,
        posted: &[(String, String)],
        by: Option<&Actor>,
    ) -> AnswerPage {
        answer_page::answer_on_page(&self.core, id, presented, posted, by).await
    }

    /// A case's events after position `seq`.
    pub async fn review_events_after(
        &self,
        id: &CaseId,
        seq: i64,
    ) -> Result<Vec<CaseEvent>, EngineError> {
        respond::review_events_after(&self.core, id, seq).await
    }

    /// A new review link for a waiting call: its case and a fresh token.
    /// Earlier links stay valid, so a link can be handed to several people.
    /// A link approves, so `by`, the signed-in person asking, must be
    /// someone who may approve the call.
    pub async fn review_link(
        &self,
        call_id: &ToolCallId,
        by: Option<&Actor>,
    ) -> Result<(CaseId, ReviewToken), EngineError> {
        respond::review_link(&self.core, call_id, by).await
    }

    /// Takes a press in a chat app an agent relays with a case's submit
    /// token (HITL inline submit), once.
    pub async fn submit_inline(
        &self,
        id: &CaseId,
        submit_token: &str,
        submission: crate::reviews::inline::InlineSubmission,
    ) -> Result<ReviewCase, EngineError> {
        crate::reviews::inline::submit_inline(&self.core, id, submit_token, submission).await
    }

    /// Takes a press of Approve or Reject on a Slack message: checks that
    /// Slack sent it, decides as the person who pressed, and answers in
    /// Slack (see `reviews/slack_app.rs`).
    pub async fn slack_interaction(
        &self,
        app: &SlackApp,
        request: SlackRequest<'_>,
    ) -> Result<Pressed, SlackRefusal> {
        interaction(&self.core, app, request).await
    }
}
