//! Errors on the wire: stable codes, read back as the browser reads them.

use leptos::prelude::{FromServerFnError, ServerFnErrorErr};
use leptos::server_fn::Bytes;

use super::*;

#[test]
fn errors_travel_as_json_with_a_stable_code() {
    let e = AppError::Invalid {
        field: "content".into(),
        message: "the message is empty".into(),
    };
    let json = serde_json::to_value(&e).unwrap();
    assert_eq!(json["code"], "invalid");
    assert_eq!(json["message"], "the message is empty");
    assert_eq!(serde_json::from_value::<AppError>(json).unwrap(), e);
    assert_eq!(e.code(), "invalid");
}

#[test]
fn every_code_is_the_one_on_the_wire() {
    let all = [
        AppError::NotFound {
            what: "case".into(),
        },
        AppError::AlreadyDecided {
            by: "Ada".into(),
            at: "2026-01-01T00:00:00Z".into(),
            status: "approved".into(),
        },
        AppError::AlreadyApprovedByYou { missing: 1 },
        AppError::Invalid {
            field: "f".into(),
            message: "m".into(),
        },
        AppError::InvalidFields {
            problems: vec![FieldProblemItem {
                field: "data.salary".into(),
                message: "Salary must be a number".into(),
            }],
        },
        AppError::Forbidden,
        AppError::CrossSite,
        AppError::NotAllowed,
        AppError::NotAnApprover {
            groups: vec!["ops".into(), "sec".into()],
        },
        AppError::OwnRequest,
        AppError::StepUpRequired {
            message: "approve it with your passkey".into(),
        },
        AppError::PasskeyRefused {
            reason: "passkey_verification".into(),
            message: "the passkey did not verify you".into(),
        },
        AppError::PreviewChanged {
            message: "the file changed since you looked".into(),
        },
        AppError::SetupLinkInvalid,
        AppError::Unauthenticated,
        AppError::SignInFailed,
        AppError::TooManyAttempts {
            retry_after_secs: 60,
        },
        AppError::Expired {
            at: "2026-01-01T00:00:00Z".into(),
        },
        AppError::Internal,
        AppError::Transport {
            message: "m".into(),
        },
    ];
    assert_eq!(all.len(), CODES.len());
    for (e, code) in all.into_iter().zip(CODES) {
        let json = serde_json::to_value(&e).unwrap();
        assert_eq!(json["code"], e.code());
        assert_eq!(e.code(), *code);
        // Read back as the browser reads it.
        assert_eq!(serde_json::from_value::<AppError>(json).unwrap(), e);
    }
    let unknown = serde_json::json!({"code": "teapot"});
    assert!(serde_json::from_value::<AppError>(unknown).is_err());
    for not_an_error in ["{}", "[]", "\"not_found\"", r#"{"code": 404}"#] {
        assert!(serde_json::from_str::<AppError>(not_an_error).is_err());
    }
    // Fields an error does not carry, or carries as something other
    // than text, are left empty rather than failing the whole error.
    let odd = r#"{"code": "not_found", "what": 7, "extra": true}"#;
    assert_eq!(
        serde_json::from_str::<AppError>(odd).unwrap(),
        AppError::NotFound { what: "".into() }
    );
}

#[test]
fn errors_go_through_their_encoding_and_back() {
    let e = AppError::AlreadyDecided {
        by: "Ada “the reviewer”".into(),
        at: "2026-01-01T00:00:00Z".into(),
        status: "approved".into(),
    };
    let bytes = e.ser();
    assert_eq!(serde_json::from_slice::<AppError>(&bytes).unwrap(), e);
    assert_eq!(AppError::de(bytes), e);
    // Bytes that are not text come back as an error to show, not a panic.
    let garbled = AppError::de(Bytes::from_static(b"{\"code\":\"\xff\"}"));
    assert_eq!(garbled.code(), "transport");
}

#[test]
fn a_bad_argument_is_the_callers_mistake() {
    use leptos::prelude::FromServerFnError;
    let e = AppError::from_server_fn_error(ServerFnErrorErr::Args("bad".into()));
    assert_eq!(e.status_code(), http::StatusCode::BAD_REQUEST);
}
