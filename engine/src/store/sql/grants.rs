//! "Always allow" grants: made, revoked, and looked up by policy.

use async_trait::async_trait;
use chrono::{DateTime, Utc};

use super::calls::INSERT_AUDIT_ENTRY;
use super::decode::{corrupt, read_rule, row_grant};
use super::{query, query_scalar, Backend, SqlStore, Transaction};
use crate::domain::{ConversationId, Grant, GrantArguments, GrantId, GrantScope, PersonRef};
use crate::store::{from_millis, to_millis, GrantAudit, GrantStore, StoreError};

const INSERT_GRANT: &str =
    "insert into grants (grant_id, source, tool, conversation_id, created_by, created_at, created_by_id, expires_at, arguments_rule)
     values ($1, $2, $3, $4, $5, $6, $7, $8, $9)";

/// Revokes grant `$2` at `$1` by `$3` (id) and `$4` (name), unless it was
/// revoked before: then the first revocation stands, whoever made it.
const REVOKE_GRANT: &str = "update grants set
        revoked_at = coalesce(revoked_at, $1),
        revoked_by_id = case when revoked_at is null then $3 else revoked_by_id end,
        revoked_by = case when revoked_at is null then $4 else revoked_by end
     where grant_id = $2 returning revoked_at, source, tool, conversation_id";

const GRANTS: &str = "select * from grants order by created_at desc, grant_id desc";

/// The argument rules of the grants in force for a tool here; a null rule
/// covers every call.
const COVERING_GRANTS: &str =
    "select arguments_rule from grants where source = $1 and tool = $2 and revoked_at is null
     and (conversation_id is null or conversation_id = $3) and (expires_at is null or expires_at > $4)";

#[async_trait]
impl<B: Backend> GrantStore for SqlStore<B> {
    async fn insert_grant(&self, g: &Grant, audit: GrantAudit<'_>) -> Result<(), StoreError> {
        let conversation = match &g.scope {
            GrantScope::Conversation(c) => Some(c.as_str()),
            GrantScope::Global => None,
        };
        let mut tx = self.begin().await?;
        query(INSERT_GRANT)
            .bind(g.id.as_str())
            .bind(&g.source)
            .bind(&g.tool)
            .bind(conversation)
            .bind(&g.created_by)
            .bind(to_millis(g.created_at))
            .bind(g.created_by_id.as_ref().map(|p| p.as_str()))
            .bind(g.expires_at.map(to_millis))
            .bind(arguments_rule(&g.arguments)?)
            .execute(&mut tx)
            .await?;
        let detail = serde_json::to_string(g).map_err(|e| corrupt("grants", e))?;
        let entry = GrantEntry {
            source: &g.source,
            tool: &g.tool,
            conversation,
            action: "grant",
            detail,
            at: to_millis(g.created_at),
        };
        insert_entry(&mut tx, &entry, audit).await?;
        tx.commit().await
    }

    async fn revoke_grant(
        &self,
        id: &GrantId,
        at: DateTime<Utc>,
        by: Option<&PersonRef>,
        audit: GrantAudit<'_>,
    ) -> Result<Option<DateTime<Utc>>, StoreError> {
        let mut tx = self.begin().await?;
        let row = query(REVOKE_GRANT)
            .bind(to_millis(at))
            .bind(id.as_str())
            .bind(by.map(|p| p.id.as_str()))
            .bind(by.map(|p| p.name.as_str()))
            .fetch_optional(&mut tx)
            .await?;
        let Some(row) = row else {
            tx.rollback().await?;
            return Ok(None);
        };
        let revoked: i64 = row.try_get("revoked_at")?;
        // Revoked before: the first revocation has its entry already.
        if revoked == to_millis(at) {
            let source: String = row.try_get("source")?;
            let tool: String = row.try_get("tool")?;
            let conversation: Option<String> = row.try_get("conversation_id")?;
            let entry = GrantEntry {
                source: &source,
                tool: &tool,
                conversation: conversation.as_deref(),
                action: "revoke",
                detail: serde_json::json!({ "grant": id.as_str() }).to_string(),
                at: revoked,
            };
            insert_entry(&mut tx, &entry, audit).await?;
        }
        tx.commit().await?;
        Ok(Some(from_millis("grants", revoked)?))
    }

    async fn grants(&self) -> Result<Vec<Grant>, StoreError> {
        let found = query(GRANTS).fetch_all(self.reader()).await?;
        found.iter().map(row_grant).collect()
    }

    async fn covering_grants(
        &self,
        source: &str,
        tool: &str,
        conversation: &ConversationId,
        now: DateTime<Utc>,
    ) -> Result<Vec<GrantArguments>, StoreError> {
        let rules: Vec<Option<String>> = query_scalar(COVERING_GRANTS)
            .bind(source)
            .bind(tool)
            .bind(conversation.as_str())
            .bind(to_millis(now))
            .fetch_all(self.reader())
            .await?;
        rules
            .iter()
            .map(|rule| read_rule(rule.as_deref()))
            .collect()
    }
}

/// A grant's argument rule as stored: null for any arguments.
fn arguments_rule(rule: &GrantArguments) -> Result<Option<String>, StoreError> {
    match rule {
        GrantArguments::Any => Ok(None),
        other => serde_json::to_string(other)
            .map(Some)
            .map_err(|e| corrupt("grants", e)),
    }
}

/// The audit entry of a grant made or revoked.
struct GrantEntry<'a> {
    source: &'a str,
    tool: &'a str,
    conversation: Option<&'a str>,
    action: &'a str,
    detail: String,
    at: i64,
}

async fn insert_entry<T: Transaction>(
    tx: &mut T,
    entry: &GrantEntry<'_>,
    audit: GrantAudit<'_>,
) -> Result<(), StoreError> {
    query(INSERT_AUDIT_ENTRY)
        .bind(audit.call.map(|c| c.as_str()))
        .bind(entry.conversation)
        .bind(entry.source)
        .bind(entry.tool)
        .bind(entry.action)
        .bind(audit.actor)
        .bind(audit.channel)
        .bind(entry.detail.as_str())
        .bind(entry.at)
        .execute(tx)
        .await?;
    Ok(())
}
