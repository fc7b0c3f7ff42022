use serde_json::{json, Value};

use super::Form;
use crate::domain::review_shape::ReviewShape;
use crate::domain::CaseType;

/// The protocol's example 04 form, a little extended.
fn job_form() -> Form {
    Form::parse(
        &json!({"fields": [
            {"key": "salary", "label": "Salary", "type": "number", "required": true,
             "validation": {"min": 0, "max": 500000}},
            {"key": "negotiable", "label": "Negotiable?", "type": "boolean", "required": true},
            {"key": "start", "label": "Start", "type": "date", "required": true,
             "validation": {"min": "2026-01-01"}},
            {"key": "authorization", "label": "Authorization", "type": "select", "required": true,
             "options": [{"value": "citizen", "label": "Citizen"}, {"value": "visa", "label": "Visa"}]},
            {"key": "visa_number", "label": "Visa number", "type": "text", "required": true,
             "validation": {"pattern": "[A-Z]{2}[0-9]{4}"},
             "conditional": {"field": "authorization", "operator": "eq", "value": "visa"}},
            {"key": "email", "label": "E-mail", "type": "email"},
            {"key": "languages", "label": "Languages", "type": "multiselect",
             "options": [{"value": "de", "label": "German"}, {"value": "en", "label": "English"}]}
        ]}),
        "context.form",
    )
    .unwrap()
}

fn fields_of(problems: Vec<super::FieldProblem>) -> Vec<String> {
    problems.into_iter().map(|p| p.field).collect()
}

#[test]
fn a_valid_answer_is_kept_with_hidden_fields_dropped() {
    let form = job_form();
    let kept = form
        .check(
            &json!({"salary": 108000, "negotiable": false, "start": "2026-05-01",
            "authorization": "citizen", "visa_number": "ignored", "languages": ["en"]}),
        )
        .unwrap();
    assert_eq!(
        Value::Object(kept),
        json!({"salary": 108000, "negotiable": false, "start": "2026-05-01",
            "authorization": "citizen", "languages": ["en"]}),
        "the visa number is hidden unless a visa is chosen"
    );
}

#[test]
fn every_wrong_value_is_named() {
    let form = job_form();
    let problems = form
        .check(
            &json!({"salary": -1, "negotiable": "yes", "start": "2025-12-31",
            "authorization": "visa", "visa_number": "ab12", "email": "nobody",
            "languages": ["en", "en"], "extra": 1}),
        )
        .unwrap_err();
    assert_eq!(
        fields_of(problems),
        [
            "data.extra",
            "data.salary",
            "data.negotiable",
            "data.start",
            "data.visa_number",
            "data.email",
            "data.languages"
        ]
    );
    let missing = form.check(&json!({"authorization": "visa"})).unwrap_err();
    assert_eq!(
        fields_of(missing),
        [
            "data.salary",
            "data.negotiable",
            "data.start",
            "data.visa_number"
        ]
    );
}

#[test]
fn posted_text_reads_as_the_json_an_api_caller_sends() {
    let form = job_form();
    let posted: Vec<(String, String)> = [
        ("f.salary", "108000"),
        ("f.start", "2026-05-01"),
        ("f.authorization", "citizen"),
        ("f.email", ""),
        ("f.languages", "de"),
        ("f.languages", "en"),
        ("token", "not a field"),
    ]
    .iter()
    .map(|(k, v)| (k.to_string(), v.to_string()))
    .collect();
    let data = Value::Object(form.read_posted(&posted));
    assert_eq!(
        data,
        json!({"salary": 108000, "negotiable": false, "start": "2026-05-01",
            "authorization": "citizen", "languages": ["de", "en"]})
    );
    assert!(form.check(&data).is_ok());
    let wrong = vec![("f.salary".to_string(), "a lot".to_string())];
    assert_eq!(form.read_posted(&wrong)["salary"], json!("a lot"));
}

