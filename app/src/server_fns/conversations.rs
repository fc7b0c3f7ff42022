//! Reading and starting conversations, and posting messages to them.

mod create_conversation;
mod get_conversation;
mod list_conversations;
mod post_message;
mod remote_agents;
mod stop_agent;

pub use create_conversation::*;
pub use get_conversation::*;
pub use list_conversations::*;
pub use post_message::*;
pub use remote_agents::*;
pub use stop_agent::*;
