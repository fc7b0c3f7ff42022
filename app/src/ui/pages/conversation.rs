//! The conversation page at `/c/:id`.

use leptos::either::Either;
use leptos::prelude::*;
use leptos_meta::Title;
use leptos_router::hooks::use_params_map;

use crate::server_fns::conversations::get_conversation;
use crate::ui::chat::chat_view::ChatView;
use crate::ui::common::load_error::LoadError;

/// Loads the conversation named in the address and shows the chat.
#[component]
pub fn ConversationPage() -> impl IntoView {
    let params = use_params_map();
    let id = Memo::new(move |_| params.read().get("id").unwrap_or_default());
    let detail = Resource::new(move || id.get(), get_conversation);

    view! {
        <Suspense fallback=|| view! { <p class="loading">"Loading conversation…"</p> }>
            {move || Suspend::new(async move {
                match detail.await {
                    Ok(detail) => Either::Left(view! { <Title text=detail.title.clone()/> <ChatView detail/> }),
                    Err(error) => Either::Right(view! { <LoadError error/> }),
                }
            })}
        </Suspense>
    }
}
