//! The account page's parts that run in the browser.

pub mod add_passkey;
pub mod new_token;
