//! The calls a remote A2A agent asks approval for (a source with `a2a:`):
//! the agent runs them itself, once decided here. A call approved here is
//! "run" by recording that it is the agent's to run now, so it ends like
//! any approved call (audit, receipt, card) and its run goes on to send
//! the agent the decisions. Airlock's own model is offered none of them.

use async_trait::async_trait;
use serde_json::{json, Value};

use super::{ToolError, ToolSource, ToolSpec};

/// The calls of agent `name`.
#[derive(Debug, Clone)]
pub struct AgentCalls {
    name: String,
}

impl AgentCalls {
    pub fn new(name: &str) -> Self {
        Self {
            name: name.to_owned(),
        }
    }
}

#[async_trait]
impl ToolSource for AgentCalls {
    fn name(&self) -> &str {
        &self.name
    }

    fn tools(&self) -> Vec<ToolSpec> {
        Vec::new()
    }

    async fn call(&self, _tool: &str, _arguments: &Value) -> Result<Value, ToolError> {
        let said = format!("Approved: {} runs the call.", self.name);
        Ok(json!({ "content": said }))
    }
}
