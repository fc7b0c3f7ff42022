//! The audit's filters: a plain form that asks for the page again, so it
//! works without JavaScript and every filtered page has its own address.

use leptos::prelude::*;

use crate::wire::AUDIT_ACTIONS;

/// What the audit is narrowed to, as the page's address says.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct AuditFilters {
    pub who: Option<String>,
    pub tool: Option<String>,
    pub outcome: Option<String>,
    pub from: Option<String>,
    pub to: Option<String>,
}

impl AuditFilters {
    /// The filters as query parameters, `&`-led, for links to other pages.
    pub fn query(&self) -> String {
        crate::ui::common::query::kept_params(&[
            ("who", self.who.as_deref()),
            ("tool", self.tool.as_deref()),
            ("outcome", self.outcome.as_deref()),
            ("from", self.from.as_deref()),
            ("to", self.to.as_deref()),
        ])
    }

    /// Whether any filter is set.
    pub fn any(&self) -> bool {
        !self.query().is_empty()
    }
}

/// Person, tool, outcome and days, and Filter.
#[component]
pub fn AuditFilterForm(filters: AuditFilters) -> impl IntoView {
    let chosen = filters.outcome.clone().unwrap_or_default();
    view! {
        <form class="list-filters" method="get" action="/audit" role="search" aria-label="Filter the audit">
            <label>"Person"
                <input type="text" name="who" value=filters.who.unwrap_or_default() autocomplete="off"/>
            </label>
            <label>"Tool"
                <input type="text" name="tool" value=filters.tool.unwrap_or_default() autocomplete="off"/>
            </label>
            <label>"Outcome"
                <select name="outcome">
                    <option value="" selected=chosen.is_empty()>"Any"</option>
                    {AUDIT_ACTIONS.iter().map(|(stored, words)| view! {
                        <option value=*stored selected=chosen == *stored>{*words}</option>
                    }).collect_view()}
                </select>
            </label>
            <label>"From"
                <input type="date" name="from" value=filters.from.unwrap_or_default()/>
            </label>
            <label>"To"
                <input type="date" name="to" value=filters.to.unwrap_or_default()/>
            </label>
            <button type="submit" class="button">"Filter"</button>
        </form>
    }
}
