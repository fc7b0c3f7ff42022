//! Reading a streamed chat completion: server-sent `data:` lines, each a
//! chunk whose delta adds text or a piece of a tool call. Arguments arrive
//! split across chunks and are only parsed once the stream ends.

use serde_json::Value;

use crate::agent::model::ProposedToolCall;
use crate::agent::model::{DroppedCall, ModelError, ModelReply, OnProgress, Progress};

/// Splits a byte stream into lines, across chunk boundaries.
#[derive(Debug, Default)]
pub struct Lines {
    pending: Vec<u8>,
}

impl Lines {
    /// Adds bytes; returns the complete lines they finish, without line ends.
    pub fn push(&mut self, bytes: &[u8]) -> Vec<String> {
        self.pending.extend_from_slice(bytes);
        let mut lines = Vec::new();
        while let Some(at) = self.pending.iter().position(|b| *b == b'\n') {
            let line: Vec<u8> = self.pending.drain(..=at).collect();
            let line = String::from_utf8_lossy(&line);
            lines.push(line.trim_end_matches(['\n', '\r']).to_owned());
        }
        lines
    }

    /// What is left when the stream ends without a final line break.
    pub fn finish(&mut self) -> Option<String> {
        let rest = String::from_utf8_lossy(&std::mem::take(&mut self.pending))
            .trim()
            .to_owned();
        (!rest.is_empty()).then_some(rest)
    }
}

#[derive(Debug, Default)]
struct PartialCall {
    name: String,
    arguments: String,
}

/// Collects the deltas of one streamed completion.
#[derive(Debug, Default)]
pub struct Accumulator {
    text: String,
    calls: Vec<PartialCall>,
    done: bool,
    /// Why the model stopped, when it said: `stop`, `tool_calls`, `length`…
    finish_reason: Option<String>,
}

/// What one line of the stream meant.
#[derive(Debug, PartialEq)]
pub enum Step {
    /// Nothing to show (a comment, an empty line, a chunk without pieces).
    Nothing,
    /// Pieces of the reply, handed on.
    Shown,
    /// The stream said it is complete.
    Done,
}

impl Accumulator {
    /// Takes one line of the stream, handing its pieces to `progress`.
    pub fn line(&mut self, line: &str, progress: OnProgress<'_>) -> Result<Step, ModelError> {
        let Some(data) = line.strip_prefix("data:") else {
            return Ok(Step::Nothing);
        };
        let data = data.trim();
        if data == "[DONE]" {
            self.done = true;
            return Ok(Step::Done);
        }
        let chunk: Value = serde_json::from_str(data)
            .map_err(|e| ModelError::BadReply(format!("a stream chunk is not JSON: {e}")))?;
        self.chunk(&chunk, progress)
    }

    /// Takes one parsed chunk (also used for a whole non-streamed reply's message).
    pub fn chunk(&mut self, chunk: &Value, progress: OnProgress<'_>) -> Result<Step, ModelError> {
        if let Some(error) = chunk.get("error") {
            let message = error["message"].as_str().unwrap_or("unknown error");
            return Err(ModelError::Broken(format!(
                "the server reported an error mid-reply: {message}"
            )));
        }
        let Some(choice) = chunk["choices"].get(0) else {
            return Ok(Step::Nothing);
        };
        let delta = choice
            .get("delta")
            .or_else(|| choice.get("message"))
            .unwrap_or(&Value::Null);
        let mut step = Step::Nothing;
        if let Some(text) = delta["content"].as_str().filter(|t| !t.is_empty()) {
            self.text.push_str(text);
            progress(Progress::Text(text));
            step = Step::Shown;
        }
        if let Some(calls) = delta["tool_calls"].as_array() {
            for (n, call) in calls.iter().enumerate() {
                let index = call["index"].as_u64().map(|i| i as usize).unwrap_or(n);
                if index > 1_000 {
                    return Err(ModelError::BadReply(format!("tool call index {index}")));
                }
                if self.calls.len() <= index {
                    self.calls.resize_with(index + 1, PartialCall::default);
                }
                let partial = &mut self.calls[index];
                let name = call["function"]["name"].as_str().filter(|n| !n.is_empty());
                let arguments = call["function"]["arguments"].as_str().unwrap_or_default();
                partial.name.push_str(name.unwrap_or_default());
                partial.arguments.push_str(arguments);
                if name.is_some() || !arguments.is_empty() {
                    progress(Progress::Call {
                        index,
                        name,
                        arguments,
                    });
                    step = Step::Shown;
                }
            }
        }
        if let Some(reason) = choice["finish_reason"].as_str() {
            self.done = true;
            self.finish_reason = Some(reason.to_owned());
        }
        Ok(step)
    }

