//! The chat-completions request for a conversation. Every call of an
//! assistant turn is followed by exactly one `tool` message with its outcome,
//! so the provider never sees an orphan tool call.

use serde_json::{json, Value};

use super::OpenAiConfig;
use crate::agent::model::{ModelRequest, Turn};

/// What the model is told about its situation before the conversation.
pub const SYSTEM_PROMPT: &str = "You are an agent working through tools. Some tool calls run at \
once; others wait until a person approves them, and a person may reject a call (with a reason) \
or change its arguments before it runs. When a call is rejected, respect the reason and do not \
retry the same call. When you need a decision or information only the person has, call \
request_human_input. Answer in concise Markdown.";

/// The JSON body of a chat-completions request.
pub fn body(config: &OpenAiConfig, request: &ModelRequest) -> Value {
    let mut messages = vec![json!({ "role": "system", "content": SYSTEM_PROMPT })];
    for turn in &request.turns {
        match turn {
            Turn::User { text } => messages.push(json!({ "role": "user", "content": text })),
            Turn::Assistant { text, calls } => {
                let mut message = json!({
                    "role": "assistant",
                    "content": if text.is_empty() && !calls.is_empty() { Value::Null } else { json!(text) },
                });
                if !calls.is_empty() {
                    message["tool_calls"] = calls
                        .iter()
                        .map(|c| {
                            json!({
                                "id": c.id,
                                "type": "function",
                                "function": { "name": c.tool, "arguments": c.arguments.to_string() },
                            })
                        })
                        .collect();
                }
                messages.push(message);
                for c in calls {
                    messages.push(json!({
                        "role": "tool",
                        "tool_call_id": c.id,
                        "content": c.outcome.to_model_text(&c.arguments),
                    }));
                }
            }
        }
    }
    let mut body = json!({ "model": config.model, "messages": messages, "stream": config.stream });
    if let Some(max) = config.max_tokens {
        body["max_tokens"] = max.into();
    }
    if !request.tools.is_empty() {
        body["tools"] = request
            .tools
            .iter()
            .map(|t| {
                json!({
                    "type": "function",
                    "function": {
                        "name": t.name,
                        "description": t.description,
                        "parameters": t.parameters,
                    },
                })
            })
            .collect();
    }
    body
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::agent::model::{CallOutcome, TranscriptCall};
    use crate::tools::ToolSpec;

    #[test]
    fn every_call_is_answered_by_one_tool_message() {
        let request = ModelRequest {
            turns: vec![
                Turn::User {
                    text: "delete a and b".into(),
                },
                Turn::Assistant {
                    text: String::new(),
                    calls: vec![
                        TranscriptCall {
                            id: "call_1".into(),
                            tool: "delete_file".into(),
                            arguments: json!({"path": "a"}),
                            outcome: CallOutcome::Rejected {
                                reason: Some("keep it".into()),
                            },
                        },
                        TranscriptCall {
                            id: "call_2".into(),
                            tool: "delete_file".into(),
                            arguments: json!({"path": "b"}),
                            outcome: CallOutcome::Completed {
                                result: json!({"deleted": true}),
                                edited_from: None,
                            },
                        },
                    ],
                },
            ],
            tools: vec![ToolSpec {
                name: "delete_file".into(),
                description: "Deletes a file.".into(),
                parameters: json!({"type": "object"}),
                read_only: false,
            }],
        };
        let body = body(&OpenAiConfig::new("http://x/v1", "gpt-test"), &request);
        assert_eq!(body["model"], "gpt-test");
        assert_eq!(body["stream"], true);
        assert_eq!(body["max_tokens"], super::super::DEFAULT_MAX_TOKENS);
        let messages = body["messages"].as_array().unwrap();
        let roles: Vec<_> = messages
            .iter()
            .map(|m| m["role"].as_str().unwrap())
            .collect();
        assert_eq!(roles, ["system", "user", "assistant", "tool", "tool"]);
        assert_eq!(messages[2]["content"], Value::Null);
        assert_eq!(
            messages[2]["tool_calls"][1]["function"]["arguments"],
            r#"{"path":"b"}"#
        );
        assert_eq!(messages[3]["tool_call_id"], "call_1");
        assert_eq!(
            messages[3]["content"],
            "The user rejected this call. Reason: keep it"
        );
        assert_eq!(body["tools"][0]["function"]["name"], "delete_file");
    }
}
