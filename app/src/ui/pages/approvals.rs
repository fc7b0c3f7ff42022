//! The approvals inbox: every call waiting for a person, across conversations.

use leptos::either::Either;
use leptos::prelude::*;
use leptos_meta::Title;

use crate::server_fns::approvals::list_approvals;
use crate::ui::common::load_error::LoadError;
use crate::ui::inbox::inbox_view::InboxView;

/// Loads the waiting calls and keeps them live.
#[component]
pub fn ApprovalsPage() -> impl IntoView {
    let inbox = Resource::new(|| (), |_| list_approvals());
    view! {
        <Title text="Approvals"/>
        <Suspense fallback=|| view! { <p class="loading">"Loading approvals…"</p> }>
            {move || Suspend::new(async move {
                match inbox.await {
                    Ok(inbox) => Either::Left(view! { <InboxView inbox/> }),
                    Err(error) => Either::Right(view! { <LoadError error/> }),
                }
            })}
        </Suspense>
    }
}
