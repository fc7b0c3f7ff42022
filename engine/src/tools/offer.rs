//! The tools Airlock offers, to its own agent's model and to MCP clients
//! through the proxy: every source's tools its policy does not hide, each
//! under one name, the source's name put before a name two sources share.

use std::collections::BTreeMap;
use std::sync::Arc;

use super::{ToolSource, ToolSpec};
use crate::config::Config;

/// One tool as it is offered, to the model or to an MCP client.
#[derive(Debug)]
pub struct Offered {
    /// The source offering it.
    pub source: String,
    /// Its name within that source.
    pub tool: String,
    /// The tool as it is offered: named `source__tool` when another
    /// source offers a tool of the same name.
    pub spec: ToolSpec,
}

/// Each source's visible tools, a name two sources offer prefixed with its
/// source (a tool one source hides takes no name from the other's).
pub fn offered(sources: &BTreeMap<String, Arc<dyn ToolSource>>, config: &Config) -> Vec<Offered> {
    let all: Vec<(&String, ToolSpec)> = sources
        .iter()
        .flat_map(|(name, source)| {
            let policy = config.policy_for(name);
            source
                .tools()
                .into_iter()
                .filter(|t| policy.is_visible(&t.name))
                .map(move |t| (name, t))
        })
        .collect();
    all.iter()
        .map(|(source, t)| {
            let shared = all.iter().filter(|(_, other)| other.name == t.name).count() > 1;
            let name = if shared {
                let safe: String = source
                    .chars()
                    .map(|c| {
                        if c.is_ascii_alphanumeric() || c == '-' {
                            c
                        } else {
                            '_'
                        }
                    })
                    .collect();
                format!("{safe}__{}", t.name)
            } else {
                t.name.clone()
            };
            Offered {
                source: (*source).clone(),
                tool: t.name.clone(),
                spec: ToolSpec { name, ..t.clone() },
            }
        })
        .collect()
}
