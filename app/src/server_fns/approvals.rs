//! Deciding on tool calls that wait for a person.

mod always_allow_call;
mod answer_asked;
mod answer_question;
mod approve_all;
mod approve_call;
mod asked_form;
mod edit_call;
mod list_approvals;
mod reject_all;
mod reject_call;
mod step_up_challenge;
mod submit_answer;

pub use always_allow_call::*;
pub use answer_asked::*;
pub use answer_question::*;
pub use approve_all::*;
pub use approve_call::*;
pub use asked_form::*;
pub use edit_call::*;
pub use list_approvals::*;
pub use reject_all::*;
pub use reject_call::*;
pub use step_up_challenge::*;
pub use submit_answer::*;

/// The person deciding in the browser, once their access allows `action`:
/// the one signed in, or, when nobody signs in (no `auth:` block), the one
/// local person, named after the OS user.
#[cfg(feature = "ssr")]
fn chat_reviewer(
    action: engine::domain::Action,
) -> Result<engine::domain::Reviewer, crate::error::AppError> {
    crate::state::allowed(action)?;
    let channel = engine::domain::Channel::Chat;
    Ok(match crate::state::actor() {
        Some(actor) => engine::domain::Reviewer::person(actor, channel),
        None => {
            let engine = crate::state::engine();
            engine::domain::Reviewer::named(engine.config().local_person.as_str(), channel)
        }
    })
}
