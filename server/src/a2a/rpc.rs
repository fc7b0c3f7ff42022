//! A2A's JSON-RPC 2.0 envelope: the request's method (by its name in
//! either version, `wire::Method`), `id` and `params`, and errors as A2A
//! numbers them, each with Airlock's stable code and words in `data`.

use axum::response::{IntoResponse, Response};
use axum::Json;
use http::StatusCode;
use serde_json::{json, Value};

use app::error::AppError;
pub use engine::a2a::wire::Method;
use engine::a2a::wire::Version;
use engine::EngineError;

/// JSON-RPC's and A2A's error numbers.
pub const PARSE_ERROR: i64 = -32700;
pub const INVALID_REQUEST: i64 = -32600;
pub const METHOD_NOT_FOUND: i64 = -32601;
pub const INVALID_PARAMS: i64 = -32602;
pub const INTERNAL: i64 = -32603;
pub const TASK_NOT_FOUND: i64 = -32001;
pub const TASK_NOT_CANCELABLE: i64 = -32002;
pub const UNSUPPORTED_OPERATION: i64 = -32004;

/// A JSON-RPC request.
#[derive(Debug, Clone)]
pub struct Request {
    pub id: Value,
    pub method: Method,
    /// The version its method's name is spelled in.
    pub version: Version,
    pub params: Value,
}

/// Why a request is not answered with a result.
#[derive(Debug)]
pub enum Refusal {
    /// No credential, or one that is nobody's: HTTP 401.
    Unauthenticated,
    /// A person or key that may not talk to the agent: HTTP 403.
    Forbidden(String),
    /// A JSON-RPC error.
    Rpc(RpcError),
    /// What the engine refused or failed at.
    Engine(EngineError),
}

/// A JSON-RPC error object.
#[derive(Debug, Clone, PartialEq)]
pub struct RpcError {
    pub code: i64,
    pub message: String,
    /// `{"code": …}`: Airlock's stable name for it, and its details.
    pub data: Value,
}

impl RpcError {
    pub fn new(code: i64, name: &str, message: impl Into<String>) -> Self {
        Self {
            code,
            message: message.into(),
            data: json!({"code": name}),
        }
    }

    pub fn invalid(message: impl Into<String>) -> Self {
        Self::new(INVALID_PARAMS, "invalid", message)
    }

    pub fn task_not_found(id: &str) -> Self {
        Self::new(TASK_NOT_FOUND, "not_found", format!("no task `{id}` here"))
    }
}

impl From<RpcError> for Refusal {
    fn from(error: RpcError) -> Self {
        Self::Rpc(error)
    }
}

impl From<EngineError> for Refusal {
    fn from(error: EngineError) -> Self {
        Self::Engine(error)
    }
}

impl Refusal {
    /// The HTTP answer to request `id` in `version`: a JSON-RPC error, the engine's by
    /// their HTTP status (what is not found is the task, a fault of
    /// Airlock's is internal, anything else is the params'), except who may
    /// not talk at all, refused in HTTP.
    pub fn answer(self, id: &Value, version: Version) -> Response {
        let error = match self {
            Refusal::Unauthenticated => {
                return crate::fn_errors::refused(AppError::Unauthenticated)
            }
            Refusal::Forbidden(message) => {
                let body = json!({"code": "not_allowed", "message": message});
                return (StatusCode::FORBIDDEN, Json(body)).into_response();
            }
            Refusal::Rpc(error) => error,
            Refusal::Engine(error) => {
                let error = AppError::from(error);
                let status = error.status_code();
                let code = match status {
                    StatusCode::NOT_FOUND => TASK_NOT_FOUND,
                    s if s.is_server_error() => INTERNAL,
                    _ => INVALID_PARAMS,
                };
                let data = serde_json::to_value(&error).unwrap_or_default();
                RpcError {
                    code,
                    message: error.to_string(),
                    data,
                }
            }
        };
        Json(error_body(id, &error, version)).into_response()
    }
}

/// The response carrying `error`. v1.0 gives details as a list of
/// `google.rpc.ErrorInfo`, whose metadata holds only strings: Airlock's
/// code and its string details go there.
pub fn error_body(id: &Value, error: &RpcError, version: Version) -> Value {
    let data = match version {
        Version::V03 => error.data.clone(),
        Version::V10 => {
            let fields = error.data.as_object().into_iter().flatten();
            let strings = fields.filter(|(_, value)| value.is_string());
            let metadata: serde_json::Map<String, Value> =
                strings.map(|(k, v)| (k.clone(), v.clone())).collect();
            json!([{
                "@type": "type.googleapis.com/google.rpc.ErrorInfo",
                "reason": reason(error.code),
                "domain": "a2a-protocol.org",
                "metadata": metadata,
            }])
        }
    };
    json!({
        "jsonrpc": "2.0",
        "id": id,
        "error": {"code": error.code, "message": error.message, "data": data},
    })
}

