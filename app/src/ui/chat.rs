//! The chat: messages and the composer.

pub mod chat_view;
pub mod composer;
pub mod message_list;
