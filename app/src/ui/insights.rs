//! The insights page's parts: the table by tool, rubber stamps and shadow
//! differences.

pub mod rubber_stamp;
pub mod shadow_table;
pub mod tool_table;
