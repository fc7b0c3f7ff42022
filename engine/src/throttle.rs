//! Holding back whoever keeps failing: at most `limit` failures per key in a
//! window that starts at the first of them; after that the key waits until
//! the window ends. Kept in memory: a restart forgets it, which costs an
//! attacker a restart of ours, not a way around it.

use std::collections::HashMap;
use std::sync::Mutex;

use chrono::{DateTime, Duration, Utc};

/// Keys remembered at most; past this, windows that ended are forgotten
/// first, then the oldest, so a flood of names cannot grow memory.
const MAX_KEYS: usize = 10_000;

/// Failures per key, in windows.
#[derive(Debug)]
pub struct Throttle {
    limit: u32,
    window: Duration,
    windows: Mutex<HashMap<String, Window>>,
}

#[derive(Debug, Clone, Copy)]
struct Window {
    started: DateTime<Utc>,
    failures: u32,
}

impl Throttle {
    /// At most `limit` failures per key within `window`.
    pub fn new(limit: u32, window: Duration) -> Self {
        Self {
            limit,
            window,
            windows: Mutex::new(HashMap::new()),
        }
    }

    /// When `key` may try again, if it is held back at `now`.
    pub fn held_until(&self, key: &str, now: DateTime<Utc>) -> Option<DateTime<Utc>> {
        let windows = self.windows.lock().unwrap_or_else(|e| e.into_inner());
        let window = windows.get(key)?;
        let ends = window.started + self.window;
        (window.failures >= self.limit && now < ends).then_some(ends)
    }

    /// Counts a failure of `key` at `now`.
    pub fn failed(&self, key: &str, now: DateTime<Utc>) {
        let mut windows = self.windows.lock().unwrap_or_else(|e| e.into_inner());
        if windows.len() >= MAX_KEYS && !windows.contains_key(key) {
            windows.retain(|_, w| now < w.started + self.window);
            if windows.len() >= MAX_KEYS {
                let oldest = windows
                    .iter()
                    .min_by_key(|(_, w)| w.started)
                    .map(|(k, _)| k.clone());
                if let Some(oldest) = oldest {
                    windows.remove(&oldest);
                }
            }
        }
        let window = windows.entry(key.to_owned()).or_insert(Window {
            started: now,
            failures: 0,
        });
        if now >= window.started + self.window {
            *window = Window {
                started: now,
                failures: 0,
            };
        }
        window.failures += 1;
    }

    /// Forgets `key`'s failures (it succeeded).
    pub fn clear(&self, key: &str) {
        let mut windows = self.windows.lock().unwrap_or_else(|e| e.into_inner());
        windows.remove(key);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_key_is_held_after_its_limit_until_its_window_ends() {
        let throttle = Throttle::new(3, Duration::minutes(15));
        let start = Utc::now();
        for i in 0..3 {
            assert_eq!(
                throttle.held_until("ana", start),
                None,
                "after {i} failures"
            );
            throttle.failed("ana", start + Duration::minutes(i));
        }
        let ends = start + Duration::minutes(15);
        assert_eq!(
            throttle.held_until("ana", start + Duration::minutes(5)),
            Some(ends)
        );
        assert_eq!(throttle.held_until("bo", start), None, "other keys go on");
        assert_eq!(throttle.held_until("ana", ends), None, "the window ended");
        throttle.failed("ana", ends);
        assert_eq!(throttle.held_until("ana", ends), None, "a new window began");
    }

    #[test]
    fn success_clears_a_key() {
        let throttle = Throttle::new(1, Duration::minutes(15));
        let now = Utc::now();
        throttle.failed("ana", now);
        assert!(throttle.held_until("ana", now).is_some());
        throttle.clear("ana");
        assert_eq!(throttle.held_until("ana", now), None);
    }

    #[test]
    fn memory_stays_bounded_however_many_keys_fail() {
        let throttle = Throttle::new(1, Duration::minutes(15));
        let now = Utc::now();
        for i in 0..(MAX_KEYS + 50) {
            throttle.failed(&format!("name{i}"), now + Duration::milliseconds(i as i64));
        }
        let kept = throttle.windows.lock().unwrap().len();
        assert!(kept <= MAX_KEYS, "{kept}");
        assert!(throttle
            .held_until(&format!("name{}", MAX_KEYS + 49), now)
            .is_some());
    }
}
