//! Statements that repeat a rule or extend another statement spell it out
//! whole, so each reads on its own; these checks keep the copies the same.

use super::calls::OPEN_CALLS;
use super::decisions::DECIDE_CALL;
use super::leases::{
    ADVANCE_CALL, ADVANCE_CALL_IN_ONE, RUNS_TO_STEP, TAKE_LEASE, TAKE_LEASE_WITH_OPEN_CALLS,
};
use super::reviews::CLOSE_CASE;
use super::runs::{RELEASE_RUN, WAKE_RUN};
use crate::store::postgres::locks::{BATCH_CALLS_LOCKED, DUE_CALLS_LOCKED};
use crate::store::sqlite::one_writer::{BATCH_CALLS, DUE_CALLS};

/// `sql` with every run of whitespace one space.
fn flat(sql: &str) -> String {
    sql.split_whitespace().collect::<Vec<_>>().join(" ")
}

fn assert_contains(whole: &str, part: &str) {
    let (whole, part) = (flat(whole), flat(part));
    assert!(whole.contains(&part), "`{part}` is not in `{whole}`");
}

/// The one rule for whether a waiting run may go on: no call of `run` waits for a person.
fn nothing_waits(run: &str) -> String {
    format!(
        "not exists (select 1 from tool_calls t where t.run_id = {run} and t.status = 'pending_approval')"
    )
}

#[test]
fn every_statement_that_asks_whether_a_run_may_go_on_asks_the_same() {
    assert_contains(RELEASE_RUN, &nothing_waits("$4"));
    assert_contains(WAKE_RUN, &nothing_waits("$2"));
    assert_contains(RUNS_TO_STEP, &nothing_waits("r.run_id"));
}

#[test]
fn a_locked_statement_is_the_plain_one_with_its_lock() {
    assert_eq!(flat(BATCH_CALLS_LOCKED), flat(BATCH_CALLS) + " for update");
    assert_eq!(
        flat(DUE_CALLS_LOCKED),
        flat(DUE_CALLS) + " for update skip locked"
    );
}

#[test]
fn a_statement_in_one_round_trip_holds_the_statements_it_stands_for() {
    assert_contains(ADVANCE_CALL_IN_ONE, ADVANCE_CALL);
    assert_contains(TAKE_LEASE_WITH_OPEN_CALLS, TAKE_LEASE);
    // The open calls, and their order, as the run's open calls are read alone.
    let (open, order) = flat(OPEN_CALLS)
        .split_once(" and ")
        .and_then(|(_, rest)| rest.split_once(" order by "))
        .map(|(open, order)| (open.to_owned(), format!("order by {order}")))
        .expect("OPEN_CALLS has a condition and an order");
    assert_contains(TAKE_LEASE_WITH_OPEN_CALLS, &open);
    assert_contains(TAKE_LEASE_WITH_OPEN_CALLS, &order);
}

#[test]
fn a_decision_asks_whether_its_case_is_open_as_closing_the_case_does() {
    let open = "status in ('pending', 'opened', 'in_progress')";
    assert_contains(CLOSE_CASE, &format!("where tool_call_id = $5 and {open}"));
    assert_contains(
        DECIDE_CALL,
        &format!("c.tool_call_id = tool_calls.tool_call_id and c.{open}"),
    );
}
