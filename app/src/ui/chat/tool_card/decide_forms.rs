//! Approve and Reject for a pending call. Both are forms that post to server
//! functions, so they work before hydration; once hydrated, the card takes
//! the answer (or the winner, after a lost race) without a reload.

use leptos::prelude::*;

use crate::error::AppError;
use crate::server_fns::approvals::{ApproveCall, RejectCall};
use crate::ui::chat::live::LiveChat;

/// The decision forms of one pending call.
#[component]
pub fn DecideForms(call_id: String, live: LiveChat) -> impl IntoView {
    let approve = ServerAction::<ApproveCall>::new();
    let reject = ServerAction::<RejectCall>::new();
    Effect::new(move |_| {
        let answers = [approve.value().get(), reject.value().get()];
        for call in answers.into_iter().flatten().flatten() {
            live.put_call(call);
        }
    });
    let busy = move || approve.pending().get() || reject.pending().get();
    let conflict = move || {
        [approve.value().get(), reject.value().get()]
            .into_iter()
            .flatten()
            .find_map(|v| match v {
                Err(AppError::AlreadyDecided { by, .. }) => {
                    Some(format!("Already decided by {by}"))
                }
                Err(e) => Some(e.to_string()),
                Ok(_) => None,
            })
    };
    let reject_id = call_id.clone();
    view! {
        <div class="decide">
            <ActionForm action=approve>
                <input type="hidden" name="call_id" value=call_id.clone()/>
                <button type="submit" class="button primary" disabled=busy>"Approve"</button>
            </ActionForm>
            <ActionForm action=reject>
                <input type="hidden" name="call_id" value=reject_id/>
                <div class="reject-row">
                    <input type="text" name="reason" aria-label="Reason" placeholder="Reason (optional)" maxlength="2000"/>
                    <button type="submit" class="button danger" disabled=busy>"Reject"</button>
                </div>
            </ActionForm>
            {move || conflict().map(|text| view! { <p class="form-error" role="alert">{text}</p> })}
        </div>
    }
}
