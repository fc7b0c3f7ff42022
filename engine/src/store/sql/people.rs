//! [`PeopleStore`]: people and their sessions.

use async_trait::async_trait;
use chrono::{DateTime, Utc};

use super::decode::corrupt;
use super::{query, query_scalar, Backend, Row, SqlStore, Transaction};
use crate::domain::{Access, Person, PersonId, Session, SessionId};
use crate::store::{from_millis, to_millis, Credentials, PeopleStore, SignedIn, StoreError};

const INSERT_PERSON: &str = "insert into people
        (person_id, name, display_name, access, password_hash, disabled_at, created_at, oidc_subject,
         email)
     values ($1, $2, $3, $4, $5, $6, $7, $8, $9)";

const PERSON_BY_SUBJECT: &str = "select * from people where oidc_subject = $1";

const PERSON_BY_EMAIL: &str = "select * from people where email = $1";

const SET_EMAIL: &str = "update people set email = $1 where person_id = $2";

const PERSON: &str = "select * from people where person_id = $1";

const CREDENTIALS: &str = "select * from people where name = $1";

const PEOPLE: &str = "select * from people order by name";

const COUNT_PEOPLE: &str = "select count(*) from people";

const DISABLE_PERSON: &str = "update people set disabled_at = coalesce(disabled_at, $1)
     where person_id = $2 returning *";

const END_SESSIONS_OF: &str = "delete from sessions where person_id = $1";

const INSERT_SESSION: &str = "insert into sessions
        (token_hash, session_id, person_id, created_at, last_seen_at, expires_at)
     values ($1, $2, $3, $4, $5, $6)";

/// The session and its person, the person's columns as they are and the
/// session's renamed `session_…`.
const SESSION: &str = "select p.*, s.session_id, s.created_at as session_created_at,
        s.last_seen_at as session_last_seen_at, s.expires_at as session_expires_at
     from sessions s join people p on p.person_id = s.person_id
     where s.token_hash = $1";

const TOUCH_SESSION: &str = "update sessions set last_seen_at = $1 where session_id = $2";

const END_SESSION: &str = "delete from sessions where session_id = $1";

const SESSIONS_OF: &str = "select session_id, person_id, created_at as session_created_at,
        last_seen_at as session_last_seen_at, expires_at as session_expires_at
     from sessions where person_id = $1 order by last_seen_at desc";

pub(super) fn row_person(row: &Row) -> Result<Person, StoreError> {
    const T: &str = "people";
    let id: String = row.try_get("person_id")?;
    let access: String = row.try_get("access")?;
    let disabled: Option<i64> = row.try_get("disabled_at")?;
    Ok(Person {
        id: PersonId::parse(&id).map_err(|e| corrupt(T, e))?,
        name: row.try_get("name")?,
        display_name: row.try_get("display_name")?,
        access: Access::parse(&access).ok_or_else(|| corrupt(T, format!("access {access}")))?,
        email: row.try_get("email")?,
        disabled_at: disabled.map(|ms| from_millis(T, ms)).transpose()?,
        created_at: from_millis(T, row.try_get("created_at")?)?,
    })
}

fn row_session(row: &Row) -> Result<Session, StoreError> {
    const T: &str = "sessions";
    let id: String = row.try_get("session_id")?;
    let person: String = row.try_get("person_id")?;
    Ok(Session {
        id: SessionId::parse(&id).map_err(|e| corrupt(T, e))?,
        person_id: PersonId::parse(&person).map_err(|e| corrupt(T, e))?,
        created_at: from_millis(T, row.try_get("session_created_at")?)?,
        last_seen_at: from_millis(T, row.try_get("session_last_seen_at")?)?,
        expires_at: from_millis(T, row.try_get("session_expires_at")?)?,
    })
}

#[async_trait]
impl<B: Backend> PeopleStore for SqlStore<B> {
    async fn insert_person(
        &self,
        person: &Person,
        password_hash: Option<&str>,
        subject: Option<&str>,
    ) -> Result<(), StoreError> {
        query(INSERT_PERSON)
            .bind(person.id.as_str())
            .bind(&person.name)
            .bind(&person.display_name)
            .bind(person.access.as_str())
            .bind(password_hash)
            .bind(person.disabled_at.map(to_millis))
            .bind(to_millis(person.created_at))
            .bind(subject)
            .bind(person.email.as_deref())
            .execute(self.writer())
            .await
            .map_err(|e| e.duplicate_of("person"))?;
        Ok(())
    }

