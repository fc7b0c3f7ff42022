//! The poll budget (HITL Protocol §13.5): at most 60 polls a minute per
//! case, counted in fixed one-minute windows in this process.

use std::collections::HashMap;
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// Polls allowed per case and minute.
pub const PER_MINUTE: u32 = 60;

const WINDOW: Duration = Duration::from_secs(60);

/// Fewer tracked cases than this are never swept.
const SWEEP_AT: usize = 10_000;

/// Counts polls per case.
#[derive(Debug, Default)]
pub struct PollLimiter {
    state: Mutex<Windows>,
}

#[derive(Debug, Default)]
struct Windows {
    by_case: HashMap<String, (Instant, u32)>,
    /// How many cases the last sweep kept. The next sweep waits until there
    /// are twice as many: a sweep walks every case under the lock, and when
    /// more than `SWEEP_AT` cases are polled within a minute (a few seconds
    /// of a busy gateway) it would keep them all, and would otherwise walk
    /// them again at every poll.
    kept: usize,
}

impl PollLimiter {
    /// Counts a poll of `case`: `Ok(remaining)`, or `Err(seconds to wait)`.
    pub fn check(&self, case: &str, now: Instant) -> Result<u32, u64> {
        let mut state = self.state.lock().unwrap_or_else(|p| p.into_inner());
        let Windows { by_case, kept } = &mut *state;
        if by_case.len() >= SWEEP_AT.max(2 * *kept) {
            by_case.retain(|_, (start, _)| now.duration_since(*start) < WINDOW);
            *kept = by_case.len();
        }
        // A case seen before is found without copying its id.
        let entry = match by_case.get_mut(case) {
            Some(entry) => entry,
            None => by_case.entry(case.to_owned()).or_insert((now, 0)),
        };
        if now.duration_since(entry.0) >= WINDOW {
            *entry = (now, 0);
        }
        if entry.1 >= PER_MINUTE {
            let left = WINDOW.saturating_sub(now.duration_since(entry.0));
            return Err(left.as_secs().max(1));
        }
        entry.1 += 1;
        Ok(PER_MINUTE - entry.1)
    }

    /// How many cases are tracked.
    #[cfg(test)]
    fn tracked(&self) -> usize {
        self.state.lock().unwrap().by_case.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sixty_polls_a_minute_then_wait_for_the_window() {
        let limiter = PollLimiter::default();
        let start = Instant::now();
        for i in 0..PER_MINUTE {
            assert_eq!(limiter.check("a", start), Ok(PER_MINUTE - i - 1));
        }
        assert_eq!(limiter.check("a", start + Duration::from_secs(20)), Err(40));
        // Other cases have their own budget.
        assert!(limiter.check("b", start).is_ok());
        assert!(limiter.check("a", start + WINDOW).is_ok());
    }

    #[test]
    fn finished_windows_are_swept_once_the_cases_have_doubled() {
        let limiter = PollLimiter::default();
        let start = Instant::now();
        // More cases than `SWEEP_AT` in one minute: a sweep keeps them all.
        for i in 0..=SWEEP_AT {
            limiter.check(&format!("old {i}"), start).unwrap();
        }
        assert_eq!(limiter.tracked(), SWEEP_AT + 1);
        // Their windows end; no sweep until the count doubles…
        let later = start + WINDOW;
        for i in 0..SWEEP_AT - 1 {
            limiter.check(&format!("new {i}"), later).unwrap();
        }
        assert_eq!(limiter.tracked(), 2 * SWEEP_AT);
        // …and then the finished ones go, and budgets still count.
        limiter.check("new last", later).unwrap();
        assert_eq!(limiter.tracked(), SWEEP_AT);
        assert_eq!(limiter.check("new 0", later), Ok(PER_MINUTE - 2));
        assert_eq!(limiter.check("old 0", later), Ok(PER_MINUTE - 1));
    }
}
