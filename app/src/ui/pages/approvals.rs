//! The approvals inbox: every call waiting for a person, across conversations.

use leptos::prelude::*;
use leptos_meta::Title;

/// The inbox. Nothing can wait for approval yet, so it explains what will appear here.
#[component]
pub fn ApprovalsPage() -> impl IntoView {
    view! {
        <Title text="Approvals"/>
        <div class="page-head">
            <h1>"Approvals"</h1>
        </div>
        <section class="empty-state">
            <h2>"Nothing is waiting for you"</h2>
            <p>"When the agent wants to run an action that needs a person's approval, it appears here with Approve and Reject, whichever conversation it came from."</p>
        </section>
    }
}