    async fn person(&self, id: &PersonId) -> Result<Option<Person>, StoreError> {
        let row = query(PERSON)
            .bind(id.as_str())
            .fetch_optional(self.reader())
            .await?;
        row.as_ref().map(row_person).transpose()
    }

    async fn person_by_subject(&self, subject: &str) -> Result<Option<Person>, StoreError> {
        let row = query(PERSON_BY_SUBJECT)
            .bind(subject)
            .fetch_optional(self.reader())
            .await?;
        row.as_ref().map(row_person).transpose()
    }

    async fn person_by_email(&self, email: &str) -> Result<Option<Person>, StoreError> {
        let row = query(PERSON_BY_EMAIL)
            .bind(email)
            .fetch_optional(self.reader())
            .await?;
        row.as_ref().map(row_person).transpose()
    }

    async fn set_email(&self, id: &PersonId, email: Option<&str>) -> Result<(), StoreError> {
        query(SET_EMAIL)
            .bind(email)
            .bind(id.as_str())
            .execute(self.writer())
            .await
            .map_err(|e| e.duplicate_of("email"))?;
        Ok(())
    }

    async fn credentials(&self, name: &str) -> Result<Option<Credentials>, StoreError> {
        let Some(row) = query(CREDENTIALS)
            .bind(name)
            .fetch_optional(self.reader())
            .await?
        else {
            return Ok(None);
        };
        Ok(Some(Credentials {
            person: row_person(&row)?,
            password_hash: row.try_get("password_hash")?,
        }))
    }

    async fn people(&self) -> Result<Vec<Person>, StoreError> {
        let rows = query(PEOPLE).fetch_all(self.reader()).await?;
        rows.iter().map(row_person).collect()
    }

    async fn count_people(&self) -> Result<i64, StoreError> {
        query_scalar(COUNT_PEOPLE).fetch_one(self.reader()).await
    }

    async fn disable_person(
        &self,
        id: &PersonId,
        at: DateTime<Utc>,
    ) -> Result<Option<Person>, StoreError> {
        let mut tx = self.begin().await?;
        let row = query(DISABLE_PERSON)
            .bind(to_millis(at))
            .bind(id.as_str())
            .fetch_optional(&mut tx)
            .await?;
        let Some(row) = row else {
            tx.rollback().await?;
            return Ok(None);
        };
        query(END_SESSIONS_OF)
            .bind(id.as_str())
            .execute(&mut tx)
            .await?;
        tx.commit().await?;
        row_person(&row).map(Some)
    }

    async fn insert_session(&self, token_hash: &str, session: &Session) -> Result<(), StoreError> {
        query(INSERT_SESSION)
            .bind(token_hash)
            .bind(session.id.as_str())
            .bind(session.person_id.as_str())
            .bind(to_millis(session.created_at))
            .bind(to_millis(session.last_seen_at))
            .bind(to_millis(session.expires_at))
            .execute(self.writer())
            .await?;
        Ok(())
    }

    async fn session(&self, token_hash: &str) -> Result<Option<SignedIn>, StoreError> {
        let row = query(SESSION)
            .bind(token_hash)
            .fetch_optional(self.reader())
            .await?;
        row.map(|row| {
            Ok(SignedIn {
                session: row_session(&row)?,
                person: row_person(&row)?,
            })
        })
        .transpose()
    }

    async fn touch_session(&self, id: &SessionId, at: DateTime<Utc>) -> Result<(), StoreError> {
        query(TOUCH_SESSION)
            .bind(to_millis(at))
            .bind(id.as_str())
            .execute(self.lax_writer())
            .await?;
        Ok(())
    }

    async fn end_session(&self, id: &SessionId) -> Result<bool, StoreError> {
        let ended = query(END_SESSION)
            .bind(id.as_str())
            .execute(self.writer())
            .await?;
        Ok(ended > 0)
    }

    async fn end_sessions_of(&self, person: &PersonId) -> Result<u64, StoreError> {
        query(END_SESSIONS_OF)
            .bind(person.as_str())
            .execute(self.writer())
            .await
    }

    async fn sessions_of(&self, person: &PersonId) -> Result<Vec<Session>, StoreError> {
        let rows = query(SESSIONS_OF)
            .bind(person.as_str())
            .fetch_all(self.reader())
            .await?;
        rows.iter().map(row_session).collect()
    }
}
