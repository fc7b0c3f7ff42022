//! The tools the model is offered: every source's tools, each under the name
//! the model knows it by, built once (a source's tool list is fixed once it
//! is connected).

use std::collections::BTreeMap;
use std::sync::Arc;

use super::model::Turn;
use crate::config::Config;
use crate::domain::ToolCall;
use crate::tools::{ToolSource, ToolSpec};

/// One tool as the model is offered it.
#[derive(Debug)]
pub(super) struct Offered {
    /// The source offering it.
    pub(super) source: String,
    /// Its name within that source.
    pub(super) tool: String,
    /// The tool as the model sees it: named `source__tool` when another
    /// source offers a tool of the same name.
    pub(super) spec: ToolSpec,
}

/// Every source's tools, named for the model.
#[derive(Debug)]
pub(super) struct Catalog {
    offered: Vec<Offered>,
}

impl Catalog {
    /// Names every source's tools for the model.
    pub(super) fn new(sources: &BTreeMap<String, Arc<dyn ToolSource>>) -> Self {
        Self {
            offered: offered(sources),
        }
    }

    /// The tools the model is offered: those `config`'s policy does not
    /// hide, plus the built-in question tool.
    pub(super) fn offered_tools(&self, config: &Config) -> Vec<ToolSpec> {
        let mut tools: Vec<ToolSpec> = self
            .offered
            .iter()
            .filter(|o| config.policy_for(&o.source).is_visible(&o.tool))
            .map(|o| o.spec.clone())
            .collect();
        tools.push(super::question_tool());
        tools
    }

    /// The name the model knows a source's tool by.
    pub(super) fn model_name(&self, source: &str, tool: &str) -> String {
        self.offered
            .iter()
            .find(|o| o.source == source && o.tool == tool)
            .map_or_else(|| tool.to_owned(), |o| o.spec.name.clone())
    }

    /// The offered tool behind a name the model used.
    pub(super) fn resolve(&self, model_name: &str) -> Option<&Offered> {
        self.offered.iter().find(|o| o.spec.name == model_name)
    }

    /// Past calls under the names the model was offered them by.
    pub(super) fn named_for_model(&self, mut turns: Vec<Turn>, calls: &[ToolCall]) -> Vec<Turn> {
        for turn in &mut turns {
            if let Turn::Assistant { calls: told, .. } = turn {
                for t in told {
                    if let Some(c) = calls.iter().find(|c| c.id.as_str() == t.id) {
                        if c.source != super::AGENT_SOURCE {
                            t.tool = self.model_name(&c.source, &c.tool);
                        }
                    }
                }
            }
        }
        turns
    }
}

/// Each source's tools, a name two sources share prefixed with its source.
fn offered(sources: &BTreeMap<String, Arc<dyn ToolSource>>) -> Vec<Offered> {
    let all: Vec<(&String, ToolSpec)> = sources
        .iter()
        .flat_map(|(name, source)| source.tools().into_iter().map(move |t| (name, t)))
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
