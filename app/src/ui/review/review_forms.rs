//! The response to a case: `Your name`, then Approve, Reject (with a
//! reason) or Edit arguments; or, for a question, an answer. One plain form
//! posting to `respond_review`, so it works without JavaScript; once
//! hydrated, the first interaction marks the case in progress and the page
//! takes the answer without a reload.

use leptos::prelude::*;

use super::answer_form::AnswerForm;
use super::passkey_approve::ReviewPasskeyApprove;
use super::withdraw::Withdraw;
use super::ReviewAccess;
use crate::error::AppError;
use crate::ui::common::arguments_editor::ArgumentsEditor;
use crate::ui::common::post_form::{Post, PostForm, PostTarget};
use crate::ui::common::reveal::Reveal;
use crate::wire::{AnswerDraft, ReviewItem};

/// The response forms of an open case.
#[component]
pub fn ReviewForms(
    item: ReviewItem,
    access: ReviewAccess,
    /// The page's one response, which also holds the outcome of a
    /// response posted without JavaScript.
    respond: Post<ReviewItem>,
    /// Where the form posts: `respond_review`.
    to: PostTarget,
    on_reviewed: Callback<ReviewItem>,
    /// Told when someone else answered first, before the page shows their answer.
    on_conflict: Callback<String>,
    /// A typed question's answer as posted, when it did not fit.
    draft: Option<AnswerDraft>,
) -> impl IntoView {
    // A typed question has a form of its own, posted as a plain form.
    if let Some(asked) = item.asked.clone() {
        return view! {
            <div class="review-forms">
                <AnswerForm asked access draft/>
            </div>
        }
        .into_any();
    }
    let touched = StoredValue::new(false);
    let touch_access = StoredValue::new(access.clone());
    let on_touch = move || {
        if !touched.get_value() {
            touched.set_value(true);
            let access = touch_access.get_value();
            // Only a browser interacts.
            #[cfg(feature = "hydrate")]
            leptos::task::spawn_local(async move {
                use crate::server_fns::reviews::TouchReview;
                use leptos::server_fn::ServerFn;
                let fields = [("case_id", &*access.case_id), ("token", &*access.token)];
                // Best effort: the response itself still counts if this fails.
                let _ = crate::browser::post::call::<()>(TouchReview::PATH, &fields).await;
            });
            #[cfg(not(feature = "hydrate"))]
            let _ = access;
        }
    };
    Effect::new(move |_| match respond.value().get() {
        Some(Ok(item)) => {
            // Someone else answered first: the page as they left it.
            if let Some(by) = &item.decided_first_by {
                on_conflict.run(format!("Already decided by {by}"));
            }
            on_reviewed.run(item);
        }
        // The same, told by the address of a plain post's page.
        Some(Err(AppError::AlreadyDecided { by, .. })) => {
            on_conflict.run(format!("Already decided by {by}"));
        }
        _ => {}
    });
    let busy: Signal<bool> = respond.pending().into();
    // A lost race is told by the page (`on_conflict`), which outlives these forms.
    let problem = move || match respond.value().get() {
        Some(Err(AppError::AlreadyDecided { .. })) => None,
        Some(Err(e)) => Some(e.to_string()),
        _ => None,
    };
    let actions = if item.is_input() {
        input_actions(&item, busy).into_any()
    } else if item.call.step_up {
        // A passkey approves it, or nothing does: no edit, no plain Approve.
        let call_id = item.call.id.clone();
        view! {
            // Enter in a text field does nothing, rather than reject.
            <button type="submit" disabled hidden aria-hidden="true" tabindex="-1"></button>
            <div class="decide">
                <ReviewPasskeyApprove call_id access=access.clone() on_reviewed busy/>
                <Reveal label="Reject" class="danger" disabled=busy>
                    <input type="text" name="reason" aria-label="Reason" placeholder="Reason (optional)" maxlength="2000"/>
                    <button type="submit" name="action" value="reject" class="button danger" disabled=busy>"Confirm reject"</button>
                </Reveal>
                <Withdraw busy/>
            </div>
        }
        .into_any()
    } else {
        approval_actions(&item, busy).into_any()
    };
    view! {
        <div class="review-forms" on:focusin=move |_| on_touch() on:click=move |_| on_touch()>
            <PostForm to class="review-form">
                <input type="hidden" name="case_id" value=access.case_id.clone()/>
                <input type="hidden" name="token" value=access.token.clone()/>
                <label class="field">
                    <span class="field-label">"Your name"</span>
                    <input type="text" name="name" autocomplete="name" maxlength="200" placeholder="Optional"/>
                </label>
                {actions}
            </PostForm>
            {move || problem().map(|text| view! { <p class="form-error" role="alert">{text}</p> })}
        </div>
    }
    .into_any()
}

fn approval_actions(item: &ReviewItem, busy: Signal<bool>) -> impl IntoView {
    let arguments = item.call.arguments_text();
    // A remote agent runs its own arguments: an edit here would not reach it.
    let editable = !item.call.runs_remotely();
    view! {
        // Enter in a text field submits the form's first button; a disabled
        // one here makes Enter in the reason do nothing instead of approving.
        <button type="submit" disabled hidden aria-hidden="true" tabindex="-1"></button>
        <div class="decide">
            <button type="submit" name="action" value="approve" class="button primary" disabled=busy>"Approve"</button>
            <Reveal label="Reject" class="danger" disabled=busy>
                <input type="text" name="reason" aria-label="Reason" placeholder="Reason (optional)" maxlength="2000"/>
                <button type="submit" name="action" value="reject" class="button danger" disabled=busy>"Confirm reject"</button>
            </Reveal>
            {editable.then(|| view! {
                <Reveal label="Edit arguments" disabled=busy>
                    <ArgumentsEditor initial=arguments busy action="edit"/>
                </Reveal>
            })}
            <Withdraw busy/>
        </div>
    }
}

fn input_actions(item: &ReviewItem, busy: Signal<bool>) -> impl IntoView {
    let choices = item
        .call
        .choices()
        .into_iter()
        .map(|choice| {
            view! {
                <button type="submit" name="choice" value=choice.clone() class="button" disabled=busy>{choice.clone()}</button>
            }
        })
        .collect_view();
    view! {
        // Enter in the answer sends it, not the first offered choice.
        <button type="submit" hidden aria-hidden="true" tabindex="-1"></button>
        <input type="hidden" name="action" value="submit"/>
        <div class="decide">
            {choices}
            <div class="reject-row">
                <input type="text" name="answer" aria-label="Answer" placeholder="Your answer" maxlength="2000"/>
                <button type="submit" class="button primary" disabled=busy>"Send answer"</button>
            </div>
            <Withdraw busy/>
        </div>
    }
}
