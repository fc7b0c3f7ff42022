//! Statements that repeat a rule or extend another statement spell it out
//! whole, so each reads on its own; these checks keep the copies the same.

use super::calls::{ADVANCE_CALL, ADVANCE_CALL_IN_ONE, OPEN_CALLS};
use super::decide::{DECIDE_CALL, DECIDE_CALL_LOCKING_ITS_RUN, RECORD_DECISION};
use super::decisions::{BATCH_CALLS, BATCH_CALLS_LOCKED, DUE_CALLS, DUE_CALLS_LOCKED};
use super::leases::{RUNS_TO_STEP, TAKE_LEASE, TAKE_LEASE_WITH_OPEN_CALLS};
use super::reviews::CLOSE_CASE;
use super::runs::{RELEASE_RUN, WAKE_RUN};

/// `sql` with every run of whitespace one space.
fn flat(sql: &str) -> String {
    sql.split_whitespace().collect::<Vec<_>>().join(" ")
}

fn assert_contains(whole: &str, part: &str) {
    let (whole, part) = (flat(whole), flat(part));
    assert!(whole.contains(&part), "`{part}` is not in `{whole}`");
}

/// `sql` with its parameters `$n` replaced as `names` says, all at once.
fn renamed(sql: &str, names: &[(&str, &str)]) -> String {
    let mut out = String::new();
    let mut rest = sql;
    while let Some(at) = rest.find('$') {
        out.push_str(&rest[..at]);
        let digits = rest[at + 1..]
            .chars()
            .take_while(char::is_ascii_digit)
            .count();
        let param = &rest[at..at + 1 + digits];
        let name = names.iter().find(|(from, _)| *from == param);
        out.push_str(name.map_or(param, |(_, to)| to));
        rest = &rest[at + 1 + digits..];
    }
    out.push_str(rest);
    out
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
    assert_contains(RECORD_DECISION, &nothing_waits("$15"));
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
    assert_contains(DECIDE_CALL_LOCKING_ITS_RUN, DECIDE_CALL);
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
fn a_decision_closes_its_case_as_the_case_is_closed_alone() {
    let question_or_call =
        "(case when (select source = $11 and tool = $12 from changed) then $21 else $16 end)";
    let closing = renamed(
        CLOSE_CASE,
        &[
            ("$1", "$15"),
            ("$2", question_or_call),
            ("$3", "$17"),
            ("$4", "$18"),
            ("$5", "(select tool_call_id from changed where $20)"),
            ("$6", "$19"),
            ("$7", "$13"),
            ("$8", "$22"),
        ],
    );
    assert_contains(DECIDE_CALL_LOCKING_ITS_RUN, &closing);
}

#[test]
fn renaming_replaces_whole_parameters_at_once() {
    assert_eq!(
        renamed("$1 $12 $2", &[("$1", "$2"), ("$2", "x")]),
        "$2 $12 x"
    );
}
