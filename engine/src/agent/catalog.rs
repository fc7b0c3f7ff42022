//! The tools the model is offered: every source's tools its policy does not
//! hide, each under the name the model knows it by. Built for each turn: a
//! source's tools come and go as it goes down and comes back.

use std::collections::BTreeMap;
use std::sync::Arc;

use super::model::Turn;
use crate::config::Config;
use crate::domain::ToolCall;
use crate::tools::offer::{offered, Offered};
use crate::tools::{ToolSource, ToolSpec};

/// Every source's tools, named for the model.
#[derive(Debug)]
pub(super) struct Catalog {
    offered: Vec<Offered>,
}

impl Catalog {
    /// Names for the model every tool of the sources that are up which
    /// `config`'s policy does not hide.
    pub(super) fn new(sources: &BTreeMap<String, Arc<dyn ToolSource>>, config: &Config) -> Self {
        Self {
            offered: offered(sources, config),
        }
    }

    /// The tools the model is offered, plus the built-in question tool.
    pub(super) fn offered_tools(&self) -> Vec<ToolSpec> {
        let mut tools: Vec<ToolSpec> = self.offered.iter().map(|o| o.spec.clone()).collect();
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

#[cfg(test)]
mod tests {
    use async_trait::async_trait;
    use serde_json::{json, Value};

    use super::*;
    use crate::tools::ToolError;

    /// A source with fixed tools that runs nothing.
    #[derive(Debug)]
    struct Listed {
        name: &'static str,
        tools: &'static [&'static str],
    }

    #[async_trait]
    impl ToolSource for Listed {
        fn name(&self) -> &str {
            self.name
        }

        fn tools(&self) -> Vec<ToolSpec> {
            self.tools
                .iter()
                .map(|t| ToolSpec {
                    name: (*t).to_owned(),
                    description: String::new(),
                    parameters: json!({ "type": "object" }),
                    read_only: false,
                })
                .collect()
        }

        async fn call(&self, _: &str, _: &Value) -> Result<Value, ToolError> {
            Ok(Value::Null)
        }
    }

    fn names(config: &str) -> Vec<String> {
        let sources: BTreeMap<String, Arc<dyn ToolSource>> = [
            Listed {
                name: "a",
                tools: &["read_file", "write_file"],
            },
            Listed {
                name: "b",
                tools: &["read_file", "search"],
            },
        ]
        .into_iter()
        .map(|s| (s.name.to_owned(), Arc::new(s) as Arc<dyn ToolSource>))
        .collect();
        let config = Config::parse("test.yaml", config).unwrap();
        let mut names: Vec<String> = Catalog::new(&sources, &config)
            .offered_tools()
            .into_iter()
            .map(|t| t.name)
            .collect();
        names.sort();
        names
    }

    #[test]
    fn a_name_two_sources_offer_is_prefixed_and_one_a_source_hides_is_not() {
        let both = "sources:\n  a: {policy_only: true}\n  b: {policy_only: true}\n";
        assert_eq!(
            names(both),
            [
                "a__read_file",
                "b__read_file",
                "request_human_input",
                "search",
                "write_file"
            ]
        );
        let b_hides = "sources:\n  a: {policy_only: true}\n  b: {policy_only: true, tool_blacklist: [read_file]}\n";
        assert_eq!(
            names(b_hides),
            ["read_file", "request_human_input", "search", "write_file"]
        );
    }
}
