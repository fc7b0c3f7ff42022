//! Per source and tool: what the policy did with the window's calls, how
//! people decided and how fast.

use leptos::prelude::*;

use crate::wire::ToolInsightItem;

/// The table, the busiest tool first; on a narrow screen it scrolls
/// sideways inside its own region.
#[component]
pub fn ToolTable(tools: Vec<ToolInsightItem>) -> impl IntoView {
    if tools.is_empty() {
        return view! {
            <p class="list-none">"No calls in this window: tools show here once agents call them."</p>
        }
        .into_any();
    }
    view! {
        <div class="table-scroll" role="region" aria-label="Calls by tool" tabindex="0">
            <table class="insights-table">
                <thead>
                    <tr>
                        <th scope="col">"Tool"</th>
                        <th scope="col" class="num">"Calls"</th>
                        <th scope="col" class="num">"Allowed"</th>
                        <th scope="col" class="num">"Asked"</th>
                        <th scope="col" class="num">"Denied"</th>
                        <th scope="col" class="num">"Approved"</th>
                        <th scope="col" class="num" title="Time from the call to a person's decision">"Decision p50"</th>
                        <th scope="col" class="num">"p95"</th>
                        <th scope="col" class="num">"Expired"</th>
                    </tr>
                </thead>
                <tbody>
                    {tools.into_iter().map(|t| view! {
                        <tr>
                            <th scope="row">
                                <code>{t.tool}</code>
                                <span class="insights-source">{t.source}</span>
                                {t.rubber_stamp.is_some().then(|| view! {
                                    <span class="badge insights-stamp">"rubber stamp"</span>
                                })}
                            </th>
                            <td class="num">{t.calls}</td>
                            <td class="num">{t.allowed}</td>
                            <td class="num">{t.asked}</td>
                            <td class="num">{t.denied}</td>
                            <td class="num">{t.approval}</td>
                            <td class="num">{t.p50}</td>
                            <td class="num">{t.p95}</td>
                            <td class="num">{t.expired}</td>
                        </tr>
                    }).collect_view()}
                </tbody>
            </table>
        </div>
    }
    .into_any()
}
