//! The approvals inbox, kept live.

pub mod inbox_entry;
pub mod inbox_view;
