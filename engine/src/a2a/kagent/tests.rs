//! Each contract as kagent writes it (its code's own shapes, quoted in the
//! module docs), read here; and what Airlock writes, read back.

use serde_json::json;

use super::*;

fn data(data: Value, metadata: Value) -> Part {
    Part::Data {
        data,
        metadata: metadata.as_object().cloned().unwrap_or_default(),
    }
}

fn calls() -> Vec<Requested> {
    ["call_1", "call_2"]
        .iter()
        .enumerate()
        .map(|(i, id)| Requested {
            token: format!("adk-conf-{}", i + 1),
            call_id: (*id).to_owned(),
            name: ["delete_file", "write_file"][i].to_owned(),
            args: json!({"path": format!("/tmp/{i}")}),
        })
        .collect()
}

fn verdicts(list: &[(&str, Verdict)]) -> BTreeMap<String, Verdict> {
    list.iter()
        .map(|(id, v)| ((*id).to_owned(), v.clone()))
        .collect()
}

fn reject(reason: Option<&str>) -> Verdict {
    Verdict::Reject {
        reason: reason.map(str::to_owned),
    }
}

#[test]
fn kagents_interrupts_are_read_in_each_contract() {
    // First: kagent-core a2a/_hitl.py's `handle_tool_approval_interrupt`.
    let first = Content {
        parts: vec![
            Part::Text("**Approval Required**\n\n".into()),
            data(
                json!({"interrupt_type": "tool_approval", "action_requests": [{"name": "delete_file", "args": {"path": "/tmp/x"}, "id": "call_1"}]}),
                json!({"kagent_type": "interrupt_data"}),
            ),
        ],
        ..Content::default()
    };
    let read = read_interrupt(&first).unwrap();
    assert_eq!(read.generation, Generation::First);
    assert_eq!(
        (read.calls[0].name.as_str(), read.calls[0].token.as_str()),
        ("delete_file", "call_1")
    );
    // Released: Go's ADK writes `adk_` where Python writes `kagent_`.
    let confirmation = |id: &str, call: &str| json!({"name": "adk_request_confirmation", "id": id, "args": {"originalFunctionCall": {"name": "delete_file", "args": {"path": "/tmp/x"}, "id": call}, "toolConfirmation": {"hint": "…", "confirmed": false}}});
    let released = Content {
        parts: vec![
            data(
                confirmation("adk-conf-1", "call_1"),
                json!({"kagent_type": "function_call", "kagent_is_long_running": true}),
            ),
            data(
                confirmation("adk-conf-2", "call_2"),
                json!({"adk_type": "function_call", "adk_is_long_running": true}),
            ),
            data(
                confirmation("adk-conf-3", "call_3"),
                json!({"adk_type": "function_call"}),
            ),
        ],
        ..Content::default()
    };
    let read = read_interrupt(&released).unwrap();
    assert_eq!(read.generation, Generation::Released);
    let ids: Vec<(&str, &str)> = read
        .calls
        .iter()
        .map(|c| (c.token.as_str(), c.call_id.as_str()))
        .collect();
    assert_eq!(
        ids,
        [("adk-conf-1", "call_1"), ("adk-conf-2", "call_2")],
        "a call that is not long-running waits on nothing"
    );
    // Extension: the payload is the message's metadata, not a part.
    let extension = Content {
        parts: vec![Part::Text(
            "Tool 'delete_file' requires approval before execution.".into(),
        )],
        metadata: Map::from_iter([(
            HITL_EXTENSION.to_owned(),
            json!({"type": "tool_approval_request", "hint": "…", "tools": [{"id": "adk-conf-1", "call_id": "call_1", "name": "delete_file", "args": {"path": "/tmp/x"}}]}),
        )]),
        extensions: vec![HITL_EXTENSION.to_owned()],
    };
    let read = read_interrupt(&extension).unwrap();
    assert_eq!(read.generation, Generation::Extension);
    assert_eq!(read.calls[0].token, "adk-conf-1");
    assert_eq!(
        read_interrupt(&Content {
            parts: vec![Part::Text("hello".into())],
            ..Content::default()
        }),
        None
    );
}

