//! The insights page, for administrators and viewers: per source and tool
//! over a window, what the policy allowed, asked and denied, how people
//! decided and how fast; the tools they approve without looking, each with
//! a rule to allow it and its replay; and the shadow policy's differences.

use leptos::either::Either;
use leptos::prelude::*;
use leptos_meta::Title;
use leptos_router::hooks::use_query_map;

use crate::server_fns::insights::get_insights;
use crate::ui::common::load_error::LoadError;
use crate::ui::insights::rubber_stamp::RubberStamp;
use crate::ui::insights::shadow_table::ShadowTable;
use crate::ui::insights::tool_table::ToolTable;
use crate::wire::INSIGHT_WINDOWS;

/// The window picker and the report.
#[component]
pub fn InsightsPage() -> impl IntoView {
    let query = use_query_map();
    let window = move || query.read().get("window");
    let report = Resource::new(window, get_insights);
    view! {
        <Title text="Insights"/>
        <div class="page-head">
            <h1>"Insights"</h1>
        </div>
        <nav class="insights-windows" aria-label="Window">
            {move || {
                let shown = window().unwrap_or_else(|| "7d".to_owned());
                INSIGHT_WINDOWS.iter().map(|w| {
                    let current = (shown == *w).then_some("page");
                    view! { <a href=format!("/insights?window={w}") aria-current=current>{format!("Last {}", words(w))}</a> }
                }).collect_view()
            }}
        </nav>
        <Suspense fallback=|| view! { <p class="loading">"Counting…"</p> }>
            {move || Suspend::new(async move {
                match report.await {
                    Ok(view) => {
                        let stamps: Vec<_> = view.tools.iter().filter(|t| t.rubber_stamp.is_some()).cloned().collect();
                        Either::Left(view! {
                            {view.capped.then(|| view! {
                                <p class="insights-warning" role="note">"More calls were made in this window than one report reads: these figures are of the first 100,000."</p>
                            })}
                            <section aria-labelledby="insights-stamps">
                                <h2 id="insights-stamps">"Approved without looking"</h2>
                                {if stamps.is_empty() {
                                    Either::Left(view! { <p class="list-none">"No tool is approved at least 95% of at least 20 times with half the decisions under 10 s."</p> })
                                } else {
                                    Either::Right(stamps.into_iter().map(|tool| view! { <RubberStamp tool/> }).collect_view())
                                }}
                            </section>
                            <section aria-labelledby="insights-tools">
                                <h2 id="insights-tools">"Calls by tool"</h2>
                                <ToolTable tools=view.tools/>
                            </section>
                            <section aria-labelledby="insights-shadow">
                                <h2 id="insights-shadow">"Shadow policy"</h2>
                                <ShadowTable items=view.shadow shadowing=view.shadowing/>
                            </section>
                        })
                    }
                    Err(error) => Either::Right(view! { <LoadError error/> }),
                }
            })}
        </Suspense>
    }
}

/// A window in words: "24 hours", "7 days", "30 days".
fn words(window: &str) -> &'static str {
    match window {
        "24h" => "24 hours",
        "30d" => "30 days",
        _ => "7 days",
    }
}
