//! "Always allow" grants: listing and revoking them.

mod list_grants;
mod revoke_grant;

pub use list_grants::*;
pub use revoke_grant::*;
