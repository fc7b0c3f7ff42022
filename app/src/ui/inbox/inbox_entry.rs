//! One waiting call in the inbox: where it comes from, how long it has
//! waited, and the same card as in the chat.

use leptos::prelude::*;

use crate::ui::chat::tool_card::ToolCard;
use crate::wire::{InboxItem, ToolCallItem};

/// An inbox entry.
#[component]
pub fn InboxEntry(item: InboxItem, on_decided: Callback<ToolCallItem>) -> impl IntoView {
    let title = if item.conversation_title.is_empty() {
        "Untitled conversation".to_owned()
    } else {
        item.conversation_title
    };
    let href = format!("/c/{}", item.call.conversation_id);
    view! {
        <li class="inbox-entry">
            <p class="inbox-meta">
                <a href=href>{title}</a>
                " · waiting since "
                <time datetime=item.call.created_at.clone()>{item.age_label}</time>
            </p>
            <ToolCard call=item.call on_decided/>
        </li>
    }
}
