//! The agent's question (`request_human_input`): the question, a button per
//! offered choice, and a free-text answer; a typed question's buttons (one
//! press each) or its form, when the card can hold it.

use leptos::prelude::*;

use super::copy_link::CopyLink;
use super::inline_answer::{AnswerOnItsPage, InlineAnswer};
use crate::error::AppError;
use crate::server_fns::approvals::{AnswerAsked, AnswerQuestion};
use crate::ui::common::post_form::{Post, PostForm};
use crate::wire::{MayDo, ToolCallItem};

/// A question card, named "Question from the agent".
#[component]
pub fn QuestionCard(
    call: ToolCallItem,
    on_decided: Callback<ToolCallItem>,
    /// Replaces the answer form (the review page brings its own).
    actions: Option<ViewFn>,
) -> impl IntoView {
    let answer = Post::<ToolCallItem>::new();
    Effect::new(move |_| {
        if let Some(Ok(call)) = answer.value().get() {
            on_decided.run(call);
        }
    });
    let busy = move || answer.pending().get();
    let problem = move || match answer.value().get() {
        Some(Err(AppError::AlreadyDecided { by, .. })) => Some(format!("Already answered by {by}")),
        // Each problem is beside its field too.
        Some(Err(e @ AppError::InvalidFields { .. })) => {
            Some(format!("The answer was not sent: {e}"))
        }
        Some(Err(e)) => Some(e.to_string()),
        _ => None,
    };
    let status = call.status.clone();
    let pending = call.can_decide();
    let outcome = match (call.answer(), call.decision_text()) {
        (Some(text), _) => Some(format!(
            "Answered by {}: {text}",
            call.decision
                .as_ref()
                .map(|d| d.by.as_str())
                .unwrap_or("a person")
        )),
        (None, decided) => decided,
    };
    // What else the answer said: feedback, edits, changed parameters.
    let notes = call.answer_notes();
    let choices = call
        .choices()
        .into_iter()
        .map(|choice| {
            let id = call.id.clone();
            view! {
                <PostForm to={answer.to::<AnswerQuestion>()}>
                    <input type="hidden" name="call_id" value=id/>
                    <input type="hidden" name="answer" value=choice.clone()/>
                    <button type="submit" class="button" disabled=busy>{choice}</button>
                </PostForm>
            }
        })
        .collect_view();
    let answer_id = call.id.clone();
    let link_id = call.id.clone();
    let asked = call.asked_type();
    let presses = call.one_press_answers();
    let pressed_id = call.id.clone();
    // Someone who may not answer sees whom it waits for, and no form.
    let waiting_for = match super::deciding().may_do(&call) {
        MayDo::Wait(note) => Some(note),
        _ => None,
    };
    // Someone who may not answer is not asked for their answer.
    let badge = match (pending, waiting_for.is_some()) {
        (true, false) => "Waiting for your answer",
        (true, true) => "Waiting for an answer",
        (false, _) => call.status_label(),
    };
    let form = pending.then(move || match (actions, asked, waiting_for) {
        (Some(actions), _, _) => actions.run(),
        (None, _, Some(note)) => view! { <p class="tool-waiting">{note}</p> }.into_any(),
        // A typed question is answered with one press here when it can
        // be, and on its review page, with its whole form, always.
        (None, Some(asked), None) => view! {
            <div class="decide">
                {if presses.is_empty() {
                    // The form under the card, or its page when the card cannot hold it.
                    let elsewhere = format!("Answered on its review page, with {}.", asked_form(&asked));
                    view! { <InlineAnswer call_id=pressed_id.clone() answer elsewhere/> }.into_any()
                } else {
                    let presses = presses.into_iter().map(|(label, action, choice)| {
                        let id = pressed_id.clone();
                        view! {
                            <PostForm to={answer.to::<AnswerAsked>()}>
                                <input type="hidden" name="call_id" value=id/>
                                <input type="hidden" name="action" value=action/>
                                {choice.map(|c| view! { <input type="hidden" name="choice" value=c/> })}
                                <button type="submit" class="button" disabled=busy>{label}</button>
                            </PostForm>
                        }
                    }).collect_view();
                    // The page is the second way, with the whole form.
                    view! { {presses} <AnswerOnItsPage call_id=link_id.clone() first=false/> }.into_any()
                }}
                <CopyLink call_id=link_id/>
                {move || problem().map(|text| view! { <p class="form-error" role="alert">{text}</p> })}
            </div>
        }
        .into_any(),
        (None, None, None) => view! {
            <div class="decide">
                {choices}
                <PostForm to={answer.to::<AnswerQuestion>()}>
                    <input type="hidden" name="call_id" value=answer_id/>
                    <div class="reject-row">
                        <input type="text" name="answer" aria-label="Answer" placeholder="Your answer" maxlength="2000" required/>
                        <button type="submit" class="button primary" disabled=busy>"Send answer"</button>
                    </div>
                </PostForm>
                <CopyLink call_id=link_id/>
                {move || problem().map(|text| view! { <p class="form-error" role="alert">{text}</p> })}
            </div>
        }
        .into_any(),
    });
    view! {
        <article class="tool-card question-card" aria-label="Question from the agent" data-status=status.clone()>
            <header class="tool-card-head">
                <span class="tool-name">"Question"</span>
                <span class=format!("status-badge status-{status}")>
                    {badge}
                </span>
            </header>
            <p class="question-text">{call.question()}</p>
            {outcome.map(|o| view! { <p class="tool-decision">{o}</p> })}
            {(!notes.is_empty()).then(|| view! {
                <dl class="answer-notes">
                    {notes.into_iter().map(|(label, text)| view! { <dt>{label}</dt> <dd>{text}</dd> }).collect_view()}
                </dl>
            })}
            {form}
        </article>
    }
}

/// What a typed question's page asks for, in words.
fn asked_form(asked: &str) -> &'static str {
    match asked {
        "selection" => "a choice among options",
        "confirmation" => "Confirm or Cancel",
        "escalation" => "Retry, Skip or Abort",
        "approval" => "Approve, Request changes or Reject",
        _ => "a form",
    }
}
