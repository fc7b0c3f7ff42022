//! The Sources page: every tool source, whether it is up, what went wrong
//! last, and which of its tools the policy offers.

use leptos::either::Either;
use leptos::prelude::*;
use leptos_meta::Title;

use crate::server_fns::sources::list_sources;
use crate::ui::common::live_list::{List, LiveList};
use crate::ui::common::load_error::LoadError;
use crate::ui::sources::source_list::SourceList;

/// Lists the sources; the list follows them going down and coming back.
#[component]
pub fn SourcesPage() -> impl IntoView {
    let sources = Resource::new(|| (), |_| list_sources());
    view! {
        <Title text="Sources"/>
        <div class="page-head">
            <h1>"Sources"</h1>
        </div>
        <p class="page-intro">
            "Where the agent's tools come from. A source that goes down is reconnected by itself; its tools are offered again once it is up."
        </p>
        <Suspense fallback=|| view! { <p class="loading">"Loading…"</p> }>
            {move || Suspend::new(async move {
                match sources.await {
                    Ok(items) => Either::Left(view! {
                        <LiveList list=List::Sources/>
                        <div id=List::Sources.element_id()><SourceList items/></div>
                    }),
                    Err(error) => Either::Right(view! { <LoadError error/> }),
                }
            })}
        </Suspense>
    }
}
