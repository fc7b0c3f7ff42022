-- Notices of waiting calls on notification channels (`notify:`):
-- written with the call's review case, in its transaction, and delivered
-- after commit, so none is lost to a crash between the two; one per case,
-- channel and kind, whichever process delivers it.
create table notice_outbox (
    notice_id bigserial primary key,
    case_id text not null references review_cases (case_id),
    channel text not null,
    -- `waiting`: the call waits for a person
    kind text not null,
    attempts bigint not null default 0,
    next_attempt_at bigint not null,
    delivered_at bigint,
    failed_at bigint,
    last_error text,
    unique (case_id, channel, kind)
);

create index notice_outbox_due on notice_outbox (next_attempt_at)
    where delivered_at is null and failed_at is null;
