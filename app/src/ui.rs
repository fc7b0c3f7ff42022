//! The components, one per file, grouped by area.

pub mod account;
pub mod app;
pub mod audit;
pub mod chat;
pub mod common;
pub mod conversations;
pub mod grants;
pub mod inbox;
pub mod insights;
pub mod layout;
pub mod pages;
pub mod review;
pub mod sources;