#[test]
fn answers_are_written_as_kagents_ui_writes_them_and_never_approve_a_rejection() {
    let interrupt = |generation| Interrupt {
        generation,
        calls: calls(),
    };
    let both = verdicts(&[("call_1", Verdict::Approve), ("call_2", Verdict::Approve)]);
    let mixed = verdicts(&[
        ("call_1", Verdict::Approve),
        ("call_2", reject(Some("wrong folder"))),
    ]);
    let first_data = |content: &Content| content.data().next().unwrap().0.clone();

    assert_eq!(
        first_data(&answer(&interrupt(Generation::First), &both).unwrap()),
        json!({"decision_type": "approve"})
    );
    // The first contract has one answer for every call: one no is a no,
    // with its reason.
    assert_eq!(
        first_data(&answer(&interrupt(Generation::First), &mixed).unwrap()),
        json!({"decision_type": "reject", "reason": "wrong folder"})
    );

    let released = answer(&interrupt(Generation::Released), &mixed).unwrap();
    assert_eq!(
        first_data(&released),
        json!({"decision_type": "batch", "decisions": {"call_1": "approve", "call_2": "reject"}, "rejection_reasons": {"call_2": "wrong folder"}})
    );
    // And ADK's own confirmation per call, for an agent of plain ADK: no
    // words, which ADK refuses beside function responses.
    let confirmations: Vec<(&Value, &Map<String, Value>)> = released.data().skip(1).collect();
    assert_eq!(
        confirmations,
        [
            (
                &json!({"id": "adk-conf-1", "name": CONFIRMATION, "response": {"confirmed": true}}),
                &Map::from_iter([("adk_type".to_owned(), json!("function_response"))])
            ),
            (
                &json!({"id": "adk-conf-2", "name": CONFIRMATION, "response": {"confirmed": false, "payload": {"reason": "wrong folder"}}}),
                &Map::from_iter([("adk_type".to_owned(), json!("function_response"))])
            ),
        ]
    );
    assert_eq!(released.text(), "");
    // Airlock's server reads ADK's confirmations back.
    assert_eq!(
        read_answer(&released_confirmations(&released), &calls(), &[]),
        Ok(mixed.clone())
    );
    let refused = verdicts(&[("call_1", reject(None)), ("call_2", reject(None))]);
    assert_eq!(
        first_data(&answer(&interrupt(Generation::Released), &refused).unwrap()),
        json!({"decision_type": "reject"})
    );

    let extension = answer(&interrupt(Generation::Extension), &mixed).unwrap();
    assert_eq!(extension.extensions, [HITL_EXTENSION]);
    assert_eq!(
        extension.metadata[HITL_EXTENSION],
        json!({"type": "tool_approval_response", "approvals": [{"id": "adk-conf-1", "approved": true}, {"id": "adk-conf-2", "approved": false, "rejection_reason": "wrong folder"}]})
    );
    // Never an answer for a call nobody decided.
    let half = verdicts(&[("call_1", Verdict::Approve)]);
    assert_eq!(
        answer(&interrupt(Generation::Extension), &half),
        Err(AnswerError::Missing(vec!["call_2".into()]))
    );
}

#[test]
fn what_airlock_asks_in_each_contract_reads_back_and_so_do_its_answers() {
    for generation in [Generation::Released, Generation::Extension] {
        let asked = interrupt(generation, &calls(), "Airlock waits for a person");
        let read = read_interrupt(&asked).unwrap();
        assert_eq!((read.generation, read.calls.clone()), (generation, calls()));
        let mixed = verdicts(&[("call_1", reject(Some("no"))), ("call_2", Verdict::Approve)]);
        let answered = answer(&read, &mixed).unwrap();
        assert_eq!(
            read_answer(&answered, &calls(), &[]).unwrap(),
            mixed,
            "{generation:?}"
        );
    }
    let first = interrupt(Generation::First, &calls()[..1], "wait");
    assert_eq!(
        read_interrupt(&first).unwrap().generation,
        Generation::First
    );
    assert_eq!(
        status_metadata(Generation::First)["interrupt_type"],
        "tool_approval"
    );
}

