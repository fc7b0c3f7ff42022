//! The approvals inbox, kept live.

pub mod inbox_group;
pub mod inbox_view;
