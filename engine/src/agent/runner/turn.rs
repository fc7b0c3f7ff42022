//! One turn of the model: the conversation sent, the reply streamed to open
//! browsers, and what it says recorded: calls proposed under the policy, or
//! the run concluded with its last words. What the reply could not carry (a
//! call cut off, a text stopped at the length limit) is marked in it, for
//! the person and for the model.

use std::sync::Arc;

use tokio::sync::Notify;
use tracing::Instrument;

use super::ending::storable;
use super::{Agent, AgentError, StepOutcome, CONTEXT_MESSAGES};
use crate::agent::model::{ModelReply, ModelRequest, Progress};
use crate::agent::openai::SYSTEM_PROMPT;
use crate::agent::transcript;
use crate::config::estimate_tokens;
use crate::decisions;
use crate::domain::markdown::Drafting;
use crate::domain::{DraftPiece, ProposedCall, Run, RunStatus, AGENT_SOURCE, QUESTION_TOOL};
use crate::tools::ToolSpec;

/// Calls one turn may propose; a model that proposes more (a small model
/// may emit dozens) has the rest dropped, and is told.
pub const MAX_CALLS_PER_TURN: usize = 20;

/// How a turn ended.
pub(super) enum TurnEnd {
    /// It proposed calls; the run goes on with them.
    Proposed,
    /// The run is over, or was given up.
    Ended(StepOutcome),
}

impl Agent {
    /// Asks the model for the next turn of `run` and records its answer.
    /// A ring of `stop` ends the reply where it is.
    pub(super) async fn take_turn(&self, run: &Run, stop: &Notify) -> Result<TurnEnd, AgentError> {
        let conversation = &run.conversation_id;
        // The model sees the recent part of a long conversation, so a
        // step costs the same at message 10 and at message 10,000.
        let messages = self
            .core
            .conversations()
            .recent_messages(conversation, None, CONTEXT_MESSAGES)
            .await?;
        let first = messages.first().map_or(0, |m| m.seq);
        let calls = self
            .core
            .call_reads()
            .tool_calls_from(conversation, first)
            .await?;
        let catalog = self.catalog();
        let tools = catalog.offered_tools();
        let turns = catalog.named_for_model(transcript::turns(&messages, &calls), &calls);
        let request = ModelRequest {
            turns: transcript::fit(turns, self.history_room(&tools)),
            tools,
        };
        // The reply's text streams to open browsers as it is written, and
        // is kept here too, so a reply that breaks off is not lost.
        let events = self.core.events.clone();
        let writing_in = conversation.clone();
        let drafting = Arc::new(Drafting::default());
        let written = drafting.clone();
        let progress = move |piece: Progress<'_>| {
            let piece = match piece {
                Progress::Text(text) => DraftPiece::Text {
                    text: text.to_owned(),
                    html: drafting.add(text),
                },
                Progress::Call {
                    index,
                    name,
                    arguments,
                } => DraftPiece::Call {
                    index,
                    name: name.map(str::to_owned),
                    arguments: arguments.to_owned(),
                },
            };
            events.draft(&writing_in, piece);
        };
        let started = std::time::Instant::now();
        let asked = tokio::select! {
            // A stop rung while a tool ran is heard here first.
            biased;
            _ = stop.notified() => None,
            reply = self.model.reply(&request, &progress).instrument(tracing::debug_span!("model")) => Some(reply),
        };
        if let Some(answered) = &asked {
            let took = started.elapsed().as_secs_f64();
            self.core.metrics.model_request(took, answered.is_ok());
        }
        // Whatever comes of it, the reply is no longer being written.
        self.core.events.draft_ended(conversation);
        let Some(asked) = asked else {
            return Ok(TurnEnd::Ended(self.stopped(run, &written.written()).await?));
        };
        let mut reply = match asked {
            Ok(reply) => reply,
            Err(e) => {
                let so_far = written.written();
                if !so_far.trim().is_empty() {
                    self.say(conversation, &format!("{so_far}\n\n*[Broken off.]*"))
                        .await?;
                }
                let error = e.to_string();
                let notice = format!("The model could not answer: {e}. {}", e.advice());
                let notice = self.notice(conversation, &notice);
                self.conclude(run, notice, RunStatus::Failed, Some(&error))
                    .await?;
                return Ok(TurnEnd::Ended(StepOutcome::Failed(error)));
            }
        };
        let extra = reply.calls.len().saturating_sub(MAX_CALLS_PER_TURN);
        reply.calls.truncate(MAX_CALLS_PER_TURN);
        let text = marked(&reply, extra);
        if reply.calls.is_empty() {
            let last = self.reply(conversation, &text);
            self.conclude(run, last, RunStatus::Done, None).await?;
            return Ok(TurnEnd::Ended(StepOutcome::Done));
        }
        let message = self.say(conversation, &text).await?;
        let proposals = reply
            .calls
            .into_iter()
            .map(|c| {
                let (source, tool, read_only) = if c.tool == QUESTION_TOOL {
                    (AGENT_SOURCE.to_owned(), c.tool, false)
                } else {
                    match catalog.resolve(&c.tool) {
                        Some(o) => (o.source.clone(), o.tool.clone(), o.spec.read_only),
                        // The policy refuses calls of tools nobody offers.
                        None => (String::new(), c.tool, false),
                    }
                };
                ProposedCall {
                    source,
                    tool: storable(&tool),
                    arguments: c.arguments,
                    read_only_hint: read_only,
                }
            })
            .collect();
        let turn = decisions::Turn {
            run,
            message_seq: message.seq,
        };
        decisions::propose_in_run(&self.core, conversation, Some(turn), proposals).await?;
        Ok(TurnEnd::Proposed)
    }
}

