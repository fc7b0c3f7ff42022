//! One component per route.

pub mod account;
pub mod allowed;
pub mod approvals;
pub mod audit;
pub mod conversation;
pub mod home;
pub mod insights;
pub mod not_found;
pub mod people;
pub mod review;
pub mod setup;
pub mod sign_in;
pub mod sources;
