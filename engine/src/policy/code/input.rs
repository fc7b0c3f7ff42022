//! The facts a code policy decides on, the same for Cedar and Rego: who
//! asks (the agent, its person, their groups), the source and tool, the
//! arguments, the tool's read-only hint, the session and the time (UTC).
//! Rego reads them as `input`; Cedar as principal, resource and context.

use chrono::{Datelike, Timelike};
use serde_json::{json, Value};

use crate::domain::Caller;
use crate::policy::CallFacts;

/// The caller a call without one is decided as.
pub(super) fn caller_of(call: &CallFacts<'_>) -> Caller {
    call.caller.cloned().unwrap_or_else(Caller::local)
}

/// The time a policy sees: the instant and the parts a rule about
/// working hours needs.
pub(super) fn time(call: &CallFacts<'_>) -> Value {
    let at = call.at;
    json!({
        "iso": at.to_rfc3339_opts(chrono::SecondsFormat::Secs, true),
        "unix": at.timestamp(),
        "hour": at.hour(),
        "minute": at.minute(),
        "weekday": weekday(at.weekday()),
    })
}

fn weekday(day: chrono::Weekday) -> &'static str {
    match day {
        chrono::Weekday::Mon => "monday",
        chrono::Weekday::Tue => "tuesday",
        chrono::Weekday::Wed => "wednesday",
        chrono::Weekday::Thu => "thursday",
        chrono::Weekday::Fri => "friday",
        chrono::Weekday::Sat => "saturday",
        chrono::Weekday::Sun => "sunday",
    }
}

/// The facts as Rego's `input`.
pub(super) fn rego_input(call: &CallFacts<'_>) -> Value {
    let caller = caller_of(call);
    let mut principal = json!({
        "kind": caller.kind.as_str(),
        "name": caller.name,
        "groups": caller.groups,
    });
    if let Some(person) = &caller.person {
        principal["person"] = json!(person);
    }
    let mut input = json!({
        "principal": principal,
        "source": call.source,
        "tool": call.tool,
        "arguments": call.arguments,
        "read_only_hint": call.read_only_hint,
        "time": time(call),
    });
    if let Some(session) = &caller.session {
        input["session"] = json!(session);
    }
    input
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_input_names_the_caller_the_call_and_the_time() {
        let caller = Caller {
            person: Some("ana".into()),
            groups: vec!["ops".into()],
            ..Caller::chat(None, Vec::new(), "c-1".into())
        };
        let arguments = json!({"path": "/tmp/a"});
        let at = "2026-11-27T18:05:09Z".parse().unwrap();
        let call = CallFacts {
            caller: Some(&caller),
            at,
            ..CallFacts::new("fs", "write_file", &arguments)
        };
        assert_eq!(
            rego_input(&call),
            json!({
                "principal": {"kind": "chat", "name": "airlock", "person": "ana", "groups": ["ops"]},
                "source": "fs",
                "tool": "write_file",
                "arguments": {"path": "/tmp/a"},
                "read_only_hint": false,
                "session": "c-1",
                "time": {"iso": "2026-11-27T18:05:09Z", "unix": 1_795_802_709, "hour": 18, "minute": 5, "weekday": "friday"},
            })
        );
    }
}
