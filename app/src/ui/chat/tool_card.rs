//! The card of one tool call: what it is, why the policy asked, its status,
//! and for a pending call the decision buttons.

mod decide_forms;

use leptos::prelude::*;

use crate::ui::chat::live::LiveChat;
use crate::wire::ToolCallItem;
use decide_forms::DecideForms;

/// One tool call as a card; an `article` named after its tool.
#[component]
pub fn ToolCard(call: ToolCallItem, live: LiveChat) -> impl IntoView {
    let label = format!("{} call", call.tool);
    let status = call.status.clone();
    let badge = call.status_label();
    let source = if call.source == "demo" {
        "built-in".to_owned()
    } else {
        call.source.clone()
    };
    let decision = call.decision_text();
    let result = call.result_text();
    let error = call.error.clone();
    let pending = call.can_decide();
    view! {
        <article class="tool-card" aria-label=label data-status=status.clone()>
            <header class="tool-card-head">
                <span class="tool-name">{call.tool.clone()}</span>
                <span class="tool-source">{source}</span>
                <span class=format!("status-badge status-{status}")>{badge}</span>
            </header>
            <pre class="tool-args" aria-label="Arguments">{call.arguments_text()}</pre>
            <p class="tool-reason">"Policy: " {call.policy_reason.clone()}</p>
            {decision.map(|d| view! { <p class="tool-decision">{d}</p> })}
            {error.map(|e| view! { <p class="tool-error" role="alert">{e}</p> })}
            {result.map(|r| view! {
                <details class="tool-result">
                    <summary>"Result"</summary>
                    <pre>{r}</pre>
                </details>
            })}
            {pending.then(|| view! { <DecideForms call_id=call.id.clone() live/> })}
        </article>
    }
}
