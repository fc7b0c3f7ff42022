//! The gateway: an external agent asks whether it may run a tool call. The
//! source's policy answers at once (allowed or refused) or opens a review
//! case that a person settles through its link, the chat or the inbox.

use chrono::Duration;
use serde_json::Value;

use super::{case_for, kept, rounds, CaseId, NewCase, Requester, ReviewCase, ReviewToken};
use crate::core::Core;
use crate::decisions;
use crate::domain::{BatchId, ConversationId, PersonId};
use crate::domain::{CallStatus, KeptAnswer, ToolCall};
use crate::domain::{Caller, CallerKind, ProposedCall};
use crate::error::EngineError;
use crate::policy::Outcome;

/// The longest a gateway case stays open (HITL Protocol §13.1).
pub const MAX_TIMEOUT: Duration = Duration::days(7);

/// Longest tool, source, agent and session names, in characters.
const MAX_NAME_CHARS: usize = 200;

/// Longest callback URL, in characters.
const MAX_URL_CHARS: usize = 2_000;

/// An external agent's request to run one tool call.
#[derive(Debug, Clone, PartialEq)]
pub struct GatewayRequest {
    pub tool: String,
    /// Its arguments (a JSON object).
    pub arguments: Value,
    /// The tool source whose policy applies.
    pub source: String,
    /// Who asks: API key name, agent and session ids, callback URL.
    pub requester: Requester,
    /// The case this call's case is the next round of, when it waits.
    pub previous_case_id: Option<CaseId>,
    /// The request's `Idempotency-Key`: sent again with the same request,
    /// it gets the same call back (`kept.rs`).
    pub idempotency_key: Option<String>,
}

/// What the gateway answers.
#[derive(Debug, Clone)]
pub enum GatewayOutcome {
    /// The policy allows the call: run it.
    Allowed(ToolCall),
    /// The policy refuses it (`hidden` when the tool is not offered at all).
    Refused {
        /// The call as recorded.
        call: ToolCall,
        /// Whether the tool is hidden rather than denied.
        hidden: bool,
    },
    /// A person must decide: the case and its link's token.
    Waiting {
        /// The call as recorded.
        call: ToolCall,
        /// Its review case.
        case: Box<ReviewCase>,
        /// The token of the review link; it is stored only as a hash.
        token: ReviewToken,
        /// The submit token an agent relays a press with (inline submit),
        /// when the call's policy lists `inline_submit:` actions; stored
        /// only as a hash, apart from the link's.
        submit_token: Option<ReviewToken>,
    },
}

fn check_name(field: &'static str, value: &str, required: bool) -> Result<(), EngineError> {
    if required && value.trim().is_empty() {
        return Err(EngineError::invalid(field, format!("{field} is required")));
    }
    if value.chars().count() > MAX_NAME_CHARS {
        return Err(EngineError::invalid(
            field,
            format!("{field} is at most {MAX_NAME_CHARS} characters"),
        ));
    }
    if value.chars().any(char::is_control) {
        return Err(EngineError::invalid(
            field,
            format!("{field} must not contain control characters"),
        ));
    }
    Ok(())
}

impl GatewayRequest {
    /// Checks the request's fields, before anything is recorded: names
    /// present, short and free of control characters; arguments an object;
    /// the callback an http(s) URL.
    pub fn validate(&self) -> Result<(), EngineError> {
        check(self)
    }
}

fn check(request: &GatewayRequest) -> Result<(), EngineError> {
    check_name("tool", &request.tool, true)?;
    check_name("source", &request.source, true)?;
    if !request.arguments.is_object() {
        return Err(EngineError::invalid(
            "arguments",
            "arguments must be a JSON object",
        ));
    }
    check_requester(&request.requester)
}

/// Checks who asks: agent and session names short and plain, the callback
/// an http(s) URL.
pub(super) fn check_requester(r: &Requester) -> Result<(), EngineError> {
    check_name("agent_id", r.agent_id.as_deref().unwrap_or(""), false)?;
    check_name("session_id", r.session_id.as_deref().unwrap_or(""), false)?;
    if let Some(url) = &r.callback_url {
        let scheme_ok = url.starts_with("https://") || url.starts_with("http://");
        let unsafe_char = |c: char| c.is_whitespace() || c.is_control();
        if !scheme_ok || url.len() > MAX_URL_CHARS || url.chars().any(unsafe_char) {
            return Err(EngineError::invalid(
                "hitl_callback_url",
                "hitl_callback_url must be an http(s) URL of at most 2000 characters",
            ));
        }
    }
    Ok(())
}

