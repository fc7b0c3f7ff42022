//! The audit page, for administrators and viewers: every decision, answer,
//! grant, revocation, expiry and policy refusal, newest first, a page at a
//! time, narrowed by person, tool, outcome and days; and the export.

use leptos::either::Either;
use leptos::prelude::*;
use leptos_meta::Title;
use leptos_router::hooks::use_query_map;

use crate::server_fns::audit::list_audit;
use crate::ui::audit::audit_filters::{AuditFilterForm, AuditFilters};
use crate::ui::audit::audit_list::AuditList;
use crate::ui::common::load_error::LoadError;
use crate::ui::common::query::query_value;

/// The filters, the entries, and a link to older ones.
#[component]
pub fn AuditPage() -> impl IntoView {
    let query = use_query_map();
    let asked = move || {
        let query = query.read();
        let filters = AuditFilters {
            who: query.get("who"),
            tool: query.get("tool"),
            outcome: query.get("outcome"),
            from: query.get("from"),
            to: query.get("to"),
        };
        (query.get("older"), filters)
    };
    let page = Resource::new(asked, |(older, f)| {
        list_audit(older, f.who, f.tool, f.outcome, f.from, f.to)
    });
    view! {
        <Title text="Audit"/>
        <div class="page-head">
            <h1>"Audit"</h1>
            <a class="button" href="/api/v1/audit" download="airlock-audit.jsonl"
                title="Every sealed entry as JSON Lines; check a copy with: airlock audit verify --file">
                "Export"
            </a>
        </div>
        <AuditFilterForm filters=asked().1/>
        <Suspense fallback=|| view! { <p class="loading">"Loading the audit…"</p> }>
            {move || Suspend::new(async move {
                let (older, filters) = asked();
                match page.await {
                    Ok(page) => Either::Left(view! {
                        <AuditList items=page.items filtered=filters.any()/>
                        {page.older.map(|cursor| {
                            let href = format!("/audit?older={}{}", query_value(&cursor), filters.query());
                            view! { <p class="list-more"><a href=href>"Older entries"</a></p> }
                        })}
                        {older.is_some().then(|| {
                            let href = format!("/audit?{}", filters.query().trim_start_matches('&'));
                            view! { <p><a href=href>"Back to the newest"</a></p> }
                        })}
                    }),
                    Err(error) => Either::Right(view! { <LoadError error/> }),
                }
            })}
        </Suspense>
    }
}
