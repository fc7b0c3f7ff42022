//! The account page's parts that run in the browser.

pub mod new_token;
