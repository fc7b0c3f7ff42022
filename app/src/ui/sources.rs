//! The Sources page's parts.

pub mod source_list;
