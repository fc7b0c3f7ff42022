//! The audit page's parts: the filters, and the entries.

pub mod audit_filters;
pub mod audit_list;
