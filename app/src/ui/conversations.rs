//! Components of the conversation list.

pub mod conversation_list;
pub mod new_conversation_button;
