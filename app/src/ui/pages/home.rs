//! The home page: the list of conversations, a page at a time, with a
//! search of their titles.

use leptos::either::Either;
use leptos::prelude::*;
use leptos_meta::Title;
use leptos_router::hooks::use_query_map;

use crate::server_fns::conversations::list_conversations;
use crate::ui::common::live_list::{List, LiveList};
use crate::ui::common::load_error::LoadError;
use crate::ui::common::query::{kept_params, query_value};
use crate::ui::conversations::conversation_list::ConversationList;
use crate::ui::conversations::new_conversation_button::NewConversationButton;

/// Lists conversations, newest activity first, with "New conversation".
/// The first page follows changes live; a search or an older page is read
/// once (a link and a plain form, so both work without JavaScript).
#[component]
pub fn HomePage() -> impl IntoView {
    let query = use_query_map();
    let asked = move || {
        let query = query.read();
        (query.get("older"), query.get("q"), query.get("people"))
    };
    let conversations = Resource::new(asked, |(older, q, people)| {
        list_conversations(older, q, people)
    });
    view! {
        <Title text="Conversations"/>
        <div class="page-head">
            <h1>"Conversations"</h1>
            <NewConversationButton/>
        </div>
        <form class="list-search" method="get" action="/" role="search">
            <label class="visually-hidden" for="list-search">"Search conversations"</label>
            <input id="list-search" type="search" name="q" placeholder="Search titles or session ids"
                value=move || asked().1.unwrap_or_default()/>
            <label class="list-people">
                <input type="checkbox" name="people" value="only"
                    checked=move || asked().2.as_deref() == Some("only")/>
                "Hide agent sessions"
            </label>
            <button type="submit" class="button">"Search"</button>
        </form>
        <Suspense fallback=|| view! { <p class="loading">"Loading conversations…"</p> }>
            {move || Suspend::new(async move {
                let (older, q, people) = asked();
                let first_page = older.is_none()
                    && q.as_deref().unwrap_or("").is_empty()
                    && people.is_none();
                match conversations.await {
                    Ok(page) if first_page => Either::Left(view! {
                        <LiveList list=List::Conversations/>
                        <div id=List::Conversations.element_id()><ConversationList items=page.items/></div>
                        <OlderLink older=page.older q=None people=None/>
                    }.into_any()),
                    Ok(page) => Either::Left(view! {
                        {(page.items.is_empty() && q.is_some()).then(|| view! {
                            <p class="list-none">"No conversation title contains that."</p>
                        })}
                        {(!page.items.is_empty()).then(|| view! { <ConversationList items=page.items/> })}
                        <OlderLink older=page.older q people/>
                        <p><a href="/">"Back to the newest"</a></p>
                    }.into_any()),
                    Err(error) => Either::Right(view! { <LoadError error/> }),
                }
            })}
        </Suspense>
    }
}

/// "Older conversations": a link to the next page, keeping the search and
/// the filter.
#[component]
fn OlderLink(older: Option<String>, q: Option<String>, people: Option<String>) -> impl IntoView {
    older.map(|cursor| {
        let kept = kept_params(&[("q", q.as_deref()), ("people", people.as_deref())]);
        let href = format!("/?older={}{kept}", query_value(&cursor));
        view! { <p class="list-more"><a href=href>"Older conversations"</a></p> }
    })
}
