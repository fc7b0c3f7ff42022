//! The card of one tool call: what it is, why the policy asked, its status,
//! and for a pending call the decision buttons.

mod argument_changes;
mod call_preview;
mod copy_link;
mod decide_forms;
mod edit_form;
mod inline_answer;
mod json_view;
pub mod notices;
mod passkey_approve;
mod question_card;

use leptos::prelude::*;

use crate::wire::{Deciding, MayDo, ToolCallItem};
use argument_changes::ArgumentChanges;
use call_preview::CallPreview;
use decide_forms::DecideForms;
use json_view::JsonView;
use notices::Notices;
use question_card::QuestionCard;

/// One tool call as a card; an `article` named after its tool. The agent's
/// questions get a card of their own. `on_decided` receives the call as a
/// decision taken on this card left it. `actions` replaces the chat's
/// decision forms of a pending call (the review page brings its own).
#[component]
pub fn ToolCard(
    call: ToolCallItem,
    on_decided: Callback<ToolCallItem>,
    #[prop(optional)] actions: Option<ViewFn>,
) -> impl IntoView {
    if call.is_question() {
        return view! { <QuestionCard call on_decided actions/> }.into_any();
    }
    let label = format!("{} call", call.tool);
    let status = call.status.clone();
    let badge = call.status_label();
    let source = if call.source == "demo" {
        "built-in".to_owned()
    } else {
        call.source.clone()
    };
    let decision = call.decision_text();
    let decided_at = call.decided_at_label();
    let result = call.result_text();
    let error = call.error.clone();
    let pending = call.can_decide();
    let expires = pending.then(|| call.expires_label()).flatten();
    let quorum = call.quorum_label();
    let changes = call.argument_changes();
    let announced = call.announced.clone();
    let preview = call.preview.clone();
    view! {
        <article class="tool-card" aria-label=label data-status=status.clone() data-call=call.id.clone()>
            <header class="tool-card-head">
                <span class="tool-name">{call.tool.clone()}</span>
                <span class="tool-source">{source}</span>
                <span class=format!("status-badge status-{status}")>{badge}</span>
            </header>
            {preview.map(|preview| view! { <CallPreview preview waiting=pending/> })}
            <JsonView value=call.arguments.clone() label="Arguments"/>
            {(!changes.is_empty()).then(|| view! { <ArgumentChanges changes/> })}
            <p class="tool-reason">"Policy: " {call.policy_reason.clone()}</p>
            {expires.map(|e| view! { <p class="tool-expiry">{e}</p> })}
            {quorum.map(|q| view! { <p class="tool-quorum">{q}</p> })}
            <Notices call_id=call.id.clone() announced/>
            {decision.map(|d| view! {
                <p class="tool-decision">
                    {d}
                    {decided_at.map(|at| view! { <span class="tool-decided-at">" · " {at}</span> })}
                </p>
            })}
            {error.map(|e| view! { <p class="tool-error" role="alert">{e}</p> })}
            {result.map(|r| view! {
                <details class="tool-result">
                    <summary>"Result"</summary>
                    <pre>{r}</pre>
                </details>
            })}
            {pending.then(|| match (actions, deciding().may_do(&call)) {
                (Some(actions), _) => actions.run(),
                (None, MayDo::Decide) => view! { <DecideForms call=call.clone() on_decided/> }.into_any(),
                (None, MayDo::RefuseOnly) => view! {
                    <p class="tool-waiting">"You asked for this call: another approver must approve it."</p>
                    <DecideForms call=call.clone() on_decided refuse_only=true/>
                }.into_any(),
                (None, MayDo::ApprovedAlready) => view! {
                    <p class="tool-waiting">"You approved this call: it needs someone else's approval too."</p>
                    <DecideForms call=call.clone() on_decided refuse_only=true/>
                }.into_any(),
                (None, MayDo::Wait(note)) => view! { <p class="tool-waiting">{note}</p> }.into_any(),
            })}
        </article>
    }
    .into_any()
}

/// The person looking, as the island that shows the cards was told by the
/// server; someone who decides everything when nobody said otherwise.
pub fn deciding() -> Deciding {
    use_context::<Deciding>().unwrap_or_else(Deciding::anyone)
}
