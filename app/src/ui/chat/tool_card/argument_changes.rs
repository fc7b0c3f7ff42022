//! What a reviewer changed in an edited call, argument by argument.

use leptos::prelude::*;

use crate::wire::ArgumentChange;

/// The changed arguments of an edited call: before → after.
#[component]
pub fn ArgumentChanges(changes: Vec<ArgumentChange>) -> impl IntoView {
    view! {
        <div class="arg-changes">
            <p class="arg-changes-title">"Changed by the reviewer"</p>
            <ul aria-label="Changed arguments">
                {changes
                    .into_iter()
                    .map(|c| {
                        let before = c.before.unwrap_or_else(|| "(none)".into());
                        let after = c.after.unwrap_or_else(|| "(removed)".into());
                        view! {
                            <li>
                                <code>{c.name}</code> ": "
                                <del>{before}</del> " → " <ins>{after}</ins>
                            </li>
                        }
                    })
                    .collect_view()}
            </ul>
        </div>
    }
}
