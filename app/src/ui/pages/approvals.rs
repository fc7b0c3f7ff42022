//! The approvals inbox: every call waiting for a person, across
//! conversations, a page at a time; narrowed by source, tool and how long
//! a call has waited with a plain form, so it works without JavaScript.

use leptos::either::Either;
use leptos::prelude::*;
use leptos_meta::Title;
use leptos_router::hooks::use_query_map;

use crate::server_fns::approvals::list_approvals;
use crate::ui::common::load_error::LoadError;
use crate::ui::common::query::{kept_params, query_value};
use crate::ui::inbox::inbox_view::InboxView;

/// The waits the inbox can be narrowed to: value and words.
const WAITS: &[(&str, &str)] = &[
    ("10m", "10 minutes or more"),
    ("1h", "An hour or more"),
    ("1d", "A day or more"),
];

/// Loads a page of waiting calls; the first, unfiltered, stays live.
#[component]
pub fn ApprovalsPage() -> impl IntoView {
    let query = use_query_map();
    let asked = move || {
        let query = query.read();
        (
            query.get("after"),
            query.get("source"),
            query.get("tool"),
            query.get("waited"),
        )
    };
    let inbox = Resource::new(asked, |(after, source, tool, waited)| {
        list_approvals(after, source, tool, waited)
    });
    view! {
        <Title text="Approvals"/>
        <Suspense fallback=|| view! { <p class="loading">"Loading approvals…"</p> }>
            {move || Suspend::new(async move {
                let (after, source, tool, waited) = asked();
                match inbox.await {
                    Ok(inbox) => {
                        let filters = kept_params(&[
                            ("source", source.as_deref()),
                            ("tool", tool.as_deref()),
                            ("waited", waited.as_deref()),
                        ]);
                        let more = inbox.next.clone().map(|cursor| {
                            let href = format!("/approvals?after={}{filters}", query_value(&cursor));
                            view! { <p class="list-more"><a href=href>"More waiting calls"</a></p> }
                        });
                        let back = (after.is_some() || !inbox.live).then(|| view! {
                            <p><a href="/approvals">"Back to all waiting calls"</a></p>
                        });
                        Either::Left(view! { <InboxView inbox><InboxFilters/></InboxView> {more} {back} })
                    }
                    Err(error) => Either::Right(view! { <LoadError error/> }),
                }
            })}
        </Suspense>
    }
}

/// Source, tool and how long a call has waited, and Filter.
#[component]
fn InboxFilters() -> impl IntoView {
    let query = use_query_map();
    let (source, tool, waited) = {
        let query = query.read_untracked();
        (
            query.get("source"),
            query.get("tool"),
            query.get("waited").unwrap_or_default(),
        )
    };
    view! {
        <form class="list-filters" method="get" action="/approvals" role="search" aria-label="Filter waiting calls">
            <label>"Source"
                <input type="text" name="source" value=source.unwrap_or_default() autocomplete="off"/>
            </label>
            <label>"Tool"
                <input type="text" name="tool" value=tool.unwrap_or_default() autocomplete="off"/>
            </label>
            <label>"Waiting"
                <select name="waited">
                    <option value="" selected=waited.is_empty()>"Any time"</option>
                    {WAITS.iter().map(|(value, words)| view! {
                        <option value=*value selected=waited == *value>{*words}</option>
                    }).collect_view()}
                </select>
            </label>
            <button type="submit" class="button">"Filter"</button>
        </form>
    }
}
