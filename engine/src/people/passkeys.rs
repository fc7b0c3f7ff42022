//! A person's passkeys: added on their account page, several each,
//! removable, and asked for when they approve a call whose policy says
//! `step_up: passkey`. The challenge of a step-up holds the call's digest
//! (16 random bytes, then SHA-256 of the call as it waits), so an
//! assertion made for one call cannot approve another, nor the same call
//! after its arguments changed.

use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use base64::Engine as _;
use chrono::Duration;
use serde_json::{json, Value};
use sha2::{Digest, Sha256};

use crate::core::Core;
use crate::domain::passkey::REGISTER;
use crate::domain::{Actor, Passkey, PasskeyChallenge, Reviewer, ToolCall};
use crate::error::EngineError;
use crate::store::PasskeyUse;
use crate::webauthn::{self, Assertion, PublicKey, Registration, RelyingParty, Stored};

/// How long a browser has to answer a challenge.
const ANSWER_WITHIN: Duration = Duration::minutes(5);

/// Longest passkey name, in characters.
const MAX_NAME_CHARS: usize = 60;

/// What a browser is asked: the challenge's id, which its answer names,
/// and the WebAuthn options in their JSON form
/// (`PublicKeyCredential.parseCreationOptionsFromJSON` / `…RequestOptions…`).
#[derive(Debug, Clone, PartialEq)]
pub struct PasskeyAsk {
    pub challenge_id: String,
    pub options: Value,
}

fn b64(bytes: &[u8]) -> String {
    URL_SAFE_NO_PAD.encode(bytes)
}

/// The digest a step-up's challenge ends with: the call as it waits.
pub(crate) fn call_digest(call: &ToolCall) -> Vec<u8> {
    let named = json!({
        "call": call.id.as_str(),
        "source": call.source,
        "tool": call.tool,
        "arguments": call.arguments,
    });
    let canonical = serde_jcs::to_vec(&named).unwrap_or_else(|_| named.to_string().into_bytes());
    Sha256::digest(canonical).to_vec()
}

/// Keeps a challenge of `bytes` for `actor`, for `purpose`.
async fn hand_out(
    core: &Core,
    actor: &Actor,
    purpose: &str,
    bytes: &[u8],
) -> Result<String, EngineError> {
    let now = core.clock.now();
    let challenge = PasskeyChallenge {
        id: format!("pc-{}", hex::encode(rand::random::<[u8; 12]>())),
        person_id: actor.id.clone(),
        purpose: purpose.to_owned(),
        challenge: b64(bytes),
        expires_at: now + ANSWER_WITHIN,
    };
    core.passkeys()
        .add_passkey_challenge(&challenge, now)
        .await?;
    Ok(challenge.id)
}

/// The challenge `id` of `actor` for `purpose`, taken once, not lapsed.
async fn take(core: &Core, actor: &Actor, id: &str, purpose: &str) -> Result<Vec<u8>, EngineError> {
    let taken = core
        .passkeys()
        .take_passkey_challenge(id, &actor.id)
        .await?;
    let taken = taken.filter(|c| c.purpose == purpose && c.expires_at > core.clock.now());
    let bytes = taken.and_then(|c| URL_SAFE_NO_PAD.decode(c.challenge).ok());
    bytes.ok_or(EngineError::Passkey(webauthn::WebauthnError::Challenge))
}

/// What a browser is asked to make a new passkey for `actor`.
pub(crate) async fn registration(
    core: &Core,
    actor: &Actor,
    rp: &RelyingParty,
) -> Result<PasskeyAsk, EngineError> {
    let challenge: [u8; 32] = rand::random();
    let challenge_id = hand_out(core, actor, REGISTER, &challenge).await?;
    let existing = core.passkeys().passkeys_of(&actor.id).await?;
    let exclude: Vec<Value> = existing
        .iter()
        .map(|p| json!({ "type": "public-key", "id": p.credential_id }))
        .collect();
    let algorithms: Vec<Value> = PublicKey::ALGORITHMS
        .iter()
        .map(|alg| json!({ "type": "public-key", "alg": alg }))
        .collect();
    let options = json!({
        "rp": { "id": rp.id, "name": "Airlock" },
        "user": {
            "id": b64(actor.id.as_str().as_bytes()),
            "name": actor.display_name,
            "displayName": actor.display_name,
        },
        "challenge": b64(&challenge),
        "pubKeyCredParams": algorithms,
        "timeout": 120_000,
        "excludeCredentials": exclude,
        "authenticatorSelection": { "residentKey": "preferred", "userVerification": "required" },
        "attestation": "none",
    });
    Ok(PasskeyAsk {
        challenge_id,
        options,
    })
}

/// The base64url field `name` of a credential's `response`, decoded.
fn field(credential: &Value, name: &str) -> Result<Vec<u8>, EngineError> {
    let text = credential["response"][name].as_str().unwrap_or_default();
    URL_SAFE_NO_PAD
        .decode(text.trim_end_matches('='))
        .map_err(|_| {
            EngineError::invalid("credential", format!("`response.{name}` is not base64url"))
        })
}

