//! The home page: the list of conversations.

use leptos::either::EitherOf3;
use leptos::prelude::*;
use leptos_meta::Title;

use crate::server_fns::conversations::list_conversations;
use crate::ui::common::load_error::LoadError;
use crate::ui::conversations::conversation_list::ConversationList;
use crate::ui::conversations::new_conversation_button::NewConversationButton;

/// Lists conversations, newest activity first, with "New conversation".
#[component]
pub fn HomePage() -> impl IntoView {
    let conversations = Resource::new(|| (), |_| list_conversations());

    view! {
        <Title text="Conversations"/>
        <div class="page-head">
            <h1>"Conversations"</h1>
            <NewConversationButton/>
        </div>
        <Suspense fallback=|| view! { <p class="loading">"Loading conversations…"</p> }>
            {move || Suspend::new(async move {
                match conversations.await {
                    Ok(items) if items.is_empty() => EitherOf3::A(view! {
                        <section class="empty-state">
                            <h2>"No conversations yet"</h2>
                            <p>
                                "Start one and ask the agent to do something. Actions that need your approval wait for you as cards you can approve, edit or reject."
                            </p>
                        </section>
                    }),
                    Ok(items) => EitherOf3::B(view! { <ConversationList items/> }),
                    Err(error) => EitherOf3::C(view! { <LoadError error/> }),
                }
            })}
        </Suspense>
    }
}
