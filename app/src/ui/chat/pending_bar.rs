//! The bar above the composer when several calls wait: "3 tool calls
//! waiting for approval" with Approve all and Reject all (one optional reason).

use leptos::prelude::*;

use crate::server_fns::approvals::{ApproveAll, RejectAll};
use crate::ui::chat::live::LiveChat;
use crate::ui::common::post_form::{Post, PostForm};
use crate::ui::common::reveal::Reveal;
use crate::wire::ToolCallItem;

/// Shown while two or more calls of the conversation wait for approval.
#[component]
pub fn PendingBar(conversation_id: String, live: LiveChat) -> impl IntoView {
    // Both forms answer with the calls they decided.
    let decide = Post::<Vec<ToolCallItem>>::new();
    Effect::new(move |_| {
        if let Some(Ok(calls)) = decide.value().get() {
            calls.into_iter().for_each(|c| live.put_call(c));
        }
    });
    // Counted once per change of the calls, read by the count and by `hidden`.
    let waiting = Memo::new(move |_| {
        live.calls
            .read()
            .iter()
            .filter(|c| c.can_decide() && !c.is_question())
            .count()
    });
    let busy: Signal<bool> = decide.pending().into();
    let problem = move || match decide.value().get() {
        Some(Err(e)) => Some(e.to_string()),
        _ => None,
    };
    let reject_id = conversation_id.clone();
    // Hidden rather than unmounted, so its forms exist before hydration too.
    view! {
            <section class="pending-bar" aria-label="Pending approvals" hidden=move || { waiting.get() < 2 }>
                <p class="pending-count">{move || format!("{} tool calls waiting for approval", waiting.get())}</p>
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
