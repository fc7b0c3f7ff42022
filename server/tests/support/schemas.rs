//! The HITL Protocol v0.8 JSON Schemas in `tests/hitl-schemas/`, each
//! registered under its `$id` so their references resolve without the
//! network, as validators (Draft 2020-12, formats on).

use serde_json::Value;

/// The schemas Airlock's bodies are checked against.
pub struct Schemas {
    /// The 202's `hitl` object.
    pub hitl: jsonschema::Validator,
    /// A poll's answer.
    pub poll: jsonschema::Validator,
    /// `/.well-known/hitl.json`.
    pub discovery: jsonschema::Validator,
    /// An inline submission's body.
    pub submit: jsonschema::Validator,
}

const ID: &str = "https://hitl-protocol.org/schemas/v0.8/";

fn load(name: &str) -> Value {
    let path = format!("{}/tests/hitl-schemas/{name}", env!("CARGO_MANIFEST_DIR"));
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

/// Every schema, ready to validate.
pub fn schemas() -> Schemas {
    // What the schemas refer to, by the names their `$ref`s use.
    let referred = [
        ("form-field.json", "form-field.schema.json"),
        (
            "verification-policy.json",
            "verification-policy.schema.json",
        ),
        ("submission-context.json", "submission-context.schema.json"),
        (
            "verification-result.json",
            "verification-result.schema.json",
        ),
    ];
    let mut registry = jsonschema::Registry::new();
    for (id, file) in referred {
        registry = registry.add(format!("{ID}{id}"), load(file)).unwrap();
    }
    let registry = registry.prepare().unwrap();
    let build = |file: &str| {
        jsonschema::options()
            .with_draft(jsonschema::Draft::Draft202012)
            .should_validate_formats(true)
            .with_registry(&registry)
            .build(&load(file))
            .unwrap()
    };
    Schemas {
        hitl: build("hitl-object.schema.json"),
        poll: build("poll-response.schema.json"),
        discovery: build("discovery-response.schema.json"),
        submit: build("submit-request.schema.json"),
    }
}

/// Fails with every error when `instance` does not validate.
pub fn assert_valid(validator: &jsonschema::Validator, instance: &Value) {
    let errors: Vec<String> = validator
        .iter_errors(instance)
        .map(|e| format!("{} at {}", e, e.instance_path()))
        .collect();
    assert!(errors.is_empty(), "{instance:#}\n{errors:#?}");
}
