//! The poll budget (HITL Protocol §13.5): at most 60 polls a minute per
//! case, counted in fixed one-minute windows in this process.

use std::collections::HashMap;
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// Polls allowed per case and minute.
pub const PER_MINUTE: u32 = 60;

const WINDOW: Duration = Duration::from_secs(60);

/// Past this many tracked cases, finished windows are swept out.
const SWEEP_AT: usize = 10_000;

/// Counts polls per case.
#[derive(Debug, Default)]
pub struct PollLimiter {
    windows: Mutex<HashMap<String, (Instant, u32)>>,
}

impl PollLimiter {
    /// Counts a poll of `case`: `Ok(remaining)`, or `Err(seconds to wait)`.
    pub fn check(&self, case: &str, now: Instant) -> Result<u32, u64> {
        let mut windows = self.windows.lock().unwrap_or_else(|p| p.into_inner());
        if windows.len() >= SWEEP_AT {
            windows.retain(|_, (start, _)| now.duration_since(*start) < WINDOW);
        }
        let entry = windows.entry(case.to_owned()).or_insert((now, 0));
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
}
