//! `/review/:case_id?token=…`: a case opened through its link, with no
//! account and no chat. A wrong token answers 403, an expired case 410.

use leptos::either::Either;
use leptos::prelude::*;
use leptos_meta::Title;
use leptos_router::hooks::{use_params_map, use_query_map};

use crate::server_fns::reviews::open_review;
use crate::ui::common::load_error::LoadError;
use crate::ui::review::review_view::ReviewView;
use crate::ui::review::ReviewAccess;

/// Loads the case named in the URL and shows it.
#[component]
pub fn ReviewPage() -> impl IntoView {
    let params = use_params_map();
    let query = use_query_map();
    let access = move || ReviewAccess {
        case_id: params.read().get("case_id").unwrap_or_default(),
        token: query.read().get("token").unwrap_or_default(),
    };
    let review = Resource::new(access, |a| open_review(a.case_id, a.token));
    view! {
        <Suspense fallback=|| view! { <p class="loading">"Loading the review…"</p> }>
            {move || Suspend::new(async move {
                match review.await {
                    Ok(item) => Either::Left(view! { <Title text=item.prompt.clone()/> <ReviewView item access=access()/> }),
                    Err(error) => Either::Right(view! { <LoadError error/> }),
                }
            })}
        </Suspense>
    }
}
