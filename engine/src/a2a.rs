//! A2A, the agent-to-agent protocol kagent's agents speak, as far as
//! approvals need it. `kagent` reads and writes kagent's three tool-approval
//! contracts over a message's parts and metadata, whichever A2A version
//! carries the message; the versions' JSON is the transport's to map.

pub mod kagent;
pub mod remote;
pub mod thread;
pub mod wire;

use serde_json::{Map, Value};

/// A message's content as both A2A versions carry it: its parts, its
/// metadata and the extensions it names.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Content {
    pub parts: Vec<Part>,
    pub metadata: Map<String, Value>,
    pub extensions: Vec<String>,
}

/// One part of a message.
#[derive(Debug, Clone, PartialEq)]
pub enum Part {
    Text(String),
    Data {
        data: Value,
        metadata: Map<String, Value>,
    },
    /// A file, kept as its version wrote it: approvals never read one.
    File(Value),
}

impl Content {
    /// The text of its text parts, one after another.
    pub fn text(&self) -> String {
        let texts = self.parts.iter().filter_map(|p| match p {
            Part::Text(text) => Some(text.as_str()),
            Part::Data { .. } | Part::File(_) => None,
        });
        texts.collect::<Vec<_>>().join("\n")
    }

    /// The data of its data parts.
    pub fn data(&self) -> impl Iterator<Item = (&Value, &Map<String, Value>)> {
        self.parts.iter().filter_map(|p| match p {
            Part::Data { data, metadata } => Some((data, metadata)),
            Part::Text(_) | Part::File(_) => None,
        })
    }
}
