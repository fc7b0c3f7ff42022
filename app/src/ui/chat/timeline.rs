//! Messages and tool call cards in conversation order: each assistant
//! message is followed by the cards of the calls its turn proposed.

use leptos::prelude::*;

use crate::ui::chat::live::LiveChat;
use crate::ui::chat::tool_card::ToolCard;
use crate::wire::{Author, MessageItem, ToolCallItem};

#[derive(Debug, Clone, PartialEq)]
enum Entry {
    Message(MessageItem),
    Call(Box<ToolCallItem>),
}

impl Entry {
    /// Keyed on status too, so a card re-renders when its call moves on.
    fn key(&self) -> String {
        match self {
            Entry::Message(m) => m.id.clone(),
            Entry::Call(c) => c.card_key(),
        }
    }
}

fn entries(messages: &[MessageItem], calls: &[ToolCallItem]) -> Vec<Entry> {
    let mut out = Vec::with_capacity(messages.len() + calls.len());
    // Calls of earlier messages than those shown (one still waiting, in a
    // long conversation) come first.
    let first = messages.first().map(|m| m.seq);
    out.extend(
        calls
            .iter()
            .filter(|c| c.message_seq.is_some_and(|s| first.is_none_or(|f| s < f)))
            .cloned()
            .map(|c| Entry::Call(Box::new(c))),
    );
    for m in messages {
        // A turn that only calls tools has no text worth a bubble.
        if !(m.author == Author::Assistant && m.content.trim().is_empty()) {
            out.push(Entry::Message(m.clone()));
        }
        out.extend(
            calls
                .iter()
                .filter(|c| c.message_seq == Some(m.seq))
                .cloned()
                .map(|c| Entry::Call(Box::new(c))),
        );
    }
    out.extend(
        calls
            .iter()
            .filter(|c| c.message_seq.is_none())
            .cloned()
            .map(|c| Entry::Call(Box::new(c))),
    );
    out
}

/// The conversation so far.
#[component]
pub fn Timeline(
    live: LiveChat,
    /// Whether the demo model answers: the empty chat suggests its commands.
    demo: bool,
) -> impl IntoView {
    let items = move || entries(&live.messages.read(), &live.calls.read());
    let on_decided = Callback::new(move |call| live.put_call(call));
    let me = StoredValue::new(crate::ui::chat::tool_card::deciding().person_id);
    view! {
        <Show
            // An agent that asks through the gateway or the MCP proxy leaves
            // calls without messages: they are its conversation.
            when=move || !live.messages.read().is_empty() || !live.calls.read().is_empty()
            fallback=move || view! {
                <div class="chat-empty">
                    <p class="chat-empty-title">"What should the agent do?"</p>
                    {demo.then(|| view! { <p>"Try “list files”, “read notes.txt” or “delete notes.txt and todo.md”."</p> })}
                    <p>"Anything risky waits here for your approval before it runs."</p>
                </div>
            }
        >
            <ol class="messages" aria-label="Messages">
                <For each=items key=Entry::key let:entry>
                    {match entry {
                        Entry::Message(message) => {
                            match message.author {
                                Author::User => view! {
                                    <li class="message from-user">
                                        <span class="message-author">{me.with_value(|me| message.writer_label(me.as_deref()))}</span>
                                        <div class="message-body">{message.content}</div>
                                    </li>
                                }
                                .into_any(),
                                // Airlock's own words: set apart from the
                                // agent's, and never sent to the model.
                                Author::Notice => view! {
                                    <li class="message notice" role="note" aria-label="Notice from Airlock">
                                        <span class="message-author">"Airlock"</span>
                                        <div class="message-body">{message.content}</div>
                                    </li>
                                }
                                .into_any(),
                                // The agent writes Markdown, which the server
                                // renders safely (engine/src/domain/markdown.rs). An
                                // event stored before it did shows as text.
                                Author::Assistant => view! {
                                    <li class="message from-agent">
                                        <span class="message-author">"Agent"</span>
                                        {match message.html {
                                            Some(html) => view! {
                                                <div class="message-body markdown" inner_html=html></div>
                                            }
                                            .into_any(),
                                            None => view! {
                                                <div class="message-body">{message.content}</div>
                                            }
                                            .into_any(),
                                        }}
                                    </li>
                                }
                                .into_any(),
                            }
                        }
                        Entry::Call(call) => view! {
                            <li class="call-entry"><ToolCard call=*call on_decided/></li>
                        }
                        .into_any(),
                    }}
                </For>
                <Show when=move || live.draft.read().has_text()>
                    <li class="message from-agent streaming" aria-label="Agent is writing">
                        <span class="message-author">"Agent"</span>
                        // Its complete lines arrive rendered by the server
                        // (engine/src/domain/markdown.rs); the line being written
                        // shows as text until it ends.
                        <div class="message-body markdown">
                            <div class="draft-lines" inner_html=move || live.draft.read().html.clone()></div>
                            <p class="draft-tail">{move || live.draft.read().tail.clone()}</p>
                        </div>
                    </li>
                </Show>
                // Calls being written: a card as soon as the model names the
                // tool, its arguments filling in; the stored call replaces it.
                {move || live.draft.read().calls.iter().map(|call| {
                    let name = if call.name.is_empty() { "a tool".to_owned() } else { call.name.clone() };
                    view! {
                        <li class="call-entry">
                            <article class="tool-card drafting" aria-label=format!("Call to {name} being written")>
                                <header class="tool-card-head">
                                    <span class="tool-name">{name.clone()}</span>
                                    <span class="status-badge status-writing">"Being written…"</span>
                                </header>
                                <pre class="draft-arguments">{call.arguments.clone()}</pre>
                            </article>
                        </li>
                    }
                }).collect_view()}
                // Sent while the agent worked: answered once it finishes.
                <For each=move || live.queued.get() key=|m| m.id.clone() let:message>
                    <li class="message from-user queued" aria-label="Queued message">
                        <span class="message-author">"Queued: sent to the agent when it finishes"</span>
                        <div class="message-body">{message.content}</div>
                    </li>
                </For>
            </ol>
        </Show>
    }
}
