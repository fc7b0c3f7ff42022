//! Previews of waiting calls: what a call would do, taken when it begins
//! to wait and shown on its card, and taken again when a person approves
//! it. A file that changed in between refuses the approval ("the file
//! changed since you looked") and the card shows the new diff.
//!
//! Files are read, and dry runs made, through the call's own source (its
//! `read_text_file` or `read_file` tool), so a preview sees the file the
//! tool would write, wherever that source runs.

pub(crate) mod command;
mod diff;
mod read;

use serde_json::Value;

use crate::core::Core;
use crate::domain::{CallStatus, Preview, ToolCall};
use crate::error::EngineError;
use crate::policy::PreviewPlan;

/// The preview of `call` to run with `arguments`, when its policy
/// previews the tool and the arguments hold what it needs.
pub(crate) async fn take(core: &Core, call: &ToolCall, arguments: &Value) -> Option<Preview> {
    let plan = core
        .config
        .policy_for(&call.source)
        .preview_plan(&call.tool)?;
    let text = |pointer: &str| arguments.pointer(pointer).and_then(Value::as_str);
    match plan {
        PreviewPlan::FileWrite { path, content } => {
            let write = read::FileWrite {
                path: text(&path)?,
                content: text(&content)?,
            };
            Some(Preview::FileWrite(
                read::file_write(core, call, write).await,
            ))
        }
        PreviewPlan::DryRun { arg } => {
            let run = read::dry_run(core, call, &arg, arguments).await?;
            Some(Preview::DryRun(run))
        }
        PreviewPlan::Command {
            command,
            cwd,
            folder,
        } => {
            let given = cwd.as_deref().and_then(text).filter(|f| f.starts_with('/'));
            let folder = given.or(folder.as_deref());
            Some(Preview::Command(command::read(text(&command)?, folder)))
        }
    }
}

/// Shows the preview of each waiting call of `calls` that has one, before
/// they are stored.
pub(crate) async fn take_for(core: &Core, calls: &mut [ToolCall]) {
    // Side by side: each may wait on its source (up to `read::WAIT`), and a
    // turn of several writes should wait for the slowest, not their sum.
    let taken = futures::future::join_all(calls.iter().map(|call| async move {
        let waits = call.status == CallStatus::PendingApproval && !call.is_question();
        match waits {
            true => take(core, call, &call.arguments).await,
            false => None,
        }
    }))
    .await;
    for (call, preview) in calls.iter_mut().zip(taken) {
        call.preview = preview;
    }
}

/// Refuses an approval of `call` (to run with `arguments`) when what its
/// preview saw has changed, and shows the new preview on its card. A
/// preview is taken again only when the person saw what it would show: a
/// dry run for the arguments it was made with, a file write for the same
/// file (an edit's own changes are what the person typed).
pub(crate) async fn recheck(
    core: &Core,
    call: &ToolCall,
    arguments: &Value,
) -> Result<(), EngineError> {
    let Some(before) = call.preview.as_ref() else {
        return Ok(());
    };
    let Some(seen) = before.seen() else {
        return Ok(());
    };
    let now = match take(core, call, arguments).await {
        Some(now) if now.seen() == Some(seen) => return Ok(()),
        Some(now) => now,
        None => return Ok(()),
    };
    let message = match (before, &now) {
        (Preview::FileWrite(old), Preview::FileWrite(new)) if old.path != new.path => return Ok(()),
        (Preview::DryRun(_), _) if *arguments != call.arguments => return Ok(()),
        (_, Preview::FileWrite(new)) if new.seen.is_none() => {
            "the file cannot be read again to check it has not changed: look at its card"
        }
        (_, Preview::FileWrite(_)) => "the file changed since you looked: look at the new diff",
        _ => "the dry run answers differently now: look at its new answer",
    };
    let now = now.renewed();
    if let Some(event) = core
        .calls()
        .show_preview(&call.id, &now, core.clock.now())
        .await?
    {
        core.events.publish([event]);
    }
    Err(EngineError::PreviewChanged {
        message: message.to_owned(),
    })
}

/// [`recheck`] of each waiting call of `calls`, as Approve all runs them.
pub(crate) async fn recheck_all(core: &Core, calls: &[ToolCall]) -> Result<(), EngineError> {
    for call in calls {
        if call.status == CallStatus::PendingApproval {
            recheck(core, call, &call.arguments).await?;
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests;
