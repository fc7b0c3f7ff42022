//! One conversation's calls in the inbox: where they come from, how long
//! the oldest has waited, Approve all and Reject all when several wait, and
//! the same cards as in the chat.

use leptos::prelude::*;

use crate::ui::chat::pending_bar::{PendingBar, Waiting};
use crate::ui::chat::tool_card::{deciding, ToolCard};
use crate::wire::{InboxItem, ToolCallItem};

/// The inbox entries of conversation `conversation_id`, read from `items`.
#[component]
pub fn InboxGroup(
    conversation_id: String,
    items: RwSignal<Vec<InboxItem>>,
    on_decided: Callback<ToolCallItem>,
) -> impl IntoView {
    let id = conversation_id.clone();
    let mine = Memo::new(move |_| {
        items
            .read()
            .iter()
            .filter(|i| i.call.conversation_id == id)
            .cloned()
            .collect::<Vec<_>>()
    });
    let waiting =
        Memo::new(move |_| Waiting::count(mine.read().iter().map(|i| &i.call), &deciding()));
    let title = Memo::new(move |_| {
        mine.read()
            .first()
            .map(|i| i.conversation_title.clone())
            .filter(|t| !t.is_empty())
            .unwrap_or_else(|| "Untitled conversation".to_owned())
    });
    // The oldest call sets the age; calls that arrive later join below it.
    let oldest = move || {
        mine.read()
            .first()
            .map(|i| (i.call.created_at.clone(), i.age_label.clone()))
            .unwrap_or_default()
    };
    let href = format!("/c/{conversation_id}");
    view! {
        <li class="inbox-entry">
            <p class="inbox-meta">
                <a href=href>{move || title.get()}</a>
                " · waiting since "
                <time datetime=move || oldest().0>{move || oldest().1}</time>
            </p>
            {deciding().may_decide.then(|| view! {
                <PendingBar
                    conversation_id
                    waiting
                    on_decided
                    label=Signal::derive(move || format!("Pending approvals of {}", title.get()))
                />
            })}
            <div class="inbox-cards">
                <For
                    each=move || mine.get()
                    key=|i| i.call.card_key()
                    let:item
                >
                    <ToolCard call=item.call on_decided/>
                </For>
            </div>
        </li>
    }
}
