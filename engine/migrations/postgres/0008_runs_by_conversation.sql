-- A conversation's active run, found without reading every run.
--
-- Each post to a conversation, and each step of its agent, asks for the
-- conversation's latest running or waiting run. Without this index that was
-- a scan of the whole runs table: measured on the decide benchmark, the
-- costliest query after event appends once a few thousand runs existed.

create index runs_by_conversation on runs (conversation_id, created_at);
