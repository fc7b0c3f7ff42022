//! The list of conversations on the home page.

use leptos::prelude::*;

use crate::wire::ConversationItem;

/// One link per conversation with its title, age and size.
#[component]
pub fn ConversationList(items: Vec<ConversationItem>) -> impl IntoView {
    view! {
        <ul class="conversation-list" aria-label="Conversations">
            {items
                .into_iter()
                .map(|item| {
                    let count = match item.message_count {
                        1 => "1 message".to_owned(),
                        n => format!("{n} messages"),
                    };
                    view! {
                        <li>
                            <a class="conversation-link" href=format!("/c/{}", item.id)>
                                <span class="conversation-title">{item.title}</span>
                                <span class="conversation-meta">
                                    <time datetime=item.updated_at>{item.updated_label}</time>
                                    " · "
                                    {count}
                                </span>
                            </a>
                        </li>
                    }
                })
                .collect_view()}
        </ul>
    }
}
