//! The conversation page at `/c/:id`.

use leptos::either::Either;
use leptos::prelude::*;
use leptos_meta::Title;
use leptos_router::hooks::{use_params_map, use_query_map};

use crate::server_fns::conversations::get_conversation;
use crate::ui::chat::chat_view::ChatView;
use crate::ui::common::load_error::LoadError;

/// Loads the conversation named in the address and shows the chat: its
/// newest messages, or with `?before=`, those before a position.
#[component]
pub fn ConversationPage() -> impl IntoView {
    let params = use_params_map();
    let query = use_query_map();
    let asked = Memo::new(move |_| {
        (
            params.read().get("id").unwrap_or_default(),
            query.read().get("before"),
        )
    });
    let detail = Resource::new(
        move || asked.get(),
        |(id, before)| get_conversation(id, before),
    );

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
