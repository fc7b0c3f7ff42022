//! Where the shadow policy (`shadow_policy`) would have decided otherwise
//! than the real one, by tool and change.

use leptos::prelude::*;

use crate::wire::ShadowItem;

/// The differences, the most frequent first; with none, whether there is a
/// shadow policy at all.
#[component]
pub fn ShadowTable(items: Vec<ShadowItem>, shadowing: bool) -> impl IntoView {
    if items.is_empty() {
        let text = if shadowing {
            "The shadow policy decided every call of this window as the real one did."
        } else {
            "No shadow policy is set: name a candidate configuration in shadow_policy to see here how it would decide live calls."
        };
        return view! { <p class="list-none">{text}</p> }.into_any();
    }
    view! {
        <div class="table-scroll" role="region" aria-label="Shadow differences" tabindex="0">
            <table class="insights-table">
                <thead>
                    <tr>
                        <th scope="col">"Tool"</th>
                        <th scope="col">"Real"</th>
                        <th scope="col">"Shadow"</th>
                        <th scope="col" class="num">"Calls"</th>
                        <th scope="col">"Why, in the shadow"</th>
                    </tr>
                </thead>
                <tbody>
                    {items.into_iter().map(|s| view! {
                        <tr>
                            <th scope="row"><code>{s.tool}</code> <span class="insights-source">{s.source}</span></th>
                            <td>{s.real}</td>
                            <td>{s.shadow}</td>
                            <td class="num">{s.count}</td>
                            <td>{s.reason}</td>
                        </tr>
                    }).collect_view()}
                </tbody>
            </table>
        </div>
    }
    .into_any()
}
