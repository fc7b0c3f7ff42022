//! "3 tool calls waiting for approval" with Approve all and Reject all (one
//! optional reason): above the chat's composer, and on each conversation's
//! calls in the inbox. Each offers only the calls the person looking may
//! decide, and says how many when that is not all of them.

use leptos::prelude::*;

use crate::server_fns::approvals::{ApproveAll, RejectAll};
use crate::ui::common::post_form::{Post, PostForm};
use crate::ui::common::reveal::Reveal;
use crate::wire::{Deciding, ToolCallItem};

/// The waiting calls the bar speaks of: the agent's questions need an
/// answer, not an approval, and are left out.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Waiting {
    /// Every call that waits for approval.
    pub all: usize,
    /// Those the person looking may approve.
    pub approvable: usize,
    /// Those they may at least refuse.
    pub refusable: usize,
}

impl Waiting {
    /// Counts `calls` for `deciding`.
    pub fn count<'a>(
        calls: impl IntoIterator<Item = &'a ToolCallItem>,
        deciding: &Deciding,
    ) -> Self {
        calls.into_iter().fold(Self::default(), |mut n, call| {
            n.all += usize::from(call.can_decide() && !call.is_question());
            n.approvable += usize::from(deciding.may_approve(call));
            n.refusable += usize::from(deciding.may_refuse(call));
            n
        })
    }

    /// "1 tool call waiting for approval", "3 tool calls waiting for
    /// approval, 2 of them for you".
    fn words(self) -> String {
        let all = match self.all {
            1 => "1 tool call waiting for approval".to_owned(),
            n => format!("{n} tool calls waiting for approval"),
        };
        match self.refusable {
            n if n == self.all => all,
            1 => format!("{all}, 1 of them for you"),
            n => format!("{all}, {n} of them for you"),
        }
    }

    /// "Approve all", or "Approve 2 of 3" when some are not theirs.
    fn label(verb: &str, some: usize, all: usize) -> String {
        if some == all {
            format!("{verb} all")
        } else {
            format!("{verb} {some} of {all}")
        }
    }
}

/// Shown while the person looking may decide two or more of the
/// conversation's waiting calls (`waiting`, counted once per change of the
/// calls); each call it decides goes to `on_decided`. `label` names the region.
#[component]
pub fn PendingBar(
    conversation_id: String,
    waiting: Memo<Waiting>,
    on_decided: Callback<ToolCallItem>,
    #[prop(into)] label: Signal<String>,
) -> impl IntoView {
    // Both forms answer with the calls they decided.
    let decide = Post::<Vec<ToolCallItem>>::new();
    Effect::new(move |_| {
        if let Some(Ok(calls)) = decide.value().get() {
            calls.into_iter().for_each(|c| on_decided.run(c));
        }
    });
    let busy: Signal<bool> = decide.pending().into();
    let problem = move || match decide.value().get() {
        Some(Err(e)) => Some(e.to_string()),
        _ => None,
    };
    let reject_id = conversation_id.clone();
    let approve = move || {
        let n = waiting.get();
        Waiting::label("Approve", n.approvable, n.all)
    };
    let reject = move || {
        let n = waiting.get();
        Waiting::label("Reject", n.refusable, n.all)
    };
    // Hidden rather than unmounted, so its forms exist before hydration too.
    view! {
            <section class="pending-bar" aria-label=label hidden=move || { waiting.get().refusable < 2 }>
                <p class="pending-count">{move || waiting.get().words()}</p>
                <div class="pending-actions">
                    <div class="pending-approve" hidden=move || waiting.get().approvable == 0>
                        <PostForm to={decide.to::<ApproveAll>()}>
                            <input type="hidden" name="conversation_id" value=conversation_id.clone()/>
                            <button type="submit" class="button primary" disabled=busy>{approve}</button>
                        </PostForm>
                    </div>
                    <Reveal label=Signal::derive(reject) class="danger" disabled=busy>
                        <PostForm to={decide.to::<RejectAll>()}>
                            <input type="hidden" name="conversation_id" value=reject_id/>
                            <input type="text" name="reason" aria-label="Reason for rejecting all" placeholder="Reason (optional)" maxlength="2000"/>
                            <button type="submit" class="button danger" disabled=busy>{move || format!("Confirm {}", reject().to_lowercase())}</button>
                        </PostForm>
                    </Reveal>
                </div>
                {move || problem().map(|text| view! { <p class="form-error" role="alert">{text}</p> })}
            </section>
    }
}

#[cfg(test)]
mod tests {
    use super::Waiting;

    #[test]
    fn the_bar_says_how_many_wait_and_how_many_are_yours() {
        let n = |all, approvable, refusable| Waiting {
            all,
            approvable,
            refusable,
        };
        assert_eq!(n(1, 1, 1).words(), "1 tool call waiting for approval");
        assert_eq!(n(3, 3, 3).words(), "3 tool calls waiting for approval");
        assert_eq!(
            n(3, 0, 2).words(),
            "3 tool calls waiting for approval, 2 of them for you"
        );
        assert_eq!(Waiting::label("Approve", 3, 3), "Approve all");
        assert_eq!(Waiting::label("Reject", 2, 3), "Reject 2 of 3");
    }
}
