//! One conversation's chat.

use leptos::prelude::*;
use leptos_meta::Title;

use crate::server_fns::conversations::PostMessage;
use crate::ui::chat::composer::Composer;
use crate::ui::chat::message_list::MessageList;
use crate::wire::ConversationDetail;

/// The chat of a loaded conversation. It keeps the messages in a local signal
/// and appends what the server confirms, so sending never reloads the page.
#[component]
pub fn ChatView(detail: ConversationDetail) -> impl IntoView {
    let messages = RwSignal::new(detail.messages);
    let post = ServerAction::<PostMessage>::new();
    Effect::new(move |_| {
        if let Some(Ok(message)) = post.value().get() {
            messages.update(|list| {
                if !list.iter().any(|m| m.id == message.id) {
                    list.push(message);
                }
            });
        }
    });

    view! {
        <Title text=detail.title.clone()/>
        <div class="chat">
            <div class="chat-head">
                <a class="back-link" href="/">"← Conversations"</a>
                <h1>{detail.title}</h1>
            </div>
            <MessageList messages=messages.read_only()/>
            <Composer conversation_id=detail.id action=post/>
        </div>
    }
}
