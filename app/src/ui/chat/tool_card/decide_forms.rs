//! The decisions on a pending call: Approve, Reject (with a reason), Edit
//! arguments and Always allow. Each is a form that posts to a server
//! function, so it works before hydration; once hydrated, the card takes the
//! answer (or, after a lost race, "Already decided by …" and then the
//! winner's state from the live stream) without a reload.

use leptos::prelude::*;

use super::copy_link::CopyLink;
use super::edit_form::EditForm;
use super::passkey_approve::PasskeyApprove;
use crate::error::AppError;
use crate::server_fns::approvals::{AlwaysAllowCall, ApproveCall, EditCall, RejectCall};
use crate::ui::common::post_form::{Post, PostForm};
use crate::ui::common::reveal::Reveal;
use crate::wire::ToolCallItem;

/// What a person reads after a decision that did not take.
fn problem_text(error: AppError) -> String {
    match error {
        AppError::AlreadyDecided { by, .. } => format!("Already decided by {by}"),
        other => other.to_string(),
    }
}

/// The decision forms of one pending call; only Reject when `refuse_only`
/// (the person asked for the call, and someone else must approve it, so
/// neither approves nor hands out a link that approves).
#[component]
pub fn DecideForms(
    call: ToolCallItem,
    on_decided: Callback<ToolCallItem>,
    #[prop(optional)] refuse_only: bool,
) -> impl IntoView {
    // One post for the four forms: each answers with the call as it is now.
    let decide = Post::<ToolCallItem>::new();
    Effect::new(move |_| {
        if let Some(Ok(call)) = decide.value().get() {
            on_decided.run(call);
        }
    });
    let busy: Signal<bool> = decide.pending().into();
    let problem = move || match decide.value().get() {
        Some(Err(error)) => Some(problem_text(error)),
        _ => None,
    };
    let (approve_id, reject_id) = (call.id.clone(), call.id.clone());
    let always_id = call.id.clone();
    let folder_rule = call.folder_rule();
    let link_id = call.id.clone();
    let allow_note = format!("Run {} without asking from now on:", call.tool);
    let always = decide.to::<AlwaysAllowCall>();
    // A grant would let one person decide what needs several.
    let grantable = call.quorum.required <= 1;
    // A call that needs a passkey is approved with one, and only so: no
    // edit or grant approves it without.
    let step_up = call.step_up;
    let approving = (!refuse_only).then(|| match step_up {
        true => view! { <PasskeyApprove call_id=approve_id on_decided busy/> }.into_any(),
        false => view! {
            <PostForm to={decide.to::<ApproveCall>()}>
                <input type="hidden" name="call_id" value=approve_id/>
                <button type="submit" class="button primary" disabled=busy>"Approve"</button>
            </PostForm>
        }
        .into_any(),
    });
    // A remote agent runs its own arguments: an edit here would not reach it.
    let editable = !call.runs_remotely();
    let approving_too = (!refuse_only && !step_up).then(|| view! {
        {editable.then(|| view! {
            <Reveal label="Edit arguments" disabled=busy>
                <EditForm call to={decide.to::<EditCall>()} busy/>
            </Reveal>
        })}
        {grantable.then(|| view! {
            <Reveal label="Always allow" disabled=busy>
                <p class="reveal-note">{allow_note}</p>
                // One form: the button pressed says where, the choice how long.
                <PostForm to=always class="always-form">
                    <input type="hidden" name="call_id" value=always_id/>
                    <label class="always-lasts">
                        "Which calls"
                        <select name="arguments">
                            <option value="any" selected>"With any arguments"</option>
                            {folder_rule.map(|rule| view! { <option value="same_folder">{rule}</option> })}
                            <option value="exactly">"With exactly these arguments"</option>
                        </select>
                    </label>
                    <label class="always-lasts">
                        "For how long"
                        <select name="lasts">
                            <option value="revoked" selected>"Until revoked"</option>
                            <option value="1h">"For an hour"</option>
                            <option value="8h">"For 8 hours"</option>
                        </select>
                    </label>
                    <button type="submit" name="everywhere" value="false" class="button" disabled=busy>"In this conversation"</button>
                    <button type="submit" name="everywhere" value="true" class="button" disabled=busy>"Everywhere"</button>
                </PostForm>
            </Reveal>
        })}
    });
    view! {
        <div class="decide">
            {approving}
            <Reveal label="Reject" class="danger" disabled=busy>
                <PostForm to={decide.to::<RejectCall>()}>
                    <input type="hidden" name="call_id" value=reject_id/>
                    <input type="text" name="reason" aria-label="Reason" placeholder="Reason (optional)" maxlength="2000"/>
                    <button type="submit" class="button danger" disabled=busy>"Confirm reject"</button>
                </PostForm>
            </Reveal>
            {approving_too}
            // A review link approves too.
            {(!refuse_only).then(|| view! { <CopyLink call_id=link_id/> })}
            {move || problem().map(|text| view! { <p class="form-error" role="alert">{text}</p> })}
        </div>
    }
}