/// Adds the passkey a browser made for `challenge_id`, named `name`.
pub(crate) async fn register(
    core: &Core,
    actor: &Actor,
    rp: &RelyingParty,
    challenge_id: &str,
    name: &str,
    credential: &Value,
) -> Result<Passkey, EngineError> {
    let name = name.trim();
    if name.is_empty() || name.chars().count() > MAX_NAME_CHARS {
        let problem =
            format!("name the passkey in 1 to {MAX_NAME_CHARS} characters, like \"Laptop\"");
        return Err(EngineError::invalid("name", problem));
    }
    EngineError::refuse_nul("name", "a passkey's name", name)?;
    let challenge = take(core, actor, challenge_id, REGISTER).await?;
    let client_data_json = field(credential, "clientDataJSON")?;
    let attestation_object = field(credential, "attestationObject")?;
    let answer = Registration {
        client_data_json: &client_data_json,
        attestation_object: &attestation_object,
    };
    let made = webauthn::register(rp, &challenge, answer)?;
    let passkey = Passkey {
        id: format!("pk-{}", hex::encode(rand::random::<[u8; 8]>())),
        person_id: actor.id.clone(),
        name: name.to_owned(),
        credential_id: b64(&made.id),
        public_key: json!(made.public_key).to_string(),
        sign_count: made.sign_count,
        backup_eligible: made.backup_eligible,
        created_at: super::now(core)?,
        last_used_at: None,
    };
    if !core.passkeys().add_passkey(&passkey).await? {
        return Err(EngineError::invalid(
            "credential",
            "this passkey is added already",
        ));
    }
    Ok(passkey)
}

/// What a browser is asked to approve `call` with one of `actor`'s passkeys.
pub(crate) async fn step_up(
    core: &Core,
    actor: &Actor,
    rp: &RelyingParty,
    call: &ToolCall,
) -> Result<PasskeyAsk, EngineError> {
    let passkeys = core.passkeys().passkeys_of(&actor.id).await?;
    if passkeys.is_empty() {
        return Err(EngineError::StepUpRequired(NO_PASSKEY));
    }
    let mut challenge = rand::random::<[u8; 16]>().to_vec();
    challenge.extend_from_slice(&call_digest(call));
    let challenge_id = hand_out(core, actor, call.id.as_str(), &challenge).await?;
    let allow: Vec<Value> = passkeys
        .iter()
        .map(|p| json!({ "type": "public-key", "id": p.credential_id }))
        .collect();
    let options = json!({
        "challenge": b64(&challenge),
        "rpId": rp.id,
        "allowCredentials": allow,
        "userVerification": "required",
        "timeout": 120_000,
    });
    Ok(PasskeyAsk {
        challenge_id,
        options,
    })
}

/// What a person without a passkey is told.
pub(crate) const NO_PASSKEY: &str =
    "approving this call needs a passkey: add one on your account page (/account), then approve it";

/// Checks the passkey assertion an approval of `call` came with: made by
/// one of the approving person's passkeys, with them verified, for a
/// challenge handed to them for this call as it waits now. Returns the
/// passkey, its use recorded.
pub(crate) async fn check_step_up(
    core: &Core,
    reviewer: &Reviewer,
    call: &ToolCall,
) -> Result<Passkey, EngineError> {
    let (Some(actor), Some(proof)) = (&reviewer.actor, &reviewer.passkey) else {
        return Err(EngineError::StepUpRequired(
            "approving this call needs your passkey: sign in and approve it on its card, in a browser with JavaScript",
        ));
    };
    let challenge = take(core, actor, &proof.challenge_id, call.id.as_str()).await?;
    if challenge.get(16..) != Some(&call_digest(call)[..]) {
        return Err(webauthn::WebauthnError::Challenge.into());
    }
    let credential_id = proof.credential["id"].as_str().unwrap_or_default();
    let passkeys = core.passkeys().passkeys_of(&actor.id).await?;
    let Some(passkey) = passkeys
        .into_iter()
        .find(|p| p.credential_id == credential_id)
    else {
        return Err(EngineError::StepUpRequired(
            "that passkey is not one of yours in Airlock: use one you added on your account page",
        ));
    };
    let public_key: PublicKey = serde_json::from_str(&passkey.public_key).map_err(|e| {
        EngineError::invalid("passkey", format!("a stored passkey cannot be read: {e}"))
    })?;
    let client_data_json = field(&proof.credential, "clientDataJSON")?;
    let authenticator_data = field(&proof.credential, "authenticatorData")?;
    let signature = field(&proof.credential, "signature")?;
    let rp = RelyingParty {
        id: proof.rp_id.clone(),
        origin: proof.origin.clone(),
    };
    let stored = Stored {
        public_key: &public_key,
        sign_count: passkey.sign_count,
        backup_eligible: passkey.backup_eligible,
    };
    let answer = Assertion {
        client_data_json: &client_data_json,
        authenticator_data: &authenticator_data,
        signature: &signature,
    };
    let sign_count = webauthn::assert(&rp, &challenge, stored, answer)?;
    let used = PasskeyUse {
        passkey: &passkey,
        sign_count,
        call,
        by: &reviewer.name,
        channel: reviewer.channel,
        at: core.clock.now(),
    };
    core.passkeys().passkey_used(&used).await?;
    Ok(passkey)
}

#[cfg(test)]
mod tests;
