//! The list of conversations on the home page.

use leptos::prelude::*;

use crate::wire::ConversationItem;

/// One link per conversation with its title, age, size and how many of its
/// calls wait for approval.
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
                    let waiting = (item.pending_count > 0).then(|| {
                        let text = match item.pending_count {
                            1 => "1 waiting for approval".to_owned(),
                            n => format!("{n} waiting for approval"),
                        };
                        view! { <span class="pending-badge">{text}</span> }
                    });
                    view! {
                        <li>
                            <a class="conversation-link" href=format!("/c/{}", item.id)>
                                <span class="conversation-title">{item.title} {waiting}</span>
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
