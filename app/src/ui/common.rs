//! Small pieces shared by several pages.

pub mod load_error;
