//! A button that reveals a small form in place ("Reject" → reason and
//! "Confirm reject"). It is a native `<details>`, so it opens before
//! hydration and without JavaScript too; `Cancel` closes it once hydrated.

use leptos::html::Details;
use leptos::prelude::*;

/// A labelled reveal around `children`, followed by `Cancel`.
#[component]
pub fn Reveal(
    /// The label of the button that opens it.
    #[prop(into)]
    label: Signal<String>,
    /// Extra classes for the opening button ("danger", …).
    #[prop(optional)]
    class: &'static str,
    /// Whether the opening button is unavailable.
    #[prop(into)]
    disabled: Signal<bool>,
    children: Children,
) -> impl IntoView {
    let details = NodeRef::<Details>::new();
    let close = move |_| {
        if let Some(d) = details.get() {
            d.set_open(false);
        }
    };
    view! {
        <details class="reveal" node_ref=details>
            <summary
                role="button"
                class=format!("button {class}")
                aria-disabled=move || disabled.get().to_string()
            >
                {move || label.get()}
                <span class="reveal-caret" aria-hidden="true">"▾"</span>
            </summary>
            <div class="reveal-body">
                {children()}
                <button type="button" class="button subtle" on:click=close>"Cancel"</button>
            </div>
        </details>
    }
}
