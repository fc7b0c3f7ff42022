//! The one way a tool starts, for the agent's runs and the MCP proxy alike:
//! an approved call is claimed (approved → executing, once, whoever else
//! tries), run through its source, and its end recorded, each change
//! published as it is stored.

use std::sync::Arc;

use serde_json::Value;
use tracing::Instrument;

use crate::core::Core;
use crate::domain::ToolCall;
use crate::store::StoreError;
use crate::tools::mcp::result_value;
use crate::tools::{ToolError, ToolSource};

/// The shape the caller wants a result in: as Airlock stores it (what the
/// agent's model reads) or as an MCP client reads it (`content` blocks,
/// `isError`), which the proxy hands back unchanged.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Shape {
    Stored,
    Mcp,
}

/// How a call this process started ended.
#[derive(Debug)]
pub(crate) struct Ended {
    /// The source's answer, in the shape asked for.
    pub(crate) result: Result<Value, ToolError>,
    /// Whether this process recorded the end; false when someone else
    /// recorded it first.
    pub(crate) recorded: bool,
}

/// Runs approved `call` through `source` (its source, `None` when it is not
/// connected), at most once; `None` when someone else claimed it first.
pub(crate) async fn run_approved(
    core: &Core,
    source: Option<&Arc<dyn ToolSource>>,
    call: &ToolCall,
    shape: Shape,
) -> Result<Option<Ended>, StoreError> {
    let Some((claimed, event)) = core.leases().claim_call(call, core.clock.now()).await? else {
        return Ok(None);
    };
    core.events.publish([event]);
    let result = match source {
        Some(source) => {
            let (tool, arguments) = (&claimed.tool, &claimed.arguments);
            let called = async {
                match shape {
                    Shape::Stored => source.call(tool, arguments).await,
                    Shape::Mcp => source.call_raw(tool, arguments).await,
                }
            };
            called.instrument(tool_span(&claimed)).await
        }
        None => Err(ToolError::Failed(format!(
            "the source {} is not connected",
            claimed.source
        ))),
    };
    let stored = match (&result, shape) {
        (Ok(value), Shape::Stored) => Ok(value.clone()),
        (Ok(raw), Shape::Mcp) => match result_value(raw) {
            (value, false) => Ok(value),
            (value, true) => Err(value["content"]
                .as_str()
                .unwrap_or("the tool failed")
                .to_owned()),
        },
        (Err(e), _) => Err(e.to_string()),
    };
    // PostgreSQL's text cannot hold a NUL.
    let stored = stored.map_err(|text| text.replace('\0', "\u{FFFD}"));
    let finished = core
        .leases()
        .finish_call(&claimed, stored, core.clock.now());
    let recorded = match finished.await? {
        Some((_, event)) => {
            core.events.publish([event]);
            true
        }
        None => false,
    };
    Ok(Some(Ended { result, recorded }))
}

/// The span of one tool run, for a collector (see `server/src/telemetry.rs`).
fn tool_span(call: &ToolCall) -> tracing::Span {
    tracing::debug_span!("tool", source = %call.source, tool = %call.tool, call = %call.id)
}
