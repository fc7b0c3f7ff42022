//! The "Always allowed" page: the tools people chose to always allow, and
//! a way to take that back.

use leptos::either::Either;
use leptos::prelude::*;
use leptos_meta::Title;

use crate::server_fns::grants::{list_grants, RevokeGrant};
use crate::ui::common::live_list::{List, LiveList};
use crate::ui::common::load_error::LoadError;
use crate::ui::common::post_form::failed_post;
use crate::ui::grants::grant_list::GrantList;

/// Lists grants, newest first, each in force with "Revoke"; the list
/// follows grants made and revoked elsewhere as they happen.
#[component]
pub fn AllowedPage() -> impl IntoView {
    let grants = Resource::new(|| (), |_| list_grants());
    // A revoke that failed comes back as this page with the error in its
    // address (the button is a plain form).
    let failed = failed_post::<RevokeGrant>().map(|e| e.to_string());
    view! {
        <Title text="Always allowed"/>
        <div class="page-head">
            <h1>"Always allowed"</h1>
        </div>
        <p class="page-intro">
            "These tools run without asking for approval. Revoke one and it asks again from its next call."
        </p>
        {failed.map(|text| view! { <p class="form-error" role="alert">{text}</p> })}
        <Suspense fallback=|| view! { <p class="loading">"Loading…"</p> }>
            {move || Suspend::new(async move {
                match grants.await {
                    Ok(items) => Either::Left(view! {
                        <LiveList list=List::Grants/>
                        <div id=List::Grants.element_id()><GrantList items/></div>
                    }),
                    Err(error) => Either::Right(view! { <LoadError error/> }),
                }
            })}
        </Suspense>
    }
}