impl Agent {
    /// The tokens the conversation may take of the model's context: what
    /// the reply, the instructions and the tools' descriptions leave.
    fn history_room(&self, tools: &[ToolSpec]) -> u32 {
        let Some(context) = self.core.config.model_context else {
            return u32::MAX;
        };
        let described = serde_json::to_string(tools).unwrap_or_default();
        context
            .tokens
            .saturating_sub(context.reply_room())
            .saturating_sub(estimate_tokens(SYSTEM_PROMPT))
            .saturating_sub(estimate_tokens(&described))
    }
}

/// The reply's text with what it could not carry marked at its end: the
/// person reads why a call they expected has no card, and the model, when
/// it reads the turn back, what became of its calls.
fn marked(reply: &ModelReply, extra_calls: usize) -> String {
    let mut marks = Vec::new();
    for dropped in &reply.dropped {
        let call = match dropped.tool.as_str() {
            "" => "A call".to_owned(),
            tool => format!("A call to `{tool}`"),
        };
        marks.push(format!("*[{call} was dropped: {}.]*", dropped.why));
    }
    if extra_calls > 0 {
        marks.push(format!(
            "*[{extra_calls} more calls were dropped: one turn may propose at most {MAX_CALLS_PER_TURN}.]*"
        ));
    }
    if reply.cut_off && reply.dropped.is_empty() && reply.calls.is_empty() {
        marks.push("*[Cut off at the length limit.]*".to_owned());
    }
    let text = reply.text.trim_end();
    match (text.is_empty(), marks.is_empty()) {
        (_, true) => reply.text.clone(),
        (true, false) => marks.join("\n\n"),
        (false, false) => format!("{text}\n\n{}", marks.join("\n\n")),
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::agent::model::{DroppedCall, ProposedToolCall};

    #[test]
    fn what_a_reply_could_not_carry_is_marked_in_it() {
        let whole = ModelReply {
            text: "Hello.".into(),
            ..ModelReply::default()
        };
        assert_eq!(marked(&whole, 0), "Hello.");
        let cut = ModelReply {
            text: "Once upon a ".into(),
            cut_off: true,
            ..ModelReply::default()
        };
        assert_eq!(
            marked(&cut, 0),
            "Once upon a\n\n*[Cut off at the length limit.]*"
        );
        let calls = ModelReply {
            calls: vec![ProposedToolCall {
                tool: "delete_file".into(),
                arguments: json!({"path": "a"}),
            }],
            cut_off: true,
            dropped: vec![DroppedCall {
                tool: "write_file".into(),
                why: "cut off at the length limit".into(),
            }],
            ..ModelReply::default()
        };
        assert_eq!(
            marked(&calls, 3),
            "*[A call to `write_file` was dropped: cut off at the length limit.]*\n\n\
             *[3 more calls were dropped: one turn may propose at most 20.]*"
        );
    }
}
