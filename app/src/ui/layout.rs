//! The frame around every page.

pub mod header;
