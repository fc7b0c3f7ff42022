//! The sources on the Sources page: each with how it is reached, whether it
//! is up and since when, what went wrong last, and its tools.

use leptos::prelude::*;

use crate::wire::SourceItem;

/// "Up since 3 min ago", "Down since just now", "Policy only".
fn state_text(item: &SourceItem) -> String {
    let mut word = item.state.clone();
    if let Some(first) = word.get_mut(0..1) {
        first.make_ascii_uppercase();
    }
    match &item.since_label {
        Some(since) => format!("{word} since {since}"),
        None => word,
    }
}

/// The names of some tools, or what it means that there are none.
#[component]
fn ToolNames(label: &'static str, names: Vec<String>, none: &'static str) -> impl IntoView {
    let count = names.len();
    view! {
        <div class="source-tools">
            <h3>{label} " (" {count} ")"</h3>
            {if names.is_empty() {
                view! { <p class="source-none">{none}</p> }.into_any()
            } else {
                view! {
                    <ul aria-label=label>
                        {names.into_iter().map(|n| view! { <li><code>{n}</code></li> }).collect_view()}
                    </ul>
                }
                .into_any()
            }}
        </div>
    }
}

/// One source.
#[component]
fn SourceEntry(item: SourceItem) -> impl IntoView {
    let state = state_text(&item);
    let policy_only = item.transport == "policy only";
    let remote = item.transport == "A2A";
    let offered_none = match item.state.as_str() {
        "up" => "Its policy offers none of its tools.",
        _ if policy_only => "It is reached by nobody: its block is the policy for calls that come through the gateway.",
        _ => "None while it is not up.",
    };
    let name = item.name.clone();
    let source_state = item.state.clone();
    view! {
        <li class="source" data-state=source_state aria-label=name>
            <div class="source-head">
                <h2 class="source-name">{item.name}</h2>
                <span class="source-state">{state}</span>
            </div>
            <p class="source-target">
                <span class="source-transport">{item.transport}</span>
                {(!item.target.is_empty()).then(|| view! { " " <code>{item.target}</code> })}
            </p>
            {item.error.map(|error| view! {
                <p class="source-error">"Last error: " {error}</p>
            })}
            {item.last_call_label.map(|at| view! {
                <p class="source-meta">"Last successful call " {at}</p>
            })}
            {remote.then(|| view! {
                <p class="source-none">"People talk to it in the chat. It runs its own tools, and the calls it asks approval for are decided here under this block's policy."</p>
            })}
            {(!policy_only && !remote).then(|| view! {
                <ToolNames label="Offered" names=item.offered none=offered_none/>
            })}
            // What a source hides is known only while it lists its tools.
            {(item.state == "up" && !remote).then(|| view! {
                <ToolNames label="Hidden by policy" names=item.hidden none="Nothing is hidden."/>
            })}
        </li>
    }
}

/// Every source, by name.
#[component]
pub fn SourceList(items: Vec<SourceItem>) -> impl IntoView {
    view! {
        <ul class="source-list" aria-label="Tool sources">
            {items.into_iter().map(|item| view! { <SourceEntry item/> }).collect_view()}
        </ul>
    }
}
