use leptos::prelude::*;
use leptos::server_fn::codec::GetUrl;

use crate::error::AppError;

/// The remote agents a conversation may be held with (source blocks with
/// `a2a:`), by name.
#[server(prefix = "/api/fn", endpoint = "remote_agents", input = GetUrl)]
pub async fn remote_agents() -> Result<Vec<String>, AppError> {
    crate::state::allowed(engine::domain::Action::Converse)?;
    Ok(crate::state::engine().config().remote_agents())
}
