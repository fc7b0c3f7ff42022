//! Where a call was announced, on its card: a line per channel, kept up to
//! date as deliveries are recorded.

use std::collections::HashMap;

use leptos::prelude::*;

use crate::wire::{AnnouncementItem, ToolCallItem};

/// The latest notices of each call an island shows, by call id. A card's
/// notices follow them without the card being drawn again, which would
/// lose a reviewer's half-typed reason or edit.
#[derive(Debug, Clone, Copy)]
pub struct LiveNotices(RwSignal<HashMap<String, Vec<AnnouncementItem>>>);

impl LiveNotices {
    /// New, for the cards of the island that calls it.
    pub fn provide() -> Self {
        let live = Self::unseen();
        provide_context(live);
        live
    }

    /// New, for no card.
    pub fn unseen() -> Self {
        Self(RwSignal::new(HashMap::new()))
    }

    /// Takes the notices of `call` as it is now.
    pub fn note(&self, call: &ToolCallItem) {
        let changed = self.0.with_untracked(|all| match all.get(&call.id) {
            Some(known) => *known != call.announced,
            None => !call.announced.is_empty(),
        });
        if changed {
            self.0.update(|all| {
                all.insert(call.id.clone(), call.announced.clone());
            });
        }
    }
}

/// The call's notices: "Notified ops-hook 10:02", or what fails.
#[component]
pub fn Notices(call_id: String, announced: Vec<AnnouncementItem>) -> impl IntoView {
    let live = use_context::<LiveNotices>();
    let latest = move || {
        live.and_then(|l| l.0.with(|all| all.get(&call_id).cloned()))
            .unwrap_or_else(|| announced.clone())
    };
    move || {
        let latest = latest();
        (!latest.is_empty()).then(|| {
            view! {
                <ul class="tool-notices" aria-label="Notifications">
                    {latest.iter().map(|a| {
                        let line = a.line();
                        let class = if line.failing { "notice notice-failing" } else { "notice" };
                        view! { <li class=class>{line.text}</li> }
                    }).collect_view()}
                </ul>
            }
        })
    }
}
