//! The bar above the composer when several calls wait: "3 tool calls
//! waiting for approval" with Approve all and Reject all (one optional reason).

use leptos::prelude::*;

use crate::error::AppError;
use crate::server_fns::approvals::{ApproveAll, RejectAll};
use crate::ui::chat::live::LiveChat;
use crate::ui::common::reveal::Reveal;
use crate::wire::ToolCallItem;

/// Shown while two or more calls of the conversation wait for approval.
#[component]
pub fn PendingBar(conversation_id: String, live: LiveChat) -> impl IntoView {
    let approve = ServerAction::<ApproveAll>::new();
    let reject = ServerAction::<RejectAll>::new();
    Effect::new(move |_| {
        for outcome in [approve.value().get(), reject.value().get()] {
            if let Some(Ok(calls)) = outcome {
                calls.into_iter().for_each(|c| live.put_call(c));
            }
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
    let busy = Signal::derive(move || approve.pending().get() || reject.pending().get());
    let problem = move || {
        [approve.value().get(), reject.value().get()]
            .into_iter()
            .flatten()
            .find_map(|v: Result<Vec<ToolCallItem>, AppError>| v.err())
            .map(|e| e.to_string())
    };
    let reject_id = conversation_id.clone();
    // Hidden rather than unmounted, so its forms exist before hydration too.
    view! {
            <section class="pending-bar" aria-label="Pending approvals" hidden=move || { waiting.get() < 2 }>
                <p class="pending-count">{move || format!("{} tool calls waiting for approval", waiting.get())}</p>
                <div class="pending-actions">
                    <ActionForm action=approve>
                        <input type="hidden" name="conversation_id" value=conversation_id.clone()/>
                        <button type="submit" class="button primary" disabled=busy>"Approve all"</button>
                    </ActionForm>
                    <Reveal label="Reject all" class="danger" disabled=busy>
                        <ActionForm action=reject>
                            <input type="hidden" name="conversation_id" value=reject_id/>
                            <input type="text" name="reason" aria-label="Reason for rejecting all" placeholder="Reason (optional)" maxlength="2000"/>
                            <button type="submit" class="button danger" disabled=busy>"Confirm reject all"</button>
                        </ActionForm>
                    </Reveal>
                </div>
                {move || problem().map(|text| view! { <p class="form-error" role="alert">{text}</p> })}
            </section>
    }
}
