//! [`ApiTokenStore`]: personal API tokens, found by their hash with their person.

use async_trait::async_trait;
use chrono::{DateTime, Utc};

use super::decode::corrupt;
use super::people::row_person;
use super::{query, Backend, Row, SqlStore};
use crate::domain::{ApiToken, ApiTokenId, PersonId};
use crate::store::{from_millis, to_millis, ApiTokenStore, StoreError, TokenHolder};

const INSERT_TOKEN: &str = "insert into api_tokens
        (token_hash, token_id, person_id, label, created_at, last_used_at)
     values ($1, $2, $3, $4, $5, null)";

/// The token and its person, the person's columns as they are and the
/// token's renamed `token_…`.
const TOKEN: &str =
    "select p.*, t.token_id, t.person_id as token_person_id, t.label as token_label,
        t.created_at as token_created_at, t.last_used_at as token_last_used_at
     from api_tokens t join people p on p.person_id = t.person_id
     where t.token_hash = $1";

const TOUCH_TOKEN: &str = "update api_tokens set last_used_at = $1 where token_id = $2";

const TOKENS_OF: &str = "select token_id, person_id as token_person_id, label as token_label,
        created_at as token_created_at, last_used_at as token_last_used_at
     from api_tokens where person_id = $1 order by created_at desc";

const DELETE_TOKEN: &str = "delete from api_tokens where token_id = $1 and person_id = $2";

fn row_token(row: &Row) -> Result<ApiToken, StoreError> {
    const T: &str = "api_tokens";
    let id: String = row.try_get("token_id")?;
    let person: String = row.try_get("token_person_id")?;
    let used: Option<i64> = row.try_get("token_last_used_at")?;
    Ok(ApiToken {
        id: ApiTokenId::parse(&id).map_err(|e| corrupt(T, e))?,
        person_id: PersonId::parse(&person).map_err(|e| corrupt(T, e))?,
        label: row.try_get("token_label")?,
        created_at: from_millis(T, row.try_get("token_created_at")?)?,
        last_used_at: used.map(|ms| from_millis(T, ms)).transpose()?,
    })
}

#[async_trait]
impl<B: Backend> ApiTokenStore for SqlStore<B> {
    async fn insert_api_token(&self, token_hash: &str, token: &ApiToken) -> Result<(), StoreError> {
        query(INSERT_TOKEN)
            .bind(token_hash)
            .bind(token.id.as_str())
            .bind(token.person_id.as_str())
            .bind(&token.label)
            .bind(to_millis(token.created_at))
            .execute(self.writer())
            .await?;
        Ok(())
    }

    async fn api_token(&self, token_hash: &str) -> Result<Option<TokenHolder>, StoreError> {
        let row = query(TOKEN)
            .bind(token_hash)
            .fetch_optional(self.reader())
            .await?;
        row.map(|row| {
            Ok(TokenHolder {
                token: row_token(&row)?,
                person: row_person(&row)?,
            })
        })
        .transpose()
    }

    async fn touch_api_token(&self, id: &ApiTokenId, at: DateTime<Utc>) -> Result<(), StoreError> {
        query(TOUCH_TOKEN)
            .bind(to_millis(at))
            .bind(id.as_str())
            .execute(self.lax_writer())
            .await?;
        Ok(())
    }

    async fn api_tokens_of(&self, person: &PersonId) -> Result<Vec<ApiToken>, StoreError> {
        let rows = query(TOKENS_OF)
            .bind(person.as_str())
            .fetch_all(self.reader())
            .await?;
        rows.iter().map(row_token).collect()
    }

    async fn delete_api_token(
        &self,
        id: &ApiTokenId,
        person: &PersonId,
    ) -> Result<bool, StoreError> {
        let deleted = query(DELETE_TOKEN)
            .bind(id.as_str())
            .bind(person.as_str())
            .execute(self.writer())
            .await?;
        Ok(deleted > 0)
    }
}