/// The conversation of the agent's session, made on its first request.
pub(super) async fn session_conversation(
    core: &Core,
    r: &Requester,
) -> Result<ConversationId, EngineError> {
    let key = [
        r.client.as_deref().unwrap_or(""),
        r.agent_id.as_deref().unwrap_or(""),
        r.session_id.as_deref().unwrap_or(""),
    ]
    .join("\u{1f}");
    let now = core.clock.now();
    Ok(core
        .gateway()
        .gateway_conversation(&key, &session_title(r), now)
        .await?)
}

/// Stores a waiting call with its case; a next round of a case that got
/// one meanwhile is refused as such.
pub(super) async fn insert_waiting(
    core: &Core,
    call: &ToolCall,
    case: NewCase,
) -> Result<(), EngineError> {
    let cases = std::slice::from_ref(&case);
    let events = core
        .calls()
        .insert_calls(std::slice::from_ref(call), cases)
        .await
        .map_err(|e| rounds::insert_failed(e, Some(&case)))?;
    core.events.publish(events);
    Ok(())
}

/// The conversation title of an external agent's session. A long session
/// id (a UUID) is cut to its first 8 characters, as the list has room for;
/// searching the conversations still finds the whole id.
fn session_title(r: &Requester) -> String {
    let short = |session: &str| match session.char_indices().nth(SHORT_SESSION) {
        Some((cut, _)) if session.chars().count() > SHORT_SESSION + 4 => {
            format!("{}…", &session[..cut])
        }
        _ => session.to_owned(),
    };
    match (&r.agent_id, &r.session_id) {
        (Some(agent), Some(session)) => format!("{agent} · {}", short(session)),
        (Some(agent), None) => agent.clone(),
        (None, Some(session)) => format!("Session {}", short(session)),
        (None, None) => "External agents".to_owned(),
    }
}

/// How much of a long session id a conversation's title shows.
const SHORT_SESSION: usize = 8;

/// The person the API key of `client` names, as separation of duties keeps
/// them from approving their own agent's calls; `None` when the key names
/// nobody, or nobody by that name has been added yet.
async fn key_holder(core: &Core, client: Option<&str>) -> Result<Option<PersonId>, EngineError> {
    let Some(client) = client else {
        return Ok(None);
    };
    let found = crate::people::key_holder(core, client).await?;
    Ok(found.map(|person| person.id))
}

/// Who asks through the gateway: the API key (`local` on a gateway that
/// takes none), the person the key names and their groups, and the
/// agent's session (else the conversation's).
fn key_caller(core: &Core, r: &Requester, conversation: &ConversationId) -> Caller {
    let person = r
        .client
        .as_deref()
        .and_then(|c| core.config.gateway.person_of(c));
    let groups = match (&core.config.auth, person) {
        (Some(auth), Some(name)) => auth.groups_of(name),
        _ => Vec::new(),
    };
    Caller {
        kind: match r.client {
            Some(_) => CallerKind::Key,
            None => CallerKind::Local,
        },
        name: r.client.clone().unwrap_or_else(|| "local".to_owned()),
        person: person.map(str::to_owned),
        groups,
        session: Some(
            r.session_id
                .clone()
                .unwrap_or_else(|| conversation.as_str().to_owned()),
        ),
    }
}

/// Whether the source itself says the tool only reads (its MCP
/// `readOnlyHint`), which the policy counts when it trusts such hints. The
/// source's word, never the asker's: an agent could claim anything.
fn read_only(core: &Core, source: &str, tool: &str) -> bool {
    if !core.config.policy_for(source).trusts_read_only_hints() {
        return false;
    }
    let sources = core.sources.get();
    let offered = sources.get(source).map(|s| s.tools()).unwrap_or_default();
    offered.iter().any(|t| t.name == tool && t.read_only)
}

