//! "3 tool calls waiting for approval" with Approve all and Reject all (one
//! optional reason): above the chat's composer, and on each conversation's
//! calls in the inbox.

use leptos::prelude::*;

use crate::server_fns::approvals::{ApproveAll, RejectAll};
use crate::ui::common::post_form::{Post, PostForm};
use crate::ui::common::reveal::Reveal;
use crate::wire::{Deciding, ToolCallItem};

/// How many of `calls` Approve all would decide: the agent's questions
/// need an answer, not an approval. None when `deciding` may not approve
/// them all, since Approve all decides all of them or none.
pub fn approvable<'a>(
    calls: impl IntoIterator<Item = &'a ToolCallItem> + Clone,
    deciding: &Deciding,
) -> usize {
    if !deciding.may_approve_all(calls.clone()) {
        return 0;
    }
    calls
        .into_iter()
        .filter(|c| c.can_decide() && !c.is_question())
        .count()
}

/// Shown while two or more calls of the conversation wait for approval
/// (`waiting`, counted once per change of the calls); each call it decides
/// goes to `on_decided`. `label` names the region.
#[component]
pub fn PendingBar(
    conversation_id: String,
    waiting: Memo<usize>,
    on_decided: Callback<ToolCallItem>,
    #[prop(into)] label: Signal<String>,
) -> impl IntoView {
    // Both forms answer with the calls they decided.
    let decide = Post::<Vec<ToolCallItem>>::new();
    Effect::new(move |_| {
        if let Some(Ok(calls)) = decide.value().get() {
            calls.into_iter().for_each(|c| on_decided.run(c));
        }
    });
    let busy: Signal<bool> = decide.pending().into();
    let problem = move || match decide.value().get() {
        Some(Err(e)) => Some(e.to_string()),
        _ => None,
    };
    let reject_id = conversation_id.clone();
    // Hidden rather than unmounted, so its forms exist before hydration too.
    view! {
            <section class="pending-bar" aria-label=label hidden=move || { waiting.get() < 2 }>
                <p class="pending-count">{move || waiting_words(waiting.get())}</p>
                <div class="pending-actions">
                    <PostForm to={decide.to::<ApproveAll>()}>
                        <input type="hidden" name="conversation_id" value=conversation_id.clone()/>
                        <button type="submit" class="button primary" disabled=busy>"Approve all"</button>
                    </PostForm>
                    <Reveal label="Reject all" class="danger" disabled=busy>
                        <PostForm to={decide.to::<RejectAll>()}>
                            <input type="hidden" name="conversation_id" value=reject_id/>
                            <input type="text" name="reason" aria-label="Reason for rejecting all" placeholder="Reason (optional)" maxlength="2000"/>
                            <button type="submit" class="button danger" disabled=busy>"Confirm reject all"</button>
                        </PostForm>
                    </Reveal>
                </div>
                {move || problem().map(|text| view! { <p class="form-error" role="alert">{text}</p> })}
            </section>
    }
}

/// "1 tool call waiting for approval", "3 tool calls waiting for approval".
fn waiting_words(count: usize) -> String {
    match count {
        1 => "1 tool call waiting for approval".to_owned(),
        n => format!("{n} tool calls waiting for approval"),
    }
}

#[cfg(test)]
mod tests {
    use super::waiting_words;

    #[test]
    fn one_call_is_one_call() {
        assert_eq!(waiting_words(1), "1 tool call waiting for approval");
        assert_eq!(waiting_words(3), "3 tool calls waiting for approval");
    }
}
