//! The tool sources a server offers the agent: the built-in demo toolset
//! over the data directory, and every configured MCP server; and the calls
//! of each remote agent, which it runs itself.

use std::sync::Arc;

use anyhow::Context;

use engine::config::{Config, Connection};
use engine::tools::agent_calls::AgentCalls;
use engine::tools::demo::DemoTools;
use engine::tools::mcp::McpSource;
use engine::tools::ToolSource;

use crate::Settings;

/// Opens the demo workspace and starts keeping every configured MCP server
/// connected, each in the background on its own: startup never waits on
/// one, and a source's tools are offered once it is up.
pub fn open(settings: &Settings, config: &Config) -> anyhow::Result<Vec<Arc<dyn ToolSource>>> {
    let demo = DemoTools::open(&settings.data_dir).with_context(|| {
        format!(
            "cannot open the demo workspace in {}",
            settings.data_dir.display()
        )
    })?;
    let mut sources: Vec<Arc<dyn ToolSource>> = vec![Arc::new(demo)];
    // A remote agent runs its calls itself, once decided here.
    let agents = config
        .sources
        .iter()
        .filter(|(_, source)| matches!(source.connection, Connection::Agent { .. }));
    sources.extend(agents.map(|(name, _)| Arc::new(AgentCalls::new(name)) as Arc<dyn ToolSource>));
    sources.extend(
        config
            .sources
            .iter()
            .filter_map(|(name, source)| McpSource::start(name, source).ok())
            .map(|source| Arc::new(source) as Arc<dyn ToolSource>),
    );
    Ok(sources)
}