pub(crate) async fn gateway_call(
    core: &Core,
    request: GatewayRequest,
) -> Result<GatewayOutcome, EngineError> {
    request.validate()?;
    let r = &request.requester;
    // A retry is answered before anything is checked again: its first
    // request may have made the next round `previous_case_id` names.
    let keeping = kept::keeping(&request);
    if let Some(keeping) = &keeping {
        if let Some(earlier) = kept::earlier(core, keeping).await? {
            return Ok(earlier);
        }
    }
    if let Some(previous) = &request.previous_case_id {
        rounds::check_previous(core, previous, r.client.as_deref()).await?;
    }
    let now = core.clock.now();
    let conversation = session_conversation(core, r).await?;
    let proposal = ProposedCall {
        source: request.source.clone(),
        tool: request.tool.clone(),
        arguments: request.arguments.clone(),
        read_only_hint: read_only(core, &request.source, &request.tool),
    };
    let caller = key_caller(core, r, &conversation);
    let decisions::Classified { verdict, shadow } =
        decisions::classify(core, &conversation, &proposal, &caller).await?;
    let hidden = verdict.hidden && verdict.outcome == Outcome::Deny;
    let separated = verdict.separation_of_duties;
    let announce = core.config.notices(&verdict, now);
    let mut call = decisions::new_call(
        core,
        &conversation,
        None,
        &BatchId::new(),
        0,
        proposal,
        verdict,
        now,
    );
    call.shadow = shadow;
    call.caller = Some(caller);
    let waiting = call.status == CallStatus::PendingApproval;
    crate::previews::take_for(core, std::slice::from_mut(&mut call)).await;
    if waiting && separated {
        call.not_by = key_holder(core, r.client.as_deref()).await?;
    }
    if waiting {
        // An agent on the other end needs a deadline (at most 7 days).
        let latest = now + MAX_TIMEOUT;
        call.expires_at = Some(call.expires_at.map_or(latest, |at| at.min(latest)));
    }
    let inline = core.config.policy_for(&call.source).inline_actions();
    let pending = waiting.then(|| {
        let case = ReviewCase {
            inline_actions: inline.to_vec(),
            previous_case_id: request.previous_case_id.clone(),
            ..case_for(&call, request.requester.clone())
        };
        NewCase::linked(case, announce)
    });
    let answer = match (&pending, call.status) {
        (Some(_), _) => KeptAnswer::Waiting,
        (None, CallStatus::Approved) => KeptAnswer::Allowed,
        (None, _) if hidden => KeptAnswer::Hidden,
        (None, _) => KeptAnswer::Denied,
    };
    let waiting = match (pending, &keeping) {
        (pending, Some(keeping)) => {
            let case = pending.as_ref().map(|p| &p.new);
            if let Some(earlier) = kept::insert(core, keeping, &call, case, answer).await? {
                return Ok(earlier);
            }
            pending.map(|p| (p.new.case, p.token, p.submit))
        }
        (Some(super::LinkedCase { new, token, submit }), None) => {
            let case = new.case.clone();
            insert_waiting(core, &call, new).await?;
            Some((case, token, submit))
        }
        (None, None) => {
            let events = core
                .calls()
                .insert_calls(std::slice::from_ref(&call), &[])
                .await?;
            core.events.publish(events);
            None
        }
    };
    Ok(match waiting {
        Some((case, token, submit_token)) => GatewayOutcome::Waiting {
            call,
            case: Box::new(case),
            token,
            submit_token,
        },
        None if call.status == CallStatus::Approved => GatewayOutcome::Allowed(call),
        None => GatewayOutcome::Refused { call, hidden },
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn title(agent: Option<&str>, session: Option<&str>) -> String {
        session_title(&Requester {
            agent_id: agent.map(str::to_owned),
            session_id: session.map(str::to_owned),
            ..Requester::default()
        })
    }

    #[test]
    fn a_sessions_title_names_its_agent_and_the_start_of_a_long_id() {
        let uuid = Some("fb89a245-933a-4c1e-9d0e-0123456789ab");
        assert_eq!(title(Some("Claude Code"), uuid), "Claude Code · fb89a245…");
        assert_eq!(title(Some("agent-7"), Some("s-1")), "agent-7 · s-1");
        assert_eq!(title(Some("a"), Some("twelve-chars")), "a · twelve-chars");
        assert_eq!(title(None, Some("ééééééééééééééé")), "Session éééééééé…");
        assert_eq!(title(Some("a"), None), "a");
        assert_eq!(title(None, None), "External agents");
    }
}
