//! The signed-in person's account: their sessions on every device, and a
//! way to end them all (a lost laptop, a shared computer).

use leptos::either::Either;
use leptos::prelude::*;
use leptos::server_fn::ServerFn;
use leptos_meta::Title;

use crate::server_fns::people::{list_sessions, SignOutEverywhere};
use crate::ui::common::load_error::LoadError;
use crate::wire::SessionItem;

/// Lists the sessions, this browser's marked, with "Sign out everywhere".
#[component]
pub fn AccountPage() -> impl IntoView {
    let sessions = Resource::new(|| (), |_| list_sessions());
    view! {
        <Title text="Your sessions"/>
        <div class="page-head">
            <h1>"Your sessions"</h1>
        </div>
        <p class="page-intro">"Where you are signed in. Signing out everywhere ends each of them at once."</p>
        <Suspense fallback=|| view! { <p class="loading">"Loading…"</p> }>
            {move || Suspend::new(async move {
                match sessions.await {
                    Ok(items) => Either::Left(view! { <SessionList items/> }),
                    Err(error) => Either::Right(view! { <LoadError error/> }),
                }
            })}
        </Suspense>
        <form method="post" action=SignOutEverywhere::PATH class="account-actions">
            <button type="submit" class="button danger">"Sign out everywhere"</button>
        </form>
    }
}

/// The sessions as a list.
#[component]
fn SessionList(items: Vec<SessionItem>) -> impl IntoView {
    view! {
        <ul class="session-list">
            {items.into_iter().map(|s| view! {
                <li class="session">
                    <span class="session-when">"Signed in " {s.started_label}</span>
                    <span class="session-used">"last used " {s.last_used_label}</span>
                    {s.current.then(|| view! { <span class="badge">"This browser"</span> })}
                </li>
            }).collect_view()}
        </ul>
    }
}
