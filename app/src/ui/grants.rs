//! Components of the "Always allowed" page.

pub mod grant_list;
pub mod revoke_button;
