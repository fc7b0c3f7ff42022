//! A typed question's answer form on the review page, posted as a plain
//! HTML form (it works without JavaScript): the answer, a move between the
//! steps of a form, or a withdrawal. An answer that fits is recorded; one
//! that does not comes back with what was entered and each problem beside
//! its field. A form in steps moves with Back and Next, each step checked
//! before the next, everything entered carried along and kept with the
//! case (but a sensitive field's value), so the page can be closed and
//! taken up again.

use serde_json::Value;

use super::drafts::save_draft;
use super::respond::{cancel_review, respond_review, review_view, Submission};
use crate::core::Core;
use crate::domain::form::check::input_name;
use crate::domain::{Actor, CaseId, Channel, FieldProblem, Form, ReviewShape};
use crate::error::EngineError;

/// Where a post to a question's form leads.
#[derive(Debug, Clone, PartialEq)]
pub enum AnswerPage {
    /// To the link's page, which shows where the case stands: answered,
    /// withdrawn, or why nothing could be (a wrong link, a case over, not a
    /// typed question).
    Settled,
    /// To the form drawn again at `step`, with `values` as entered (a
    /// sensitive field of that step left to be typed again) and `problems`.
    Again {
        values: Vec<(String, String)>,
        problems: Vec<FieldProblem>,
        step: usize,
    },
}

/// Takes what the review page's question form posted (`posted`: its inputs
/// by name, in order) for the case behind the link, on channel `review_page`.
pub(crate) async fn answer_on_page(
    core: &Core,
    id: &CaseId,
    presented: &str,
    posted: &[(String, String)],
    by: Option<&Actor>,
) -> AnswerPage {
    let name = said(posted, "name");
    let channel = Channel::ReviewPage;
    if first(posted, "withdraw").is_some() {
        let reason = said(posted, "withdraw_reason");
        let withdrawn = cancel_review(core, id, presented, reason, name.as_deref(), channel, by);
        return match withdrawn.await {
            Err(EngineError::Invalid { field, message }) => {
                again(posted, vec![FieldProblem::new(field, message)], 0, None)
            }
            _ => AnswerPage::Settled,
        };
    }
    let Ok(view) = review_view(core, id, presented, by).await else {
        return AnswerPage::Settled;
    };
    let Some(Ok(shape)) = ReviewShape::asked_by(&view.call) else {
        return AnswerPage::Settled;
    };
    let step: usize = first(posted, "step")
        .and_then(|s| s.parse().ok())
        .unwrap_or(0);
    if let (ReviewShape::Input { form }, Some(go)) = (&shape, first(posted, "go")) {
        let last = form.steps.len().saturating_sub(1);
        let step = step.min(last);
        // This step's fields must fit before the next one shows.
        let here = match go.as_str() {
            "back" => Vec::new(),
            _ => problems_of_step(form, posted, step),
        };
        let to = match (go.as_str(), here.is_empty()) {
            ("back", _) => step.saturating_sub(1),
            (_, true) => (step + 1).min(last),
            (_, false) => step,
        };
        // What was entered is kept with the case, for the page to be taken
        // up again later through the same link.
        return match save_draft(core, id, presented, posted, to, by).await {
            Err(EngineError::Expired { .. } | EngineError::AlreadyDecided { .. }) => {
                AnswerPage::Settled
            }
            Err(e) => {
                tracing::warn!(case = %id, error = %e, "cannot keep a form's draft");
                again(posted, here, to, Some(&shape))
            }
            Ok(_) => again(posted, here, to, Some(&shape)),
        };
    }
    let submission = Submission {
        action: first(posted, "action").unwrap_or_default(),
        data: shape.read_posted(posted),
        responded_by: name,
    };
    match respond_review(core, id, presented, submission, channel, by).await {
        Err(EngineError::InvalidFields(problems)) => {
            // The form opens at the first step with a problem.
            let step = match &shape {
                ReviewShape::Input { form } => first_step_with(form, &problems).unwrap_or(step),
                _ => 0,
            };
            again(posted, problems, step, Some(&shape))
        }
        Err(EngineError::Invalid { field, message }) => {
            let problems = vec![FieldProblem::new(field, message)];
            again(posted, problems, step, Some(&shape))
        }
        _ => AnswerPage::Settled,
    }
}

fn first(posted: &[(String, String)], name: &str) -> Option<String> {
    posted
        .iter()
        .find(|(n, _)| n == name)
        .map(|(_, v)| v.clone())
}

fn said(posted: &[(String, String)], name: &str) -> Option<String> {
    first(posted, name).filter(|v| !v.trim().is_empty())
}

/// Whether `problem` is about `field` of the form (`data.<key>`).
fn about(problem: &FieldProblem, key: &str) -> bool {
    problem.field == format!("data.{key}")
}

fn first_step_with(form: &Form, problems: &[FieldProblem]) -> Option<usize> {
    form.steps.iter().position(|s| {
        s.fields
            .iter()
            .any(|f| problems.iter().any(|p| about(p, &f.key)))
    })
}

/// The problems of what was posted for the fields of `step`.
fn problems_of_step(form: &Form, posted: &[(String, String)], step: usize) -> Vec<FieldProblem> {
    let data = Value::Object(form.read_posted(posted));
    form.check(&data)
        .err()
        .unwrap_or_default()
        .into_iter()
        .filter(|p| form.steps[step].fields.iter().any(|f| about(p, &f.key)))
        .collect()
}

/// The form drawn again at `step`. The sensitive fields of the step shown
/// are left empty, to be typed again; other steps' values travel along,
/// hidden, to the last one.
fn again(
    posted: &[(String, String)],
    problems: Vec<FieldProblem>,
    step: usize,
    shape: Option<&ReviewShape>,
) -> AnswerPage {
    let typed_again: Vec<String> = match shape {
        Some(ReviewShape::Input { form }) => form.steps.get(step).map_or_else(Vec::new, |s| {
            s.fields
                .iter()
                .filter(|f| f.sensitive)
                .map(|f| input_name(&f.key))
                .collect()
        }),
        _ => Vec::new(),
    };
    let values = posted
        .iter()
        .filter(|(n, _)| !matches!(n.as_str(), "token" | "step" | "go" | "action"))
        .filter(|(n, _)| !typed_again.contains(n))
        .cloned()
        .collect();
    AnswerPage::Again {
        values,
        problems,
        step,
    }
}
