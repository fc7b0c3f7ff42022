//! Deciding on tool calls that wait for a person.

mod approve_call;
mod reject_call;

pub use approve_call::*;
pub use reject_call::*;
