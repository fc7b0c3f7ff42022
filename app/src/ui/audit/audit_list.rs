//! The audit's entries, newest first: what happened, to which tool, who
//! did it where, the arguments as decided, and why.

use leptos::prelude::*;

use crate::wire::AuditItem;

/// One entry.
#[component]
fn AuditRow(item: AuditItem) -> impl IntoView {
    let chain = match item.seq {
        Some(seq) => format!("Entry {seq} of the chain"),
        None => "Not sealed into the chain yet".to_owned(),
    };
    view! {
        <li class="audit-entry">
            <div class="audit-head">
                <span class=format!("badge audit-action audit-{}", item.action)>{item.action_label}</span>
                {item.tool.map(|tool| view! { <code class="audit-tool">{tool}</code> })}
                <time class="audit-time" datetime=item.at title=chain>{item.at_label}</time>
            </div>
            <div class="audit-who">
                {item.actor} " · " {item.channel_label}
                {item.conversation_id.map(|id| view! {
                    " · " <a href=format!("/c/{id}")>"conversation"</a>
                })}
            </div>
            {item.arguments.map(|arguments| view! { <code class="audit-args">{arguments}</code> })}
            {item.reason.map(|reason| view! { <p class="audit-reason">{reason}</p> })}
        </li>
    }
}

/// The entries of one page; with none, why.
#[component]
pub fn AuditList(items: Vec<AuditItem>, filtered: bool) -> impl IntoView {
    if items.is_empty() {
        let text = if filtered {
            "No entry matches these filters."
        } else {
            "Nothing has happened yet: decisions, answers, grants and what policy refused show here as they happen."
        };
        return view! { <p class="list-none">{text}</p> }.into_any();
    }
    view! {
        <ol class="audit-list" aria-label="Audit entries">
            {items.into_iter().map(|item| view! { <AuditRow item/> }).collect_view()}
        </ol>
    }
    .into_any()
}
