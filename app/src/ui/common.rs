//! Small pieces shared by several pages.

pub mod event_stream;
pub mod load_error;
pub mod reveal;