/// v1.0's name for an error number.
fn reason(code: i64) -> &'static str {
    match code {
        PARSE_ERROR => "PARSE_ERROR",
        INVALID_REQUEST => "INVALID_REQUEST",
        METHOD_NOT_FOUND => "METHOD_NOT_FOUND",
        INVALID_PARAMS => "INVALID_PARAMS",
        TASK_NOT_FOUND => "TASK_NOT_FOUND",
        TASK_NOT_CANCELABLE => "TASK_NOT_CANCELABLE",
        UNSUPPORTED_OPERATION => "UNSUPPORTED_OPERATION",
        _ => "INTERNAL_ERROR",
    }
}

/// The response carrying `result`.
pub fn result_body(id: &Value, result: Value) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "result": result})
}

/// A request that cannot be answered: its id, when it had one, and why.
#[derive(Debug)]
pub struct Unread {
    pub id: Value,
    pub error: RpcError,
}

/// The request `body` holds, or why not.
pub fn read(body: &[u8]) -> Result<Request, Box<Unread>> {
    let unread = |id: &Value, error: RpcError| {
        let id = id.clone();
        Box::new(Unread { id, error })
    };
    let json: Value = serde_json::from_slice(body).map_err(|e| {
        let why = format!("the body is not JSON: {e}");
        unread(&Value::Null, RpcError::new(PARSE_ERROR, "invalid", why))
    })?;
    let id = json.get("id").cloned().unwrap_or(Value::Null);
    let invalid = |why: &str| unread(&id, RpcError::new(INVALID_REQUEST, "invalid", why));
    if json["jsonrpc"] != "2.0" {
        return Err(invalid(
            "not a JSON-RPC 2.0 request: `jsonrpc` must be \"2.0\"",
        ));
    }
    if !matches!(id, Value::String(_) | Value::Number(_)) {
        return Err(invalid("the request needs an `id`, a string or a number"));
    }
    let name = json["method"]
        .as_str()
        .ok_or_else(|| invalid("the request names no `method`"))?;
    let Some((method, version)) = Method::parse(name) else {
        let names: Vec<&str> = Method::names().collect();
        let why = format!("no method `{name}` here: {}", names.join(", "));
        return Err(unread(
            &id,
            RpcError::new(METHOD_NOT_FOUND, "not_found", why),
        ));
    };
    let params = json.get("params").cloned().unwrap_or(Value::Null);
    if !params.is_object() {
        return Err(unread(&id, RpcError::invalid("`params` must be an object")));
    }
    Ok(Request {
        id,
        method,
        version,
        params,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn both_versions_name_each_method() {
        let body = br#"{"jsonrpc":"2.0","id":1,"method":"message/send","params":{}}"#;
        let request = read(body).unwrap();
        assert_eq!(
            (request.method, request.version),
            (Method::Send, Version::V03)
        );
        let body = br#"{"jsonrpc":"2.0","id":"a","method":"GetTask","params":{"id":"x"}}"#;
        let request = read(body).unwrap();
        assert_eq!(
            (request.method, request.version),
            (Method::Get, Version::V10)
        );
    }

    #[test]
    fn a_bad_request_is_answered_with_its_error_and_id() {
        let unread = read(b"{").unwrap_err();
        assert_eq!((unread.id, unread.error.code), (Value::Null, PARSE_ERROR));
        let body = br#"{"jsonrpc":"2.0","id":7,"method":"tasks/list","params":{}}"#;
        let Unread { id, error } = *read(body).unwrap_err();
        assert_eq!((id, error.code), (json!(7), METHOD_NOT_FOUND));
        assert!(error.message.contains("message/send"), "{}", error.message);
        let body = br#"{"jsonrpc":"2.0","id":7,"method":"tasks/get","params":[1]}"#;
        assert_eq!(read(body).unwrap_err().error.code, INVALID_PARAMS);
        let body = br#"{"jsonrpc":"1.0","id":7,"method":"tasks/get","params":{}}"#;
        assert_eq!(read(body).unwrap_err().error.code, INVALID_REQUEST);
    }
}
