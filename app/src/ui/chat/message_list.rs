//! The messages of a conversation, oldest first.

use leptos::prelude::*;

use crate::wire::{Author, MessageItem};

/// Renders messages as a list; text is always rendered as text, never as HTML.
#[component]
pub fn MessageList(messages: ReadSignal<Vec<MessageItem>>) -> impl IntoView {
    view! {
        <Show
            when=move || !messages.read().is_empty()
            fallback=|| view! {
                <div class="chat-empty">
                    <p class="chat-empty-title">"What should the agent do?"</p>
                    <p>"Ask in plain words. Anything risky waits here for your approval before it runs."</p>
                </div>
            }
        >
            <ol class="messages" aria-label="Messages">
                <For each=move || messages.get() key=|m| m.id.clone() let:message>
                    {
                        let (class, who) = match message.author {
                            Author::User => ("message from-user", "You"),
                            Author::Assistant => ("message from-agent", "Agent"),
                        };
                        view! {
                            <li class=class>
                                <span class="message-author">{who}</span>
                                <div class="message-body">{message.content}</div>
                            </li>
                        }
                    }
                </For>
            </ol>
        </Show>
    }
}
