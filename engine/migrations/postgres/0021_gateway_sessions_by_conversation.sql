-- The conversation list marks an external agent's session, and can leave
-- them out: it looks its conversations up here.

create index gateway_sessions_by_conversation on gateway_sessions (conversation_id);
