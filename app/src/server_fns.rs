//! Server functions, one per file, grouped by area. Each is a thin adapter:
//! parse the input, call one engine method, map the answer to a wire type.

pub mod approvals;
pub mod audit;
pub mod conversations;
pub mod grants;
pub mod people;
pub mod reviews;
pub mod sources;
