//! The home page: the list of conversations.

use leptos::either::Either;
use leptos::prelude::*;
use leptos_meta::Title;

use crate::server_fns::conversations::list_conversations;
use crate::ui::common::live_list::{List, LiveList};
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
                    Ok(items) => Either::Left(view! {
                        <LiveList list=List::Conversations/>
                        <div id=List::Conversations.element_id()><ConversationList items/></div>
                    }),
                    Err(error) => Either::Right(view! { <LoadError error/> }),
                }
            })}
        </Suspense>
    }
}
