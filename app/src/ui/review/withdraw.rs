//! "Withdraw" on the review page: the reviewer declines to decide (the
//! protocol's "human clicks cancel"). A button of the page's one response
//! form, with its own reason field.

use leptos::prelude::*;

use crate::ui::common::reveal::Reveal;

/// Declining to decide: the case is withdrawn and the call does not run.
#[component]
pub fn Withdraw(busy: Signal<bool>) -> impl IntoView {
    view! {
        <Reveal label="Withdraw" disabled=busy>
            <p class="reveal-note">"The call will not run, and whoever asked is told the review was withdrawn."</p>
            <input type="text" name="withdraw_reason" aria-label="Reason for withdrawing" placeholder="Reason (optional)" maxlength="2000"/>
            <button type="submit" name="withdraw" value="yes" class="button" disabled=busy>"Confirm withdraw"</button>
        </Reveal>
    }
}