    /// Whether the stream said it is complete.
    pub fn is_done(&self) -> bool {
        self.done
    }

    /// The whole reply, with each call's arguments parsed. A call whose
    /// arguments cannot be read is dropped with the reason, and the others
    /// stand: a reply cut off at the length limit keeps its complete calls.
    pub fn finish(self) -> ModelReply {
        let cut_off = self.finish_reason.as_deref() == Some("length");
        let mut reply = ModelReply {
            text: self.text,
            cut_off,
            ..ModelReply::default()
        };
        for c in self.calls {
            if c.name.is_empty() && c.arguments.trim().is_empty() {
                continue;
            }
            match arguments(&c.arguments) {
                Ok(arguments) if !c.name.is_empty() => reply.calls.push(ProposedToolCall {
                    tool: c.name,
                    arguments,
                }),
                Ok(_) | Err(_) if cut_off => reply.dropped.push(DroppedCall {
                    tool: c.name,
                    why: "cut off at the length limit".into(),
                }),
                Ok(_) => reply.dropped.push(DroppedCall {
                    tool: c.name,
                    why: "it named no tool".into(),
                }),
                Err(why) => reply.dropped.push(DroppedCall { tool: c.name, why }),
            }
        }
        reply
    }
}

/// A call's arguments: a JSON object, or nothing at all.
fn arguments(text: &str) -> Result<Value, String> {
    if text.trim().is_empty() {
        return Ok(Value::Object(Default::default()));
    }
    match serde_json::from_str::<Value>(text) {
        Ok(value) if value.is_object() => Ok(value),
        Ok(_) => Err("its arguments are not a JSON object".into()),
        Err(e) => Err(format!("its arguments are not valid JSON ({e})")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn lines_are_split_across_chunks() {
        let mut lines = Lines::default();
        assert!(lines.push(b"data: {\"a\"").is_empty());
        assert_eq!(lines.push(b":1}\r\n\ndata: [DO"), ["data: {\"a\":1}", ""]);
        assert_eq!(lines.push(b"NE]\n"), ["data: [DONE]"]);
        assert_eq!(lines.finish(), None);
        lines.push(b"data: tail");
        assert_eq!(lines.finish().as_deref(), Some("data: tail"));
    }

    #[test]
    fn text_and_split_arguments_become_a_reply() {
        let mut acc = Accumulator::default();
        let chunks = [
            json!({"choices": [{"delta": {"role": "assistant", "content": "Deleting "}}]}),
            json!({"choices": [{"delta": {"content": "both."}}]}),
            json!({"choices": [{"delta": {"tool_calls": [{"index": 0, "id": "c1", "function": {"name": "delete_file", "arguments": "{\"pa"}}]}}]}),
            json!({"choices": [{"delta": {"tool_calls": [{"index": 0, "function": {"arguments": "th\": \"a\"}"}}]}}]}),
            json!({"choices": [{"delta": {"tool_calls": [{"index": 1, "id": "c2", "function": {"name": "delete_file", "arguments": ""}}]}}]}),
            json!({"choices": [{"delta": {"tool_calls": [{"index": 1, "function": {"arguments": "{\"path\": \"b\"}"}}]}}]}),
            json!({"choices": [{"delta": {}, "finish_reason": "tool_calls"}]}),
        ];
        let seen = std::sync::Mutex::new(Vec::new());
        let progress = |p: Progress<'_>| seen.lock().unwrap().push(format!("{p:?}"));
        for chunk in &chunks {
            acc.line(&format!("data: {chunk}"), &progress).unwrap();
        }
        assert_eq!(acc.line(": keep-alive", &progress).unwrap(), Step::Nothing);
        assert_eq!(acc.line("data: [DONE]", &progress).unwrap(), Step::Done);
        assert!(acc.is_done());
        assert_eq!(
            *seen.lock().unwrap(),
            [
                r#"Text("Deleting ")"#,
                r#"Text("both.")"#,
                r#"Call { index: 0, name: Some("delete_file"), arguments: "{\"pa" }"#,
                r#"Call { index: 0, name: None, arguments: "th\": \"a\"}" }"#,
                r#"Call { index: 1, name: Some("delete_file"), arguments: "" }"#,
                r#"Call { index: 1, name: None, arguments: "{\"path\": \"b\"}" }"#,
            ]
        );
        let reply = acc.finish();
        assert_eq!(reply.text, "Deleting both.");
        assert!(!reply.cut_off && reply.dropped.is_empty());
        assert_eq!(
            reply.calls,
            [
                ProposedToolCall {
                    tool: "delete_file".into(),
                    arguments: json!({"path": "a"})
                },
                ProposedToolCall {
                    tool: "delete_file".into(),
                    arguments: json!({"path": "b"})
                },
            ]
        );
    }

    #[test]
    fn a_call_cut_off_at_the_length_limit_is_dropped_and_the_complete_ones_stand() {
        let mut acc = Accumulator::default();
        let calls = json!([
            {"index": 0, "function": {"name": "delete_file", "arguments": "{\"path\": \"a\"}"}},
            {"index": 1, "function": {"name": "delete_file", "arguments": "{\"path\": \"b\"}"}},
            {"index": 2, "function": {"name": "write_file", "arguments": "{\"path\": \"c\", \"cont"}}
        ]);
        acc.chunk(
            &json!({"choices": [{"delta": {"tool_calls": calls}}]}),
            &|_| {},
        )
        .unwrap();
        acc.chunk(
            &json!({"choices": [{"delta": {}, "finish_reason": "length"}]}),
            &|_| {},
        )
        .unwrap();
        let reply = acc.finish();
        assert!(reply.cut_off);
        assert_eq!(reply.calls.len(), 2);
        assert_eq!(reply.calls[1].arguments, json!({"path": "b"}));
        assert_eq!(
            reply.dropped,
            [DroppedCall {
                tool: "write_file".into(),
                why: "cut off at the length limit".into()
            }]
        );
    }

    #[test]
    fn broken_arguments_and_stream_errors_are_clear() {
        let mut acc = Accumulator::default();
        acc.chunk(&json!({"choices": [{"delta": {"tool_calls": [{"index": 0, "function": {"name": "f", "arguments": "{oops"}}]}}]}), &|_| {})
            .unwrap();
        let reply = acc.finish();
        assert!(reply.calls.is_empty() && !reply.cut_off);
        assert_eq!(reply.dropped[0].tool, "f");
        assert!(
            reply.dropped[0].why.contains("not valid JSON"),
            "{:?}",
            reply.dropped
        );
        let mut acc = Accumulator::default();
        assert!(matches!(
            acc.line("data: {not json", &|_| {}),
            Err(ModelError::BadReply(_))
        ));
        assert!(matches!(
            acc.chunk(&json!({"error": {"message": "overloaded"}}), &|_| {}),
            Err(ModelError::Broken(m)) if m.contains("overloaded")
        ));
    }
}
