//! The answer to a typed question: choices, items, a form (in steps, with
//! Back and Next), notes, and a button per action. One plain form posting
//! to the review link itself, so it works the same with and without
//! JavaScript; the server checks it and draws it again with each problem
//! beside its field, keeping what was entered.

use leptos::prelude::*;

use super::ReviewAccess;
use crate::ui::common::form_field::FormFieldInput;
use crate::wire::{action_label, AnswerDraft, AskedItem, ChoiceItem};

/// A typed question's answer form.
#[component]
pub fn AnswerForm(
    asked: AskedItem,
    access: ReviewAccess,
    /// What was posted before and did not fit, or the step reached.
    draft: Option<AnswerDraft>,
) -> impl IntoView {
    let posted = draft.is_some();
    let draft = draft.unwrap_or_default();
    let entered = |name: &str| -> Option<Vec<String>> {
        posted.then(|| {
            draft
                .values_of(name)
                .into_iter()
                .map(str::to_owned)
                .collect()
        })
    };
    let note = |name: &'static str, label: &'static str| {
        let value = entered(name)
            .and_then(|v| v.into_iter().next())
            .unwrap_or_default();
        let problem = draft.problem_of(name).map(str::to_owned);
        let invalid = problem.is_some().then_some("true");
        view! {
            <label class="field">
                <span class="field-label">{label}</span>
                <textarea name=name rows="3" maxlength="2000" aria-invalid=invalid>{value}</textarea>
                {problem.map(|p| view! { <p class="field-error">{p}</p> })}
            </label>
        }
    };
    let steps = asked.steps.len();
    let step = draft.step.min(steps.saturating_sub(1));
    let last_step = step + 1 >= steps;
    let body = match asked.case_type.as_str() {
        "selection" => {
            let single = asked.max == 1;
            let legend = asked.choose_words();
            let picked = entered("selected").unwrap_or_default();
            let problem = draft.problem_of("selected").map(str::to_owned);
            let invalid = problem.is_some().then_some("true");
            view! {
                <fieldset class="choices" aria-invalid=invalid>
                    <legend>{legend}</legend>
                    {choices(&asked.choices, "selected", if single { "radio" } else { "checkbox" }, |id| picked.iter().any(|p| p == id))}
                    {problem.map(|p| view! { <p class="field-error">{p}</p> })}
                </fieldset>
                {note("note", "Note (optional)")}
            }
            .into_any()
        }
        "confirmation" => {
            let ticked = entered("confirmed_items");
            let problem = draft.problem_of("confirmed_items").map(str::to_owned);
            let items = (!asked.choices.is_empty()).then(|| {
                view! {
                    <fieldset class="choices">
                        <legend>"Confirm these"</legend>
                        {choices(&asked.choices, "confirmed_items", "checkbox", |id| {
                            ticked.as_ref().is_none_or(|t| t.iter().any(|p| p == id))
                        })}
                        {problem.map(|p| view! { <p class="field-error">{p}</p> })}
                    </fieldset>
                }
            });
            view! { {items} {note("note", "Note (optional)")} }.into_any()
        }
        "approval" => view! {
            {note("feedback", "Feedback (optional; needed to request changes without edits)")}
            {note("edits", "Edits as JSON (optional)")}
        }
        .into_any(),
        "escalation" => view! {
            {note("reason", "Reason (optional)")}
            {note("modified_params", "Changed parameters as JSON (optional, for a retry)")}
        }
        .into_any(),
        _ => {
            // Fields of the other steps travel along, hidden, so nothing
            // entered is lost between steps.
            let kept = asked
                .steps
                .iter()
                .enumerate()
                .filter(|(at, _)| *at != step)
                .flat_map(|(_, s)| s.fields.iter())
                .flat_map(|f| {
                    let name = format!("f.{}", f.key);
                    draft
                        .values_of(&name)
                        .into_iter()
                        .map(|v| view! { <input type="hidden" name=name.clone() value=v.to_owned()/> })
                        .collect::<Vec<_>>()
                })
                .collect_view();
            let shown = asked.steps.get(step).cloned();
            let sensitive = asked
                .steps
                .iter()
                .flat_map(|s| &s.fields)
                .any(|f| f.sensitive);
            let progress = (steps > 1).then(|| {
                let title = shown.as_ref().and_then(|s| s.title.clone()).unwrap_or_default();
                view! {
                    <p class="form-progress" role="status">{format!("Step {} of {steps}: {title}", step + 1)}</p>
                    <p class="field-hint">{kept_note(sensitive)}</p>
                }
            });
            let fields = shown.map(|s| {
                let description = s
                    .description
                    .clone()
                    .map(|d| view! { <p class="field-hint">{d}</p> });
                let fields = s
                    .fields
                    .into_iter()
                    .map(|field| {
                        let values = entered(&format!("f.{}", field.key));
                        let problem = draft.problem_of(&field.key).map(str::to_owned);
                        view! { <FormFieldInput field values problem/> }
                    })
                    .collect_view();
                view! { {description} {fields} }
            });
            view! {
                <input type="hidden" name="step" value=step.to_string()/>
                {progress}
                {kept}
                {fields}
            }
            .into_any()
        }
    };
    let buttons = if steps > 1 && !last_step {
        view! {
            {(step > 0).then(|| view! { <button type="submit" name="go" value="back" class="button" formnovalidate>"Back"</button> })}
            <button type="submit" name="go" value="next" class="button primary">"Next"</button>
        }
        .into_any()
    } else {
        let back = (steps > 1 && step > 0).then(|| view! {
            <button type="submit" name="go" value="back" class="button" formnovalidate>"Back"</button>
        });
        let actions = asked
            .actions
            .iter()
            .enumerate()
            .map(|(at, action)| {
                let class = match (at, action.as_str()) {
                    (_, "reject" | "abort" | "cancel") => "button danger",
                    (0, _) => "button primary",
                    _ => "button",
                };
                // Only the first action needs the form filled in.
                let loose = at > 0;
                view! { <button type="submit" name="action" value=action.clone() class=class formnovalidate=loose>{action_label(action)}</button> }
            })
            .collect_view();
        view! { {back} {actions} }.into_any()
    };
    let summary = (!draft.problems.is_empty()).then(|| {
        let items = draft
            .problems
            .iter()
            .map(|(_, message)| view! { <li>{message.clone()}</li> })
            .collect_view();
        view! {
            <div class="form-error" role="alert">
                <p>"The answer was not sent:"</p>
                <ul>{items}</ul>
            </div>
        }
    });
    let details = asked
        .details
        .iter()
        .map(|d| view! { <dt>{d.label.clone()}</dt> <dd><pre class="detail-text">{d.text.clone()}</pre></dd> })
        .collect_view();
    let name = entered("name")
        .and_then(|v| v.into_iter().next())
        .unwrap_or_default();
    view! {
        {(!asked.details.is_empty()).then(|| view! { <dl class="review-details" aria-label="Details">{details}</dl> })}
        <form method="post" action=format!("/review/{}", access.case_id) class="review-form answer-form">
            <input type="hidden" name="token" value=access.token.clone()/>
            {summary}
            {body}
            <label class="field">
                <span class="field-label">"Your name"</span>
                <input type="text" name="name" autocomplete="name" maxlength="200" placeholder="Optional" value=name/>
            </label>
            <div class="decide">{buttons}</div>
            <details class="reveal">
                <summary class="button">"Withdraw"</summary>
                <p class="reveal-note">"Nobody answers, and whoever asked is told the review was withdrawn."</p>
                <input type="text" name="withdraw_reason" aria-label="Reason for withdrawing" placeholder="Reason (optional)" maxlength="2000"/>
                <button type="submit" name="withdraw" value="yes" class="button" formnovalidate>"Confirm withdraw"</button>
            </details>
        </form>
    }
}

/// What a form in steps keeps of what is entered, and for how long.
fn kept_note(sensitive: bool) -> &'static str {
    match sensitive {
        true => "What you enter is kept each time you go to another step, so you can close this page and come back to it with the same link. Sensitive fields are never kept: type them again.",
        false => "What you enter is kept each time you go to another step, so you can close this page and come back to it with the same link.",
    }
}

/// A radio or checkbox per choice, named `name`.
fn choices(
    list: &[ChoiceItem],
    name: &'static str,
    kind: &'static str,
    checked: impl Fn(&str) -> bool,
) -> impl IntoView {
    list.iter()
        .map(|choice| {
            let on = checked(&choice.id);
            view! {
                <label class="choice">
                    <input type=kind name=name value=choice.id.clone() checked=on/>
                    <span class="choice-label">{choice.label.clone()}</span>
                    {choice.description.clone().map(|d| view! { <span class="choice-description">{d}</span> })}
                </label>
            }
        })
        .collect_view()
}