#[test]
fn a_form_airlock_cannot_check_is_refused_when_asked() {
    for (form, at) in [
        (json!({"fields": [], "steps": []}), "context.form"),
        (json!({"fields": []}), "context.form"),
        (
            json!({"fields": [{"key": "a", "label": "A", "type": "colour"}]}),
            "context.form.fields[0].type",
        ),
        (
            json!({"fields": [{"key": "1a", "label": "A", "type": "text"}]}),
            "context.form.fields[0].key",
        ),
        (
            json!({"fields": [{"key": "a", "label": "A", "type": "select"}]}),
            "context.form.fields[0].options",
        ),
        (
            json!({"fields": [{"key": "a", "label": "A", "type": "text", "validation": {"pattern": "("}}]}),
            "context.form.fields[0].validation.pattern",
        ),
        (
            json!({"fields": [{"key": "a", "label": "A", "type": "text"}, {"key": "a", "label": "B", "type": "text"}]}),
            "context.form.fields[1].key",
        ),
        (
            json!({"fields": [{"key": "a", "label": "A", "type": "text",
            "conditional": {"field": "nope", "operator": "eq", "value": 1}}]}),
            "context.form.fields[0].conditional.field",
        ),
        (
            json!({"fields": [{"key": "a", "label": "A", "type": "text", "colour": "red"}]}),
            "context.form.fields[0]",
        ),
        (
            json!({"steps": [{"fields": [{"key": "a", "label": "A", "type": "text"}]}]}),
            "context.form.steps[0].title",
        ),
    ] {
        let problems = Form::parse(&form, "context.form").unwrap_err();
        assert_eq!(problems[0].field, at, "{form}");
    }
}

#[test]
fn steps_hold_the_fields_in_order_and_custom_types_are_text() {
    let form = Form::parse(
        &json!({"steps": [
            {"title": "You", "fields": [{"key": "name", "label": "Name", "type": "text", "required": true}]},
            {"title": "Colour", "description": "Pick one", "fields": [{"key": "colour", "label": "Colour", "type": "x-colour"}]},
            {"title": "Review", "fields": []}
        ]}),
        "context.form",
    )
    .unwrap();
    assert_eq!(form.steps.len(), 3);
    let keys: Vec<&str> = form.fields().map(|f| f.key.as_str()).collect();
    assert_eq!(keys, ["name", "colour"]);
    assert_eq!(form.field("colour").unwrap().kind(), "text");
    assert!(form
        .check(&json!({"name": "Ada", "colour": "#fff"}))
        .is_ok());
}

fn shape(case_type: CaseType, context: Value) -> ReviewShape {
    ReviewShape::parse(&case_type, &context).unwrap()
}

#[test]
fn each_type_takes_its_own_actions_and_data() {
    let options = json!({"options": [{"id": "a", "label": "A"}, {"id": "b", "label": "B"},
        {"id": "c", "label": "C"}], "max_selected": 2});
    let selection = shape(CaseType::Selection, options);
    assert_eq!(
        selection
            .check("select", &json!({"selected": ["a", "c"], "note": "both"}))
            .unwrap(),
        json!({"action": "select", "data": {"selected": ["a", "c"], "note": "both"}})
    );
    for wrong in [
        json!({"selected": []}),
        json!({"selected": ["a", "b", "c"]}),
        json!({"selected": ["z"]}),
        json!({"selected": ["a", "a"]}),
    ] {
        assert_eq!(
            fields_of(selection.check("select", &wrong).unwrap_err()),
            ["data.selected"]
        );
    }
    let confirmation = shape(
        CaseType::Confirmation,
        json!({"items_to_confirm": [{"id": "e1", "label": "Mail 1"}]}),
    );
    assert!(confirmation
        .check("confirm", &json!({"confirmed_items": ["e1"]}))
        .is_ok());
    assert!(confirmation.check("cancel", &Value::Null).is_ok());
    assert!(confirmation
        .check("confirm", &json!({"confirmed_items": ["e2"]}))
        .is_err());
    let escalation = shape(CaseType::Escalation, json!({}));
    assert_eq!(
        escalation
            .check("retry", &json!({"modified_params": {"strategy": "canary"}}))
            .unwrap(),
        json!({"action": "retry", "data": {"modified_params": {"strategy": "canary"}}})
    );
    assert_eq!(
        fields_of(escalation.check("approve", &json!({})).unwrap_err()),
        ["action"]
    );
    let approval = shape(CaseType::Approval, json!({"artifact": "…"}));
    assert!(approval.check("approve", &json!({})).is_ok());
    assert_eq!(
        fields_of(approval.check("edit", &json!({})).unwrap_err()),
        ["data"]
    );
    assert_eq!(
        fields_of(
            approval
                .check("reject", &json!({"feedback": 1}))
                .unwrap_err()
        ),
        ["data.feedback"]
    );
    assert_eq!(
        approval
            .check("approve", &json!({"conditions": ["watch it"]}))
            .unwrap(),
        json!({"action": "approve", "data": {"conditions": ["watch it"]}}),
        "what the type does not define is kept as it came"
    );
    let plain = shape(CaseType::Custom("x-vote".into()), json!({}));
    assert_eq!(
        plain.check("submit", &json!({"answer": "yes"})).unwrap(),
        json!({"action": "submit", "data": {"answer": "yes"}}),
        "a question without a form takes one answer in words"
    );
}

