//! Retries at the gateway: a request sent with an `Idempotency-Key` is kept
//! with the call it made, in that call's transaction. The same request sent
//! again gets that call back, never a second one, so an agent that lost an
//! answer or restarted before keeping its case id does not ask a person
//! twice; the same key with another request is a mistake (422).

use serde_json::json;

use super::{GatewayOutcome, GatewayRequest, NewCase, ReviewToken};
use crate::core::Core;
use crate::domain::{request_fingerprint, KeptAnswer, KeptRequest, ToolCall};
use crate::error::EngineError;
use crate::store::StoreError;

/// The key a request is kept under, and the fingerprint of what it asks.
pub(super) struct Keeping {
    client: String,
    key: String,
    fingerprint: String,
}

/// How `request` is kept: `None` without a key, or without an API key to
/// keep it under.
pub(super) fn keeping(request: &GatewayRequest) -> Option<Keeping> {
    let r = &request.requester;
    let (client, key) = (r.client.clone()?, request.idempotency_key.clone()?);
    let fingerprint = request_fingerprint(&json!([
        request.tool,
        request.source,
        request.arguments,
        r.agent_id,
        r.session_id,
        r.callback_url,
        request.previous_case_id,
    ]));
    Some(Keeping {
        client,
        key,
        fingerprint,
    })
}

/// What an earlier request with this key was answered, if one was kept.
pub(super) async fn earlier(
    core: &Core,
    keeping: &Keeping,
) -> Result<Option<GatewayOutcome>, EngineError> {
    let Some(kept) = core
        .gateway()
        .kept_request(&keeping.client, &keeping.key)
        .await?
    else {
        return Ok(None);
    };
    if kept.fingerprint != keeping.fingerprint {
        return Err(EngineError::IdempotencyKeyReused {
            key: keeping.key.clone(),
        });
    }
    replay(core, kept).await.map(Some)
}

/// Stores `call` (and its case) with the request kept under its key. A
/// request with the same key that was kept first wins: this call is not
/// stored, and the earlier answer is returned instead.
pub(super) async fn insert(
    core: &Core,
    keeping: &Keeping,
    call: &ToolCall,
    case: Option<&NewCase>,
    answer: KeptAnswer,
) -> Result<Option<GatewayOutcome>, EngineError> {
    let kept = KeptRequest {
        client: keeping.client.clone(),
        key: keeping.key.clone(),
        fingerprint: keeping.fingerprint.clone(),
        call_id: call.id.clone(),
        answer,
        created_at: call.created_at,
    };
    match core.gateway().insert_kept_call(call, case, &kept).await {
        Ok(events) => {
            core.events.publish(events);
            Ok(None)
        }
        Err(StoreError::Duplicate("idempotency_key")) => earlier(core, keeping).await,
        Err(e) => Err(super::rounds::insert_failed(e, case)),
    }
}

/// The first answer again. A waiting call's 202 carries a review link of its
/// own (the first one's link still works) and no submit token: the first
/// one's is the only one, so inline presses go with the first answer.
async fn replay(core: &Core, kept: KeptRequest) -> Result<GatewayOutcome, EngineError> {
    let missing = || EngineError::Store(StoreError::NotFound("kept call"));
    let call = core
        .call_reads()
        .tool_call(&kept.call_id)
        .await?
        .ok_or_else(missing)?;
    Ok(match kept.answer {
        KeptAnswer::Allowed => GatewayOutcome::Allowed(call),
        KeptAnswer::Denied => GatewayOutcome::Refused {
            call,
            hidden: false,
        },
        KeptAnswer::Hidden => GatewayOutcome::Refused { call, hidden: true },
        KeptAnswer::Waiting => {
            let case = core
                .reviews()
                .case_for_call(&call.id)
                .await?
                .ok_or_else(missing)?;
            let token = ReviewToken::mint();
            core.reviews()
                .add_case_token(&case.id, &token.hash(), core.clock.now())
                .await?;
            GatewayOutcome::Waiting {
                call,
                case: Box::new(case),
                token,
                submit_token: None,
            }
        }
    })
}