#[test]
fn a_clients_answer_decides_every_call_or_none() {
    let with = |data: Value| Content {
        parts: vec![Part::Data {
            data,
            metadata: Map::new(),
        }],
        ..Content::default()
    };
    let said = |text: &str| Content {
        parts: vec![Part::Text(text.into())],
        ..Content::default()
    };
    let all = |verdict: Verdict| verdicts(&[("call_1", verdict.clone()), ("call_2", verdict)]);
    assert_eq!(
        read_answer(&with(json!({"decision_type": "approve"})), &calls(), &[]),
        Ok(all(Verdict::Approve))
    );
    assert_eq!(
        read_answer(
            &with(json!({"decision_type": "reject", "rejection_reason": "too risky"})),
            &calls(),
            &[]
        ),
        Ok(all(reject(Some("too risky"))))
    );
    assert_eq!(
        read_answer(&with(json!({"decision_type": "deny"})), &calls(), &[]),
        Ok(all(reject(None)))
    );
    let partial = json!({"decision_type": "batch", "decisions": {"call_1": "approve"}});
    assert_eq!(
        read_answer(&with(partial), &calls(), &[]),
        Err(AnswerError::Missing(vec!["call_2".into()]))
    );
    // A call decided meanwhile may be named and need not be: the first
    // decision stands.
    let (waiting, decided) = (&calls()[1..], &calls()[..1]);
    let both =
        json!({"decision_type": "batch", "decisions": {"call_1": "approve", "call_2": "reject"}});
    assert_eq!(
        read_answer(&with(both), waiting, decided),
        Ok(verdicts(&[
            ("call_1", Verdict::Approve),
            ("call_2", reject(None))
        ]))
    );
    let one = json!({"decision_type": "batch", "decisions": {"call_2": "approve"}});
    assert_eq!(
        read_answer(&with(one), waiting, decided),
        Ok(verdicts(&[("call_2", Verdict::Approve)]))
    );
    let stranger = json!({"decision_type": "batch", "decisions": {"call_9": "approve"}});
    assert_eq!(
        read_answer(&with(stranger), &calls(), &[]),
        Err(AnswerError::UnknownCall("call_9".into()))
    );
    let twice = Content {
        metadata: Map::from_iter([(
            HITL_EXTENSION.to_owned(),
            json!({"type": "tool_approval_response", "approvals": [{"id": "adk-conf-1", "approved": true}, {"id": "adk-conf-1", "approved": false}]}),
        )]),
        ..Content::default()
    };
    assert_eq!(
        read_answer(&twice, &calls(), &[]),
        Err(AnswerError::Repeated("adk-conf-1".into()))
    );
    // Free text, as the first contract reads it: a no first, by whole words.
    assert_eq!(
        read_answer(&said("Yes, proceed"), &calls(), &[]),
        Ok(all(Verdict::Approve))
    );
    assert_eq!(
        read_answer(&said("yes... no, stop"), &calls(), &[]),
        Ok(all(reject(Some("yes... no, stop"))))
    );
    assert_eq!(
        read_answer(&said("I know what it does"), &calls(), &[]),
        Err(AnswerError::NoDecision)
    );
    assert!(activated(
        "https://example.com/x, https://kagent.dev/extensions/hitl/v1"
    ));
    assert!(!activated("https://kagent.dev/extensions/hitl/v2"));
}

/// An answer of ADK's confirmations alone, as a plain ADK client writes it.
fn released_confirmations(answer: &Content) -> Content {
    Content {
        parts: answer.parts[1..].to_vec(),
        ..Content::default()
    }
}