#[test]
fn a_selection_needs_options_and_sensible_bounds() {
    for (context, at) in [
        (json!({}), "context.options"),
        (json!({"options": []}), "context.options"),
        (
            json!({"options": [{"id": "a", "label": "A"}, {"id": "a", "label": "B"}]}),
            "context.options[1].id",
        ),
        (
            json!({"options": [{"id": "a", "label": "A"}], "max_selected": 2}),
            "context.max_selected",
        ),
        (
            json!({"options": [{"id": "a", "label": "A"}], "min_selected": "one"}),
            "context.min_selected",
        ),
    ] {
        let problems = ReviewShape::parse(&CaseType::Selection, &context).unwrap_err();
        assert_eq!(problems[0].field, at, "{context}");
    }
    assert!(ReviewShape::parse(&CaseType::Input, &json!([1])).is_err());
}

#[test]
fn types_read_as_the_protocol_names_them() {
    for name in [
        "approval",
        "selection",
        "input",
        "confirmation",
        "escalation",
        "x-my_type-2",
    ] {
        assert_eq!(CaseType::parse(name).unwrap().as_str(), name);
    }
    for bad in ["", "x-", "Approval", "custom", "x-a b", "x-ü"] {
        assert!(CaseType::parse(bad).is_none(), "{bad}");
    }
}

#[test]
fn a_pages_post_reads_as_each_types_data() {
    let posted = |pairs: &[(&str, &str)]| -> Vec<(String, String)> {
        pairs
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect()
    };
    let options = json!({"options": [{"id": "a", "label": "A"}, {"id": "b", "label": "B"}], "max_selected": 2});
    let selection = shape(CaseType::Selection, options);
    assert_eq!(
        selection.read_posted(&posted(&[
            ("selected", "a"),
            ("selected", "b"),
            ("note", " "),
            ("name", "Ada")
        ])),
        json!({"selected": ["a", "b"]}),
        "a blank note is no note; the name is not data"
    );
    let confirmation = shape(
        CaseType::Confirmation,
        json!({"items_to_confirm": [{"id": "m1", "label": "M"}]}),
    );
    assert_eq!(
        confirmation.read_posted(&posted(&[])),
        json!({"confirmed_items": []}),
        "nothing ticked"
    );
    let bare = shape(CaseType::Confirmation, json!({}));
    assert_eq!(
        bare.read_posted(&posted(&[("note", "ok")])),
        json!({"note": "ok"})
    );
    let escalation = shape(CaseType::Escalation, json!({}));
    assert_eq!(
        escalation.read_posted(&posted(&[
            ("modified_params", "{\"n\": 1}"),
            ("reason", "slow")
        ])),
        json!({"modified_params": {"n": 1}, "reason": "slow"})
    );
    let not_json = escalation.read_posted(&posted(&[("modified_params", "n=1")]));
    assert_eq!(
        fields_of(escalation.check("retry", &not_json).unwrap_err()),
        ["data.modified_params"],
        "text that is not JSON is kept, for the check to name"
    );
    let approval = shape(CaseType::Approval, json!({}));
    assert_eq!(
        approval.read_posted(&posted(&[("feedback", "Warmer")])),
        json!({"feedback": "Warmer"})
    );
}

#[test]
fn one_press_in_the_chat_reads_as_a_whole_answer() {
    let selection = shape(
        CaseType::Selection,
        json!({"options": [{"id": "a", "label": "A"}]}),
    );
    let data = selection.pressed("select", Some("a"));
    assert_eq!(data, json!({"selected": ["a"]}));
    assert!(selection.check("select", &data).is_ok());
    let items =
        json!({"items_to_confirm": [{"id": "m1", "label": "M1"}, {"id": "m2", "label": "M2"}]});
    let confirmation = shape(CaseType::Confirmation, items);
    assert_eq!(
        confirmation.pressed("confirm", None),
        json!({"confirmed_items": ["m1", "m2"]})
    );
    assert_eq!(confirmation.pressed("cancel", None), json!({}));
    assert_eq!(
        shape(CaseType::Escalation, json!({})).pressed("skip", None),
        json!({})
    );
}
