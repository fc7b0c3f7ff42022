//! [`PasskeyStore`]: people's passkeys and the challenges handed out.

use async_trait::async_trait;
use chrono::{DateTime, Utc};

use super::calls::INSERT_AUDIT_ENTRY;
use super::decode::corrupt;
use super::{query, Backend, Row, SqlStore, Transaction};
use crate::domain::{Passkey, PasskeyChallenge, PersonId};
use crate::store::{from_millis, to_millis, PasskeyStore, PasskeyUse, StoreError};

const INSERT: &str = "insert into passkeys (passkey_id, person_id, name, credential_id, public_key,
        sign_count, backup_eligible, created_at, last_used_at)
     values ($1, $2, $3, $4, $5, $6, $7, $8, null)
     on conflict (credential_id) do nothing";

const OF_PERSON: &str =
    "select * from passkeys where person_id = $1 order by created_at, passkey_id";

const REMOVE: &str = "delete from passkeys where person_id = $1 and passkey_id = $2";

const USED: &str = "update passkeys set sign_count = $1, last_used_at = $2 where passkey_id = $3";

const DROP_LAPSED: &str = "delete from passkey_challenges where expires_at <= $1";

/// A person's open challenges beyond the newest few: asking again and
/// again fills nothing.
const DROP_EXCESS: &str = "delete from passkey_challenges where person_id = $1
     and challenge_id not in (select challenge_id from passkey_challenges where person_id = $1
                              order by created_at desc, challenge_id desc limit 9)";

const INSERT_CHALLENGE: &str = "insert into passkey_challenges
        (challenge_id, person_id, purpose, challenge, expires_at, created_at)
     values ($1, $2, $3, $4, $5, $6)";

/// Taken once: the delete that returns it is the only way to read it.
const TAKE_CHALLENGE: &str = "delete from passkey_challenges
     where challenge_id = $1 and person_id = $2
     returning challenge_id, person_id, purpose, challenge, expires_at";

const T: &str = "passkeys";

fn row_person(row: &Row) -> Result<PersonId, StoreError> {
    let id: String = row.try_get("person_id")?;
    PersonId::parse(&id).map_err(|e| corrupt(T, e))
}

fn row_passkey(row: &Row) -> Result<Passkey, StoreError> {
    let used: Option<i64> = row.try_get("last_used_at")?;
    let count: i64 = row.try_get("sign_count")?;
    Ok(Passkey {
        id: row.try_get("passkey_id")?,
        person_id: row_person(row)?,
        name: row.try_get("name")?,
        credential_id: row.try_get("credential_id")?,
        public_key: row.try_get("public_key")?,
        sign_count: u32::try_from(count).map_err(|e| corrupt(T, e))?,
        backup_eligible: row.try_get("backup_eligible")?,
        created_at: from_millis(T, row.try_get("created_at")?)?,
        last_used_at: used.map(|ms| from_millis(T, ms)).transpose()?,
    })
}

#[async_trait]
impl<B: Backend> PasskeyStore for SqlStore<B> {
    async fn add_passkey(&self, passkey: &Passkey) -> Result<bool, StoreError> {
        let added = query(INSERT)
            .bind(passkey.id.as_str())
            .bind(passkey.person_id.as_str())
            .bind(passkey.name.as_str())
            .bind(passkey.credential_id.as_str())
            .bind(passkey.public_key.as_str())
            .bind(i64::from(passkey.sign_count))
            .bind(passkey.backup_eligible)
            .bind(to_millis(passkey.created_at))
            .execute(self.writer())
            .await?;
        Ok(added == 1)
    }

    async fn passkeys_of(&self, person: &PersonId) -> Result<Vec<Passkey>, StoreError> {
        let rows = query(OF_PERSON)
            .bind(person.as_str())
            .fetch_all(self.reader())
            .await?;
        rows.iter().map(row_passkey).collect()
    }

    async fn remove_passkey(&self, person: &PersonId, id: &str) -> Result<bool, StoreError> {
        let removed = query(REMOVE)
            .bind(person.as_str())
            .bind(id)
            .execute(self.writer())
            .await?;
        Ok(removed == 1)
    }

    async fn passkey_used(&self, used: &PasskeyUse<'_>) -> Result<(), StoreError> {
        let mut tx = self.begin().await?;
        query(USED)
            .bind(i64::from(used.sign_count))
            .bind(to_millis(used.at))
            .bind(used.passkey.id.as_str())
            .execute(&mut tx)
            .await?;
        let call = used.call;
        let detail = serde_json::json!({
            "passkey": used.passkey.name,
            "passkey_id": used.passkey.id,
            "credential_id": used.passkey.credential_id,
            "arguments": call.arguments,
        });
        query(INSERT_AUDIT_ENTRY)
            .bind(call.id.as_str())
            .bind(call.conversation_id.as_str())
            .bind(&call.source)
            .bind(&call.tool)
            .bind("step_up")
            .bind(used.by)
            .bind(used.channel.as_str())
            .bind(detail.to_string())
            .bind(to_millis(used.at))
            .execute(&mut tx)
            .await?;
        tx.commit().await?;
        Ok(())
    }

    async fn add_passkey_challenge(
        &self,
        challenge: &PasskeyChallenge,
        now: DateTime<Utc>,
    ) -> Result<(), StoreError> {
        let mut tx = self.begin().await?;
        query(DROP_LAPSED)
            .bind(to_millis(now))
            .execute(&mut tx)
            .await?;
        query(DROP_EXCESS)
            .bind(challenge.person_id.as_str())
            .execute(&mut tx)
            .await?;
        query(INSERT_CHALLENGE)
            .bind(challenge.id.as_str())
            .bind(challenge.person_id.as_str())
            .bind(challenge.purpose.as_str())
            .bind(challenge.challenge.as_str())
            .bind(to_millis(challenge.expires_at))
            .bind(to_millis(now))
            .execute(&mut tx)
            .await?;
        tx.commit().await?;
        Ok(())
    }

    async fn take_passkey_challenge(
        &self,
        id: &str,
        person: &PersonId,
    ) -> Result<Option<PasskeyChallenge>, StoreError> {
        let taken = query(TAKE_CHALLENGE)
            .bind(id)
            .bind(person.as_str())
            .fetch_optional(self.writer())
            .await?;
        taken
            .map(|row| {
                Ok(PasskeyChallenge {
                    id: row.try_get("challenge_id")?,
                    person_id: row_person(&row)?,
                    purpose: row.try_get("purpose")?,
                    challenge: row.try_get("challenge")?,
                    expires_at: from_millis(T, row.try_get("expires_at")?)?,
                })
            })
            .transpose()
    }
}
